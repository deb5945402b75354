package pgstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// TestBatchStatementsParseQueriesOnce checks the plans of the RecallBatch
// and BestSimilarities statements: each query vector is parsed from text
// once (the array is cast to vector[]), never once per row the LATERAL
// subquery visits. A per-row cast made an exact-scan batch of 60 queries
// over 10 000 rows take minutes on PGlite (BENCHMARKS.md, pgstore).
func TestBatchStatementsParseQueriesOnce(t *testing.T) {
	s := openTest(t, Options{Dims: 4})
	qs := []string{pgvector.NewVector([]float32{1, 0, 0, 0}).String(), pgvector.NewVector([]float32{0, 1, 0, 0}).String()}
	include, exclude := kindArgs(chitta.KindFilter{})
	for _, c := range []struct {
		name, query string
		args        []any
	}{
		{"batch", s.q.batch, []any{s.opts.Namespace, qs, 3}},
		{"best", s.q.best, []any{s.opts.Namespace, qs, 1, include, exclude}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows, err := s.pool.Query(t.Context(), "EXPLAIN (VERBOSE) "+c.query, c.args...)
			require.NoError(t, err)
			lines, err := collect(rows, func(r pgx.Rows) (string, error) {
				var line string
				return line, r.Scan(&line)
			})
			require.NoError(t, err)
			plan := strings.Join(lines, "\n")
			assert.Contains(t, plan, "<=> q.v)", "the distance is to the unnested vector")
			assert.NotContains(t, plan, "q.v)::vector", "a query vector is cast once per row")
		})
	}
}

// TestNearestStatementsUseTheIndex checks that Recall, RecallBatch and
// BestSimilarities are answered by the vector index when the store has
// one. With a second sort key (the ID, to break ties) PostgreSQL 15 could
// not use the index's order and scanned and sorted the whole namespace on
// every call: 54 ms a Recall at 100 000 memories (BENCHMARKS.md, pgstore).
// Sequential and bitmap scans and sorts are disabled for the EXPLAIN, so
// that the planner takes the index's order whenever the statement lets it,
// however few rows the table holds (on a small table a scan of the primary
// key and a sort cost less than the index).
func TestNearestStatementsUseTheIndex(t *testing.T) {
	for _, index := range []string{IndexHNSW, IndexIVFFlat} {
		t.Run(index, func(t *testing.T) {
			s := openTest(t, Options{Dims: 4, Index: index})
			require.NoError(t, s.add(t.Context(), memories(3, 200, 4)))
			_, err := s.pool.Exec(t.Context(), "ANALYZE "+quote(s.opts.Table)) // as autovacuum would
			require.NoError(t, err)
			for _, c := range nearestStatements(s, []float32{1, 0, 0, 0}, 3) {
				t.Run(c.name, func(t *testing.T) {
					plan := explainNoScans(t, s, c.query, c.args...)
					assert.Contains(t, plan, s.opts.Table+"_embedding_"+index, "the index answers:\n%s", plan)
					assert.NotContains(t, plan, "Sort Key", "no sort of the namespace:\n%s", plan)
				})
			}
		})
	}
}

// nearestStatement is a search statement of a store with its arguments.
type nearestStatement struct {
	name, query string
	args        []any
}

// nearestStatements returns the statements of s's Recall (k nearest to q),
// RecallBatch (q twice, k each) and BestSimilarities (q twice), with no
// kind filter.
func nearestStatements(s *Store, q []float32, k int) []nearestStatement {
	v := pgvector.NewVector(q).String()
	include, exclude := kindArgs(chitta.KindFilter{})
	return []nearestStatement{
		{"recall", s.q.recall, []any{s.opts.Namespace, v, k, include, exclude}},
		{"batch", s.q.batch, []any{s.opts.Namespace, []string{v, v}, k}},
		{"best", s.q.best, []any{s.opts.Namespace, []string{v, v}, 1, include, exclude}},
	}
}

// explainNoScans returns the plan of query on one connection of s with
// sequential and bitmap scans and sorts disabled.
func explainNoScans(t *testing.T, s *Store, query string, args ...any) string {
	t.Helper()
	var plan []string
	err := s.pool.AcquireFunc(t.Context(), func(c *pgxpool.Conn) error {
		if _, err := c.Exec(t.Context(), "SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off"); err != nil {
			return err
		}
		defer c.Exec(context.Background(), "RESET enable_seqscan; RESET enable_bitmapscan; RESET enable_sort") //nolint:errcheck
		rows, err := c.Query(t.Context(), "EXPLAIN "+query, args...)
		if err != nil {
			return err
		}
		plan, err = collect(rows, func(r pgx.Rows) (string, error) {
			var line string
			return line, r.Scan(&line)
		})
		return err
	})
	require.NoError(t, err)
	return strings.Join(plan, "\n")
}

// TestExactSearchesIgnoreIndexes checks that the searches of an IndexNone
// store (Recall, RecallMatching, RecallBatch, BestSimilarities) stay exact
// on a table that has a vector index (built by a Store opened with another
// Index, or by an operator): no index answers them, and they give the
// answers of chitta.HNSWStore's exact scan, ties by ID. Before, they
// ordered by the distance, then the ID, and PGlite's PostgreSQL 18 walked
// the index in distance order under an incremental sort by ID: with
// ivfflat.probes=1 every Recall(k=10) of the 20 missed some of the
// namespace's nearest memories, and 2 or 3 of 20 with hnsw.ef_search=1
// (the graph is random; the plans fail either way). PostgreSQL 15 sorted
// the namespace: exact. The index's search is at
// its least accurate here, and sequential and bitmap scans and sorts are
// off on the store's one connection, so that the planner takes the index
// wherever the statements let it, however it costs it.
func TestExactSearchesIgnoreIndexes(t *testing.T) {
	for _, index := range []string{IndexIVFFlat, IndexHNSW} {
		t.Run(index, func(t *testing.T) {
			ctx := t.Context()
			loader := openTest(t, Options{Dims: 8, Index: IndexNone, Namespace: "big"})
			require.NoError(t, loader.add(ctx, memories(1, 2000, 8)))
			opts := loader.opts
			opts.Namespace = "small"
			ms := memories(2, 300, 8)
			dsn := testDSN(t)
			sep := "?"
			if strings.Contains(dsn, "?") {
				sep = "&"
			}
			cfg, err := pgxpool.ParseConfig(dsn + sep + "ivfflat.probes=1&hnsw.ef_search=1")
			require.NoError(t, err)
			cfg.MaxConns = 1
			s, err := openConfig(ctx, cfg, opts)
			require.NoError(t, err)
			defer s.Close()
			require.NoError(t, s.add(ctx, ms))
			indexed := opts
			indexed.Index = index
			built, err := Open(ctx, dsn, &indexed) // the index, built on the data
			require.NoError(t, err)
			built.Close()
			_, err = s.pool.Exec(ctx, "ANALYZE "+quote(opts.Table))
			require.NoError(t, err)
			_, err = s.pool.Exec(ctx, "SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off")
			require.NoError(t, err)
			defer s.pool.Exec(context.Background(), "RESET enable_seqscan; RESET enable_bitmapscan; RESET enable_sort") //nolint:errcheck

			for _, c := range nearestStatements(s, ms[0].Vector, 10) {
				plan, err := search(ctx, s, func(r pgx.Rows) (string, error) {
					var line string
					return line, r.Scan(&line)
				}, "EXPLAIN "+c.query, c.args...)
				require.NoError(t, err)
				assert.NotContains(t, strings.Join(plan, "\n"), opts.Table+"_embedding_"+index, "%s: no index answers:\n%s", c.name, strings.Join(plan, "\n"))
			}

			ref, err := chitta.NewHNSWStore(8, nil)
			require.NoError(t, err)
			for _, m := range ms {
				require.NoError(t, ref.Add(ctx, m))
			}
			rng := rand.New(rand.NewPCG(5, 1))
			qs := make([][]float32, 20)
			for i := range qs {
				qs[i] = randomVec(rng, 8)
			}
			for _, f := range []chitta.KindFilter{{}, {Exclude: []string{chitta.KindEpisode}}, {Include: []string{chitta.KindPreference}}} {
				for i, q := range qs {
					got, err := s.RecallMatching(ctx, q, 10, f)
					require.NoError(t, err)
					want, err := ref.RecallMatching(ctx, q, 10, f)
					require.NoError(t, err)
					assert.Equal(t, ranking(want), ranking(got), "RecallMatching %+v, query %d", f, i)
				}
				got, err := s.BestSimilarities(ctx, qs, f)
				require.NoError(t, err)
				want, err := ref.BestSimilarities(ctx, qs, f)
				require.NoError(t, err)
				assert.InDeltaSlice(t, want, got, 1e-12, "BestSimilarities %+v", f)
			}
			got, err := s.RecallBatch(ctx, qs, 10)
			require.NoError(t, err)
			want, err := ref.RecallBatch(ctx, qs, 10)
			require.NoError(t, err)
			require.Len(t, got, len(want))
			for i := range want {
				assert.Equal(t, ranking(want[i]), ranking(got[i]), "RecallBatch, query %d", i)
			}
		})
	}
}

// ranking returns the IDs and similarities of hits, in order.
func ranking(hits []chitta.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = fmt.Sprintf("%s %.17g", h.ID, h.Similarity)
	}
	return out
}
