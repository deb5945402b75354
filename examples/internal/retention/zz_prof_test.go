package retention

import (
	"context"
	"os"
	"testing"

	"github.com/chitta-go/chitta"
)

func BenchmarkZZLoop(b *testing.B) {
	data := os.Getenv("ZZDATA")
	side := os.Getenv("ZZSIDE") == "on"
	prefixes, queries, runs, budgets := maskBenchCuts(b, data)
	type loopSide struct {
		emb    *chitta.CachedEmbedder
		tokens *chitta.CachedTokenCounter
		mask   *chitta.MaskCache
	}
	loop := map[int]loopSide{}
	opts := func(k int) chitta.Options {
		s, ok := loop[runs[k]]
		if !ok {
			s = loopSide{chitta.NewCachedEmbedder(chitta.NewHashEmbedder(0), 0), chitta.NewCachedTokenCounter(nil, 0), chitta.NewMaskCache()}
			loop[runs[k]] = s
		}
		o := chitta.Options{Embedder: s.emb, Tokens: s.tokens}
		if side {
			o.Mask = &chitta.MaskOptions{Cache: s.mask}
		}
		o.Query, o.TargetRatio, o.MaxTokens = queries[k], 0.3, budgets[k]
		return o
	}
	ctx := context.Background()
	for k := range prefixes {
		o := opts(k)
		chitta.Compact(ctx, prefixes[k], &o)
	}
	for b.Loop() {
		for k := range prefixes {
			o := opts(k)
			if _, err := chitta.Compact(ctx, prefixes[k], &o); err != nil {
				b.Fatal(err)
			}
		}
	}
}
