package chitta_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/chittatest"
)

func newCounting() *chittatest.CountingEmbedder {
	return &chittatest.CountingEmbedder{Next: chitta.NewHashEmbedder(64)}
}

func TestCachedEmbedderBatchesMissesOnce(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	f := newCounting()
	c := chitta.NewCachedEmbedder(f, 0)
	direct := chitta.NewHashEmbedder(64)

	texts := []string{"alpha", "beta", "alpha", "gamma", "beta"}
	got, err := c.Embed(ctx, texts)
	require.NoError(t, err)
	want, err := direct.Embed(ctx, texts)
	require.NoError(t, err)
	assert.Equal(t, want, got, "same vectors, same order as the wrapped embedder")
	assert.Equal(t, 1, f.Calls())
	assert.Equal(t, []string{"alpha", "beta", "gamma"}, f.Texts(), "distinct misses in first-appearance order")
	assert.Equal(t, chitta.CacheStats{Hits: 2, Misses: 3, Len: 3, Capacity: chitta.DefaultCacheCapacity}, c.Stats())

	f.Reset()
	texts = []string{"gamma", "delta", "alpha", "delta"}
	got, err = c.Embed(ctx, texts)
	require.NoError(t, err)
	want, err = direct.Embed(ctx, texts)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Equal(t, []string{"delta"}, f.Texts())

	f.Reset()
	_, err = c.Embed(ctx, []string{"alpha", "delta", "gamma"})
	require.NoError(t, err)
	assert.Zero(t, f.Calls(), "all cached: the wrapped embedder is not called")

	got, err = c.Embed(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, got)
	assert.Zero(t, f.Calls())
}

// TestCachedEmbedderRecompact is the agent-loop property: re-compacting a
// conversation that grew by ten turns embeds only those turns, plus the
// query when it changed, and scores exactly as without the cache.
func TestCachedEmbedderRecompact(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	turns := chitta.SynthTurns(11, 110)
	msgs := make([]chitta.Message, len(turns))
	for i, s := range turns {
		msgs[i] = chitta.Message{Role: []chitta.Role{chitta.RoleUser, chitta.RoleAssistant}[i%2], Content: s}
	}
	f := newCounting()
	cached := &chitta.Options{Embedder: chitta.NewCachedEmbedder(f, 0), Query: "why does parseConfig fail"}
	plain := &chitta.Options{Embedder: chitta.NewHashEmbedder(64), Query: cached.Query}

	res, err := chitta.Compact(ctx, msgs[:100], cached)
	require.NoError(t, err)
	require.True(t, res.Stats.Embedding)
	assert.Len(t, f.Texts(), 101, "cold: 100 messages and the query")

	f.Reset()
	res, err = chitta.Compact(ctx, msgs, cached)
	require.NoError(t, err)
	assert.Equal(t, 1, f.Calls())
	assert.Equal(t, turns[100:], f.Texts(), "grown by 10 turns: only they are embedded")
	ref, err := chitta.Compact(ctx, msgs, plain)
	require.NoError(t, err)
	assert.Equal(t, ref.Scores, res.Scores, "the cache does not change scoring")
	assert.Equal(t, ref.Kept, res.Kept)

	f.Reset()
	cached.Query = "which flight was rebooked"
	_, err = chitta.Compact(ctx, msgs, cached)
	require.NoError(t, err)
	assert.Equal(t, []string{cached.Query}, f.Texts(), "a new query is the only miss")
}

func TestCachedEmbedderReturnsCopies(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	c := chitta.NewCachedEmbedder(chitta.NewHashEmbedder(16), 0)
	first, err := c.Embed(ctx, []string{"alpha beta", "gamma"})
	require.NoError(t, err)
	want := append([]float32(nil), first[0]...)
	for i := range first[0] {
		first[0][i] = 42
	}
	_ = append(first[0], 7) // capped: must not spill into first[1]
	again, err := c.Embed(ctx, []string{"alpha beta"})
	require.NoError(t, err)
	assert.Equal(t, want, again[0])
	assert.NotEqual(t, float32(7), first[1][0])
}

func TestCachedEmbedderLRU(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	f := newCounting()
	c := chitta.NewCachedEmbedder(f, 2)
	embed := func(texts ...string) {
		t.Helper()
		_, err := c.Embed(ctx, texts)
		require.NoError(t, err)
	}
	embed("a", "b")
	embed("a") // a is now the most recent
	embed("c") // evicts b
	f.Reset()
	embed("a", "c")
	assert.Zero(t, f.Calls(), "a and c are cached")
	embed("b")
	assert.Equal(t, []string{"b"}, f.Texts(), "b was evicted")
	st := c.Stats()
	assert.Equal(t, 2, st.Len)
	assert.Equal(t, uint64(2), st.Evictions)

	// More distinct misses than capacity in one call: the answer is
	// complete and the capacity grows to the call's texts, so the next call
	// over them embeds nothing.
	got, err := c.Embed(ctx, []string{"p", "q", "r", "s"})
	require.NoError(t, err)
	require.Len(t, got, 4)
	for _, v := range got {
		assert.InDelta(t, 1, vecNorm(v), 1e-5)
	}
	st = c.Stats()
	assert.Equal(t, 4, st.Len)
	assert.Equal(t, 4, st.Capacity)
	f.Reset()
	embed("p", "q", "r", "s")
	assert.Zero(t, f.Calls(), "p, q, r and s stayed cached")
}

func TestCachedEmbedderCapacity(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want int }{{0, chitta.DefaultCacheCapacity}, {-3, chitta.DefaultCacheCapacity}, {1, 1}, {10, 10}} {
		assert.Equal(t, tt.want, chitta.NewCachedEmbedder(chitta.NewHashEmbedder(8), tt.in).Stats().Capacity, "capacity %d", tt.in)
	}
}

func TestCachedEmbedderBadAnswers(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	tests := []struct {
		name    string
		err     error
		corrupt func([][]float32) [][]float32
		want    error
	}{
		{"embedder error", boom, nil, boom},
		{"too few vectors", nil, func(v [][]float32) [][]float32 { return v[:1] }, chitta.ErrInvalidEmbedding},
		{"too many vectors", nil, func(v [][]float32) [][]float32 { return append(v, v[0]) }, chitta.ErrInvalidEmbedding},
		{"empty vector", nil, func(v [][]float32) [][]float32 { v[1] = nil; return v }, chitta.ErrInvalidEmbedding},
		{"mixed lengths", nil, func(v [][]float32) [][]float32 { v[1] = v[1][:3]; return v }, chitta.ErrInvalidEmbedding},
		{"NaN", nil, func(v [][]float32) [][]float32 { v[0][2] = float32(math.NaN()); return v }, chitta.ErrInvalidEmbedding},
		{"Inf", nil, func(v [][]float32) [][]float32 { v[1][0] = float32(math.Inf(1)); return v }, chitta.ErrInvalidEmbedding},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			f := &chittatest.CountingEmbedder{Next: chitta.NewHashEmbedder(8), Err: tt.err, Corrupt: tt.corrupt}
			c := chitta.NewCachedEmbedder(f, 0)
			got, err := c.Embed(ctx, []string{"one", "two"})
			require.ErrorIs(t, err, tt.want)
			assert.Nil(t, got)
			assert.Zero(t, c.Stats().Len, "nothing cached")
			// A healthy embedder afterwards is called again: the bad answer was not cached.
			f.Err, f.Corrupt = nil, nil
			got, err = c.Embed(ctx, []string{"one", "two"})
			require.NoError(t, err)
			assert.Len(t, got, 2)
			assert.Equal(t, 2, f.Calls())
		})
	}
}

// TestCachedEmbedderFailedCallCountsNoHits checks that a call that fails
// answers no text and so counts no hit, as it counts no miss: before, the
// cached text and the repeat of a call whose embedder then failed were
// counted as hits (Hits 2 after the failed call), inflating the hit rate
// of a cache in front of a flaky embedder with every retry.
func TestCachedEmbedderFailedCallCountsNoHits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		err     error
		corrupt func([][]float32) [][]float32
		want    error
	}{
		{"embedder error", errors.New("boom"), nil, nil},
		{"no vector", nil, func(v [][]float32) [][]float32 { return v[:0] }, chitta.ErrInvalidEmbedding},
		{"other dimensions", nil, func(v [][]float32) [][]float32 { v[0] = v[0][:3]; return v }, chitta.ErrDimensionMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			f := &chittatest.CountingEmbedder{Next: chitta.NewHashEmbedder(8)}
			c := chitta.NewCachedEmbedder(f, 0)
			_, err := c.Embed(ctx, []string{"cached"})
			require.NoError(t, err)
			f.Err, f.Corrupt = tt.err, tt.corrupt
			_, err = c.Embed(ctx, []string{"new", "new", "cached"})
			require.Error(t, err)
			if tt.want != nil {
				require.ErrorIs(t, err, tt.want)
			}
			assert.Equal(t, chitta.CacheStats{Misses: 1, Len: 1, Capacity: chitta.DefaultCacheCapacity}, c.Stats(), "the failed call counts nothing")
			f.Err, f.Corrupt = nil, nil
			_, err = c.Embed(ctx, []string{"new", "new", "cached"})
			require.NoError(t, err)
			assert.Equal(t, chitta.CacheStats{Hits: 2, Misses: 2, Len: 2, Capacity: chitta.DefaultCacheCapacity}, c.Stats())
		})
	}
}

func TestCachedEmbedderDimensionChange(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dims := 8
	e := chitta.EmbedderFunc(func(ctx context.Context, texts []string) ([][]float32, error) {
		return chitta.NewHashEmbedder(dims).Embed(ctx, texts)
	})
	c := chitta.NewCachedEmbedder(e, 0)
	assert.Zero(t, c.Dimensions(), "unknown before the first call")
	_, err := c.Embed(ctx, []string{"one"})
	require.NoError(t, err)
	assert.Equal(t, 8, c.Dimensions())
	dims = 16 // the wrapped embedder changes model
	_, err = c.Embed(ctx, []string{"two"})
	require.ErrorIs(t, err, chitta.ErrDimensionMismatch)
	assert.Equal(t, 32, chitta.NewCachedEmbedder(chitta.NewHashEmbedder(32), 0).Dimensions(), "taken from the wrapped embedder")
}

func TestCachedEmbedderInvalid(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	for name, c := range map[string]*chitta.CachedEmbedder{"nil embedder": chitta.NewCachedEmbedder(nil, 0), "zero value": {}, "nil pointer": nil} {
		_, err := c.Embed(ctx, []string{"x"})
		require.ErrorIs(t, err, chitta.ErrInvalidOption, name)
	}
	f := newCounting()
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	_, err := chitta.NewCachedEmbedder(f, 0).Embed(canceled, []string{"x"})
	require.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, f.Calls())
}

func TestCachedEmbedderConcurrent(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	texts := chitta.SynthTurns(5, 40)
	want, err := chitta.NewHashEmbedder(64).Embed(ctx, texts)
	require.NoError(t, err)
	c := chitta.NewCachedEmbedder(chitta.NewHashEmbedder(64), 25) // small: forces evictions
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for r := range 20 {
				lo := (g*7 + r*3) % len(texts)
				hi := min(len(texts), lo+1+(g+r)%15)
				got, err := c.Embed(ctx, texts[lo:hi])
				if err != nil {
					errs <- err
					return
				}
				for k := range got {
					if !assert.ObjectsAreEqual(want[lo+k], got[k]) {
						errs <- fmt.Errorf("text %d: wrong vector", lo+k)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	assert.LessOrEqual(t, c.Stats().Len, 25)
}

// BenchmarkRecompact measures the agent loop: a conversation of 1 000
// messages grows by 10 new turns and is compacted again. "cold" embeds
// everything each time (HashEmbedder alone); "cached" puts a chitta.CachedEmbedder
// in front, warmed by earlier compactions, so only the 10 new turns are
// embedded. Each iteration uses 10 turns never seen before. The compact/*
// pair times the whole chitta.Compact call; the embed/* pair times only the
// embedder call chitta.Compact makes (1 010 texts and the query).
func BenchmarkRecompact(b *testing.B) {
	base := chitta.SynthTurns(42, 1000)
	fresh := chitta.SynthTurns(43, 10)
	msgs := make([]chitta.Message, 1010)
	for i, s := range base {
		msgs[i] = chitta.Message{Role: []chitta.Role{chitta.RoleUser, chitta.RoleAssistant}[i%2], Content: s}
	}
	const query = "why does parseConfig fail on the HTTPServer config"
	texts := func() []string {
		out := make([]string, 0, len(msgs)+1)
		for _, m := range msgs {
			out = append(out, m.Content)
		}
		return append(out, query)
	}
	for _, bc := range []struct {
		name    string
		e       func() chitta.Embedder
		compact bool
		tokens  bool // a CachedTokenCounter as well
	}{
		{"compact/msgs=1000+10/cold", func() chitta.Embedder { return chitta.NewHashEmbedder(0) }, true, false},
		{"compact/msgs=1000+10/cached", func() chitta.Embedder { return chitta.NewCachedEmbedder(chitta.NewHashEmbedder(0), 0) }, true, false},
		{"compact/msgs=1000+10/cached+tokens", func() chitta.Embedder { return chitta.NewCachedEmbedder(chitta.NewHashEmbedder(0), 0) }, true, true},
		{"embed/msgs=1000+10/cold", func() chitta.Embedder { return chitta.NewHashEmbedder(0) }, false, false},
		{"embed/msgs=1000+10/cached", func() chitta.Embedder { return chitta.NewCachedEmbedder(chitta.NewHashEmbedder(0), 0) }, false, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := b.Context()
			opts := &chitta.Options{Embedder: bc.e(), Query: query}
			if bc.tokens {
				opts.Tokens = chitta.NewCachedTokenCounter(nil, 0)
			}
			if _, err := chitta.Compact(ctx, msgs[:1000], opts); err != nil { // warm-up
				b.Fatal(err)
			}
			b.ReportAllocs()
			iter := 0
			for b.Loop() {
				b.StopTimer()
				iter++
				for k, s := range fresh {
					msgs[1000+k] = chitta.Message{Role: []chitta.Role{chitta.RoleUser, chitta.RoleAssistant}[k%2], Content: fmt.Sprintf("%s (turn %d)", s, iter)}
				}
				in := texts()
				b.StartTimer()
				if !bc.compact {
					if _, err := opts.Embedder.Embed(ctx, in); err != nil {
						b.Fatal(err)
					}
					continue
				}
				res, err := chitta.Compact(ctx, msgs, opts)
				if err != nil || !res.Stats.Embedding {
					b.Fatal(err, res.Stats.Embedding)
				}
			}
		})
	}
}

func vecNorm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// TestCachedEmbedderProperty drives one cache with random batches (repeats
// included) and checks every answer against the uncached embedder, the
// capacity bound (grown to the largest batch), and that each distinct text reaches the wrapped embedder
// at most once per call.
func TestCachedEmbedderProperty(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool := chitta.SynthTurns(21, 60)
	direct := chitta.NewHashEmbedder(32)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, capacity := range []int{1, 7, 64} {
		f := &chittatest.CountingEmbedder{Next: direct}
		c := chitta.NewCachedEmbedder(f, capacity)
		bound := capacity // grows to the largest batch
		for range 40 {
			batch := make([]string, rng.IntN(20))
			bound = max(bound, len(batch))
			for i := range batch {
				batch[i] = pool[rng.IntN(len(pool))]
			}
			before := len(f.Texts())
			got, err := c.Embed(ctx, batch)
			require.NoError(t, err)
			want, err := direct.Embed(ctx, batch)
			require.NoError(t, err)
			require.Equal(t, want, got, "capacity %d", capacity)
			sent := f.Texts()[before:]
			seen := map[string]bool{}
			for _, s := range sent {
				require.False(t, seen[s], "text sent twice in one call")
				seen[s] = true
			}
			assert.LessOrEqual(t, c.Stats().Len, bound)
			assert.Equal(t, bound, c.Stats().Capacity)
		}
	}
}

// TestNilReceivers checks the nil pointers of chitta's embedder and counter
// types, easily stored in an Options interface field by mistake: they fail
// or fall back as documented instead of panicking.
func TestNilReceivers(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	var ce *chitta.CachedEmbedder
	var tc *chitta.CachedTokenCounter
	var he *chitta.HashEmbedder
	tests := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"CachedEmbedder.Embed", func(t *testing.T) {
			_, err := ce.Embed(ctx, []string{"x"})
			require.ErrorIs(t, err, chitta.ErrInvalidOption)
		}},
		{"CachedEmbedder.Dimensions", func(t *testing.T) { assert.Zero(t, ce.Dimensions()) }},
		{"CachedEmbedder.Stats", func(t *testing.T) { assert.Equal(t, chitta.CacheStats{}, ce.Stats()) }},
		{"CachedTokenCounter.CountTokens", func(t *testing.T) {
			assert.Equal(t, chitta.EstimateTokens("one two three"), tc.CountTokens("one two three"))
		}},
		{"HashEmbedder.Embed", func(t *testing.T) {
			v, err := he.Embed(ctx, []string{"hello"})
			require.NoError(t, err)
			require.Len(t, v, 1)
			assert.Len(t, v[0], chitta.DefaultHashDimensions)
		}},
		{"Compact with nil pointers as options", func(t *testing.T) {
			res, err := chitta.Compact(ctx, []chitta.Message{{Role: chitta.RoleUser, Content: "hello there"}},
				&chitta.Options{Embedder: ce, Tokens: tc, TargetRatio: 1})
			require.NoError(t, err)
			assert.False(t, res.Stats.Embedding)
			assert.Equal(t, chitta.EstimateTokens("hello there"), res.Stats.BeforeTokens)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.NotPanics(t, func() { tt.run(t) })
		})
	}
}
