package chitta

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestKeepBestTopK: keepBest's heap holds, after any sequence of offers,
// exactly the top k of what was offered by better (more similar, then
// smaller ID; similarities drawn from few values, so that ties are many),
// and rerank's final sort orders them as a full sort would.
func TestKeepBestTopK(t *testing.T) {
	t.Parallel()
	const n = 120
	s, err := NewHNSWStore(2, nil)
	require.NoError(t, err)
	for i := range n {
		require.NoError(t, s.Add(t.Context(), Memory{ID: fmt.Sprintf("m%03d", n-i), Text: "t", Vector: []float32{1, float32(i)}}))
	}
	require.Len(t, s.recs, n)
	order := func(a, b scored) int {
		if s.better(a, b) {
			return -1
		}
		if s.better(b, a) {
			return 1
		}
		return 0
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		k := 1 + r.IntN(n)
		offered := make([]scored, r.IntN(n+1))
		for i, slot := range r.Perm(n)[:len(offered)] {
			offered[i] = scored{slot: int32(slot), sim: float64(r.IntN(6)) / 6}
		}
		heap := []scored{}
		for _, x := range offered {
			heap = s.keepBest(heap, x, k)
			require.LessOrEqual(t, len(heap), k)
			for i := 1; i < len(heap); i++ {
				require.False(t, s.better(heap[(i-1)/2], heap[i]), "heap order: the worst at the root")
			}
		}
		want := slices.Clone(offered)
		slices.SortFunc(want, order)
		want = want[:min(k, len(want))]
		slices.SortFunc(heap, order)
		require.Equal(t, want, heap, "k %d of %d offered", k, len(offered))
	}
}
