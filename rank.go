package chitta

import (
	"cmp"
	"iter"
)

// rankItem is a candidate of the relevance reserve: its similarity to the
// query, its last message (the tie-break: later first) and its index among
// the candidates.
type rankItem struct {
	sim  float64
	last int
	k    int
}

// before reports whether a goes before b: more similar first (NaN last, as
// cmp.Compare orders it), then the later one.
func (a rankItem) before(b rankItem) bool {
	c := cmp.Compare(a.sim, b.sim)
	return c > 0 || c == 0 && a.last > b.last
}

// byRank yields the items of s in the order of before (a strict total
// order when no two items share last), as a sort would leave them, but
// sorting lazily: a binary heap is built in O(n) and each item costs
// O(log n) only when it is reached, so a caller that stops early pays for
// the prefix it used, not for a full sort. It reorders s.
func byRank(s []rankItem) iter.Seq[rankItem] {
	return func(yield func(rankItem) bool) {
		for i := len(s)/2 - 1; i >= 0; i-- {
			siftDown(s, i)
		}
		for n := len(s); n > 0; n-- {
			top := s[0]
			s[0] = s[n-1]
			siftDown(s[:n-1], 0)
			if !yield(top) {
				return
			}
		}
	}
}

// siftDown moves s[i] down the heap s (s[0] first in the order of before)
// until it is in order with its children.
func siftDown(s []rankItem, i int) {
	for {
		c := 2*i + 1
		if c >= len(s) {
			return
		}
		if r := c + 1; r < len(s) && s[r].before(s[c]) {
			c = r
		}
		if !s[c].before(s[i]) {
			return
		}
		s[i], s[c] = s[c], s[i]
		i = c
	}
}
