package chitta

import (
	"context"
	"fmt"
	"hash/maphash"
	"sync"
	"sync/atomic"

	"github.com/chitta-go/chitta/internal/vecmath"
)

// DefaultCacheCapacity is the initial capacity of a [CachedEmbedder] or
// [CachedTokenCounter] created with capacity <= 0 (each grows beyond it to
// fit the conversations it serves).
const DefaultCacheCapacity = 4096

// CachedEmbedder is an [Embedder] that remembers the vectors of the texts it
// has embedded, so that re-compacting a conversation that grew by a few
// turns embeds only the new turns (and the query, if it changed).
//
// It is a least-recently-used cache of at most capacity vectors, where the
// capacity grows to the number of texts of the largest Embed call seen (so
// a call never evicts a vector it, or the next call over the same
// conversation, needs: a conversation longer than the initial capacity
// does not thrash the cache), keyed by a
// 128-bit hash of the text (two [maphash] hashes with random per-instance
// seeds; texts themselves are not kept). Each CachedEmbedder wraps exactly
// one embedder for its whole life and owns its cache, so the identity of
// the wrapped embedder is the CachedEmbedder instance: two CachedEmbedders
// never share entries, even around the same embedder. Memory use is about
// capacity × dimensions × 4 bytes plus ~100 bytes per entry, plus, once
// [Options.Lexical] has used an entry, about 100 bytes and up to 24 bytes
// per lexical feature of its text (its lexical pass is cached with the
// vector and evicted with it).
// Concurrent calls over different conversations share the capacity and
// may evict each other's vectors.
//
// Embed looks every text up, sends the misses — each distinct text once,
// in first-appearance order — to the wrapped embedder in one call, checks
// the answer (one vector per text, all of the same non-zero length as
// every vector cached before, all finite) and returns an error wrapping
// [ErrInvalidEmbedding] or [ErrDimensionMismatch] instead of caching a bad
// one. Zero vectors (the answer for empty text) are cached like any other.
//
// A CachedEmbedder is safe for concurrent use. The lock is not held while
// the wrapped embedder runs, so two concurrent calls missing the same text
// may both embed it. Embed returns copies: the caller owns the returned
// slices (they share one backing array, each capped to its length), and
// changing them never changes the cache. The zero value, and a nil
// *CachedEmbedder, have no embedder to wrap: Embed returns an error
// wrapping [ErrInvalidOption] (so [Compact] degrades to scoring without
// embeddings); use [NewCachedEmbedder].
type CachedEmbedder struct {
	e        Embedder
	capacity int
	seeds    [2]maphash.Seed

	mu    sync.Mutex
	items map[cacheKey]*cacheEntry
	lru   cacheEntry // sentinel: lru.next is the most recently used
	dims  int        // length of every cached vector; 0 until known
	stats CacheStats
}

// CacheStats counts the work of a [CachedEmbedder]. It is a plain value,
// a snapshot returned by [CachedEmbedder.Stats]; the zero value counts
// nothing.
type CacheStats struct {
	Hits      uint64 // texts answered from the cache (including repeats within one call; failed calls not counted)
	Misses    uint64 // distinct texts embedded by the wrapped embedder (failed calls not counted)
	Evictions uint64 // vectors dropped to stay within capacity
	Len       int    // vectors cached now
	Capacity  int    // the most vectors kept (grown to the largest call)
}

type cacheKey [2]uint64

type cacheEntry struct {
	key        cacheKey
	vec        []float32              // never modified once cached
	lex        atomic.Pointer[lexDoc] // lexical pass of the text (Options.Lexical), built on first use
	prev, next *cacheEntry
}

// NewCachedEmbedder returns a CachedEmbedder in front of e keeping at most
// capacity vectors, or the number of texts of its largest call if that is
// more; capacity <= 0 means [DefaultCacheCapacity]. A nil e
// gives a CachedEmbedder whose Embed returns an error wrapping
// [ErrInvalidOption].
func NewCachedEmbedder(e Embedder, capacity int) *CachedEmbedder {
	if capacity <= 0 {
		capacity = DefaultCacheCapacity
	}
	c := &CachedEmbedder{
		e:        e,
		capacity: capacity,
		seeds:    [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()},
		items:    make(map[cacheKey]*cacheEntry),
	}
	c.lru.next, c.lru.prev = &c.lru, &c.lru
	return c
}

// Dimensions returns the wrapped embedder's Dimensions when it has such a
// method, and otherwise the length of the vectors cached so far (0 before
// the first successful Embed; 0 for a nil or zero CachedEmbedder).
func (c *CachedEmbedder) Dimensions() int {
	if c == nil {
		return 0
	}
	if d, ok := c.e.(interface{ Dimensions() int }); ok {
		return d.Dimensions()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dims
}

// Stats returns the cache's counters so far (all zero for a nil
// CachedEmbedder).
func (c *CachedEmbedder) Stats() CacheStats {
	if c == nil {
		return CacheStats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Len, s.Capacity = len(c.items), c.capacity
	return s
}

// Embed returns one vector per text, in order, from the cache or from one
// call to the wrapped embedder for the texts not cached. It returns
// ctx.Err() when ctx is done before the call, the wrapped embedder's error
// (wrapped) when it fails, and an error wrapping [ErrInvalidEmbedding] or
// [ErrDimensionMismatch] when its answer is unusable; nothing is cached
// then. An empty texts gives an empty result without calling the wrapped
// embedder.
func (c *CachedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	shared, err := c.embedShared(ctx, texts, nil)
	if err != nil || len(shared) == 0 {
		return shared, err
	}
	dims := len(shared[0])
	backing := make([]float32, len(texts)*dims)
	out := make([][]float32, len(texts))
	for i, v := range shared {
		out[i] = backing[i*dims : (i+1)*dims : (i+1)*dims]
		copy(out[i], v)
	}
	return out, nil
}

// embedShared is Embed without the final copy: the vectors it returns are
// the cache's own and must not be modified. Compact, which only reads
// vectors, uses it through the sharedEmbedder interface. When ents is not
// nil (len(texts) long), ents[i] is set to the entry of texts[i], whose
// lexical pass Compact caches (see lexDocs).
func (c *CachedEmbedder) embedShared(ctx context.Context, texts []string, ents []*cacheEntry) ([][]float32, error) {
	if c == nil || c.e == nil || c.items == nil {
		return nil, fmt.Errorf("%w: CachedEmbedder has no embedder (use NewCachedEmbedder with a non-nil Embedder)", ErrInvalidOption)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	keys := make([]cacheKey, len(texts))
	for i, t := range texts {
		keys[i] = c.key(t)
	}
	found := make([][]float32, len(texts)) // cached vectors (shared, read-only)
	missIdx := make([]int, len(texts))     // per text: index in missTexts, or -1
	var missTexts []string
	var missKeys []cacheKey
	var missOf map[cacheKey]int // key → index in missTexts
	var hits uint64             // counted once the call succeeds
	c.mu.Lock()
	c.capacity = max(c.capacity, len(texts)) // never evict what this call needs
	dims := c.dims
	for i, k := range keys {
		if e, ok := c.items[k]; ok {
			c.touch(e)
			found[i], missIdx[i] = e.vec, -1
			if ents != nil {
				ents[i] = e
			}
			hits++
			continue
		}
		if missOf == nil {
			missOf = make(map[cacheKey]int)
		}
		j, ok := missOf[k]
		if ok {
			hits++ // a repeat within this call
		} else {
			j = len(missTexts)
			missOf[k] = j
			missTexts = append(missTexts, texts[i])
			missKeys = append(missKeys, k)
		}
		missIdx[i] = j
	}
	if len(missTexts) == 0 {
		c.stats.Hits += hits
	}
	c.mu.Unlock()

	var fresh [][]float32
	var freshEnts []*cacheEntry
	if len(missTexts) > 0 {
		var err error
		fresh, freshEnts, err = c.embedMisses(ctx, missTexts, missKeys, dims, hits)
		if err != nil {
			return nil, err
		}
	}

	for i := range texts {
		if missIdx[i] >= 0 {
			found[i] = fresh[missIdx[i]]
			if ents != nil {
				ents[i] = freshEnts[missIdx[i]]
			}
		}
	}
	return found, nil
}

// embedMisses embeds the distinct uncached texts (with their keys) in one
// call, checks the answer against dims (0 when not yet known) and caches
// copies; only then does it count the call's hits (the other texts of the
// call) and misses. It returns the copies and each text's entry.
func (c *CachedEmbedder) embedMisses(ctx context.Context, texts []string, keys []cacheKey, dims int, hits uint64) ([][]float32, []*cacheEntry, error) {
	vecs, err := c.e.Embed(ctx, texts)
	if err != nil {
		return nil, nil, fmt.Errorf("embed %d uncached texts: %w", len(texts), err)
	}
	if len(vecs) != len(texts) {
		return nil, nil, badAnswer(fmt.Errorf("%w: embedder returned %d vectors for %d texts", ErrInvalidEmbedding, len(vecs), len(texts)))
	}
	want := dims
	if want == 0 {
		want = len(vecs[0])
	}
	for k, v := range vecs {
		switch {
		case len(v) == 0:
			return nil, nil, badAnswer(fmt.Errorf("%w: vector %d of %d is empty", ErrInvalidEmbedding, k, len(vecs)))
		case len(v) != want && k > 0 && dims == 0:
			return nil, nil, badAnswer(fmt.Errorf("%w: vector %d has %d dimensions, vector 0 has %d", ErrInvalidEmbedding, k, len(v), want))
		case len(v) != want:
			return nil, nil, badAnswer(fmt.Errorf("%w: vector %d has %d dimensions, cached vectors have %d", ErrDimensionMismatch, k, len(v), want))
		case !vecmath.AllFinite(v):
			return nil, nil, badAnswer(fmt.Errorf("%w: vector %d has a NaN or infinite component", ErrInvalidEmbedding, k))
		}
	}

	backing := make([]float32, len(vecs)*want)
	own := make([][]float32, len(vecs))
	for k, v := range vecs {
		own[k] = backing[k*want : (k+1)*want : (k+1)*want]
		copy(own[k], v)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dims == 0 {
		c.dims = want
	} else if c.dims != want { // a concurrent call fixed another length first
		return nil, nil, badAnswer(fmt.Errorf("%w: embedder returned %d dimensions, cached vectors have %d", ErrDimensionMismatch, want, c.dims))
	}
	c.stats.Hits += hits
	c.stats.Misses += uint64(len(texts))
	ents := make([]*cacheEntry, len(keys))
	for k, key := range keys {
		if e, ok := c.items[key]; ok { // cached meanwhile by a concurrent call
			c.touch(e)
			ents[k] = e
			continue
		}
		e := &cacheEntry{key: key, vec: own[k]}
		ents[k] = e
		c.items[key] = e
		c.pushFront(e)
		for len(c.items) > c.capacity {
			old := c.lru.prev
			c.unlink(old)
			delete(c.items, old.key)
			c.stats.Evictions++
		}
	}
	return own, ents, nil
}

// badAnswer marks err, an answer refused by the check of embedMisses
// (wrapping ErrInvalidEmbedding or ErrDimensionMismatch), as unusable
// vectors for Compact (errVectors), as checkVectors marks the bare
// embedder's: Compact logs it as such whether or not ctx is done, instead
// of as a failed embedder. The message is err's.
func badAnswer(err error) error { return &answerError{err} }

type answerError struct{ err error }

func (e *answerError) Error() string   { return e.err.Error() }
func (e *answerError) Unwrap() []error { return []error{e.err, errVectors} }

// key returns the cache key of text t.
func (c *CachedEmbedder) key(t string) cacheKey {
	return cacheKey{maphash.String(c.seeds[0], t), maphash.String(c.seeds[1], t)}
}

func (c *CachedEmbedder) touch(e *cacheEntry) {
	c.unlink(e)
	c.pushFront(e)
}

func (c *CachedEmbedder) unlink(e *cacheEntry) {
	e.prev.next, e.next.prev = e.next, e.prev
}

func (c *CachedEmbedder) pushFront(e *cacheEntry) {
	e.prev, e.next = &c.lru, c.lru.next
	c.lru.next.prev = e
	c.lru.next = e
}
