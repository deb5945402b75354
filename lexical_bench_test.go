package chitta_test

import (
	"fmt"
	"testing"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/internal/testkit/benchcpu"
)

// BenchmarkCompactReserve compares the relevance-reserve preset
// (RelevanceReserve 0.5, Lexical 0.3) with the default formula, both with a
// warm CachedEmbedder around the HashEmbedder: the steady state of an agent
// re-compacting its conversation, where the vectors and the lexical pass of
// every turn are cached. "default" is the baseline; "store=300" adds a
// memory store of 300 memories (coverage), as an agent with memory runs.
// benchConversation draws every turn from a 26-word vocabulary, so every
// turn shares most features with the query: a worst case for the lexical
// pass. Each reports its CPU time per compaction ("cpu-ns/op") beside the
// wall clock.
func BenchmarkCompactReserve(b *testing.B) {
	for _, n := range []int{60, 1000} {
		msgs := benchConversation(n)
		emb := chitta.NewCachedEmbedder(chitta.NewHashEmbedder(0), 2*n)
		store, err := chitta.NewHNSWStore(chitta.DefaultHashDimensions, nil)
		if err != nil {
			b.Fatal(err)
		}
		mems := benchConversation(300)
		vecs, err := emb.Embed(b.Context(), contents(mems))
		if err != nil {
			b.Fatal(err)
		}
		for i, v := range vecs {
			if err := store.Add(b.Context(), chitta.Memory{ID: fmt.Sprint(i), Text: mems[i].Content, Vector: v, Kind: chitta.KindFact}); err != nil {
				b.Fatal(err)
			}
		}
		for _, tc := range []struct {
			name           string
			store          chitta.MemoryStore
			reserve, lexic float64
		}{{"store=0/default", nil, 0, 0}, {"store=0/reserve", nil, 0.5, 0.3}, {"store=300/default", store, 0, 0}, {"store=300/reserve", store, 0.5, 0.3}} {
			opts := &chitta.Options{Query: "why did parseConfig fail", TargetRatio: 0.3, Embedder: emb, RelevanceReserve: tc.reserve, Lexical: tc.lexic}
			if tc.store != nil {
				opts.Store = tc.store
			}
			b.Run(fmt.Sprintf("msgs=%d/%s", n, tc.name), func(b *testing.B) {
				b.ReportAllocs()
				ctx := b.Context()
				if _, err := chitta.Compact(ctx, msgs, opts); err != nil { // warm both caches
					b.Fatal(err)
				}
				defer benchcpu.Start(b)()
				for b.Loop() {
					if _, err := chitta.Compact(ctx, msgs, opts); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func contents(msgs []chitta.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Content
	}
	return out
}
