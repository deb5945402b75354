package chitta

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// foldHashes tells apart the value lists a form of one message may list:
// every subsequence (a copy without the values already shown) and every
// reordering of random lists of up to 10 hashes, the empty list included,
// gets its own fold.
func TestFoldHashes(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	for n := range 11 {
		hs := make([]uint64, n)
		for k := range hs {
			hs[k] = r.Uint64()
		}
		seen := map[uint64][]uint64{}
		add := func(sub []uint64) {
			f := foldHashes(sub)
			if prev, ok := seen[f]; ok {
				require.True(t, slices.Equal(prev, sub), "%x and %x share fold %x", prev, sub, f)
			}
			seen[f] = slices.Clone(sub)
		}
		for mask := range 1 << n { // every subsequence
			var sub []uint64
			for k, h := range hs {
				if mask&(1<<k) != 0 {
					sub = append(sub, h)
				}
			}
			add(sub)
		}
		for range 200 { // reorderings
			sub := slices.Clone(hs)
			r.Shuffle(len(sub), func(a, b int) { sub[a], sub[b] = sub[b], sub[a] })
			add(sub)
		}
	}
}
