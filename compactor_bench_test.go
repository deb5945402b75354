package chitta_test

import (
	"testing"

	"github.com/chitta-go/chitta"
)

// BenchmarkCompactor measures an agent loop's per-call cost on a
// 1 000-message conversation with the cached HashEmbedder (warm).
// "compactor-append" is a Compactor call between compactions: the
// conversation grew by one message since the previous call and everything
// fits, so the whole conversation is compared with the previous one and
// the result (all ~1 000 messages: the worst case) is copied; every 256
// calls the history is cut back to 1 000 messages, which starts afresh
// (counted in). "compact-every-call" is the baseline: Compact on the same
// conversation at half its tokens, as a loop that compacts before every
// call pays.
func BenchmarkCompactor(b *testing.B) {
	const n, extra = 1000, 256
	msgs := benchConversation(n + extra)
	emb := chitta.NewCachedEmbedder(chitta.NewHashEmbedder(0), 0)
	tokens := chitta.NewCachedTokenCounter(nil, 0)
	total := 0
	for _, m := range msgs {
		total += tokens.CountTokens(m.Content)
	}
	opts := &chitta.Options{Query: "why did parseConfig fail", Embedder: emb, Tokens: tokens}
	if _, err := chitta.Compact(b.Context(), msgs, opts); err != nil { // warm the caches
		b.Fatal(err)
	}
	b.Run("msgs=1000/compactor-append", func(b *testing.B) {
		b.ReportAllocs()
		ctx := b.Context()
		c, err := chitta.NewCompactor(opts, chitta.Policy{MaxTokens: 2 * total})
		if err != nil {
			b.Fatal(err)
		}
		i := 0
		for b.Loop() {
			res, err := c.Compact(ctx, msgs[:n+i%extra])
			if err != nil {
				b.Fatal(err)
			}
			if res.Stats.Compacted {
				b.Fatal("compacted: the benchmark measures the calls between compactions")
			}
			i++
		}
	})
	b.Run("msgs=1000/compact-every-call", func(b *testing.B) {
		b.ReportAllocs()
		ctx := b.Context()
		o := *opts
		o.TargetRatio = 0.5
		for b.Loop() {
			if _, err := chitta.Compact(ctx, msgs[:n], &o); err != nil {
				b.Fatal(err)
			}
		}
	})
}
