package chitta

import (
	"context"
	"iter"
)

// iterBatch is how many memories All copies per read lock, so that a
// caller's loop body never runs while the store is locked.
const iterBatch = 256

// All returns an iterator over every memory in the store, in storage order
// (not by age or ID). Each yielded Memory is a copy that the caller owns,
// Vector included. The store is read-locked only while a batch of memories
// is copied, never while the loop body runs, so the body may call Add or
// Delete; memories added or deleted during the iteration may or may not be
// yielded, and a memory replaced during it is yielded at most once. The
// iteration ends even when the body adds a memory for every one yielded:
// it reads only the storage slots that existed when it began. A nil or
// zero store yields nothing.
func (s *HNSWStore) All() iter.Seq[Memory] {
	return s.AllMatching(KindFilter{})
}

// AllMatching is [HNSWStore.All] restricted to the memories whose kind
// passes f.
func (s *HNSWStore) AllMatching(f KindFilter) iter.Seq[Memory] {
	return func(yield func(Memory) bool) {
		if s.usable() != nil {
			return
		}
		s.mu.RLock()
		slots := len(s.recs) // slots added later hold memories added later
		s.mu.RUnlock()
		seen := make(map[string]bool)
		for next := 0; ; {
			batch, end := s.batch(next, slots, f, seen)
			for _, m := range batch {
				if !yield(m) {
					return
				}
			}
			if end < 0 {
				return
			}
			next = end
		}
	}
}

// batch copies up to iterBatch matching memories from slot from up to
// slot to, skipping IDs already in seen (a replaced memory moves only when
// deleted and re-added), and returns the slot to continue from, or -1 at
// the end.
func (s *HNSWStore) batch(from, to int, f KindFilter, seen map[string]bool) ([]Memory, int) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []Memory
	for slot := from; slot < min(to, len(s.recs)); slot++ {
		if len(out) == iterBatch {
			return out, slot
		}
		r := &s.recs[slot]
		if !s.live[slot] || seen[r.id] || !f.Match(r.kind) {
			continue
		}
		seen[r.id] = true
		out = append(out, s.memory(int32(slot)))
	}
	return out, -1
}

// RecallMatching is [HNSWStore.Recall] over the memories whose kind passes
// f only: an exact scan, whatever [HNSWOptions.Crossover] says, so that k
// matching memories are found even when the nearest memories are of an
// excluded kind. Errors are those of Recall.
func (s *HNSWStore) RecallMatching(ctx context.Context, vector []float32, k int, f KindFilter) ([]Hit, error) {
	q, err := s.query(ctx, vector, k)
	if q == nil || err != nil {
		return noHits(err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	hits := []Hit{}
	if k = min(k, len(s.index)); k == 0 {
		return hits, nil
	}
	err = s.exactTop(ctx, [][]float32{vector}, k, s.kindMask(f), func(_ int, best []scored) { hits = s.hitsOf(best) })
	if err != nil {
		return nil, err
	}
	return hits, nil
}

// query checks a Recall's arguments (the vector for any k) and returns the
// normalised query, or nil with the error to return (nil error: no hits,
// k <= 0).
func (s *HNSWStore) query(ctx context.Context, vector []float32, k int) ([]float32, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q, err := s.prepare(vector, "query vector") // checked for any k, as RecallBatch
	if err != nil || k <= 0 {
		return nil, err
	}
	return q, nil
}

// noHits is what a Recall returns without scanning: the error, or no hits.
func noHits(err error) ([]Hit, error) {
	if err != nil {
		return nil, err
	}
	return []Hit{}, nil
}
