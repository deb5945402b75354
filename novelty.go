package chitta

import (
	"cmp"
	"slices"
)

// The relevance reserve's use of memory ([Options.RelevanceReserve]).
//
// With the reserve on, selection spends the free budget on what the query
// points to and on what memory does not hold, instead of on the formula's
// order: the reserve ranks units by Semantic × (1 − Coverage), so a turn the
// store already holds is not re-kept for resembling the query, and the
// rest of the budget goes to the least-covered units, newest first among
// equals (without a store, newest first). RETENTION.md measures why: when
// the query does not name the future need (compaction at a session
// boundary), the only signal left is what memory lacks, and the formula,
// whose recency term outweighs its coverage term, spends the budget on
// recent turns memory already holds.

// reserving reports whether the relevance reserve is active in this call:
// a positive RelevanceReserve and a query cosine.
func (p *pass) reserving(o *resolved) bool {
	return o.RelevanceReserve > 0 && p.queried
}

// reserveSimilarity is message i's claim on the relevance reserve: its
// similarity to the query discounted by what memory already holds of it.
// A message without a vector (no text to embed) claims nothing: its
// Semantic is the formula's neutral 0.5, not a similarity.
func (p *pass) reserveSimilarity(i int) float64 {
	if i >= len(p.vecs) || p.vecs[i] == nil {
		return 0
	}
	s := &p.scores[i]
	return s.Semantic * (1 - s.Coverage)
}

// novelFirst reorders cands for the fill that follows the reserve: least
// covered first (a unit's coverage is its least-covered member's), ties
// newest first. It does nothing when the reserve is off, so the formula's
// order (cands as given) fills the budget.
func (p *pass) novelFirst(o *resolved, cands []unit) {
	if !p.reserving(o) {
		return
	}
	// Small records are sorted (24 bytes, not a unit), then cands follow.
	type covered struct {
		cov  float64 // the unit's least-covered member's
		last int
		k    int // index in cands
	}
	cs := make([]covered, len(cands))
	for k, u := range cands {
		c := 1.0
		for _, i := range u.members {
			c = min(c, p.scores[i].Coverage)
		}
		cs[k] = covered{c, u.last, k}
	}
	slices.SortFunc(cs, func(a, b covered) int {
		return cmp.Or(cmp.Compare(a.cov, b.cov), cmp.Compare(b.last, a.last))
	})
	sorted := make([]unit, len(cands))
	for k, c := range cs {
		sorted[k] = cands[c.k]
	}
	copy(cands, sorted)
}
