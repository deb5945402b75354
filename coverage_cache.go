package chitta

import (
	"context"
	"fmt"
	"hash/maphash"
	"reflect"
	"slices"
	"sync"
	"unsafe"
)

// CoverageCache remembers the coverage [Compact] computed for each message
// vector against a store, so that re-compacting a conversation that grew by
// a few turns queries the store only for the new (or re-embedded) messages,
// in one batched query. Set it as [Options.CoverageCache]; a long-lived
// owner (an agent loop, a Compactor) creates one and passes it to every
// call.
//
// Entries are valid for one store state only: the cache is used only when
// the store implements [Generational] (HNSWStore does), and it keys every
// entry by the message vector (a 128-bit [maphash] of its bytes, per-cache
// random seeds), the store (by identity), its generation and the
// [Options.CoverageFilter]. When any of the last three differs from the
// previous call's, every entry is dropped first: nothing is reused across a
// generation change. The generation is read before the query, and entries
// computed while the store changed are not kept (the call then queries
// every message again, so its answer comes from one store state). Stores
// without the interface, whose Generation fails, or whose type == cannot
// always compare (a struct holding an interface field: use a pointer) are
// queried for every message, as without a cache. Results equal an uncached Compact's.
//
// The cache keeps the entries of the messages of the last two calls and
// drops older ones once it holds more than twice the current call's
// messages (plus 1 024): about 60 bytes per entry, never an entry the
// current call needs. The zero value is ready to use; a nil *CoverageCache
// caches nothing. A CoverageCache is safe for concurrent use; calls that
// alternate between stores or filters keep resetting it (still correct,
// but nothing is reused), so give each store its own cache. The cache
// holds a reference to the last store it served (keeping it reachable)
// until it serves another.
type CoverageCache struct {
	once  sync.Once
	seeds [2]maphash.Seed

	mu      sync.Mutex
	store   MemoryStore // the store the entries belong to
	gen     uint64
	filter  KindFilter // a private copy
	entries map[cacheKey]coverageEntry
	call    uint64 // calls so far
	stats   CoverageCacheStats
}

// CoverageCacheStats counts the work of a [CoverageCache]. It is a plain
// value, a snapshot returned by [CoverageCache.Stats]; the zero value counts
// nothing.
type CoverageCacheStats struct {
	Hits   uint64 // messages whose coverage was reused
	Misses uint64 // messages whose coverage was computed by the store
	Resets uint64 // times the entries were dropped for a new store, generation or filter
	Len    int    // entries cached now
}

type coverageEntry struct {
	cov  float64
	call uint64 // the last call that used it
}

// NewCoverageCache returns an empty CoverageCache (equivalent to new(CoverageCache)).
func NewCoverageCache() *CoverageCache { return &CoverageCache{} }

// Stats returns the cache's counters so far (all zero for a nil cache).
func (c *CoverageCache) Stats() CoverageCacheStats {
	if c == nil {
		return CoverageCacheStats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Len = len(c.entries)
	return s
}

func (c *CoverageCache) init() {
	c.once.Do(func() { c.seeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()} })
}

// key returns the cache key of a vector: two hashes of its bytes.
func (c *CoverageCache) key(v []float32) cacheKey {
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 4*len(v))
	return cacheKey{maphash.Bytes(c.seeds[0], b), maphash.Bytes(c.seeds[1], b)}
}

// holds reports whether the cache holds the entries of store state
// (store, gen, f). c.mu must be held.
func (c *CoverageCache) holds(store MemoryStore, gen uint64, f KindFilter) bool {
	return c.entries != nil && c.store == store && c.gen == gen &&
		slices.Equal(c.filter.Include, f.Include) && slices.Equal(c.filter.Exclude, f.Exclude)
}

// lookup returns the cached coverage of each key (and which were found)
// for store state (store, gen, f), resetting the entries when the state
// differs from the cached one.
func (c *CoverageCache) lookup(store MemoryStore, gen uint64, f KindFilter, keys []cacheKey) (cov []float64, found []bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.call++
	if !c.holds(store, gen, f) {
		if c.entries != nil {
			c.stats.Resets++
		}
		c.store, c.gen = store, gen
		c.filter = KindFilter{Include: slices.Clone(f.Include), Exclude: slices.Clone(f.Exclude)}
		c.entries = make(map[cacheKey]coverageEntry, len(keys))
	}
	cov, found = make([]float64, len(keys)), make([]bool, len(keys))
	for i, k := range keys {
		if e, ok := c.entries[k]; ok {
			e.call = c.call
			c.entries[k] = e
			cov[i], found[i] = e.cov, true
			c.stats.Hits++
		} else {
			c.stats.Misses++
		}
	}
	return cov, found
}

// put records computed coverage for state (store, gen, f) if the cache
// still holds that state, then drops entries unused by the last two calls
// when it has grown past twice the call's size.
func (c *CoverageCache) put(store MemoryStore, gen uint64, f KindFilter, keys []cacheKey, cov []float64, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.holds(store, gen, f) {
		return // another call moved the cache to another state meanwhile
	}
	for i, k := range keys {
		c.entries[k] = coverageEntry{cov: cov[i], call: c.call}
	}
	if len(c.entries) > 2*n+1024 {
		for k, e := range c.entries {
			if e.call+1 < c.call {
				delete(c.entries, k)
			}
		}
	}
}

// generationOf returns the store's generation when it has one, it can be
// compared for identity, and reading it succeeds.
func generationOf(ctx context.Context, s MemoryStore) (uint64, bool) {
	g, ok := s.(Generational)
	if !ok || !alwaysComparable(reflect.TypeOf(s)) {
		return 0, false
	}
	gen, err := g.Generation(ctx)
	return gen, err == nil
}

// alwaysComparable reports whether == on two values of type t can never
// panic: Comparable alone admits a struct or array holding an interface,
// whose == panics when the dynamic values are slices, maps or funcs.
func alwaysComparable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface:
		return false
	case reflect.Array:
		return alwaysComparable(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !alwaysComparable(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return t.Comparable()
}

// coverages returns the coverage of every query against o.Store, reusing
// and filling o.CoverageCache when it can. Store failures are logged and
// give coverage 0; only a done ctx is an error.
func coverages(ctx context.Context, o *resolved, queries [][]float32) ([]float64, error) {
	c := o.CoverageCache
	var gen uint64
	ok := c != nil && len(queries) > 0
	if ok {
		gen, ok = generationOf(ctx, o.Store)
	}
	if !ok {
		cov, _, _, err := recallCoverage(ctx, o, queries)
		return cov, err
	}
	c.init()
	keys := make([]cacheKey, len(queries))
	for i, q := range queries {
		keys[i] = c.key(q)
	}
	cov, found := c.lookup(o.Store, gen, o.coverage, keys)
	var mq [][]float32
	var mk []cacheKey
	var miss []int
	for i, hit := range found {
		if !hit {
			mq, mk, miss = append(mq, queries[i]), append(mk, keys[i]), append(miss, i)
		}
	}
	if len(miss) == 0 {
		return cov, nil
	}
	fresh, complete, at, err := recallCoverage(ctx, o, mq)
	if err != nil {
		return nil, err
	}
	if at == nil {
		if g, ok := generationOf(ctx, o.Store); ok {
			at = &g
		}
	}
	if at == nil || *at != gen {
		// The store changed since gen: reused entries would come from an
		// older state than the fresh ones. Answer from one state, keep
		// nothing.
		all, _, _, err := recallCoverage(ctx, o, queries)
		return all, err
	}
	for j, i := range miss {
		cov[i] = fresh[j]
	}
	if complete {
		c.put(o.Store, gen, o.coverage, mk, fresh, len(queries))
	}
	return cov, nil
}

// recallCoverage asks the store for the coverage of every query: through
// CoverageRecaller when the store has it, else one RecallBatch, else one
// Recall per query, filtering the hits by o.coverage. Store failures are
// logged and leave coverage 0 where they happened; complete is false then.
// at is the generation the answer was computed at, when the store reports
// it. Only a done ctx is an error.
func recallCoverage(ctx context.Context, o *resolved, queries [][]float32) (cov []float64, complete bool, at *uint64, err error) {
	failed := func(err error, msg string, args ...any) ([]float64, bool, *uint64, error) {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, false, nil, ctxErr
		}
		o.log.Warn(msg, append(args, "err", err)...)
		if cov == nil {
			cov = make([]float64, len(queries))
		}
		return cov, false, nil, nil
	}
	switch s := o.Store.(type) {
	case *HNSWStore: // exactly: a wrapper may override BestSimilarities
		// The generation is read under the same lock as the answer.
		best, gen, err := s.bestSimilarities(ctx, queries, o.coverage)
		if err != nil {
			return failed(err, "chitta: memory recall failed; coverage 0")
		}
		return best, true, &gen, nil
	case CoverageRecaller:
		cov = make([]float64, len(queries))
		best, err := s.BestSimilarities(ctx, queries, o.coverage)
		if err == nil && len(best) != len(queries) {
			err = fmt.Errorf("%d similarities for %d vectors", len(best), len(queries))
		}
		if err != nil {
			return failed(err, "chitta: memory recall failed; coverage 0")
		}
		for i, b := range best {
			cov[i] = clamp01(b)
		}
		return cov, true, nil, nil
	case BatchRecaller:
		cov = make([]float64, len(queries))
		hits, err := s.RecallBatch(ctx, queries, CoverageNeighbours)
		if err != nil {
			return failed(err, "chitta: memory recall failed; coverage 0")
		}
		for k := range cov {
			if k < len(hits) {
				cov[k] = bestSimilarity(hits[k], o.coverage)
			}
		}
		return cov, len(hits) == len(queries), nil, nil
	}
	cov, complete = make([]float64, len(queries)), true
	for k, q := range queries {
		if err := ctx.Err(); err != nil {
			return nil, false, nil, err
		}
		hits, err := o.Store.Recall(ctx, q, CoverageNeighbours)
		if err != nil {
			if _, _, _, err := failed(err, "chitta: memory recall failed; coverage 0 for this message", "query", k); err != nil {
				return nil, false, nil, err
			}
			complete = false
			continue
		}
		cov[k] = bestSimilarity(hits, o.coverage)
	}
	return cov, complete, nil, nil
}
