package chitta_test

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/internal/testkit/synth"
	"github.com/chitta-go/chitta/internal/vecmath"
)

func newStore(t testing.TB, dims int, opts *chitta.HNSWOptions) *chitta.HNSWStore {
	t.Helper()
	s, err := chitta.NewHNSWStore(dims, opts)
	require.NoError(t, err)
	return s
}

// fill adds one memory per vector with IDs m0000, m0001, … and returns them
// with their stored vectors.
func fill(t testing.TB, s *chitta.HNSWStore, vecs [][]float32) []chitta.Memory {
	t.Helper()
	ms := make([]chitta.Memory, len(vecs))
	for i, v := range vecs {
		ms[i] = chitta.Memory{
			ID: fmt.Sprintf("m%04d", i), Text: fmt.Sprintf("memory %d", i), Kind: chitta.KindFact,
			Confidence: float64(i%11) / 10, Vector: v,
			CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, i, time.UTC), Source: "test",
		}
		require.NoError(t, s.Add(t.Context(), ms[i]))
		stored, ok := s.Get(ms[i].ID)
		require.True(t, ok)
		ms[i].Vector = stored.Vector // the normalised copy the store compares with
	}
	return ms
}

// bruteForce is the reference Recall: float64 cosine over every memory,
// most similar first, ties by ID.
func bruteForce(ms []chitta.Memory, q []float32, k int) []chitta.Hit {
	hits := make([]chitta.Hit, 0, len(ms))
	for _, m := range ms {
		hits = append(hits, chitta.Hit{Memory: m, Similarity: trueCosine(q, m.Vector)})
	}
	slices.SortFunc(hits, func(a, b chitta.Hit) int {
		if c := cmp.Compare(b.Similarity, a.Similarity); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return hits[:min(k, len(hits))]
}

// trueCosine is the reference cosine, in float64 throughout.
func trueCosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

func ids(hits []chitta.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

func TestNewHNSWStoreValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		dims int
		opts *chitta.HNSWOptions
		ok   bool
	}{
		{"defaults", 384, nil, true},
		{"zero options", 3, &chitta.HNSWOptions{}, true},
		{"all set", 8, &chitta.HNSWOptions{Crossover: 10, M: 32, EfSearch: 100, EfConstruction: 100, Shards: 4, Overfetch: 2, Seed: 7}, graphsBuilt},
		{"zero dims", 0, nil, false},
		{"negative dims", -1, nil, false},
		{"huge dims", chitta.MaxStoreDims + 1, nil, false},
		{"negative crossover", 4, &chitta.HNSWOptions{Crossover: -1}, false},
		{"M one", 4, &chitta.HNSWOptions{M: 1}, false},
		{"M huge", 4, &chitta.HNSWOptions{M: 257}, false},
		{"negative EfSearch", 4, &chitta.HNSWOptions{EfSearch: -5}, false},
		{"negative EfConstruction", 4, &chitta.HNSWOptions{EfConstruction: -5}, false},
		{"too many shards", 4, &chitta.HNSWOptions{Shards: 1025}, false},
		{"negative overfetch", 4, &chitta.HNSWOptions{Overfetch: -1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := chitta.NewHNSWStore(tt.dims, tt.opts)
			if !tt.ok {
				require.ErrorIs(t, err, chitta.ErrInvalidOption)
				assert.Nil(t, s)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.dims, s.Dims())
			assert.Zero(t, s.Len())
		})
	}
}

func TestHNSWStoreAddRejects(t *testing.T) {
	t.Parallel()
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	// A string SaveFile would write but LoadHNSWStore refuses (> 64 MiB).
	huge := strings.Repeat("x", 1<<26+1)
	tests := []struct {
		name string
		m    chitta.Memory
		want error
	}{
		{"nil vector", chitta.Memory{Text: "x"}, chitta.ErrInvalidVector},
		{"short vector", chitta.Memory{Vector: []float32{1, 2}}, chitta.ErrDimensionMismatch},
		{"long vector", chitta.Memory{Vector: []float32{1, 2, 3, 4}}, chitta.ErrDimensionMismatch},
		{"zero vector", chitta.Memory{Vector: []float32{0, 0, 0}}, chitta.ErrInvalidVector},
		{"NaN component", chitta.Memory{Vector: []float32{1, nan, 0}}, chitta.ErrInvalidVector},
		{"Inf component", chitta.Memory{Vector: []float32{1, -inf, 0}}, chitta.ErrInvalidVector},
		{"NaN confidence", chitta.Memory{Vector: []float32{1, 0, 0}, Confidence: math.NaN()}, chitta.ErrInvalidMemory},
		{"negative confidence", chitta.Memory{Vector: []float32{1, 0, 0}, Confidence: -0.1}, chitta.ErrInvalidMemory},
		{"confidence above one", chitta.Memory{Vector: []float32{1, 0, 0}, Confidence: 1.01}, chitta.ErrInvalidMemory},
		{"text over 64 MiB", chitta.Memory{Vector: []float32{1, 0, 0}, Text: huge}, chitta.ErrInvalidMemory},
		{"ID over 64 MiB", chitta.Memory{Vector: []float32{1, 0, 0}, ID: huge}, chitta.ErrInvalidMemory},
		{"kind over 64 MiB", chitta.Memory{Vector: []float32{1, 0, 0}, Kind: huge}, chitta.ErrInvalidMemory},
		{"source over 64 MiB", chitta.Memory{Vector: []float32{1, 0, 0}, Source: huge}, chitta.ErrInvalidMemory},
		// MemoryID joins kind and text with a NUL: this memory's default
		// ID was that of kind "a" with text "b\x00c", which it replaced.
		{"kind holding a NUL", chitta.Memory{Vector: []float32{1, 0, 0}, Kind: "a\x00b", Text: "c"}, chitta.ErrInvalidMemory},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newStore(t, 3, nil)
			err := s.Add(t.Context(), tt.m)
			require.ErrorIs(t, err, tt.want)
			assert.Zero(t, s.Len(), "a rejected Add must leave the store unchanged")
		})
	}
	t.Run("dimension error names got and want", func(t *testing.T) {
		t.Parallel()
		err := newStore(t, 3, nil).Add(t.Context(), chitta.Memory{Vector: []float32{1, 2}})
		require.ErrorIs(t, err, chitta.ErrDimensionMismatch)
		assert.Contains(t, err.Error(), "2 dimensions, want 3")
	})
	t.Run("done context", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		err := newStore(t, 3, nil).Add(ctx, chitta.Memory{Vector: []float32{1, 0, 0}})
		require.ErrorIs(t, err, context.Canceled)
	})
	t.Run("huge finite components are accepted", func(t *testing.T) {
		t.Parallel()
		s := newStore(t, 3, nil)
		require.NoError(t, s.Add(t.Context(), chitta.Memory{ID: "big", Vector: []float32{math.MaxFloat32, math.MaxFloat32, 0}}))
		m, ok := s.Get("big")
		require.True(t, ok)
		assert.InDelta(t, 1, vecmath.RefNorm(m.Vector), 1e-6)
	})
}

func TestHNSWStoreAddSemantics(t *testing.T) {
	t.Parallel()
	ctx := t.Context()

	t.Run("copies and normalises the vector", func(t *testing.T) {
		t.Parallel()
		s := newStore(t, 2, nil)
		v := []float32{3, 4}
		require.NoError(t, s.Add(ctx, chitta.Memory{ID: "a", Vector: v}))
		v[0] = -100 // the store must not alias the caller's slice
		m, ok := s.Get("a")
		require.True(t, ok)
		assert.InDeltaSlice(t, []float32{0.6, 0.8}, m.Vector, 1e-6)
		assert.Equal(t, []float32{-100, 4}, v, "Add must not modify the caller's vector")
		m.Vector[0] = 42 // nor hand out its own
		again, _ := s.Get("a")
		assert.InDelta(t, 0.6, again.Vector[0], 1e-6)
	})

	t.Run("duplicate ID replaces", func(t *testing.T) {
		t.Parallel()
		s := newStore(t, 2, nil)
		require.NoError(t, s.Add(ctx, chitta.Memory{ID: "a", Text: "old", Vector: []float32{1, 0}}))
		require.NoError(t, s.Add(ctx, chitta.Memory{ID: "a", Text: "new", Vector: []float32{0, 1}}))
		assert.Equal(t, 1, s.Len())
		hits, err := s.Recall(ctx, []float32{0, 1}, 5)
		require.NoError(t, err)
		require.Len(t, hits, 1)
		assert.Equal(t, "new", hits[0].Text)
		assert.InDelta(t, 1, hits[0].Similarity, 1e-9)
	})

	t.Run("empty ID is derived from kind and text", func(t *testing.T) {
		t.Parallel()
		s := newStore(t, 2, nil)
		m := chitta.Memory{Text: "use tabs", Kind: chitta.KindPreference, Vector: []float32{1, 1}}
		require.NoError(t, s.Add(ctx, m))
		m.Confidence = 0.9
		require.NoError(t, s.Add(ctx, m))
		require.NoError(t, s.Add(ctx, chitta.Memory{Text: "use tabs", Kind: chitta.KindHabit, Vector: []float32{1, 1}}))
		assert.Equal(t, 2, s.Len(), "same kind and text replace; another kind is another memory")
		id := chitta.MemoryID(chitta.KindPreference, "use tabs")
		assert.Len(t, id, 32)
		got, ok := s.Get(id)
		require.True(t, ok)
		assert.InDelta(t, 0.9, got.Confidence, 0)
		assert.NotEqual(t, id, chitta.MemoryID(chitta.KindPreference, "use tabs!"))
	})

	t.Run("zero CreatedAt becomes now in UTC", func(t *testing.T) {
		t.Parallel()
		s := newStore(t, 2, nil)
		before := time.Now()
		require.NoError(t, s.Add(ctx, chitta.Memory{ID: "a", Vector: []float32{1, 0}}))
		paris := time.FixedZone("CET", 3600)
		at := time.Date(2025, 6, 1, 12, 0, 0, 123456789, paris)
		require.NoError(t, s.Add(ctx, chitta.Memory{ID: "b", Vector: []float32{1, 0}, CreatedAt: at}))
		a, _ := s.Get("a")
		b, _ := s.Get("b")
		assert.False(t, a.CreatedAt.Before(before.Add(-time.Second)))
		assert.Equal(t, time.UTC, a.CreatedAt.Location())
		assert.True(t, b.CreatedAt.Equal(at))
		assert.Equal(t, time.UTC, b.CreatedAt.Location())
	})
}

func TestHNSWStoreRecallMatchesBruteForce(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	vecs, draw := synth.Clustered(synth.Spec{Seed: 3, Dims: 24, Clusters: 5}, 300)
	s := newStore(t, 24, nil)
	ms := fill(t, s, vecs)
	for _, k := range []int{1, 3, 10, 299, 300, 1000} {
		for range 5 {
			q := draw()
			got, err := s.Recall(ctx, q, k)
			require.NoError(t, err)
			want := bruteForce(ms, q, k)
			require.Equal(t, ids(want), ids(got), "k=%d", k)
			for i := range got {
				assert.InDelta(t, want[i].Similarity, got[i].Similarity, 1e-12)
			}
		}
	}
}

func TestHNSWStoreRecallEdges(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newStore(t, 3, nil)

	hits, err := s.Recall(ctx, []float32{1, 0, 0}, 3)
	require.NoError(t, err)
	assert.Empty(t, hits, "empty store")

	for _, id := range []string{"c", "a", "b"} { // identical vectors: ties by ID
		require.NoError(t, s.Add(ctx, chitta.Memory{ID: id, Vector: []float32{1, 1, 0}}))
	}
	require.NoError(t, s.Add(ctx, chitta.Memory{ID: "far", Vector: []float32{0, 0, -1}}))
	hits, err = s.Recall(ctx, []float32{2, 2, 0}, 10)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c", "far"}, ids(hits))
	assert.InDelta(t, 1, hits[0].Similarity, 1e-9)
	assert.InDelta(t, 0, hits[3].Similarity, 1e-9)

	for _, k := range []int{0, -1} {
		none, err := s.Recall(ctx, []float32{1, 0, 0}, k)
		require.NoError(t, err)
		assert.NotNil(t, none)
		assert.Empty(t, none)
	}
	for name, tt := range map[string]struct {
		q    []float32
		want error
	}{
		"nil":   {nil, chitta.ErrInvalidVector},
		"short": {[]float32{1}, chitta.ErrDimensionMismatch},
		"zero":  {[]float32{0, 0, 0}, chitta.ErrInvalidVector},
		"NaN":   {[]float32{float32(math.NaN()), 1, 1}, chitta.ErrInvalidVector},
		"Inf":   {[]float32{float32(math.Inf(-1)), 0, 0}, chitta.ErrInvalidVector},
	} {
		_, err := s.Recall(ctx, tt.q, 3)
		assert.ErrorIs(t, err, tt.want, name)
		_, err = s.RecallBatch(ctx, [][]float32{{1, 0, 0}, tt.q}, 3)
		assert.ErrorIs(t, err, tt.want, name)
		assert.ErrorContains(t, err, "query vector 1", name)
	}
	ctx2, cancel := context.WithCancel(ctx)
	cancel()
	_, err = s.Recall(ctx2, []float32{1, 0, 0}, 3)
	require.ErrorIs(t, err, context.Canceled)
	_, err = s.RecallBatch(ctx2, [][]float32{{1, 0, 0}}, 3)
	require.ErrorIs(t, err, context.Canceled)

	hits[0].Text = "mutated"
	again, err := s.Recall(ctx, []float32{2, 2, 0}, 1)
	require.NoError(t, err)
	assert.Empty(t, again[0].Text, "hits are copies")
}

func TestHNSWStoreDelete(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	for _, opts := range []*chitta.HNSWOptions{nil, graphOptions(t, &chitta.HNSWOptions{Crossover: 20, Shards: 2, M: 8})} {
		t.Run(fmt.Sprintf("crossover=%d", crossoverOf(opts)), func(t *testing.T) {
			t.Parallel()
			vecs, _ := synth.Clustered(synth.Spec{Seed: 4, Dims: 16}, 60)
			s := newStore(t, 16, opts)
			ms := fill(t, s, vecs)

			require.ErrorIs(t, s.Delete("nope"), chitta.ErrNotFound)
			require.NoError(t, s.Delete("m0007"))
			require.ErrorIs(t, s.Delete("m0007"), chitta.ErrNotFound)
			_, ok := s.Get("m0007")
			assert.False(t, ok)
			assert.Equal(t, 59, s.Len())
			hits, err := s.Recall(ctx, vecs[7], 60)
			require.NoError(t, err)
			assert.Len(t, hits, 59)
			assert.NotContains(t, ids(hits), "m0007")

			// The freed slot is reused and the new memory is found.
			require.NoError(t, s.Add(ctx, chitta.Memory{ID: "new", Vector: vecs[7]}))
			hits, err = s.Recall(ctx, vecs[7], 1)
			require.NoError(t, err)
			assert.Equal(t, []string{"new"}, ids(hits))

			require.NoError(t, s.Delete("new"))
			for _, m := range ms {
				if m.ID != "m0007" {
					require.NoError(t, s.Delete(m.ID))
				}
			}
			assert.Zero(t, s.Len())
			hits, err = s.Recall(ctx, vecs[0], 3)
			require.NoError(t, err)
			assert.Empty(t, hits, "searching an emptied store must not panic")
			batch, err := s.RecallBatch(ctx, [][]float32{vecs[0]}, 3)
			require.NoError(t, err)
			assert.Equal(t, [][]chitta.Hit{{}}, batch)
		})
	}
}

func TestHNSWStoreRecallBatchMatchesRecall(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	// 9000 × 10 × 16 is large enough for the parallel scan.
	vecs, draw := synth.Clustered(synth.Spec{Seed: 5, Dims: 16}, 9000)
	s := newStore(t, 16, nil)
	ms := fill(t, s, vecs)
	// Holes in the slot table must be skipped by the blocked kernel too.
	for _, i := range []int{8999, 4500, 100, 7} { // descending: ms shrinks
		require.NoError(t, s.Delete(ms[i].ID))
		ms = slices.Delete(ms, i, i+1)
	}
	qs := make([][]float32, 10)
	for i := range qs {
		qs[i] = draw()
	}
	qs[3] = vecs[42]  // a stored vector finds itself first
	qs[4] = vecs[100] // a deleted one does not
	batch, err := s.RecallBatch(ctx, qs, 3)
	require.NoError(t, err)
	require.Len(t, batch, len(qs))
	for i, q := range qs {
		want := bruteForce(ms, q, 3)
		assert.Equal(t, ids(want), ids(batch[i]), "query %d", i)
		one, err := s.Recall(ctx, q, 3)
		require.NoError(t, err)
		assert.Equal(t, one, batch[i])
	}
	assert.Equal(t, "m0042", batch[3][0].ID)
	assert.NotContains(t, ids(batch[4]), "m0100")

	empty, err := s.RecallBatch(ctx, qs, 0)
	require.NoError(t, err)
	assert.Len(t, empty, len(qs))
	none, err := s.RecallBatch(ctx, nil, 3)
	require.NoError(t, err)
	assert.Empty(t, none)
}

func TestHNSWStoreGraphRecall(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	vecs, draw := synth.Clustered(synth.Spec{Seed: 6, Dims: 32, Clusters: 4}, 400)
	s := newStore(t, 32, graphOptions(t, &chitta.HNSWOptions{Crossover: 100, Shards: 2, M: 16, Overfetch: 20}))
	ms := fill(t, s, vecs)
	hit := 0
	const queries = 40
	for range queries {
		q := draw()
		got, err := s.Recall(ctx, q, 3)
		require.NoError(t, err)
		require.Len(t, got, 3)
		for i, h := range got {
			assert.InDelta(t, trueCosine(q, h.Vector), h.Similarity, 1e-12, "true cosine")
			if i > 0 {
				assert.GreaterOrEqual(t, got[i-1].Similarity, h.Similarity, "most similar first")
			}
		}
		want := bruteForce(ms, q, 3)
		for _, id := range ids(got) {
			if slices.Contains(ids(want), id) {
				hit++
			}
		}
	}
	// Only a sanity floor: the graph path is approximate (see the README).
	assert.Greater(t, float64(hit)/(3*queries), 0.3)
}

func TestHNSWStoreConcurrent(t *testing.T) {
	t.Parallel()
	for _, opts := range []*chitta.HNSWOptions{nil, graphOptions(t, &chitta.HNSWOptions{Crossover: 50, M: 8, EfConstruction: 32})} {
		t.Run(fmt.Sprintf("crossover=%d", crossoverOf(opts)), func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			const dims = 16
			s := newStore(t, dims, opts)
			vecs := synth.Uniform(7, 400, dims)
			fill(t, s, vecs[:100])
			path := t.TempDir() + "/store.bin"
			var wg sync.WaitGroup
			for w := range 4 {
				wg.Go(func() {
					rng := rand.New(rand.NewPCG(uint64(w), 0))
					for i := range 150 {
						v := vecs[rng.IntN(len(vecs))]
						id := fmt.Sprintf("w%d-%d", w, rng.IntN(60))
						switch i % 6 {
						case 0, 1:
							assert.NoError(t, s.Add(ctx, chitta.Memory{ID: id, Vector: v}))
						case 2:
							err := s.Delete(id)
							if err != nil {
								assert.ErrorIs(t, err, chitta.ErrNotFound)
							}
						case 3:
							hits, err := s.Recall(ctx, v, 3)
							assert.NoError(t, err)
							assert.LessOrEqual(t, len(hits), 3)
						case 4:
							hits, err := s.RecallBatch(ctx, [][]float32{v, vecs[0]}, 3)
							assert.NoError(t, err)
							assert.Len(t, hits, 2)
						case 5:
							s.Get(id)
							assert.Positive(t, s.Len())
							if i%30 == 5 {
								assert.NoError(t, s.SaveFile(path))
							}
						}
					}
				})
			}
			wg.Wait()
			loaded, err := chitta.LoadHNSWStore(path)
			require.NoError(t, err)
			assert.Positive(t, loaded.Len())
		})
	}
}

func crossoverOf(o *chitta.HNSWOptions) int {
	if o == nil {
		return 0
	}
	return o.Crossover
}

// FuzzHNSWStoreAddRecall feeds arbitrary vectors (any length, any bit
// patterns: NaN, Inf, denormals, zeros) and k to Add and Recall: neither may
// panic, errors must wrap the documented sentinels, and hits must be at most
// k, sorted, with similarities in [-1, 1]. A vector Add accepted recalls
// itself at cosine 1, and RecallBatch, RecallMatching (no filter) and
// BestSimilarities answer the query as Recall does.
func FuzzHNSWStoreAddRecall(f *testing.F) {
	le := func(xs ...float32) []byte {
		var b []byte
		for _, x := range xs {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
		return b
	}
	f.Add(le(1, 0, 0, 0), int8(3))
	f.Add(le(0, 0, 0, 0), int8(1))
	f.Add(le(float32(math.NaN()), 1, 2, 3), int8(2))
	f.Add(le(math.MaxFloat32, -math.MaxFloat32, 1e-45, 0), int8(-1))
	f.Add(le(1, 2), int8(5))
	f.Fuzz(func(t *testing.T, raw []byte, k int8) {
		ctx := t.Context()
		s := newStore(t, 4, nil)
		fill(t, s, synth.Uniform(1, 20, 4))
		v := make([]float32, len(raw)/4)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		err := s.Add(ctx, chitta.Memory{ID: "fuzz", Vector: v})
		added := err == nil
		if err != nil {
			require.True(t, errors.Is(err, chitta.ErrInvalidVector) || errors.Is(err, chitta.ErrDimensionMismatch), "add: %v", err)
			assert.Equal(t, 20, s.Len())
		} else {
			assert.Equal(t, 21, s.Len())
		}
		hits, err := s.Recall(ctx, v, int(k))
		if err != nil {
			require.True(t, errors.Is(err, chitta.ErrInvalidVector) || errors.Is(err, chitta.ErrDimensionMismatch), "recall: %v", err)
			return
		}
		require.LessOrEqual(t, len(hits), max(0, int(k)))
		for i, h := range hits {
			assert.False(t, math.IsNaN(h.Similarity))
			assert.LessOrEqual(t, math.Abs(h.Similarity), 1.0)
			if i > 0 {
				assert.GreaterOrEqual(t, hits[i-1].Similarity, h.Similarity)
			}
		}
		if k <= 0 {
			return
		}
		if added {
			// The memory just added is the query: it is found, at cosine 1.
			assert.InDelta(t, 1, hits[0].Similarity, 1e-6, "the added vector recalls itself")
		}
		// The other exact scans agree with Recall on the same query.
		batch, err := s.RecallBatch(ctx, [][]float32{v}, int(k))
		require.NoError(t, err)
		assert.Equal(t, [][]chitta.Hit{hits}, batch, "RecallBatch")
		matching, err := s.RecallMatching(ctx, v, int(k), chitta.KindFilter{})
		require.NoError(t, err)
		assert.Equal(t, hits, matching, "RecallMatching")
		best, err := s.BestSimilarities(ctx, [][]float32{v}, chitta.KindFilter{})
		require.NoError(t, err)
		assert.Equal(t, []float64{max(0, hits[0].Similarity)}, best, "BestSimilarities")
	})
}

// TestHNSWStoreUnusable checks that the zero HNSWStore and a nil
// *HNSWStore (easily passed as Options.Store by mistake) fail with a clear
// error instead of panicking, and that SaveFile does not write a file that
// LoadHNSWStore would reject.
func TestHNSWStoreUnusable(t *testing.T) {
	t.Parallel()
	for name, s := range map[string]*chitta.HNSWStore{"zero": {}, "nil": nil} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			v := []float32{1, 0}
			require.ErrorIs(t, s.Add(ctx, chitta.Memory{ID: "a", Vector: v}), chitta.ErrInvalidOption)
			_, err := s.Recall(ctx, v, 3)
			require.ErrorIs(t, err, chitta.ErrInvalidOption)
			_, err = s.RecallBatch(ctx, [][]float32{v}, 3)
			require.ErrorIs(t, err, chitta.ErrInvalidOption)
			require.ErrorIs(t, s.Delete("a"), chitta.ErrInvalidOption)
			path := filepath.Join(t.TempDir(), "store")
			require.ErrorIs(t, s.SaveFile(path), chitta.ErrInvalidOption)
			assert.NoFileExists(t, path)
			assert.Zero(t, s.Len())
			assert.Zero(t, s.Dims())
			_, ok := s.Get("a")
			assert.False(t, ok)

			res, err := chitta.Compact(ctx, []chitta.Message{msg(chitta.RoleUser, "hello there")},
				&chitta.Options{Embedder: chitta.NewHashEmbedder(8), Store: s, TargetRatio: 1})
			require.NoError(t, err, "a broken store degrades Compact")
			assert.Zero(t, res.Scores[0].Coverage)
		})
	}
}

func TestKindFilterMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		f    chitta.KindFilter
		kind string
		want bool
	}{
		{"zero passes all", chitta.KindFilter{}, "episode", true},
		{"include names it", chitta.KindFilter{Include: []string{"fact"}}, "fact", true},
		{"include omits it", chitta.KindFilter{Include: []string{"fact"}}, "episode", false},
		{"exclude names it", chitta.KindFilter{Exclude: []string{"episode", "brief"}}, "brief", false},
		{"exclude omits it", chitta.KindFilter{Exclude: []string{"episode"}}, "fact", true},
		{"exclude wins over include", chitta.KindFilter{Include: []string{"fact"}, Exclude: []string{"fact"}}, "fact", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.f.Match(tt.kind))
		})
	}
}

// TestHNSWStoreRecallAllSorted recalls every memory of a store (k = Len),
// the case whose re-rank was quadratic in k (an insertion into a sorted
// slice per candidate; BenchmarkRecallAll measures it): every memory comes
// back once, most similar first, ties by ascending ID.
func TestHNSWStoreRecallAllSorted(t *testing.T) {
	t.Parallel()
	const n, dims = 5_000, 8
	s := newStore(t, dims, nil)
	vecs := synth.Uniform(5, n+1, dims)
	fill(t, s, vecs[:n])
	hits, err := s.Recall(t.Context(), vecs[n], n)
	require.NoError(t, err)
	require.Len(t, hits, n)
	seen := make(map[string]bool, n)
	for _, h := range hits {
		seen[h.ID] = true
	}
	assert.Len(t, seen, n, "each memory once")
	assert.True(t, slices.IsSortedFunc(hits, func(a, b chitta.Hit) int {
		return cmp.Or(cmp.Compare(b.Similarity, a.Similarity), strings.Compare(a.ID, b.ID))
	}))
}

// An error about a memory's ID quotes at most its first 128 bytes: Delete
// of an unknown 1 MiB ID returned an error holding all of it.
func TestHNSWStoreErrorQuotesIDShort(t *testing.T) {
	t.Parallel()
	s := newStore(t, 3, nil)
	id := strings.Repeat("é", 1<<19) // 1 MiB, two bytes a character
	err := s.Delete(id)
	require.ErrorIs(t, err, chitta.ErrNotFound)
	assert.Less(t, len(err.Error()), 300, "the error quotes a prefix")
	assert.Contains(t, err.Error(), fmt.Sprintf("(%d bytes)", len(id)))
	assert.True(t, utf8.ValidString(err.Error()), "cut at a character boundary")
	err = s.Delete("short")
	assert.ErrorContains(t, err, `ID "short"`)
}

// A bad query vector is an error for any k, k <= 0 included, from Recall
// and RecallMatching as from RecallBatch: the first two returned no hits
// and no error for it when k was 0.
func TestHNSWStoreRecallChecksVectorForAnyK(t *testing.T) {
	t.Parallel()
	s := newStore(t, 3, nil)
	fill(t, s, synth.Uniform(1, 4, 3))
	for _, k := range []int{-1, 0, 2} {
		for name, v := range map[string][]float32{"nil": nil, "short": {1, 2}, "zero": {0, 0, 0}, "NaN": {float32(math.NaN()), 1, 0}} {
			_, err := s.Recall(t.Context(), v, k)
			assert.Error(t, err, "Recall, %s vector, k %d", name, k)
			_, err = s.RecallMatching(t.Context(), v, k, chitta.KindFilter{})
			assert.Error(t, err, "RecallMatching, %s vector, k %d", name, k)
			_, err = s.RecallBatch(t.Context(), [][]float32{v}, k)
			assert.Error(t, err, "RecallBatch, %s vector, k %d", name, k)
		}
		hits, err := s.Recall(t.Context(), []float32{1, 0, 0}, k)
		require.NoError(t, err)
		assert.Len(t, hits, max(k, 0))
	}
}
