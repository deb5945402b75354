package brief

import (
	"testing"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/claudecode"
)

// BenchmarkBrief times the hook's work on a generated 60-turn window with
// the default embedder and an empty store: Compact alone (the baseline, what
// the hook did before it printed a brief) and Run (Compact + the brief).
func BenchmarkBrief(b *testing.B) {
	turns := window(b, 15)
	if len(turns) != 60 {
		b.Fatalf("%d turns", len(turns))
	}
	emb := chitta.NewHashEmbedder(0)
	b.Run("compact", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			store, _ := chitta.NewHNSWStore(emb.Dimensions(), nil)
			if _, err := chitta.Compact(b.Context(), claudecode.Messages(turns), &chitta.Options{TargetRatio: TargetRatio, Embedder: emb, Store: store}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("compact+brief", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			store, _ := chitta.NewHNSWStore(emb.Dimensions(), nil)
			if _, err := Run(b.Context(), turns, emb, store, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
