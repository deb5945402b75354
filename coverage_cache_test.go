package chitta_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/chittatest"
)

const covDims = 16

// covTurns returns n conversation turns; turn i always has the same text.
func covTurns(n int) []chitta.Message {
	msgs := []chitta.Message{msg(chitta.RoleSystem, "you are a coding agent")}
	for i := range n {
		msgs = append(msgs, msg([]chitta.Role{chitta.RoleUser, chitta.RoleAssistant}[i%2], fmt.Sprintf("turn %d about topic %d", i, i%7)))
	}
	return msgs
}

// covMemory is a memory whose vector is the embedding of text (so it
// covers the message with that text), of a kind chosen by i.
func covMemory(t testing.TB, i int, text string) chitta.Memory {
	v, err := chittatest.SeededEmbedder{Dims: covDims}.Embed(context.Background(), []string{text})
	require.NoError(t, err)
	return chitta.Memory{ID: fmt.Sprint("m", i), Text: text, Kind: []string{chitta.KindFact, chitta.KindEpisode, chitta.KindWisdom}[i%3], Vector: v[0]}
}

// TestCoverageCacheMatchesUncached is the property test: over random
// interleavings of Adds, Deletes, growing conversations and changing
// filters, Compact with a shared CoverageCache gives exactly the result of
// Compact without one.
func TestCoverageCacheMatchesUncached(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 77))
		s := newStore(t, covDims, nil)
		cache := chitta.NewCoverageCache()
		n, next := 5, 0
		var ids []string
		for step := range 40 {
			switch r.IntN(5) {
			case 0: // a memory covering some turn, or replacing one
				m := covMemory(t, next, fmt.Sprintf("turn %d about topic %d", r.IntN(n+5), r.IntN(7)))
				if len(ids) > 0 && r.IntN(4) == 0 {
					m.ID = ids[r.IntN(len(ids))]
				} else {
					ids = append(ids, m.ID)
					next++
				}
				require.NoError(t, s.Add(ctx, m))
			case 1:
				if len(ids) > 0 {
					k := r.IntN(len(ids))
					require.NoError(t, s.Delete(ids[k]))
					ids = append(ids[:k], ids[k+1:]...)
				}
			default: // compact, usually after the conversation grew
				n += r.IntN(4)
				var filter *chitta.KindFilter
				if r.IntN(4) == 0 {
					filter = &chitta.KindFilter{Include: []string{chitta.KindFact}}
				}
				opts := &chitta.Options{Embedder: chittatest.SeededEmbedder{Dims: covDims}, Store: s, Query: "topic 3", CoverageFilter: filter}
				want, err := chitta.Compact(ctx, covTurns(n), opts)
				require.NoError(t, err)
				opts.CoverageCache = cache
				got, err := chitta.Compact(ctx, covTurns(n), opts)
				require.NoError(t, err)
				require.Equal(t, want, got, "seed %d step %d", seed, step)
			}
		}
		assert.Positive(t, cache.Stats().Hits, "seed %d: the cache was never used", seed)
	}
}

// countingStore wraps an HNSWStore and counts the vectors it is asked
// about; it implements CoverageRecaller and Generational but not the
// store's private snapshot method, so Compact takes the generic path.
type countingStore struct {
	*chitta.HNSWStore
	vectors atomic.Int64
	calls   atomic.Int64
	during  func() // run inside BestSimilarities, before answering
}

func (c *countingStore) BestSimilarities(ctx context.Context, vs [][]float32, f chitta.KindFilter) ([]float64, error) {
	c.calls.Add(1)
	c.vectors.Add(int64(len(vs)))
	if c.during != nil {
		c.during()
	}
	return c.HNSWStore.BestSimilarities(ctx, vs, f)
}

// TestCoverageCacheReuse checks what is recomputed: only the new messages,
// in one query, while the store is unchanged; everything after a
// mutation; and nothing is kept when the store changes during the query.
func TestCoverageCacheReuse(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := &countingStore{HNSWStore: newStore(t, covDims, nil)}
	for i := range 30 {
		require.NoError(t, s.Add(ctx, covMemory(t, i, fmt.Sprintf("turn %d about topic %d", i, i%7))))
	}
	cache := chitta.NewCoverageCache()
	opts := &chitta.Options{Embedder: chittatest.SeededEmbedder{Dims: covDims}, Store: s, CoverageCache: cache}
	compact := func(n int) *chitta.Result {
		res, err := chitta.Compact(ctx, covTurns(n), opts)
		require.NoError(t, err)
		return res
	}
	compact(60)
	assert.Equal(t, int64(60), s.vectors.Load())
	compact(70)
	assert.Equal(t, int64(70), s.vectors.Load(), "only the 10 new turns are queried")
	assert.Equal(t, int64(2), s.calls.Load(), "in one batched query")
	assert.Equal(t, uint64(60), cache.Stats().Hits)

	require.NoError(t, s.Add(ctx, covMemory(t, 99, "turn 65 about topic 2")))
	res := compact(70)
	assert.Equal(t, int64(140), s.vectors.Load(), "a new generation recomputes every message")
	assert.Equal(t, uint64(1), cache.Stats().Resets)
	assert.InDelta(t, 1.0, res.Scores[66].Coverage, 1e-6, "the new memory covers turn 65")

	// A store that changes while it answers: the answer comes from the
	// later state and nothing is cached.
	s.during = func() {
		s.during = nil
		require.NoError(t, s.Add(ctx, covMemory(t, 102, "turn 75 about topic 5")))
	}
	before := s.vectors.Load()
	res = compact(80)
	assert.Equal(t, before+10+80, s.vectors.Load(), "the 10 misses, then all 80 again from one state")
	assert.InDelta(t, 1.0, res.Scores[76].Coverage, 1e-6)
	compact(80)
	assert.Equal(t, before+10+80+80, s.vectors.Load(), "nothing was cached from the changing store")
}

// TestCoverageCacheUnusedWithoutGeneration checks that a store without
// Generational is queried every time and nothing is cached.
func TestCoverageCacheUnusedWithoutGeneration(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := &chittatest.Store{}
	require.NoError(t, s.Add(ctx, covMemory(t, 3, "turn 3 about topic 3")))
	cache := chitta.NewCoverageCache()
	opts := &chitta.Options{Embedder: chittatest.SeededEmbedder{Dims: covDims}, Store: s, CoverageCache: cache}
	for range 2 {
		res, err := chitta.Compact(ctx, covTurns(10), opts)
		require.NoError(t, err)
		assert.InDelta(t, 1.0, res.Scores[4].Coverage, 1e-6)
	}
	assert.Equal(t, 20, s.Recalls)
	assert.Equal(t, chitta.CoverageCacheStats{}, cache.Stats())
	var nilCache *chitta.CoverageCache
	assert.Equal(t, chitta.CoverageCacheStats{}, nilCache.Stats())
}

// TestCoverageCacheConcurrentAdd compacts with a shared cache while other
// goroutines add memories (run with -race). Once the writers stop, a
// cached compaction equals an uncached one.
func TestCoverageCacheConcurrentAdd(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newStore(t, covDims, nil)
	cache := chitta.NewCoverageCache()
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for i := range 50 {
				assert.NoError(t, s.Add(ctx, covMemory(t, 1000*w+i, fmt.Sprintf("turn %d about topic %d", i, i%7))))
			}
		})
	}
	for w := range 2 {
		wg.Go(func() {
			for i := range 20 {
				_, err := chitta.Compact(ctx, covTurns(30+w+i), &chitta.Options{Embedder: chittatest.SeededEmbedder{Dims: covDims}, Store: s, CoverageCache: cache})
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	opts := &chitta.Options{Embedder: chittatest.SeededEmbedder{Dims: covDims}, Store: s}
	want, err := chitta.Compact(ctx, covTurns(60), opts)
	require.NoError(t, err)
	opts.CoverageCache = cache
	for range 2 {
		got, err := chitta.Compact(ctx, covTurns(60), opts)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
}

// valueStore is a Generational store used by value whose type is
// comparable but whose values are not: its tag field holds a slice.
type valueStore struct {
	tag any
	s   *chitta.HNSWStore
}

func (v valueStore) Recall(ctx context.Context, q []float32, k int) ([]chitta.Hit, error) {
	return v.s.Recall(ctx, q, k)
}
func (v valueStore) Add(ctx context.Context, m chitta.Memory) error { return v.s.Add(ctx, m) }
func (v valueStore) Generation(ctx context.Context) (uint64, error) {
	return v.s.Generation(ctx)
}

// TestCoverageCacheUncomparableStore: a store value that == cannot compare
// (a comparable type holding a slice in an interface field) must not make
// Compact panic when a CoverageCache compares it with the store it served
// last; such a store is not cached, and coverage is still computed.
func TestCoverageCacheUncomparableStore(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	hs, err := chitta.NewHNSWStore(covDims, nil)
	require.NoError(t, err)
	require.NoError(t, hs.Add(ctx, covMemory(t, 3, "turn 3 about topic 3")))
	cache := chitta.NewCoverageCache()
	for i := range 3 {
		opts := &chitta.Options{Embedder: chittatest.SeededEmbedder{Dims: covDims}, Store: valueStore{tag: []int{i}, s: hs}, CoverageCache: cache}
		var res *chitta.Result
		require.NotPanics(t, func() { res, err = chitta.Compact(ctx, covTurns(10), opts) })
		require.NoError(t, err)
		assert.InDelta(t, 1.0, res.Scores[4].Coverage, 1e-6)
	}
}

// filterStore answers coverage by filter: 0.9 to a filter including facts,
// 0.1 to any other. A query with a filter including facts waits, once
// armed, until released, so that a test can interleave two calls.
type filterStore struct {
	entered, release chan struct{}
	armed            atomic.Bool
}

func (s *filterStore) Recall(context.Context, []float32, int) ([]chitta.Hit, error) { return nil, nil }
func (s *filterStore) Add(context.Context, chitta.Memory) error                     { return nil }
func (s *filterStore) Generation(context.Context) (uint64, error)                   { return 7, nil }

func (s *filterStore) BestSimilarities(_ context.Context, vectors [][]float32, f chitta.KindFilter) ([]float64, error) {
	cov := 0.1
	if len(f.Include) > 0 && f.Include[0] == chitta.KindFact {
		cov = 0.9
		if s.armed.CompareAndSwap(true, false) {
			s.entered <- struct{}{}
			<-s.release
		}
	}
	out := make([]float64, len(vectors))
	for i := range out {
		out[i] = cov
	}
	return out, nil
}

// TestCoverageCacheConcurrentFilters: a call with one CoverageFilter that
// finishes after a call with another has moved the cache to that filter
// must not store its coverage there, where the next call with the other
// filter would read it.
func TestCoverageCacheConcurrentFilters(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := &filterStore{entered: make(chan struct{}), release: make(chan struct{})}
	cache := chitta.NewCoverageCache()
	msgs := covTurns(6)
	opts := func(kind string, cache *chitta.CoverageCache) *chitta.Options {
		return &chitta.Options{
			Embedder: chittatest.SeededEmbedder{Dims: covDims}, Store: st, CoverageCache: cache,
			CoverageFilter: &chitta.KindFilter{Include: []string{kind}},
		}
	}
	st.armed.Store(true)
	done := make(chan error)
	go func() {
		_, err := chitta.Compact(ctx, msgs, opts(chitta.KindFact, cache))
		done <- err
	}()
	<-st.entered // the fact call has looked the cache up and queries the store
	_, err := chitta.Compact(ctx, msgs, opts(chitta.KindWisdom, cache))
	require.NoError(t, err)
	close(st.release)
	require.NoError(t, <-done)

	got, err := chitta.Compact(ctx, msgs, opts(chitta.KindWisdom, cache))
	require.NoError(t, err)
	want, err := chitta.Compact(ctx, msgs, opts(chitta.KindWisdom, nil))
	require.NoError(t, err)
	for i := range want.Scores {
		assert.InDelta(t, want.Scores[i].Coverage, got.Scores[i].Coverage, 1e-9, "message %d", i)
	}
}
