package chitta

import "iter"

// byRank yields the elements of s in the order of cmp, which must be a
// strict total order (no two elements compare equal), as slices.SortFunc
// would leave them, but sorting lazily: a binary heap is built in O(n) and
// each element costs O(log n) only when it is reached, so a caller that
// stops early pays for the prefix it used, not for a full sort. It
// reorders s.
func byRank[T any](s []T, cmp func(a, b T) int) iter.Seq[T] {
	return func(yield func(T) bool) {
		for i := len(s)/2 - 1; i >= 0; i-- {
			siftDown(s, i, cmp)
		}
		for n := len(s); n > 0; n-- {
			top := s[0]
			s[0] = s[n-1]
			siftDown(s[:n-1], 0, cmp)
			if !yield(top) {
				return
			}
		}
	}
}

// siftDown moves s[i] down the heap s (s[0] first in the order of cmp)
// until it is in order with its children.
func siftDown[T any](s []T, i int, cmp func(a, b T) int) {
	for {
		c := 2*i + 1
		if c >= len(s) {
			return
		}
		if r := c + 1; r < len(s) && cmp(s[r], s[c]) < 0 {
			c = r
		}
		if cmp(s[c], s[i]) >= 0 {
			return
		}
		s[i], s[c] = s[c], s[i]
		i = c
	}
}
