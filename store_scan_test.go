package chitta_test

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/internal/testkit/synth"
	"github.com/chitta-go/chitta/internal/vecmath"
)

// exactTop is the reference for the store's compressed scan: the float64
// cosine (vecmath.Cosine64, the similarity the store reports) of every
// stored vector that passes pass, most similar first, ties by ascending ID.
func exactTop(ms []chitta.Memory, q []float32, k int, pass func(chitta.Memory) bool) []chitta.Hit {
	var hits []chitta.Hit
	for _, m := range ms {
		if pass == nil || pass(m) {
			hits = append(hits, chitta.Hit{Memory: m, Similarity: vecmath.Cosine64(q, m.Vector)})
		}
	}
	slices.SortFunc(hits, func(a, b chitta.Hit) int {
		if c := cmp.Compare(b.Similarity, a.Similarity); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return hits[:min(k, len(hits))]
}

// scanSet is one data set of the compressed-scan property test.
type scanSet struct {
	name    string
	vecs    [][]float32
	queries [][]float32
}

// scanSets draws data sets over dims 1–4096: uniform random, clustered,
// and near-ties (exact duplicates under different IDs, copies nudged by
// one float32 ulp in one component, and queries that are stored vectors or
// lie half-way between two of them).
func scanSets(r *rand.Rand, sets, queries int) []scanSet {
	var out []scanSet
	for i := range sets {
		d := int(math.Round(math.Exp(r.Float64() * math.Log(4096))))
		if i < 4 {
			d = []int{1, 2, 4096, 384}[i]
		}
		n := 20 + r.IntN(max(40, 400000/(d+100)))
		var vecs [][]float32
		var draw func() []float32
		kind := []string{"random", "clustered", "ties"}[i%3]
		switch kind {
		case "random":
			vecs = synth.Uniform(uint64(i+1), n, d)
			draw = func() []float32 { return synth.Random(r, d) }
		default:
			vecs, draw = synth.Clustered(synth.Spec{Seed: uint64(i + 1), Dims: d, Clusters: 1 + r.IntN(8), Spread: 0.05 + r.Float64()}, n)
		}
		if kind == "ties" {
			for j := 0; j < n/3; j++ {
				v := slices.Clone(vecs[r.IntN(len(vecs))])
				if j%2 == 1 {
					c := r.IntN(d)
					v[c] = math.Nextafter32(v[c], float32(math.Inf(1)))
				}
				vecs = append(vecs, v)
			}
		}
		qs := make([][]float32, queries)
		for j := range qs {
			switch {
			case kind == "ties" && j%3 == 0:
				qs[j] = slices.Clone(vecs[r.IntN(len(vecs))])
			case kind == "ties" && j%3 == 1:
				a, b := vecs[r.IntN(len(vecs))], vecs[r.IntN(len(vecs))]
				qs[j] = make([]float32, d)
				for c := range qs[j] {
					qs[j][c] = a[c] + b[c]
				}
				if vecmath.Norm(qs[j]) == 0 {
					qs[j] = draw()
				}
			default:
				qs[j] = draw()
			}
		}
		out = append(out, scanSet{fmt.Sprintf("%s/d=%d/n=%d", kind, d, len(vecs)), vecs, qs})
	}
	return out
}

// TestHNSWStoreCompressedScanExact checks that Recall, RecallBatch,
// RecallMatching and BestSimilarities, which scan the int8 copy and re-rank candidates, give
// exactly the float64 answer of a full scan: the same IDs in the same
// order and the same similarities, over 42 data sets (dims 1–4096, random,
// clustered and near-tie sets) and 1 260 queries, with k from 1 to beyond
// the store's size.
func TestHNSWStoreCompressedScanExact(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	r := rand.New(rand.NewPCG(16, 4))
	sets := scanSets(r, 42, 30)
	// Rows over several pages of the int8 copy (2 048 rows each at 2 048
	// dimensions) and of the float32 matrix (512 rows each).
	pages, draw := synth.Clustered(synth.Spec{Seed: 99, Dims: 2048, Clusters: 3}, 4500)
	sets = append(sets, scanSet{"pages/d=2048/n=4500", pages, [][]float32{draw(), draw(), pages[4499], pages[2047], pages[2048]}})
	for _, set := range sets {
		t.Run(set.name, func(t *testing.T) {
			d := len(set.vecs[0])
			s := newStore(t, d, nil)
			ms := fill(t, s, set.vecs)
			for i := range ms {
				ms[i].Kind = []string{chitta.KindFact, chitta.KindEpisode, chitta.KindWisdom}[i%3]
				require.NoError(t, s.Add(ctx, ms[i]))
				stored, ok := s.Get(ms[i].ID) // normalised again
				require.True(t, ok)
				ms[i].Vector = stored.Vector
			}
			k := []int{1, 3, 10, len(ms) + 1}[r.IntN(4)]
			batch, err := s.RecallBatch(ctx, set.queries, k)
			require.NoError(t, err)
			f := chitta.KindFilter{Exclude: []string{chitta.KindEpisode}}
			best, err := s.BestSimilarities(ctx, set.queries, f)
			require.NoError(t, err)
			for j, q := range set.queries {
				want := exactTop(ms, q, k, nil)
				got, err := s.Recall(ctx, q, k)
				require.NoError(t, err)
				require.Equal(t, ids(want), ids(got), "query %d k=%d", j, k)
				require.Equal(t, ids(want), ids(batch[j]), "batch query %d k=%d", j, k)
				for i := range want {
					require.Equal(t, want[i].Similarity, got[i].Similarity)
				}
				pass := func(m chitta.Memory) bool { return f.Match(m.Kind) }
				matching, err := s.RecallMatching(ctx, q, k, f)
				require.NoError(t, err)
				require.Equal(t, ids(exactTop(ms, q, k, pass)), ids(matching), "matching query %d k=%d", j, k)
				top := exactTop(ms, q, 1, pass)
				require.Equal(t, max(0, top[0].Similarity), best[j], "best similarity of query %d", j)
			}
		})
	}
}

// TestHNSWStoreBestSimilarities covers the filter semantics: the best over
// memories that pass, not the best of a top few filtered afterwards, 0 when
// none passes or every similarity is negative, and errors naming the bad
// vector.
func TestHNSWStoreBestSimilarities(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newStore(t, 2, nil)
	add := func(id, kind string, v ...float32) {
		require.NoError(t, s.Add(ctx, chitta.Memory{ID: id, Kind: kind, Vector: v}))
	}
	for i := range 5 { // five episodes nearest to (1, 0)
		add(fmt.Sprint("e", i), chitta.KindEpisode, 1, float32(i)*0.01)
	}
	add("f", chitta.KindFact, 0, 1)
	q := [][]float32{{1, 0}, {0, 1}, {-1, -1}}
	tests := []struct {
		name string
		f    chitta.KindFilter
		want []float64
	}{
		{"every kind", chitta.KindFilter{}, []float64{1, 1, 0}},
		{"episodes excluded", chitta.KindFilter{Exclude: []string{chitta.KindEpisode}}, []float64{0, 1, 0}},
		{"only episodes", chitta.KindFilter{Include: []string{chitta.KindEpisode}}, []float64{1, vecmath.Cosine64([]float32{1, float32(4) * 0.01}, []float32{0, 1}), 0}},
		{"nothing passes", chitta.KindFilter{Include: []string{"none"}}, []float64{0, 0, 0}},
	}
	for _, tt := range tests {
		got, err := s.BestSimilarities(ctx, q, tt.f)
		require.NoError(t, err, tt.name)
		assert.InDeltaSlice(t, tt.want, got, 1e-6, tt.name)
	}
	_, err := s.BestSimilarities(ctx, [][]float32{{1, 0}, {1}}, chitta.KindFilter{})
	require.ErrorIs(t, err, chitta.ErrDimensionMismatch)
	assert.ErrorContains(t, err, "query vector 1")
	_, err = s.BestSimilarities(ctx, [][]float32{{0, 0}}, chitta.KindFilter{})
	require.ErrorIs(t, err, chitta.ErrInvalidVector)
	got, err := s.BestSimilarities(ctx, nil, chitta.KindFilter{})
	require.NoError(t, err)
	assert.Empty(t, got)
	var zero *chitta.HNSWStore
	_, err = zero.BestSimilarities(ctx, q, chitta.KindFilter{})
	require.ErrorIs(t, err, chitta.ErrInvalidOption)
}

// TestHNSWStoreGeneration checks that every mutation changes the
// generation, that reads do not, and that two stores never share one.
func TestHNSWStoreGeneration(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newStore(t, 2, nil)
	other := newStore(t, 2, nil)
	gen := func(s *chitta.HNSWStore) uint64 {
		g, err := s.Generation(ctx)
		require.NoError(t, err)
		return g
	}
	seen := map[uint64]bool{gen(s): true}
	assert.NotEqual(t, gen(s), gen(other))
	step := func(name string, f func()) {
		f()
		g := gen(s)
		assert.False(t, seen[g], "%s: generation %d reused", name, g)
		seen[g] = true
	}
	step("add", func() { require.NoError(t, s.Add(ctx, chitta.Memory{ID: "a", Vector: []float32{1, 0}})) })
	step("replace", func() { require.NoError(t, s.Add(ctx, chitta.Memory{ID: "a", Vector: []float32{0, 1}})) })
	step("add another", func() { require.NoError(t, s.Add(ctx, chitta.Memory{ID: "b", Vector: []float32{1, 1}})) })
	step("delete", func() { require.NoError(t, s.Delete("a")) })
	g := gen(s)
	_, err := s.Recall(ctx, []float32{1, 0}, 3)
	require.NoError(t, err)
	_, err = s.BestSimilarities(ctx, [][]float32{{1, 0}}, chitta.KindFilter{Exclude: []string{"x"}})
	require.NoError(t, err)
	s.Get("b")
	assert.Equal(t, g, gen(s), "reads keep the generation")
	// A failed Add or Delete changes nothing.
	require.Error(t, s.Add(ctx, chitta.Memory{ID: "c", Vector: []float32{1}}))
	require.Error(t, s.Delete("zzz"))
	assert.Equal(t, g, gen(s))

	path := t.TempDir() + "/s.chitta"
	require.NoError(t, s.SaveFile(path))
	loaded, err := chitta.LoadHNSWStore(path)
	require.NoError(t, err)
	assert.False(t, seen[gen(loaded)], "a loaded store starts at a fresh generation")

	var zero *chitta.HNSWStore
	_, err = zero.Generation(ctx)
	require.ErrorIs(t, err, chitta.ErrInvalidOption)
}
