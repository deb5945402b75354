package chitta

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/chitta-go/chitta/internal/scan"
	"github.com/chitta-go/chitta/internal/vecmath"
)

// The exact scan behind Recall, RecallBatch and BestSimilarities.
//
// Beside the float32 matrix the store keeps an int8 copy of every row:
// the row's unit direction r̂ (computed in float64) is quantised as
// r̂ = sr·ri + er with ri in [−127, 127], a per-row float32 scale sr and the
// residual's norm ‖er‖ rounded up. A query's unit direction q̂ is quantised
// to int16 the same way (scale sq, residual eq). In real arithmetic
//
//	q̂·r̂ = sq·sr·(qi·ri) + sr·(eq·ri) + q̂·er,
//
// so with a = sq·sr·(qi·ri), computed from an exact int32 dot product,
// |q̂·r̂ − a| ≤ ‖er‖ + ‖sr·ri‖·‖eq‖ ≤ ‖er‖ + (1+‖er‖)·‖eq‖ = B (Cauchy–
// Schwarz; boundSlack covers float64 rounding). The scan reads only the
// int8 copy (a quarter of the bytes), keeps per query the k largest lower
// bounds a − B, and keeps as candidates the rows whose upper bound a + B
// reaches the k-th of them, L. A row left out has q̂·r̂ ≤ a + B < L, below
// k rows whose similarity is at least L, so it cannot be in the top k, even
// on a tie. The candidates are then re-ranked by their float64 cosine to
// the caller's query — the similarity Recall reports — so the answer is
// the exact top k, ties by ascending ID.

// Scan tuning: rows per ctx check, rows per kernel call (many queries and
// few queries), the smallest matrix worth splitting across goroutines, and
// the most queries quantised at once (bounding the scratch memory of a
// large batch: 2·dims bytes per query).
const (
	scanChunk       = 4096
	scanBlock       = 32
	scanBlockFew    = 256
	parallelScanMin = 1 << 20 // rows × queries × dims
	queryBlock      = 1024
	boundSlack      = 1e-9
)

// generations numbers every HNSWStore state, across all stores, so a
// generation is never reused: not after a mutation, and not by another
// store (a loaded or merged store starts at a fresh number).
var generations atomic.Uint64

// quantRow writes the int8 quantisation of row's unit direction into dst
// and returns its scale and the norm of its residual, rounded up.
func quantRow(dst []int8, row []float32) (scale, errNorm float32) {
	inv, mx := unitScale(row)
	scale = float32(mx * inv / 127)
	sc := float64(scale)
	var es float64
	for i, x := range row {
		u := float64(x) * inv
		v := max(-127, min(127, math.Round(u/sc)))
		dst[i] = int8(v)
		e := u - sc*v
		es += e * e
	}
	return scale, math.Nextafter32(float32(math.Sqrt(es)), float32(math.Inf(1)))
}

// unitScale returns 1/‖v‖ and the largest |component| of v, in float64.
func unitScale(v []float32) (inv, maxAbs float64) {
	var ss float64
	for _, x := range v {
		f := float64(x)
		ss += f * f
		maxAbs = max(maxAbs, math.Abs(f))
	}
	return 1 / math.Sqrt(ss), maxAbs
}

// quantQuery writes the int16 quantisation of q's unit direction into dst
// (at most scan.QueryLimit(len(q)) in magnitude, so the kernel is exact)
// and returns its scale and residual norm. q is finite and non-zero.
func quantQuery(dst []int16, q []float32) (scale, errNorm float64) {
	inv, mx := unitScale(q)
	lim := float64(scan.QueryLimit(len(q)))
	scale = mx * inv / lim
	var es float64
	for i, x := range q {
		u := float64(x) * inv
		v := max(-lim, min(lim, math.Round(u/scale)))
		dst[i] = int16(v)
		e := u - scale*v
		es += e * e
	}
	return scale, math.Sqrt(es)
}

// scored is a slot with its exact similarity to a query.
type scored struct {
	slot int32
	sim  float64
}

// bcand is a candidate slot with the upper bound of its similarity.
type bcand struct {
	slot int32
	up   float64
}

// qbound is the scan state of one query in one worker.
type qbound struct {
	lows  []float64 // min-heap of the k largest lower bounds
	cands []bcand   // slots whose upper bound reached the k-th lower bound when seen
	thr   float64   // rows with sr·(qi·ri) below thr cannot be candidates
}

// offer records a row passing the pre-filter with bounds [lo, up]. bmax is
// the query's largest bound over all rows, sq its scale.
func (b *qbound) offer(slot int32, lo, up, bmax, sq float64, k int) {
	switch {
	case len(b.lows) < k:
		b.lows = append(b.lows, lo)
		for i := len(b.lows) - 1; i > 0; {
			p := (i - 1) / 2
			if b.lows[p] <= b.lows[i] {
				break
			}
			b.lows[i], b.lows[p] = b.lows[p], b.lows[i]
			i = p
		}
	case lo > b.lows[0]:
		b.lows[0] = lo
		for i := 0; ; {
			l, r, m := 2*i+1, 2*i+2, i
			if l < k && b.lows[l] < b.lows[m] {
				m = l
			}
			if r < k && b.lows[r] < b.lows[m] {
				m = r
			}
			if m == i {
				break
			}
			b.lows[i], b.lows[m] = b.lows[m], b.lows[i]
			i = m
		}
	}
	full := len(b.lows) == k
	if full {
		b.thr = (b.lows[0] - bmax) / sq
		if up < b.lows[0] {
			return
		}
	}
	if full && len(b.cands) == cap(b.cands) {
		// Drop the candidates the k-th lower bound has overtaken before
		// growing: candidates stay few, and growth only doubles when they
		// all survive.
		b.cands = prune(b.cands, b.lows[0])
	}
	b.cands = append(b.cands, bcand{slot, up})
}

// prune keeps the candidates whose upper bound reaches l.
func prune(cs []bcand, l float64) []bcand {
	return slices.DeleteFunc(cs, func(c bcand) bool { return c.up < l })
}

// checkQueries validates query vectors without copying them; an error
// names the bad one's index.
func (s *HNSWStore) checkQueries(vs [][]float32) error {
	for i, v := range vs {
		if err := s.checkQuery(v, ""); err != nil {
			return s.checkQuery(v, fmt.Sprintf("query vector %d", i)) // format only on error
		}
	}
	return nil
}

// checkQuery validates a query vector against the store's dimension
// without copying it. field names it in errors.
func (s *HNSWStore) checkQuery(v []float32, field string) error {
	if len(v) == 0 {
		return fmt.Errorf("%w: %s is empty", ErrInvalidVector, field)
	}
	if len(v) != s.dims {
		return fmt.Errorf("%w: %s has %d dimensions, want %d", ErrDimensionMismatch, field, len(v), s.dims)
	}
	if err := checkVector(v); err != nil {
		return fmt.Errorf("%w: %s %s", ErrInvalidVector, field, err)
	}
	return nil
}

// exactTop computes, for every query, its exact top k over the live slots
// that pass mask (nil: all), most similar first, ties by ascending ID, and
// passes it to emit with the query's index; best is reused after emit
// returns. The queries have been checked. Scratch memory is allocated once
// per call (2·dims bytes and a few words per query, at most queryBlock
// queries at a time), not per query. The caller holds a lock.
func (s *HNSWStore) exactTop(ctx context.Context, qs [][]float32, k int, mask []bool, emit func(j int, best []scored)) error {
	d := s.dims
	nb := min(len(qs), queryBlock)
	flat := make([]int16, nb*d)
	scales := make([]float64, nb)
	qerrs := make([]float64, nb)
	bmax := make([]float64, nb)
	sc := newScanScratch(min(runtime.GOMAXPROCS(0), max(1, len(s.recs)/scanChunk)), nb, k)
	best := make([]scored, 0, k+1)
	em := float64(s.qerrMax)
	for q0 := 0; q0 < len(qs); q0 += queryBlock {
		block := qs[q0:min(len(qs), q0+queryBlock)]
		for j, q := range block {
			scales[j], qerrs[j] = quantQuery(flat[j*d:(j+1)*d], q)
			bmax[j] = em + (1+em)*qerrs[j] + 2*boundSlack
		}
		nq := len(block)
		workers, err := s.scanBounds(ctx, flat[:nq*d], scales[:nq], qerrs[:nq], bmax[:nq], sc, k, mask)
		if err != nil {
			return err
		}
		for j, q := range block {
			best = s.rerank(best[:0], q, sc, workers, j, k)
			emit(q0+j, best)
		}
	}
	return nil
}

// scanScratch holds the per-worker, per-query scan state of one exactTop
// call, allocated once: parts[w][j] is worker w's state for query j, its
// lows and first candidates carved from flat backing arrays.
type scanScratch struct {
	parts [][]qbound
	lows  [][]float64
	cands [][]bcand
	merge []float64 // the lower bounds of one query across workers
}

// initialCands is the candidate capacity each query starts with per
// worker (more are allocated when needed).
const initialCands = 4

func newScanScratch(workers, nq, k int) *scanScratch {
	sc := &scanScratch{merge: make([]float64, 0, workers*k)}
	for range workers {
		sc.parts = append(sc.parts, make([]qbound, nq))
		sc.lows = append(sc.lows, make([]float64, nq*k))
		sc.cands = append(sc.cands, make([]bcand, nq*initialCands))
	}
	return sc
}

// reset prepares the first nq states of worker w for a new block.
func (sc *scanScratch) reset(w, nq, k int) {
	for j := range sc.parts[w][:nq] {
		sc.parts[w][j] = qbound{
			lows:  sc.lows[w][j*k : j*k : (j+1)*k],
			cands: sc.cands[w][j*initialCands : j*initialCands : (j+1)*initialCands],
			thr:   math.Inf(-1),
		}
	}
}

// scanBounds runs the bounded int8 scan of the quantised queries over every
// live slot passing mask, in parallel over row ranges when the matrix is
// large, filling sc.parts; it returns the number of workers used. The
// caller holds a lock.
func (s *HNSWStore) scanBounds(ctx context.Context, flat []int16, scales, qerrs, bmax []float64, sc *scanScratch, k int, mask []bool) (int, error) {
	n, nq := len(s.recs), len(scales)
	workers := 1
	if n*nq*s.dims >= parallelScanMin {
		workers = len(sc.parts)
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	per := (n + workers - 1) / workers
	for w := range workers {
		lo, hi := w*per, min(n, (w+1)*per)
		sc.reset(w, nq, k)
		run := func() {
			errs[w] = s.scanBoundsRange(ctx, flat, scales, qerrs, bmax, sc.parts[w][:nq], k, mask, lo, hi)
		}
		if workers == 1 {
			run()
			break
		}
		wg.Go(run)
	}
	wg.Wait()
	return workers, errors.Join(errs...)
}

// scanBoundsRange offers every live slot of [lo, hi) passing mask to the
// bounds of every query. The caller holds a lock.
func (s *HNSWStore) scanBoundsRange(ctx context.Context, flat []int16, scales, qerrs, bmax []float64, states []qbound, k int, mask []bool, lo, hi int) error {
	d, nq := s.dims, len(scales)
	rb := scanBlock
	if nq < 3 {
		rb = scanBlockFew
	}
	buf := make([]int32, rb*nq)
	for start := lo; start < hi; start += scanChunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		end := min(hi, start+scanChunk)
		for b := start; b < end; {
			rows, e := s.q8.span(b, min(end, b+rb))
			dots := scan.DotsInt8(buf, flat, rows, d)
			for slot := b; slot < e; slot++ {
				if !s.live[slot] || (mask != nil && !mask[slot]) {
					continue
				}
				sr, er := float64(s.qscale[slot]), float64(s.qerr[slot])
				row := dots[(slot-b)*nq : (slot-b+1)*nq]
				for j, dot := range row {
					st := &states[j]
					x := sr * float64(dot)
					if x < st.thr {
						continue
					}
					a := scales[j] * x
					bound := er + (1+er)*qerrs[j] + boundSlack
					st.offer(int32(slot), a-bound, a+bound, bmax[j], scales[j], k)
				}
			}
			b = e
		}
	}
	return nil
}

// rerank merges the first workers' bounds of query j, keeps the candidates
// whose upper bound reaches the k-th largest lower bound, and appends to
// best the exact top k of them by float64 cosine to q, ties by ascending
// ID. The top k are kept in a heap with the worst at best[0] and sorted
// once at the end, so a candidate costs O(log k), not an insertion into a
// sorted slice (quadratic in k when k is about Len). best must be empty.
func (s *HNSWStore) rerank(best []scored, q []float32, sc *scanScratch, workers, j, k int) []scored {
	lows := sc.merge[:0]
	for _, p := range sc.parts[:workers] {
		lows = append(lows, p[j].lows...)
	}
	l := math.Inf(-1)
	if len(lows) >= k {
		slices.Sort(lows)
		l = lows[len(lows)-k]
	}
	for _, p := range sc.parts[:workers] {
		for _, c := range p[j].cands {
			if c.up < l {
				continue
			}
			best = s.keepBest(best, scored{c.slot, vecmath.Cosine64(q, s.row(c.slot))}, k)
		}
	}
	slices.SortFunc(best, func(a, b scored) int {
		switch {
		case a.slot == b.slot:
			return 0
		case s.better(a, b):
			return -1
		}
		return 1 // distinct slots hold distinct IDs: never a tie
	})
	return best
}

// keepBest offers x to h, a heap of at most k scored slots with the worst
// (by better) at h[0], and returns the heap.
func (s *HNSWStore) keepBest(h []scored, x scored, k int) []scored {
	if len(h) < k {
		h = append(h, x)
		for i := len(h) - 1; i > 0; {
			p := (i - 1) / 2
			if !s.better(h[p], h[i]) {
				break
			}
			h[i], h[p] = h[p], h[i]
			i = p
		}
		return h
	}
	if !s.better(x, h[0]) {
		return h
	}
	h[0] = x
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h) && s.better(h[m], h[l]) {
			m = l
		}
		if r < len(h) && s.better(h[m], h[r]) {
			m = r
		}
		if m == i {
			return h
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// better reports whether a ranks above b: more similar, then smaller ID.
func (s *HNSWStore) better(a, b scored) bool {
	if a.sim != b.sim {
		return a.sim > b.sim
	}
	return strings.Compare(s.recs[a.slot].id, s.recs[b.slot].id) < 0
}

// hitsOf turns scored slots into Hits (copies the caller owns). The caller
// holds a lock.
func (s *HNSWStore) hitsOf(best []scored) []Hit {
	out := make([]Hit, len(best))
	for i, b := range best {
		out[i] = Hit{Memory: s.memory(b.slot), Similarity: b.sim}
	}
	return out
}

// kindMask returns which slots are live and pass f, or nil when f passes
// every memory. The mask is cached for the store's generation and f, so a
// compaction's repeated coverage queries compute it once. The caller holds
// a lock; the mask is read-only.
func (s *HNSWStore) kindMask(f KindFilter) []bool {
	if len(f.Include) == 0 && len(f.Exclude) == 0 {
		return nil
	}
	s.maskMu.Lock()
	defer s.maskMu.Unlock()
	c := &s.maskCache
	if c.mask != nil && c.gen == s.gen && slices.Equal(c.include, f.Include) && slices.Equal(c.exclude, f.Exclude) {
		return c.mask
	}
	m := make([]bool, len(s.recs))
	for slot, ok := range s.live {
		m[slot] = ok && f.Match(s.recs[slot].kind)
	}
	*c = kindMaskCache{gen: s.gen, include: slices.Clone(f.Include), exclude: slices.Clone(f.Exclude), mask: m}
	return m
}

// kindMaskCache is the last mask kindMask computed.
type kindMaskCache struct {
	gen              uint64
	include, exclude []string
	mask             []bool
}

// BestSimilarities returns, for each vector, the highest cosine similarity
// to a stored memory whose kind passes f (0 when none does; never below 0),
// implementing [CoverageRecaller]. It is exact (the same similarity Recall
// reports) and copies no memory or vector: beyond its result it allocates
// about 2·Dims bytes per vector (at most 1 024 vectors at a time) for the
// quantised queries. A bad vector fails the whole call with an error naming
// its index (ErrDimensionMismatch or ErrInvalidVector); a done ctx gives
// ctx.Err(). The caller owns the result.
func (s *HNSWStore) BestSimilarities(ctx context.Context, vectors [][]float32, f KindFilter) ([]float64, error) {
	out, _, err := s.bestSimilarities(ctx, vectors, f)
	return out, err
}

// bestSimilarities is BestSimilarities that also returns the generation
// of the contents it answered from.
func (s *HNSWStore) bestSimilarities(ctx context.Context, vectors [][]float32, f KindFilter) ([]float64, uint64, error) {
	if err := s.usable(); err != nil {
		return nil, 0, err
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	if err := s.checkQueries(vectors); err != nil {
		return nil, 0, err
	}
	out := make([]float64, len(vectors))
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(vectors) == 0 || len(s.index) == 0 {
		return out, s.gen, nil
	}
	err := s.exactTop(ctx, vectors, 1, s.kindMask(f), func(j int, best []scored) {
		if len(best) > 0 {
			out[j] = clamp01(best[0].sim)
		}
	})
	if err != nil {
		return nil, 0, err
	}
	return out, s.gen, nil
}

// Generation returns the store's generation, implementing [Generational]:
// a number that changes with every Add and Delete and is never shared with
// another store or an earlier state (a loaded store starts at a fresh
// one). It returns an error only for a nil or zero store or a done ctx.
func (s *HNSWStore) Generation(ctx context.Context) (uint64, error) {
	if err := s.usable(); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.gen, nil
}
