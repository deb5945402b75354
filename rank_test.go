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

// ranked is a record ordered like the reserve's candidates: higher value
// first (NaN last, as cmp.Compare puts it), then higher id.
type ranked struct {
	v  float64
	id int
}

func compareRanked(a, b ranked) int {
	return cmp.Or(cmp.Compare(b.v, a.v), cmp.Compare(b.id, a.id))
}

func TestByRankMatchesSort(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(15, 3))
	for round := range 500 {
		s := make([]ranked, r.IntN(70))
		for i := range s {
			s[i] = ranked{v: float64(r.IntN(8)) / 8, id: i} // many equal values: the id decides
			if r.IntN(20) == 0 {
				s[i].v = math.NaN()
			}
		}
		r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
		want := slices.Clone(s)
		slices.SortFunc(want, compareRanked)
		var got []ranked
		for x := range byRank(s, compareRanked) {
			got = append(got, x)
		}
		require.Len(t, got, len(want), "round %d", round)
		for i := range want { // NaN != NaN: compare the ids
			require.Equal(t, want[i].id, got[i].id, "round %d, rank %d", round, i)
		}
	}
}

func TestByRankStopsEarly(t *testing.T) {
	t.Parallel()
	s := []ranked{{0.2, 0}, {0.9, 1}, {0.5, 2}, {0.9, 3}, {0.1, 4}}
	var got []int
	for x := range byRank(s, compareRanked) {
		got = append(got, x.id)
		if len(got) == 3 {
			break
		}
	}
	assert.Equal(t, []int{3, 1, 2}, got)
	for range byRank([]ranked{}, compareRanked) {
		t.Fatal("an empty slice yields nothing")
	}
}
