package retention

import (
	"math/rand/v2"
	"testing"

	"github.com/chitta-go/chitta"
)

// BenchmarkSelect compacts a 600-message tool conversation at ratio 0.3
// with each method, the chitta ones against 300 memories in an HNSWStore
// (the size of a LoCoMo observation store); recency and random are the
// baselines of the family. The embedding cache is warm, as in the
// retention program.
func BenchmarkSelect(b *testing.B) {
	msgs := toolConversation(rand.New(rand.NewPCG(1, 1)), 600)
	emb := chitta.NewCachedEmbedder(chitta.NewHashEmbedder(0), 4096)
	env := Env{Embedder: emb}
	e := &Evaluator{Env: env, NewStore: func(dims int) (chitta.MemoryStore, error) { return chitta.NewHNSWStore(dims, nil) }}
	var facts []string
	for _, m := range toolConversation(rand.New(rand.NewPCG(2, 2)), 300) {
		facts = append(facts, m.Content)
	}
	store, err := e.memoryStore(b.Context(), "bench", facts)
	if err != nil {
		b.Fatal(err)
	}
	task := Task{Messages: msgs, Query: "refund the cancelled flight", Ratio: 0.3, Store: store}
	for _, m := range []Method{Recency{}, Random{Seed: 1}, Chitta{NoMemory: true, Label: "chitta-nomem"}, Chitta{}, Chitta{Label: "chitta-norm", Rescale: true}} {
		b.Run("method="+m.Name(), func(b *testing.B) {
			ctx := b.Context()
			if _, err := m.Select(ctx, env, task, 0); err != nil { // warm the cache
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Select(ctx, env, task, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
