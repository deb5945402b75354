package chitta

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// A hashSet holds what a map holds through random adds and removes,
// with hashes drawn from a small range (long probe runs that wrap around
// the slots) and 0 among them, and after a reset.
func TestHashSet(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	var s hashSet
	for round := range 40 {
		want := map[uint64]bool{}
		for range 3000 {
			h := r.Uint64N(200)
			if round%2 == 1 {
				h = r.Uint64() // well spread
			}
			switch r.IntN(4) {
			case 0:
				h <<= 20 // the same low bits: home in the first slot
			case 1:
				h = h<<20 | 1<<20 - 1 // home in the last slot: runs wrap around
			}
			if r.IntN(3) == 0 {
				s.remove(h)
				delete(want, h)
			} else {
				require.Equal(t, !want[h], s.add(h))
				want[h] = true
			}
			if r.IntN(50) == 0 {
				for k := range 200 {
					require.Equal(t, want[uint64(k)], s.has(uint64(k)), "round %d, %d", round, k)
					require.Equal(t, want[uint64(k)<<20], s.has(uint64(k)<<20), "round %d, %d<<20", round, k)
					require.Equal(t, want[uint64(k)<<20|1<<20-1], s.has(uint64(k)<<20|1<<20-1), "round %d, last %d", round, k)
				}
			}
		}
		n := 0
		for h := range want {
			require.True(t, s.has(h))
			if h != 0 {
				n++
			}
		}
		require.Equal(t, n, s.n)
		s.reset()
		for h := range want {
			require.False(t, s.has(h))
		}
	}
}
