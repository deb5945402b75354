package pgstore

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
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
