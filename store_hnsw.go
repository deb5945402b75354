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
	if s.opts.Crossover == 0 || s.graphBroken {
		return
	}
	if s.graphs == nil {
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
	s.graphs = make([]*graph, s.opts.Shards)
	for i := range s.graphs {
		s.graphs[i] = s.newGraph(i)
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
	g := s.graphs[int(slot)%len(s.graphs)]
	defer s.recoverGraph(&ok)
	g.EfSearch = s.opts.EfConstruction
	defer func() { g.EfSearch = s.opts.EfSearch }()
	g.Add(hnsw.MakeNode(slot, s.row(slot)))
	return true
}

// graphDelete removes slot from its shard. The caller holds the write lock.
func (s *HNSWStore) graphDelete(slot int32) {
	if s.graphs == nil {
		return
	}
	var ok bool
	defer s.recoverGraph(&ok)
	s.graphs[int(slot)%len(s.graphs)].Delete(slot)
}

// recoverGraph turns a coder/hnsw panic into a permanently exact store.
func (s *HNSWStore) recoverGraph(ok *bool) {
	if r := recover(); r != nil {
		s.graphs, s.graphBroken, *ok = nil, true, false
	}
}

// graphSearch asks every shard for Overfetch·k candidates and returns the
// exact top k of their union, or nil when the graphs proposed nothing. The
// caller holds the read lock; the graphs are only read.
func (s *HNSWStore) graphSearch(q []float32, k int) (best []cand, err error) {
	defer func() {
		if r := recover(); r != nil {
			best, err = nil, fmt.Errorf("hnsw search: %v", r)
		}
	}()
	top := topK{k: k, s: s}
	seen := make(map[int32]bool)
	for _, g := range s.graphs {
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
	return top.h, nil
}
