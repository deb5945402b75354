//go:build !windows

package chitta

import (
	"fmt"
	"math/rand"

	"github.com/coder/hnsw"
	"github.com/viterin/vek/vek32"
)

// The coder/hnsw graphs behind an HNSWStore with HNSWOptions.Crossover > 0.
//
// What the pinned coder/hnsw does, read from its source and measured in
// BenchmarkHNSWRecallQuality: it keeps the M nearest neighbours without the
// diversity heuristic, uses M links on every layer, stops a layer search at
// the first expansion that does not improve the best distance, and its heap
// Max/PopLast take the last array element, which is not the worst one, so
// good candidates are evicted. Delete re-links neighbours one-way and can
// leave links to deleted nodes; Add of an existing key only deletes it on
// the layers it is inserted into. Hence the store uses the graphs only to
// propose candidates: it deletes a key before re-adding it, filters every
// candidate through its own live table, re-ranks exactly, and falls back to
// an exact scan when a graph panics or proposes nothing.

// graph is one shard's graph.
type graph = hnsw.Graph[int32]

// graphs are a store's graphs, one per shard.
type graphs struct {
	shards []*graph // nil until Crossover is reached
	broken bool     // coder/hnsw panicked: stay exact
}

// built reports whether the graphs exist (they answer Recall).
func (g *graphs) built() bool { return g.shards != nil }

// graphsAvailable reports whether this build has the graphs (see
// store_hnsw_windows.go).
const graphsAvailable = true

// newGraph returns an empty graph configured with every field coder/hnsw
// needs (its zero value panics on the second Add: Ml 0, Distance nil).
func (s *HNSWStore) newGraph(shard int) *graph {
	g := hnsw.NewGraph[int32]()
	g.M = s.opts.M
	g.EfSearch = s.opts.EfSearch
	g.Ml = 0.25
	g.Distance = hnsw.CosineDistance
	g.Rng = rand.New(rand.NewSource(s.opts.Seed + int64(shard)))
	return g
}

// graphAdd indexes slot, building the graphs when the store first reaches
// the crossover. The caller holds the write lock.
func (s *HNSWStore) graphAdd(slot int32) {
	if s.opts.Crossover == 0 || s.graphs.broken {
		return
	}
	if !s.graphs.built() {
		if len(s.index) < s.opts.Crossover {
			return
		}
		s.buildGraphs()
		return
	}
	s.graphInsert(slot)
}

// buildGraphs indexes every live slot. The caller holds the write lock.
func (s *HNSWStore) buildGraphs() {
	s.graphs.shards = make([]*graph, s.opts.Shards)
	for i := range s.graphs.shards {
		s.graphs.shards[i] = s.newGraph(i)
	}
	for slot, ok := range s.live {
		if ok && !s.graphInsert(int32(slot)) {
			return
		}
	}
}

// graphInsert adds slot to its shard with EfConstruction as the beam and
// reports success. A panic inside coder/hnsw disables the graphs for good
// (Recall stays exact) instead of crossing the API boundary.
func (s *HNSWStore) graphInsert(slot int32) (ok bool) {
	g := s.graphs.shards[int(slot)%len(s.graphs.shards)]
	defer s.recoverGraph(&ok)
	g.EfSearch = s.opts.EfConstruction
	defer func() { g.EfSearch = s.opts.EfSearch }()
	g.Add(hnsw.MakeNode(slot, s.row(slot)))
	return true
}

// graphDelete removes slot from its shard. The caller holds the write lock.
func (s *HNSWStore) graphDelete(slot int32) {
	if !s.graphs.built() {
		return
	}
	var ok bool
	defer s.recoverGraph(&ok)
	s.graphs.shards[int(slot)%len(s.graphs.shards)].Delete(slot)
}

// recoverGraph turns a coder/hnsw panic into a permanently exact store.
func (s *HNSWStore) recoverGraph(ok *bool) {
	if r := recover(); r != nil {
		s.graphs, *ok = graphs{broken: true}, false
	}
}

// graphSearch asks every shard for Overfetch·k candidates and returns the
// exact top k of their union, or nil when the graphs proposed nothing. The
// caller holds the read lock; the graphs are only read.
func (s *HNSWStore) graphSearch(q []float32, k int) (best []int32, err error) {
	defer func() {
		if r := recover(); r != nil {
			best, err = nil, fmt.Errorf("hnsw search: %v", r)
		}
	}()
	top := topK{k: k, s: s}
	seen := make(map[int32]bool)
	for _, g := range s.graphs.shards {
		if g.Len() == 0 { // coder/hnsw v0.6.1 panics searching an emptied graph
			continue
		}
		for _, n := range g.Search(q, min(k*s.opts.Overfetch, g.Len())) {
			slot := n.Key
			if seen[slot] || int(slot) >= len(s.live) || !s.live[slot] {
				continue // a link to a deleted node
			}
			seen[slot] = true
			top.offer(slot, vek32.Dot(q, s.row(slot)))
		}
	}
	if len(top.h) < k {
		return nil, nil // too few live candidates: let the exact scan answer
	}
	best = make([]int32, len(top.h))
	for i, c := range top.h {
		best[i] = c.slot
	}
	return best, nil
}

// cand is a scored slot.
type cand struct {
	slot  int32
	score float32
}

// topK keeps the k best candidates seen, as a heap with the worst at h[0].
// Order: higher score first, then ascending ID.
type topK struct {
	k int
	h []cand
	s *HNSWStore
}

// worse reports whether a ranks below b.
func (t *topK) worse(a, b cand) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return t.s.recs[a.slot].id > t.s.recs[b.slot].id
}

// offer considers slot with score, rejecting it cheaply when the heap is
// full and it scores below the worst kept.
func (t *topK) offer(slot int32, score float32) {
	if len(t.h) == t.k && score < t.h[0].score {
		return
	}
	t.push(cand{slot, score})
}

func (t *topK) push(c cand) {
	if len(t.h) < t.k {
		t.h = append(t.h, c)
		for i := len(t.h) - 1; i > 0; {
			p := (i - 1) / 2
			if !t.worse(t.h[i], t.h[p]) {
				break
			}
			t.h[i], t.h[p] = t.h[p], t.h[i]
			i = p
		}
		return
	}
	if !t.worse(t.h[0], c) {
		return
	}
	t.h[0] = c
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(t.h) && t.worse(t.h[l], t.h[m]) {
			m = l
		}
		if r < len(t.h) && t.worse(t.h[r], t.h[m]) {
			m = r
		}
		if m == i {
			return
		}
		t.h[i], t.h[m] = t.h[m], t.h[i]
		i = m
	}
}
