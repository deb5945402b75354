package chitta

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// compareRank is the order byRank must follow, as the sort the reserve
// used before it: higher similarity first (NaN last), then later.
func compareRank(a, b rankItem) int {
	return cmp.Or(cmp.Compare(b.sim, a.sim), cmp.Compare(b.last, a.last))
}

func TestByRankMatchesSort(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(15, 3))
	for round := range 500 {
		s := make([]rankItem, r.IntN(70))
		for i := range s {
			s[i] = rankItem{sim: float64(r.IntN(8)) / 8, last: i, k: i} // many equal similarities: last decides
			switch r.IntN(20) {
			case 0:
				s[i].sim = math.NaN()
			case 1:
				s[i].sim = math.Inf(-1)
			}
		}
		r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
		want := slices.Clone(s)
		slices.SortFunc(want, compareRank)
		var got []rankItem
		for x := range byRank(s) {
			got = append(got, x)
		}
		require.Len(t, got, len(want), "round %d", round)
		for i := range want { // NaN != NaN: compare the indices
			require.Equal(t, want[i].k, got[i].k, "round %d, rank %d", round, i)
		}
	}
}

func TestByRankStopsEarly(t *testing.T) {
	t.Parallel()
	s := []rankItem{{0.2, 0, 0}, {0.9, 1, 1}, {0.5, 2, 2}, {0.9, 3, 3}, {0.1, 4, 4}}
	var got []int
	for x := range byRank(s) {
		got = append(got, x.k)
		if len(got) == 3 {
			break
		}
	}
	assert.Equal(t, []int{3, 1, 2}, got)
	for range byRank(nil) {
		t.Fatal("an empty slice yields nothing")
	}
}
