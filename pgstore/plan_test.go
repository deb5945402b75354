package pgstore

import (
	"context"
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
			q := pgvector.NewVector([]float32{1, 0, 0, 0}).String()
			include, exclude := kindArgs(chitta.KindFilter{})
			for _, c := range []struct {
				name, query string
				args        []any
			}{
				{"recall", s.q.recall, []any{s.opts.Namespace, q, 3, include, exclude}},
				{"batch", s.q.batch, []any{s.opts.Namespace, []string{q, q}, 3}},
				{"best", s.q.best, []any{s.opts.Namespace, []string{q, q}, 1, include, exclude}},
			} {
				t.Run(c.name, func(t *testing.T) {
					plan := explainNoScans(t, s, c.query, c.args...)
					assert.Contains(t, plan, s.opts.Table+"_embedding_"+index, "the index answers:\n%s", plan)
					assert.NotContains(t, plan, "Sort Key", "no sort of the namespace:\n%s", plan)
				})
			}
		})
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
