package pgstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/internal/vecmath"
)

func TestRoundTripEveryField(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{Dims: 8})
	ref, err := chitta.NewHNSWStore(8, nil)
	require.NoError(t, err)

	m := chitta.Memory{
		ID: "id-1", Text: "ünïcode text\nwith 'quotes' and \"dq\" and \\ and $1", Kind: chitta.KindCorrection,
		Confidence: 0.8125, Vector: []float32{3, -4, 0.5, 1e-20, 7, 0, 2, -1},
		CreatedAt: time.Date(1999, 12, 31, 23, 59, 58, 987654321, time.FixedZone("X", 3600)),
		Source:    "session/42",
	}
	require.NoError(t, s.Add(ctx, m))
	require.NoError(t, ref.Add(ctx, m))
	want, ok := ref.Get("id-1")
	require.True(t, ok)

	got, ok, err := s.Get(ctx, "id-1")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, want, got, "the same memory as HNSWStore keeps, vector bit for bit")
	assert.Equal(t, time.UTC, got.CreatedAt.Location())
	assert.True(t, got.CreatedAt.Equal(m.CreatedAt))

	var all []chitta.Memory
	for m, err := range s.All(ctx) {
		require.NoError(t, err)
		all = append(all, m)
	}
	assert.Equal(t, []chitta.Memory{want}, all)

	hits, err := s.Recall(ctx, m.Vector, 3)
	require.NoError(t, err)
	refHits, err := ref.Recall(ctx, m.Vector, 3)
	require.NoError(t, err)
	assert.Equal(t, refHits, hits)
	assert.InDelta(t, 1, hits[0].Similarity, 1e-12)

	_, ok, err = s.Get(ctx, "missing")
	require.NoError(t, err)
	assert.False(t, ok)
}

func TestAddDefaultsAndUpsert(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{Dims: 4})
	before := time.Now().Add(-time.Second)
	require.NoError(t, s.Add(ctx, chitta.Memory{Text: "likes tea", Kind: chitta.KindPreference, Confidence: 0.5, Vector: []float32{1, 0, 0, 0}}))
	id := chitta.MemoryID(chitta.KindPreference, "likes tea")
	got, ok, err := s.Get(ctx, id)
	require.NoError(t, err)
	require.True(t, ok, "an empty ID becomes MemoryID(kind, text)")
	assert.True(t, got.CreatedAt.After(before), "a zero CreatedAt becomes now")

	require.NoError(t, s.Add(ctx, chitta.Memory{ID: id, Text: "likes green tea", Kind: chitta.KindHabit, Confidence: 1, Vector: []float32{0, 2, 0, 0}, Source: "s2"}))
	n, err := s.Len(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "same ID replaces")
	got, _, err = s.Get(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, "likes green tea", got.Text)
	assert.Equal(t, chitta.KindHabit, got.Kind)
	assert.Equal(t, []float32{0, 1, 0, 0}, got.Vector)
	assert.Equal(t, "s2", got.Source)

	// Duplicate IDs in one statement: the last wins.
	require.NoError(t, s.add(ctx, []chitta.Memory{
		{ID: "d", Text: "first", Vector: []float32{1, 1, 0, 0}},
		{ID: "e", Text: "other", Vector: []float32{1, 1, 1, 0}},
		{ID: "d", Text: "second", Vector: []float32{1, 1, 0, 1}},
	}))
	got, _, err = s.Get(ctx, "d")
	require.NoError(t, err)
	assert.Equal(t, "second", got.Text)
	n, err = s.Len(ctx)
	require.NoError(t, err)
	assert.Equal(t, 3, n)

	require.NoError(t, s.Delete(ctx, "d"))
	require.ErrorIs(t, s.Delete(ctx, "d"), chitta.ErrNotFound)
	n, err = s.Len(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
}

func TestAddRejectsBadInput(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{Dims: 3})
	ok := []float32{1, 2, 3}
	for _, tt := range []struct {
		name string
		m    chitta.Memory
		want error
		in   string
	}{
		{"wrong dims", chitta.Memory{Text: "x", Vector: []float32{1, 2}}, chitta.ErrDimensionMismatch, "2 dimensions, want 3"},
		{"empty vector", chitta.Memory{Text: "x"}, chitta.ErrInvalidVector, "empty"},
		{"zero vector", chitta.Memory{Text: "x", Vector: []float32{0, 0, 0}}, chitta.ErrInvalidVector, "zero"},
		{"NaN", chitta.Memory{Text: "x", Vector: []float32{1, float32(math.NaN()), 0}}, chitta.ErrInvalidVector, "NaN"},
		{"Inf", chitta.Memory{Text: "x", Vector: []float32{1, float32(math.Inf(1)), 0}}, chitta.ErrInvalidVector, "infinite"},
		{"confidence", chitta.Memory{Text: "x", Vector: ok, Confidence: 1.5}, chitta.ErrInvalidMemory, "Confidence"},
		{"NaN confidence", chitta.Memory{Text: "x", Vector: ok, Confidence: math.NaN()}, chitta.ErrInvalidMemory, "Confidence"},
		{"NUL", chitta.Memory{Text: "a\x00b", Vector: ok}, chitta.ErrInvalidMemory, "Text contains a NUL"},
		{"UTF-8", chitta.Memory{Text: "x", Kind: "\xff", Vector: ok}, chitta.ErrInvalidMemory, "Kind is not valid UTF-8"},
		{"year", chitta.Memory{Text: "x", Vector: ok, CreatedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}, chitta.ErrInvalidMemory, "year 10000"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Add(ctx, tt.m)
			require.ErrorIs(t, err, tt.want)
			assert.Contains(t, err.Error(), tt.in)
		})
	}
	n, err := s.Len(ctx)
	require.NoError(t, err)
	assert.Zero(t, n, "nothing stored")

	_, err = s.Recall(ctx, []float32{1}, 1)
	require.ErrorIs(t, err, chitta.ErrDimensionMismatch)
	_, err = s.RecallBatch(ctx, [][]float32{ok, {0, 0, 0}}, 1)
	require.ErrorIs(t, err, chitta.ErrInvalidVector)
	assert.Contains(t, err.Error(), "query vector 1")
	_, err = s.BestSimilarities(ctx, [][]float32{{1, 2}}, chitta.KindFilter{})
	require.ErrorIs(t, err, chitta.ErrDimensionMismatch)

	hits, err := s.Recall(ctx, ok, 0)
	require.NoError(t, err)
	assert.Empty(t, hits)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	require.ErrorIs(t, s.Add(cancelled, chitta.Memory{Text: "x", Vector: ok}), context.Canceled)
	_, err = s.Recall(cancelled, ok, 1)
	require.ErrorIs(t, err, context.Canceled)
	_, err = s.Len(cancelled)
	require.ErrorIs(t, err, context.Canceled)
}

func TestGetDeleteRejectBadIDs(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{Dims: 3})
	traced, log := openTraced(t, s)
	for _, tt := range []struct {
		name, id, in string
	}{
		{"ID over 64 MiB", strings.Repeat("x", maxStringLen+1), fmt.Sprintf("ID is %d bytes, want at most %d", maxStringLen+1, maxStringLen)},
		{"invalid UTF-8", "a\xffb", "ID is not valid UTF-8"},
		{"NUL byte", "a\x00b", "ID contains a NUL byte"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			addErr := traced.Add(ctx, chitta.Memory{ID: tt.id, Text: "x", Vector: []float32{1, 2, 3}})
			require.ErrorIs(t, addErr, chitta.ErrInvalidMemory)

			m, ok, err := traced.Get(ctx, tt.id)
			require.ErrorIs(t, err, chitta.ErrInvalidMemory)
			assert.Contains(t, err.Error(), tt.in)
			assert.Equal(t, addErr.Error(), err.Error(), "Get rejects the ID as Add does")
			assert.False(t, ok)
			assert.Zero(t, m)

			err = traced.Delete(ctx, tt.id)
			require.ErrorIs(t, err, chitta.ErrInvalidMemory)
			assert.False(t, errors.Is(err, chitta.ErrNotFound))
			assert.Equal(t, addErr.Error(), err.Error(), "Delete rejects the ID as Add does")
		})
	}
	assert.Empty(t, log.statements(), "bad IDs are rejected before any SQL")

	// An empty ID is not malformed: Add never stores one (it becomes
	// MemoryID), so it is simply absent, as in chitta.HNSWStore.
	_, ok, err := traced.Get(ctx, "")
	require.NoError(t, err)
	assert.False(t, ok)
	require.ErrorIs(t, traced.Delete(ctx, ""), chitta.ErrNotFound)
}

// TestKindFilterRejectsBadKinds: a KindFilter kind that PostgreSQL text
// cannot hold (a NUL byte, invalid UTF-8) is an error naming the entry,
// before any SQL, as a bad ID is. Such kinds reached the server, which
// answered a NUL byte with a protocol violation (08P01) and invalid UTF-8
// with SQLSTATE 22021.
func TestKindFilterRejectsBadKinds(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{Dims: 4})
	require.NoError(t, s.Add(ctx, chitta.Memory{ID: "a", Text: "t", Kind: chitta.KindFact, Vector: []float32{1, 0, 0, 0}}))
	traced, log := openTraced(t, s)
	for _, tt := range []struct {
		f    chitta.KindFilter
		want string
	}{
		{chitta.KindFilter{Exclude: []string{"x\x00y"}}, "KindFilter.Exclude[0] contains a NUL byte"},
		{chitta.KindFilter{Exclude: []string{chitta.KindEpisode, "\xff"}}, "KindFilter.Exclude[1] is not valid UTF-8"},
		{chitta.KindFilter{Include: []string{chitta.KindFact, "\xff"}}, "KindFilter.Include[1] is not valid UTF-8"},
	} {
		_, err := traced.RecallMatching(ctx, []float32{1, 0, 0, 0}, 3, tt.f)
		require.ErrorIs(t, err, chitta.ErrInvalidOption, tt.want)
		assert.ErrorContains(t, err, tt.want)
		_, err = traced.BestSimilarities(ctx, [][]float32{{1, 0, 0, 0}}, tt.f)
		require.ErrorIs(t, err, chitta.ErrInvalidOption, tt.want)
		assert.ErrorContains(t, err, tt.want)
	}
	assert.Empty(t, log.statements(), "bad kinds are rejected before any SQL")
	hs, err := traced.Recall(ctx, []float32{1, 0, 0, 0}, 1)
	require.NoError(t, err, "the store still works")
	assert.Len(t, hs, 1)
}

func TestGetDeleteDoneContext(t *testing.T) {
	s := openTest(t, Options{Dims: 3})
	require.NoError(t, s.Add(t.Context(), chitta.Memory{ID: "kept", Text: "x", Vector: []float32{1, 2, 3}}))
	traced, log := openTraced(t, s)
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	expired, stop := context.WithDeadline(t.Context(), time.Unix(0, 0))
	defer stop()
	for _, tt := range []struct {
		name string
		ctx  context.Context
		want error
	}{
		{"cancelled", cancelled, context.Canceled},
		{"deadline passed", expired, context.DeadlineExceeded},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, ok, err := traced.Get(tt.ctx, "kept")
			require.ErrorIs(t, err, tt.want)
			assert.False(t, ok)
			assert.Zero(t, m)
			require.ErrorIs(t, traced.Delete(tt.ctx, "kept"), tt.want)
			// A done ctx wins over a bad ID, as in Add.
			_, _, err = traced.Get(tt.ctx, "a\x00b")
			require.ErrorIs(t, err, tt.want)
			require.ErrorIs(t, traced.Delete(tt.ctx, "a\x00b"), tt.want)
		})
	}
	assert.Empty(t, log.statements(), "a done ctx sends no SQL")
	_, ok, err := s.Get(t.Context(), "kept")
	require.NoError(t, err)
	assert.True(t, ok, "the Delete with a done ctx removed nothing")
}

func TestNamespacesIsolated(t *testing.T) {
	ctx := t.Context()
	a := openTest(t, Options{Dims: 4, Namespace: "project-a"})
	b, err := Open(ctx, testDSN(t), &Options{Dims: 4, Table: a.opts.Table, Namespace: "project b ü"})
	require.NoError(t, err)
	defer b.Close()

	v := []float32{1, 2, 3, 4}
	require.NoError(t, a.Add(ctx, chitta.Memory{ID: "same", Text: "in a", Vector: v}))
	require.NoError(t, a.Add(ctx, chitta.Memory{ID: "only-a", Text: "a", Vector: v}))
	require.NoError(t, b.Add(ctx, chitta.Memory{ID: "same", Text: "in b", Vector: v}))

	na, err := a.Len(ctx)
	require.NoError(t, err)
	nb, err := b.Len(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, na)
	assert.Equal(t, 1, nb)

	got, _, err := b.Get(ctx, "same")
	require.NoError(t, err)
	assert.Equal(t, "in b", got.Text)
	_, ok, err := b.Get(ctx, "only-a")
	require.NoError(t, err)
	assert.False(t, ok)
	hits, err := b.Recall(ctx, v, 10)
	require.NoError(t, err)
	require.Len(t, hits, 1)
	assert.Equal(t, "in b", hits[0].Text)
	batch, err := b.RecallBatch(ctx, [][]float32{v}, 10)
	require.NoError(t, err)
	require.Len(t, batch[0], 1)
	require.ErrorIs(t, b.Delete(ctx, "only-a"), chitta.ErrNotFound)

	ga, err := a.Generation(ctx)
	require.NoError(t, err)
	gb, err := b.Generation(ctx)
	require.NoError(t, err)
	assert.Equal(t, uint64(2), ga&(1<<32-1), "a's two writes")
	assert.Equal(t, uint64(1), gb&(1<<32-1), "b's one write")
	assert.NotEqual(t, ga>>32, gb>>32, "each namespace starts at its own random value")
}

func TestDimsMismatchOnOpen(t *testing.T) {
	s := openTest(t, Options{Dims: 8})
	_, err := Open(t.Context(), testDSN(t), &Options{Dims: 4, Table: s.opts.Table})
	require.ErrorIs(t, err, chitta.ErrDimensionMismatch)
	assert.Contains(t, err.Error(), "8-dimensional")
	assert.Contains(t, err.Error(), "Options.Dims is 4")
}

func TestSchemaVersionAndForeignTable(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{Dims: 4})
	// Reopening the current version works and changes nothing.
	again, err := Open(ctx, testDSN(t), &Options{Dims: 4, Table: s.opts.Table})
	require.NoError(t, err)
	again.Close()

	_, err = s.pool.Exec(ctx, "UPDATE "+quote(s.opts.Table+"_schema")+" SET version = 2")
	require.NoError(t, err)
	_, err = Open(ctx, testDSN(t), &Options{Dims: 4, Table: s.opts.Table})
	require.ErrorIs(t, err, ErrSchema)
	assert.Contains(t, err.Error(), "schema version 2")

	foreign := uniqueTable()
	_, err = s.pool.Exec(ctx, "CREATE TABLE "+quote(foreign)+" (x int)")
	require.NoError(t, err)
	defer s.pool.Exec(context.Background(), "DROP TABLE "+quote(foreign)) //nolint:errcheck
	_, err = Open(ctx, testDSN(t), &Options{Dims: 4, Table: foreign})
	require.ErrorIs(t, err, ErrSchema)
	assert.Contains(t, err.Error(), "not created by pgstore")
}

// TestRecallTiesByID: memories with the same vector (one text remembered
// under two kinds, or twice under other IDs) tie, and an exact Recall or
// RecallBatch keeps the tied ones with the smallest IDs at the k-th place,
// as its documentation and HNSWStore do, not whichever the scan met first.
func TestRecallTiesByID(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{Dims: 4, Index: IndexNone})
	ref, err := chitta.NewHNSWStore(4, nil)
	require.NoError(t, err)
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for i, id := range []string{"c", "b", "a", "e", "d"} {
		m := chitta.Memory{ID: id, Text: id, Vector: []float32{1, 0, 0, 0}, CreatedAt: at}
		if i == 3 {
			m.Vector = []float32{0, 1, 0, 0}
		}
		require.NoError(t, s.Add(ctx, m))
		require.NoError(t, ref.Add(ctx, m))
	}
	q := []float32{1, 0.1, 0, 0}
	for k := 1; k <= 5; k++ {
		want, err := ref.Recall(ctx, q, k)
		require.NoError(t, err)
		got, err := s.Recall(ctx, q, k)
		require.NoError(t, err)
		assert.Equal(t, want, got, "Recall k=%d", k)
		batch, err := s.RecallBatch(ctx, [][]float32{q}, k)
		require.NoError(t, err)
		assert.Equal(t, [][]chitta.Hit{want}, batch, "RecallBatch k=%d", k)
	}
}

func TestIndexKinds(t *testing.T) {
	for _, index := range []string{IndexHNSW, IndexIVFFlat, IndexNone} {
		t.Run(index, func(t *testing.T) {
			s := openTest(t, Options{Dims: 4, Index: index})
			var names []string
			rows, err := s.pool.Query(t.Context(), "SELECT indexname FROM pg_indexes WHERE tablename = $1 AND indexname LIKE '%embedding%'", s.opts.Table)
			require.NoError(t, err)
			names, err = collect(rows, func(r pgx.Rows) (string, error) {
				var n string
				return n, r.Scan(&n)
			})
			require.NoError(t, err)
			if index == IndexNone {
				assert.Empty(t, names)
			} else {
				assert.Equal(t, []string{s.opts.Table + "_embedding_" + index}, names)
			}
		})
	}
}

// TestIVFFlatFiltersKeepK: a namespace- or kind-filtered search answered
// by an ivfflat index (Options.Index = IndexIVFFlat, or one an operator
// built under an HNSW-configured Store) gives k hits. The searches set
// only hnsw.* settings, so ivfflat.probes stayed at pgvector's 1: the index
// scanned one list of 100 (about 60 rows of 6 150, one or two of them of
// the namespace), and Recall(k=10) answered 0 to 2 hits. Sequential and
// bitmap scans and sorts are off on the store's one connection, so that
// the index answers however the planner costs it.
func TestIVFFlatFiltersKeepK(t *testing.T) {
	ctx := t.Context()
	loader := openTest(t, Options{Dims: 8, Index: IndexNone, Namespace: "big"})
	require.NoError(t, loader.add(ctx, memories(1, 6000, 8)))
	opts := loader.opts
	opts.Namespace = "small"
	exact, err := Open(ctx, testDSN(t), &opts)
	require.NoError(t, err)
	defer exact.Close()
	require.NoError(t, exact.add(ctx, memories(2, 150, 8)))
	opts.Index = IndexIVFFlat
	ivf, err := Open(ctx, testDSN(t), &opts) // built on the data
	require.NoError(t, err)
	ivf.Close()
	_, err = loader.pool.Exec(ctx, "ANALYZE "+quote(opts.Table))
	require.NoError(t, err)
	// An HNSW-configured Store whose hnsw index is deferred: the ivfflat
	// index answers it too.
	for _, index := range []string{IndexIVFFlat, IndexHNSW} {
		t.Run(index, func(t *testing.T) {
			o := opts
			o.Index, o.DeferIndex = index, true
			cfg, err := pgxpool.ParseConfig(testDSN(t))
			require.NoError(t, err)
			cfg.MaxConns = 1
			s, err := openConfig(ctx, cfg, o)
			require.NoError(t, err)
			defer s.Close()
			_, err = s.pool.Exec(ctx, "SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off")
			require.NoError(t, err)
			defer s.pool.Exec(context.Background(), "RESET enable_seqscan; RESET enable_bitmapscan; RESET enable_sort") //nolint:errcheck
			q := pgvector.NewVector(memories(3, 1, 8)[0].Vector).String()
			include, exclude := kindArgs(chitta.KindFilter{})
			plan, err := search(ctx, s, func(r pgx.Rows) (string, error) {
				var line string
				return line, r.Scan(&line)
			}, "EXPLAIN "+s.q.recall, s.opts.Namespace, q, 10, include, exclude)
			require.NoError(t, err)
			require.Contains(t, strings.Join(plan, "\n"), opts.Table+"_embedding_ivfflat", "the ivfflat index answers")

			qs := make([][]float32, 20)
			for i, m := range memories(3, 20, 8) {
				qs[i] = m.Vector
			}
			batch, err := s.RecallBatch(ctx, qs, 10)
			require.NoError(t, err)
			prefs := chitta.KindFilter{Include: []string{chitta.KindPreference}}
			best, err := s.BestSimilarities(ctx, qs, prefs)
			require.NoError(t, err)
			var short []string // the searches that answered fewer than k hits
			for i, v := range qs {
				hs, err := s.Recall(ctx, v, 10)
				require.NoError(t, err)
				matching, err := s.RecallMatching(ctx, v, 10, prefs)
				require.NoError(t, err)
				for name, n := range map[string]int{"Recall": len(hs), "RecallBatch": len(batch[i]), "RecallMatching": len(matching)} {
					if n < 10 {
						short = append(short, fmt.Sprintf("%s %d: %d hits", name, i, n))
					}
				}
				if best[i] <= 0 {
					short = append(short, fmt.Sprintf("BestSimilarities %d: none", i))
				}
			}
			slices.Sort(short)
			assert.Empty(t, short, "of 20 queries")
		})
	}
}

// TestIVFFlatBuiltEmpty: an ivfflat index built on an empty table (Open
// with IndexIVFFlat of a new table) has lists centred on nothing, which
// the rows added later fill unevenly: with ivfflat.probes at 1, 6 of 20
// Recall(k=10) on 3 000 memories answered fewer than 10 hits, and 6 more
// missed the nearest memory. With the store's probes, and its iterative
// scan on pgvector 0.8 and later, every Recall is full.
func TestIVFFlatBuiltEmpty(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{Dims: 8, Index: IndexIVFFlat})
	ms := memories(1, 3000, 8)
	require.NoError(t, s.add(ctx, ms))
	_, err := s.pool.Exec(ctx, "ANALYZE "+quote(s.opts.Table))
	require.NoError(t, err)
	var short, missed []string
	for i, q := range memories(3, 20, 8) {
		hs, err := s.Recall(ctx, q.Vector, 10)
		require.NoError(t, err)
		nearest := slices.MaxFunc(ms, func(a, b chitta.Memory) int {
			return cmp.Compare(vecmath.Cosine64(q.Vector, a.Vector), vecmath.Cosine64(q.Vector, b.Vector))
		})
		switch {
		case len(hs) < 10:
			short = append(short, fmt.Sprintf("query %d: %d hits", i, len(hs)))
		case hs[0].ID != nearest.ID:
			missed = append(missed, fmt.Sprintf("query %d: nearest %s, want %s", i, hs[0].ID, nearest.ID))
		}
	}
	assert.Empty(t, short, "of 20 Recall(k=10)")
	// The lists are centred at random (pgvector's build on no rows), so
	// which queries miss varies from run to run: 0 or 1 of 20 in five runs
	// (6 before, and 6 more short).
	assert.LessOrEqual(t, len(missed), 3, "of 20 find the nearest memory: %v", missed)
}

func TestRecallBatchEqualsRecall(t *testing.T) {
	for _, index := range []string{IndexNone, IndexHNSW} {
		t.Run(index, func(t *testing.T) {
			ctx := t.Context()
			s := openTest(t, Options{Dims: 16, Index: index})
			ms := memories(7, 300, 16)
			require.NoError(t, s.add(ctx, ms))
			rng := rand.New(rand.NewPCG(8, 1))
			qs := make([][]float32, 25)
			for i := range qs {
				qs[i] = randomVec(rng, 16)
			}
			qs[3] = ms[42].Vector // an exact match
			batch, err := s.RecallBatch(ctx, qs, 5)
			require.NoError(t, err)
			require.Len(t, batch, len(qs))
			for i, q := range qs {
				one, err := s.Recall(ctx, q, 5)
				require.NoError(t, err)
				assert.Equal(t, one, batch[i], "query %d", i)
				assert.Len(t, one, 5)
			}
			assert.Equal(t, "m0042", batch[3][0].ID)
			if index == IndexNone { // exact: the same answer as HNSWStore
				ref, err := chitta.NewHNSWStore(16, nil)
				require.NoError(t, err)
				for _, m := range ms {
					require.NoError(t, ref.Add(ctx, m))
				}
				want, err := ref.RecallBatch(ctx, qs, 5)
				require.NoError(t, err)
				assert.Equal(t, want, batch)
			}
			empty, err := s.RecallBatch(ctx, qs[:2], 0)
			require.NoError(t, err)
			assert.Equal(t, [][]chitta.Hit{{}, {}}, empty)
		})
	}
}

func TestBestSimilarities(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{Dims: 8, Index: IndexNone})
	none, err := s.BestSimilarities(ctx, [][]float32{{1, 0, 0, 0, 0, 0, 0, 0}}, chitta.KindFilter{})
	require.NoError(t, err)
	assert.Equal(t, []float64{0}, none, "empty store")

	ms := memories(3, 120, 8)
	require.NoError(t, s.add(ctx, ms))
	rng := rand.New(rand.NewPCG(4, 1))
	qs := [][]float32{ms[5].Vector}
	for range 10 {
		qs = append(qs, randomVec(rng, 8))
	}
	for _, f := range []chitta.KindFilter{
		{},
		{Exclude: []string{chitta.KindEpisode}},
		{Include: []string{chitta.KindPreference}},
		{Include: []string{chitta.KindFact, chitta.KindEpisode}, Exclude: []string{chitta.KindFact}},
		{Include: []string{"nothing"}},
	} {
		got, err := s.BestSimilarities(ctx, qs, f)
		require.NoError(t, err)
		for i, q := range qs {
			best := 0.0
			for _, m := range ms {
				if f.Match(m.Kind) {
					stored, _, err := s.Get(ctx, m.ID)
					require.NoError(t, err)
					best = max(best, vecmath.Cosine64(q, stored.Vector))
				}
			}
			assert.InDelta(t, best, got[i], 1e-12, "filter %+v query %d", f, i)
		}
	}
	// RecallMatching filters in the database, as HNSWStore's does.
	ref, err := chitta.NewHNSWStore(8, nil)
	require.NoError(t, err)
	for _, m := range ms {
		require.NoError(t, ref.Add(ctx, m))
	}
	for _, f := range []chitta.KindFilter{{}, {Include: []string{chitta.KindPreference}}, {Exclude: []string{chitta.KindFact, chitta.KindEpisode}}} {
		got, err := s.RecallMatching(ctx, qs[1], 4, f)
		require.NoError(t, err)
		want, err := ref.RecallMatching(ctx, qs[1], 4, f)
		require.NoError(t, err)
		assert.Equal(t, want, got, "filter %+v", f)
	}

	// A query opposite to every memory clamps to 0.
	require.NoError(t, s.Add(ctx, chitta.Memory{ID: "neg", Kind: "only", Vector: []float32{1, 1, 1, 1, 1, 1, 1, 1}}))
	got, err := s.BestSimilarities(ctx, [][]float32{{-1, -1, -1, -1, -1, -1, -1, -1}}, chitta.KindFilter{Include: []string{"only"}})
	require.NoError(t, err)
	assert.Equal(t, []float64{0}, got)
}

func TestGenerationBumpsWithEveryMutation(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{Dims: 2})
	other, err := Open(ctx, testDSN(t), &Options{Dims: 2, Table: s.opts.Table})
	require.NoError(t, err)
	defer other.Close()

	gen := func() uint64 {
		g, err := other.Generation(ctx)
		require.NoError(t, err)
		return g
	}
	assert.Equal(t, uint64(0), gen())
	require.NoError(t, s.Add(ctx, chitta.Memory{ID: "a", Vector: []float32{1, 0}}))
	first := gen()
	assert.Equal(t, uint64(1), first&(1<<32-1), "another Store sees the writer's generation: a random start plus 1")
	assert.GreaterOrEqual(t, first, uint64(1<<32))
	require.NoError(t, s.Add(ctx, chitta.Memory{ID: "a", Vector: []float32{0, 1}}))
	assert.Equal(t, first+1, gen(), "a replace bumps")
	require.Error(t, s.Add(ctx, chitta.Memory{ID: "b", Vector: []float32{0, 0}}))
	require.Error(t, s.Delete(ctx, "missing"))
	assert.Equal(t, first+1, gen(), "failed mutations do not bump")
	_, err = s.Recall(ctx, []float32{1, 0}, 1)
	require.NoError(t, err)
	assert.Equal(t, first+1, gen(), "reads do not bump")
	require.NoError(t, s.Delete(ctx, "a"))
	assert.Equal(t, first+2, gen())
}

func TestAllPages(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{Dims: 4, Index: IndexNone})
	ms := memories(11, allPage*2+3, 4)
	require.NoError(t, s.add(ctx, ms))
	var ids []string
	for m, err := range s.All(ctx) {
		require.NoError(t, err)
		ids = append(ids, m.ID)
		if len(ids) == 10 { // the body may use the store while iterating
			_, err := s.Len(ctx)
			require.NoError(t, err)
		}
	}
	require.Len(t, ids, len(ms))
	assert.True(t, slices.IsSorted(ids))
	n := 0
	for range s.All(ctx) {
		n++
		if n == 3 {
			break
		}
	}
	assert.Equal(t, 3, n, "break stops the iteration")
}

func TestConcurrentGoroutinesLoseNothing(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{Dims: 8})
	const workers, each = 4, 40
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			for i := range each {
				if err := s.Add(ctx, chitta.Memory{ID: fmt.Sprintf("w%d-%d", w, i), Text: "x", Vector: randomVec(rng, 8)}); err != nil {
					errs <- err
				}
				if _, err := s.Recall(ctx, randomVec(rng, 8), 2); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	n, err := s.Len(ctx)
	require.NoError(t, err)
	assert.Equal(t, workers*each, n)
	g, err := s.Generation(ctx)
	require.NoError(t, err)
	assert.Equal(t, uint64(workers*each), g&(1<<32-1), "the low 32 bits count the writes")
}

func TestTwoProcessesLoseNothing(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{Dims: 8})
	const each = 40
	var wg sync.WaitGroup
	outs := make([][]byte, 2)
	errs := make([]error, 2)
	for p := range 2 {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "PGSTORE_CHILD_TABLE="+s.opts.Table,
			"PGSTORE_CHILD_PREFIX="+strings.Repeat("p", p+1), "PGSTORE_CHILD_N="+strconv.Itoa(each))
		wg.Go(func() { outs[p], errs[p] = cmd.CombinedOutput() })
	}
	wg.Wait()
	for p := range 2 {
		require.NoError(t, errs[p], "child %d:\n%s", p, outs[p])
		assert.Contains(t, string(outs[p]), "child added 40")
	}
	n, err := s.Len(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2*each, n)
	g, err := s.Generation(ctx)
	require.NoError(t, err)
	assert.Equal(t, uint64(2*each), g&(1<<32-1), "the low 32 bits count the writes")
}

func TestCompactSameAsHNSWStore(t *testing.T) {
	ctx := t.Context()
	emb := chitta.NewHashEmbedder(64)
	texts := []string{
		"the build uses go 1.25 and staticcheck", "deploy with the blue green script", "user prefers tabs over spaces",
		"the database is postgres with pgvector", "tests run with the race detector", "the api returns json errors",
		"remember to rebase on main", "cache invalidation happens on write", "the tokenizer counts words",
	}
	vecs, err := emb.Embed(ctx, texts)
	require.NoError(t, err)
	s := openTest(t, Options{Dims: 64})
	ref, err := chitta.NewHNSWStore(64, nil)
	require.NoError(t, err)
	kinds := []string{chitta.KindFact, chitta.KindEpisode, chitta.KindPreference}
	for i, text := range texts {
		m := chitta.Memory{Text: text, Kind: kinds[i%3], Confidence: 0.9, Vector: vecs[i], CreatedAt: time.Unix(int64(i), 0)}
		require.NoError(t, s.Add(ctx, m))
		require.NoError(t, ref.Add(ctx, m))
	}
	var msgs []chitta.Message
	msgs = append(msgs, chitta.Message{Role: chitta.RoleSystem, Content: "you are a coding agent"})
	for i := range 30 {
		msgs = append(msgs,
			chitta.Message{Role: chitta.RoleUser, Content: fmt.Sprintf("question %d about %s", i, texts[i%len(texts)])},
			chitta.Message{Role: chitta.RoleAssistant, Content: fmt.Sprintf("answer %d: %s, and more words %d", i, texts[(i*5)%len(texts)], i*i)})
	}
	run := func(store chitta.MemoryStore) *chitta.Result {
		res, err := chitta.Compact(ctx, msgs, &chitta.Options{Query: "what database do we use", Embedder: emb, Store: store, TargetRatio: 0.4})
		require.NoError(t, err)
		return res
	}
	want, got := run(ref), run(s)
	assert.Equal(t, want.Kept, got.Kept)
	assert.Equal(t, want.Scores, got.Scores)
	covered := 0
	for _, sc := range got.Scores {
		if sc.Coverage > 0 {
			covered++
		}
	}
	assert.Positive(t, covered, "the store took part in scoring")
}

func TestOpenErrors(t *testing.T) {
	ctx := t.Context()
	for _, tt := range []struct {
		name string
		opts *Options
		want string
	}{
		{"nil", nil, "Dims is required"},
		{"no dims", &Options{}, "Options.Dims 0"},
		{"too many dims", &Options{Dims: MaxDims + 1}, "Options.Dims 16001"},
		{"indexed dims", &Options{Dims: MaxIndexedDims + 1}, "Index \"hnsw\", want 1–2000"},
		{"table", &Options{Dims: 4, Table: "Bad-Name"}, "Options.Table \"Bad-Name\""},
		{"table injection", &Options{Dims: 4, Table: `x"; DROP TABLE y; --`}, "Options.Table"},
		{"long table", &Options{Dims: 4, Table: strings.Repeat("a", MaxTableLen+1)}, "at most 40 bytes"},
		{"index", &Options{Dims: 4, Index: "btree"}, "Options.Index \"btree\""},
		{"namespace", &Options{Dims: 4, Namespace: "a\x00b"}, "Options.Namespace contains a NUL"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Open(ctx, "postgres://u:hunter2@127.0.0.1:1/db", tt.opts)
			require.ErrorIs(t, err, chitta.ErrInvalidOption)
			assert.Contains(t, err.Error(), tt.want)
		})
	}

	for _, tt := range []struct{ name, dsn string }{
		{"bad url escape", "postgres://user:hunter2%zz@localhost/db"},
		{"bad port", "postgres://user:hunter2@localhost:notaport/db"},
		{"bad keyword", "host=localhost password=hunter2 port=x"},
		{"bad sslmode", "postgres://user:hunter2@localhost/db?sslmode=maybe"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Open(ctx, tt.dsn, &Options{Dims: 4})
			require.ErrorIs(t, err, ErrBadDSN)
			assert.NotContains(t, err.Error(), "hunter2")
		})
	}

	t.Run("unreachable", func(t *testing.T) {
		short, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		_, err := Open(short, "postgres://user:hunter2@127.0.0.1:1/db?sslmode=disable&connect_timeout=5", &Options{Dims: 4})
		require.ErrorIs(t, err, ErrConnect)
		assert.NotContains(t, err.Error(), "hunter2")
		assert.Contains(t, err.Error(), "127.0.0.1")
	})

	t.Run("no vector extension", func(t *testing.T) {
		defer func(name string) { vectorExtension = name }(vectorExtension)
		vectorExtension = "vector_not_installed"
		_, err := Open(ctx, testDSN(t), &Options{Dims: 4, Table: uniqueTable()})
		require.ErrorIs(t, err, ErrNoVectorExtension)
		assert.Contains(t, err.Error(), "CREATE EXTENSION vector_not_installed")
	})

	var s *Store
	require.ErrorIs(t, s.Add(ctx, chitta.Memory{}), chitta.ErrInvalidOption)
	_, err := (&Store{}).Recall(ctx, []float32{1}, 1)
	require.ErrorIs(t, err, chitta.ErrInvalidOption)
	require.NoError(t, s.Close())
}

func TestRedact(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"postgres://u:hunter2@h:5432/db?sslmode=disable", "postgres://u:xxxxx@h:5432/db?sslmode=disable"},
		{"postgres://u@h/db", "postgres://u@h/db"},
		{"postgresql://h/db?user=u&password=hunter2&x=1", "postgresql://h/db?user=u&password=xxxxx&x=1"},
		{"host=h password=hunter2 user=u", "host=h password=xxxxx user=u"},
		{"host=h password='hun ter2' user=u", "host=h password=xxxxx user=u"},
		{"/path/to/store.chitta", "/path/to/store.chitta"},
		// A password with an unescaped '/' or '?' (the URL then does not
		// parse, and the driver reports it with the DSN) is still hidden.
		{"postgres://u:pa/ss@h:5432/db", "postgres://u:xxxxx@h:5432/db"},
		{"postgres://u:pa?ss@h/db?sslmode=disable", "postgres://u:xxxxx@h/db?sslmode=disable"},
		{"postgres://u:12/ss@h/db", "postgres://u:xxxxx@h/db"},
		{"postgres://u:hunter2@h/db?application_name=a@b", "postgres://u:xxxxx@h/db?application_name=a@b"},
	} {
		assert.Equal(t, tt.want, Redact(tt.in), tt.in)
	}
}

func FuzzRedactHidesPassword(f *testing.F) {
	f.Add("hunter2", "db.example.com")
	f.Add("p@ss:w/rd", "h")
	f.Add("a b'c", "localhost")
	f.Fuzz(func(t *testing.T, password, host string) {
		if len(password) < 6 || strings.ContainsAny(password, "@/?#&= '\\") || strings.ContainsAny(host, "@/?#:&= ") {
			return
		}
		for _, dsn := range []string{
			"postgres://user:" + password + "@" + host + ":5432/db",
			"host=" + host + " password=" + password + " user=u",
			"postgres://" + host + "/db?password=" + password,
		} {
			if strings.Contains(strings.Replace(dsn, password, "", 1), password) {
				continue // the password also occurs elsewhere
			}
			assert.NotContains(t, Redact(dsn), password, dsn)
		}
	})
}

func TestKilledConnectionMidBatch(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{Dims: 8})
	require.NoError(t, s.add(ctx, memories(5, 50, 8)))
	cfg := s.pool.Config()
	var kill killSwitch
	cfg.ConnConfig.DialFunc = kill.dial(cfg.ConnConfig.DialFunc)
	k, err := openConfig(ctx, cfg, s.opts)
	require.NoError(t, err)
	defer k.Close()

	rng := rand.New(rand.NewPCG(1, 2))
	qs := make([][]float32, 60)
	for i := range qs {
		qs[i] = randomVec(rng, 8)
	}
	want, err := k.RecallBatch(ctx, qs, 3)
	require.NoError(t, err)

	kill.arm() // the next read from the server closes the socket
	_, err = k.RecallBatch(ctx, qs, 3)
	require.Error(t, err)
	assert.False(t, errors.Is(err, context.Canceled))

	got, err := k.RecallBatch(ctx, qs, 3)
	require.NoError(t, err, "the next call works on a new connection")
	assert.Equal(t, want, got)
	require.NoError(t, k.Add(ctx, chitta.Memory{ID: "after", Vector: qs[0]}))
}

// TestSearchSettingsFromTheDSN: every runtime parameter of the DSN named
// hnsw.* or ivfflat.*, or plan_cache_mode, in any case, is set in each
// search, and wins over the store's default; a session's own value (as
// ALTER ROLE or ALTER DATABASE ... SET gives one) does not. Only three
// names, matched case-sensitively, were taken out of the startup packet:
// HNSW.EF_SEARCH=213 was sent at connect (PGlite ignores it, PgBouncer
// refuses it) and the store's default 100 set over it, and
// ivfflat.max_probes never reached a search. A value the server refuses
// fails Open.
func TestSearchSettingsFromTheDSN(t *testing.T) {
	ctx := t.Context()
	tbl := openTest(t, Options{Dims: 4})
	const read = "SELECT concat_ws(' ', current_setting('hnsw.ef_search'), current_setting('ivfflat.probes'), " +
		"current_setting('ivfflat.max_probes'), current_setting('plan_cache_mode'), '[1]'::vector)" // (the cast loads pgvector)
	for _, c := range []struct{ params, want string }{
		{"", "100 10 32768 force_custom_plan [1]"},
		{"&HNSW.EF_SEARCH=213&Plan_Cache_Mode=force_generic_plan&ivfflat.max_probes=7&IVFFlat.Probes=3", "213 3 7 force_generic_plan [1]"},
	} {
		cfg, err := pgxpool.ParseConfig(testDSN(t) + c.params)
		require.NoError(t, err)
		cfg.MaxConns = 1 // the connection the session SET below is on
		s, err := openConfig(ctx, cfg, tbl.opts)
		require.NoError(t, err)
		_, err = s.pool.Exec(ctx, "SET hnsw.ef_search = 300; SET ivfflat.probes = 30")
		require.NoError(t, err)
		got, err := search(ctx, s, func(r pgx.Rows) (string, error) {
			var v string
			return v, r.Scan(&v)
		}, read)
		_, resetErr := s.pool.Exec(ctx, "RESET hnsw.ef_search; RESET ivfflat.probes")
		s.Close()
		require.NoError(t, err, c.params)
		require.NoError(t, resetErr)
		assert.Equal(t, []string{c.want}, got, c.params)
	}
	// A value the server refuses fails Open, with the parameter and the
	// server's reason: Open accepted it, and then every search failed.
	for _, c := range []struct{ param, reason string }{
		{"hnsw.ef_search=abc", `"abc"`},
		{"hnsw.ef_search=-5", "(1 .. 1000)"},
		{"HNSW.EF_SEARCH=", `""`},
		{"hnsw.iterative_scan=bogus", `strict_order`}, // the hint's values
		{"ivfflat.probes=0", "(1 .. 32768)"},
		{"plan_cache_mode=bogus", `"bogus"`},
		{"hnsw.no_such_setting=1", "hnsw.no_such_setting"},
	} {
		_, err := Open(ctx, testDSN(t)+"&"+c.param, &tbl.opts)
		require.ErrorIs(t, err, ErrBadDSN, c.param)
		name, _, _ := strings.Cut(strings.ToLower(c.param), "=")
		assert.ErrorContains(t, err, "runtime parameter "+name, c.param)
		assert.ErrorContains(t, err, c.reason, c.param)
	}
	for _, bad := range []string{"&hnsw.ef-search=1", "&hnsw.ef_search=1&HNSW.ef_search=2"} {
		_, err := Open(ctx, testDSN(t)+bad, &tbl.opts)
		require.ErrorIs(t, err, ErrBadDSN, bad)
		assert.ErrorContains(t, err, "hnsw.ef", bad)
	}
}

func TestOpenURL(t *testing.T) {
	ctx := t.Context()
	dsn := testDSN(t)
	if !strings.HasPrefix(dsn, "postgres") || !strings.Contains(dsn, "://") {
		t.Fatalf("CHITTA_TEST_DSN must be a postgres:// URL for this test")
	}
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	table := uniqueTable()
	opts := &Options{Dims: 4, Table: "not_this", Namespace: "nor this", DeferIndex: true}
	given := *opts
	s, err := OpenURL(ctx, dsn+sep+"chitta_table="+table+"&chitta_namespace=team+a", opts)
	require.NoError(t, err)
	t.Cleanup(func() { dropTables(t, s) })
	assert.Equal(t, given, *opts, "OpenURL does not modify opts")
	assert.Equal(t, table, s.opts.Table)
	assert.Equal(t, "team a", s.Namespace())
	assert.Equal(t, 4, s.Dims())
	assert.Equal(t, IndexHNSW, s.opts.Index)
	assert.True(t, s.opts.DeferIndex, "the fields the URL does not give are opts'")

	// chitta_index replaces Options.Index; the table keeps its layout.
	s2, err := OpenURL(ctx, dsn+sep+"chitta_table="+table+"&chitta_index=none", &Options{Dims: 4, Index: IndexHNSW})
	require.NoError(t, err)
	s2.Close()
	assert.Equal(t, IndexNone, s2.opts.Index)
	// An empty value (a template's empty variable) gives nothing: it
	// replaced the field, whose default then applied (an hnsw index
	// built for a store opened with IndexNone, another table).
	s3, err := OpenURL(ctx, dsn+sep+"chitta_table=&chitta_index=&chitta_namespace=", &Options{Dims: 4, Table: table, Namespace: "team a", Index: IndexNone})
	require.NoError(t, err)
	s3.Close()
	assert.Equal(t, Options{Dims: 4, Table: table, Namespace: "team a", Index: IndexNone}, s3.opts)
	_, err = OpenURL(ctx, dsn+sep+"chitta_table="+table+"&chitta_index=btree", &Options{Dims: 4})
	require.ErrorIs(t, err, chitta.ErrInvalidOption)
	assert.ErrorContains(t, err, "Options.Index")

	for _, bad := range []string{"postgres://u:hunter2%zz@h/db", "mysql://u:hunter2@h/db", "host=h password=hunter2"} {
		_, err := OpenURL(ctx, bad, &Options{Dims: 4})
		require.ErrorIs(t, err, ErrBadDSN, bad)
		assert.NotContains(t, err.Error(), "hunter2")
	}
	_, err = OpenURL(ctx, "postgres://u:hunter2@127.0.0.1:1/db?chitta_table=Bad", &Options{Dims: 4})
	require.ErrorIs(t, err, chitta.ErrInvalidOption)
	_, err = OpenURL(ctx, "postgres://u:hunter2@127.0.0.1:1/db", nil)
	require.ErrorIs(t, err, chitta.ErrInvalidOption)
	assert.ErrorContains(t, err, "Dims is required")
}

// TestOpenURLLeavesTheRestAsWritten: OpenURL takes its parameters out of
// the query string and gives every other byte of the URL to Open, so that
// it opens what Open opens and fails as Open fails. It parsed the URL with
// net/url and wrote it again, which refuses what pgx takes (an unescaped
// ^ { } | in the password, several hosts) with "want a postgres:// URL",
// and dropped url.Parse's reason.
func TestOpenURLLeavesTheRestAsWritten(t *testing.T) {
	ctx := t.Context()
	dsn := testDSN(t)
	tbl := openTest(t, Options{Dims: 4})
	require.True(t, strings.HasPrefix(dsn, "postgres://postgres@127.0.0.1:") && strings.Contains(dsn, "?"), "CHITTA_TEST_DSN is scripts' URL: %s", Redact(dsn))
	for _, raw := range []string{
		// A password the server does not ask for (trusted), that pgx reads.
		strings.Replace(dsn, "postgres@", "postgres:s3cr^t{}|x@", 1),
		// Two hosts: the first refuses, pgx tries the next.
		strings.Replace(dsn, "@127.0.0.1:", "@127.0.0.1:1,127.0.0.1:", 1),
	} {
		s, err := OpenURL(ctx, raw+"&chitta_table="+tbl.opts.Table+"&chitta_namespace=n", &Options{Dims: 4})
		if !assert.NoError(t, err, Redact(raw)) {
			continue
		}
		assert.Equal(t, "n", s.Namespace())
		_, err = s.Recall(ctx, []float32{1, 0, 0, 0}, 1)
		assert.NoError(t, err)
		s.Close()
	}
	// Where Open fails, OpenURL fails as it does (the server at port 1
	// refuses), and where pgx cannot parse the URL, with pgx's reason.
	for _, raw := range []string{
		"postgres://u:hunter2^@127.0.0.1:1/db?sslmode=disable",
		"postgres://u:pw@ss@127.0.0.1:1/db?sslmode=disable", // pgx's (libpq's) userinfo ends at the first '@
		"postgres://u:hunter2@[::1]:1,[::1]:2/db?sslmode=disable",
		"postgres://u:hunter2@127.0.0.1:1/db?sslmode=maybe",
		"postgres://u:hunter2@127.0.0.1:x/db?sslmode=disable",
		"postgres://u:a hunter2@127.0.0.1:1/db?sslmode=disable",
		"postgres://u:hunter2?@127.0.0.1:1/db?sslmode=disable", // the query is after the userinfo
	} {
		_, want := Open(ctx, raw, &Options{Dims: 4, Namespace: "n"})
		require.Error(t, want)
		_, err := OpenURL(ctx, raw+"&chitta_namespace=n", &Options{Dims: 4})
		require.Error(t, err)
		assert.Equal(t, want.Error(), err.Error(), raw)
		assert.NotContains(t, err.Error(), "want a postgres:// URL", raw)
		assert.NotContains(t, err.Error(), "hunter2", raw)
	}
	// A value from the URL is named by its key.
	_, err := OpenURL(ctx, dsn+"&chitta_index=btree", &Options{Dims: 4})
	require.ErrorIs(t, err, chitta.ErrInvalidOption)
	assert.ErrorContains(t, err, `chitta_index: chitta: invalid option: Options.Index "btree"`)
	_, err = OpenURL(ctx, dsn+"&chitta_table=Bad", &Options{Dims: 4})
	require.ErrorIs(t, err, chitta.ErrInvalidOption)
	assert.ErrorContains(t, err, `chitta_table: chitta: invalid option: Options.Table "Bad"`)
	_, err = OpenURL(ctx, dsn+"&chitta_namespace=a%00b", &Options{Dims: 4})
	require.ErrorIs(t, err, chitta.ErrInvalidOption)
	assert.ErrorContains(t, err, `chitta_namespace: chitta: invalid option: Options.Namespace contains a NUL`)
}

// TestOpenURLRefusesMalformedQuery: a query string that does not parse (a
// ';' separator, a bad escape) is ErrBadDSN naming the query, without the
// password. url.Query dropped the pairs it could not read, so
// chitta_table=team;chitta_namespace=a opened the default table and
// namespace, and the memories went where the user had not asked.
func TestOpenURLRefusesMalformedQuery(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{
		"postgres://u:hunter2@127.0.0.1:1/db?chitta_table=team;chitta_namespace=a",
		"postgres://u:hunter2@127.0.0.1:1/db?chitta_namespace=a%zz",
		"postgres://u@127.0.0.1:1/db?password=hunter2;sslmode=disable",
		// Given twice, a chitta parameter is ambiguous: url.Values.Get took
		// the first, so a namespace appended to a URL that had one was
		// ignored.
		"postgres://u:hunter2@127.0.0.1:1/db?chitta_namespace=default&chitta_namespace=alice",
		"postgres://u:hunter2@127.0.0.1:1/db?chitta_table=a&chitta_table=a",
		"postgres://u:hunter2@127.0.0.1:1/db?chitta_index=none&chitta_index=hnsw",
	} {
		_, err := OpenURL(t.Context(), bad, &Options{Dims: 4})
		require.ErrorIs(t, err, ErrBadDSN, bad)
		assert.ErrorContains(t, err, "query", bad)
		assert.NotContains(t, err.Error(), "hunter2")
		if strings.Contains(bad, "&chitta_") {
			assert.ErrorContains(t, err, "given 2 times", bad)
		}
	}
}

// TestConcurrentFirstOpens: agents that open one new table at the same
// moment (a fleet starting on a fresh database) all get a store on one set
// of tables. On PostgreSQL, CREATE ... IF NOT EXISTS finds a name free
// before it inserts it in the catalog, so two sessions creating the same
// index at once both pass the check and one fails on the catalog's unique
// index (SQLSTATE 23505); Open creates what is missing under an advisory
// lock instead. (PGlite runs every client's statements one at a time on
// one backend, so there this test cannot tell the two apart.)
func TestConcurrentFirstOpens(t *testing.T) {
	dsn := testDSN(t)
	ctx := t.Context()
	for _, index := range []string{IndexHNSW, IndexIVFFlat} {
		t.Run(index, func(t *testing.T) {
			const opens = 4 // PGlite's server takes 4 connections (scripts/pglite.sh)
			table := uniqueTable()
			stores, errs := atOnce(opens, func() (*Store, error) {
				return Open(ctx, dsn, &Options{Dims: 4, Table: table, Index: index})
			})
			for i, s := range stores {
				if s == nil {
					continue
				}
				if i == slices.IndexFunc(stores, func(s *Store) bool { return s != nil }) {
					t.Cleanup(func() { dropTables(t, s) })
				} else {
					t.Cleanup(func() { s.Close() })
				}
			}
			for i, err := range errs {
				require.NoError(t, err, "open %d of %d", i+1, opens)
			}
			rng := rand.New(rand.NewPCG(7, 7))
			for i, s := range stores {
				require.NoError(t, s.Add(ctx, chitta.Memory{ID: fmt.Sprintf("m%d", i), Text: "x", Vector: randomVec(rng, 4)}))
				if i > 0 {
					s.Close() // its idle connection would count against PGlite's 4
				}
			}
			n, err := stores[0].Len(ctx)
			require.NoError(t, err)
			assert.Equal(t, opens, n, "every store writes to the same table")
		})
	}
}

// TestReopenOnlyReads: opening tables that are complete sends no DDL and
// takes no lock. A CREATE INDEX IF NOT EXISTS, even one that finds the
// index, takes a SHARE lock on the table, which waits for every write in
// flight and holds back every new one while it waits: each agent starting
// on a busy shared table would stall its writers.
func TestReopenOnlyReads(t *testing.T) {
	for _, index := range []string{IndexHNSW, IndexIVFFlat, IndexNone} {
		t.Run(index, func(t *testing.T) {
			s := openTest(t, Options{Dims: 4, Index: index})
			cfg := s.pool.Config()
			log := &queryLog{}
			cfg.ConnConfig.Tracer = log
			again, err := openConfig(t.Context(), cfg, s.opts)
			require.NoError(t, err)
			again.Close()
			sent := log.statements()
			require.NotEmpty(t, sent, "the tracer sees Open's statements")
			for _, sql := range sent {
				assert.NotRegexp(t, `(?i)\b(create|insert|lock|advisory)\b`, sql)
			}
		})
	}
}

// atOnce calls open n times, from n goroutines released at the same moment,
// and returns what each call returned.
func atOnce(n int, open func() (*Store, error)) ([]*Store, []error) {
	stores, errs := make([]*Store, n), make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			stores[i], errs[i] = open()
		})
	}
	close(start)
	wg.Wait()
	return stores, errs
}

// TestDeferIndex: with DeferIndex, Open on a table that holds memories
// without the configured index (loaded with IndexNone) builds nothing and
// takes no lock, the searches still answer, and MissingIndex gives the
// statement; on a table without memories the index is built as without
// it. Before DeferIndex, every Open ran CREATE INDEX over the whole table
// in its transaction: a hook's Open, cut short by its deadline, rolled
// the build back and held the table's writers meanwhile, at every run.
func TestDeferIndex(t *testing.T) {
	ctx := t.Context()
	for _, index := range []string{IndexHNSW, IndexIVFFlat} {
		t.Run(index, func(t *testing.T) {
			loaded := openTest(t, Options{Dims: 4, Index: IndexNone})
			ms := memories(5, 40, 4)
			for _, m := range ms {
				require.NoError(t, loaded.Add(ctx, m))
			}
			assert.Empty(t, loaded.MissingIndex(), "IndexNone wants no index")
			hasIndex := func() bool {
				var ok bool
				require.NoError(t, loaded.pool.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", quote(loaded.opts.Table+"_embedding_"+index)).Scan(&ok))
				return ok
			}

			cfg := loaded.pool.Config()
			log := &queryLog{}
			cfg.ConnConfig.Tracer = log
			opts := loaded.opts
			opts.Index, opts.DeferIndex = index, true
			deferred, err := openConfig(ctx, cfg, opts)
			require.NoError(t, err)
			defer deferred.Close()
			for _, sql := range log.statements() {
				assert.NotRegexp(t, `(?i)\b(create|insert|lock|advisory)\b`, sql)
			}
			assert.False(t, hasIndex())
			want := `CREATE INDEX IF NOT EXISTS "` + opts.Table + `_embedding_` + index + `" ON "` + opts.Table + `" USING ` + index + ` (embedding vector_cosine_ops)`
			if index == IndexIVFFlat {
				want += " WITH (lists = 100)"
			}
			assert.Equal(t, want, deferred.MissingIndex())
			hits, err := deferred.Recall(ctx, ms[7].Vector, 1)
			require.NoError(t, err)
			require.Len(t, hits, 1)
			assert.Equal(t, ms[7].ID, hits[0].Memory.ID, "a search without the index is a scan")

			// Open without DeferIndex builds it; MissingIndex runs as given.
			opts.DeferIndex = false
			built, err := Open(ctx, testDSN(t), &opts)
			require.NoError(t, err)
			built.Close()
			assert.Empty(t, built.MissingIndex())
			assert.True(t, hasIndex())
			_, err = loaded.pool.Exec(ctx, "DROP INDEX "+quote(opts.Table+"_embedding_"+index))
			require.NoError(t, err)
			_, err = loaded.pool.Exec(ctx, deferred.MissingIndex())
			require.NoError(t, err)
			assert.True(t, hasIndex())
		})
	}
	t.Run("table without memories", func(t *testing.T) {
		empty := openTest(t, Options{Dims: 4, Index: IndexNone})
		opts := empty.opts
		opts.Index, opts.DeferIndex = IndexHNSW, true
		s, err := Open(ctx, testDSN(t), &opts)
		require.NoError(t, err)
		s.Close()
		assert.Empty(t, s.MissingIndex())
		var ok bool
		require.NoError(t, empty.pool.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", quote(opts.Table+"_embedding_hnsw")).Scan(&ok))
		assert.True(t, ok, "the build over no memory is done in Open")
	})
	var nilStore *Store
	assert.Empty(t, nilStore.MissingIndex())
}
