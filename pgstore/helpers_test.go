package pgstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/internal/testkit/ci"
)

// TestMain runs the child of TestTwoProcessesLoseNothing when the
// PGSTORE_CHILD_* variables are set, and the tests otherwise.
func TestMain(m *testing.M) {
	if table := os.Getenv("PGSTORE_CHILD_TABLE"); table != "" {
		if err := childAdd(table, os.Getenv("PGSTORE_CHILD_PREFIX"), os.Getenv("PGSTORE_CHILD_N")); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// childAdd adds n memories with IDs prefix-0… to table, one Add each.
func childAdd(table, prefix, count string) error {
	n, err := strconv.Atoi(count)
	if err != nil {
		return err
	}
	ctx := context.Background()
	s, err := Open(ctx, os.Getenv("CHITTA_TEST_DSN"), &Options{Dims: 8, Table: table})
	if err != nil {
		return err
	}
	defer s.Close()
	rng := rand.New(rand.NewPCG(uint64(len(prefix)), 3))
	for i := range n {
		if err := s.Add(ctx, chitta.Memory{ID: fmt.Sprintf("%s-%d", prefix, i), Text: prefix, Vector: randomVec(rng, 8)}); err != nil {
			return err
		}
	}
	fmt.Printf("child added %d\n", n)
	return nil
}

// testDSN returns the server the tests run against: CHITTA_TEST_DSN, which
// scripts/test.sh and scripts/pglite.sh set after starting PGlite. Without
// it the test skips, except in CI, where it fails.
func testDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("CHITTA_TEST_DSN")
	if dsn == "" {
		ci.Need(t, "CHITTA_TEST_DSN is not set: run the tests through scripts/test.sh, or `bash scripts/pglite.sh go -C pgstore test ./...` to start a PGlite server")
	}
	return dsn
}

var tableSeq atomic.Int64

// uniqueTable returns a table name no other test (or test process) uses.
func uniqueTable() string {
	return fmt.Sprintf("chitta_test_%d_%d", os.Getpid(), tableSeq.Add(1))
}

// openTest opens a store on a fresh table (opts.Table is filled in when
// empty) and drops the table's three tables when the test ends.
func openTest(t testing.TB, opts Options) *Store {
	t.Helper()
	dsn := testDSN(t)
	if opts.Table == "" {
		opts.Table = uniqueTable()
	}
	s, err := Open(t.Context(), dsn, &opts)
	require.NoError(t, err)
	t.Cleanup(func() { dropTables(t, s) })
	return s
}

// dropTables drops the store's tables and closes it.
func dropTables(t testing.TB, s *Store) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tb := s.opts.Table
	_, err := s.pool.Exec(ctx, "DROP TABLE IF EXISTS "+quote(tb)+", "+quote(tb+"_schema")+", "+quote(tb+"_generation"))
	s.Close()
	require.NoError(t, err)
}

// randomVec returns a vector of dims standard-normal components.
func randomVec(rng *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

// memories returns n memories with IDs m0000… and random vectors; kinds
// cycle through fact, episode, preference.
func memories(seed uint64, n, dims int) []chitta.Memory {
	rng := rand.New(rand.NewPCG(seed, 1))
	kinds := []string{chitta.KindFact, chitta.KindEpisode, chitta.KindPreference}
	ms := make([]chitta.Memory, n)
	at := time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC)
	for i := range ms {
		ms[i] = chitta.Memory{
			ID: fmt.Sprintf("m%04d", i), Text: fmt.Sprintf("memory %d", i), Kind: kinds[i%len(kinds)],
			Confidence: float64(i%10) / 10, Vector: randomVec(rng, dims),
			CreatedAt: at.Add(time.Duration(i) * time.Second), Source: fmt.Sprintf("session-%d", i%4),
		}
	}
	return ms
}

// queryLog is a pgx.QueryTracer that records the SQL of every statement
// its connections start, so that a test can tell that a call sent none.
type queryLog struct {
	mu  sync.Mutex
	sql []string
}

func (l *queryLog) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sql = append(l.sql, d.SQL)
	return ctx
}

func (l *queryLog) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// statements returns the SQL recorded so far.
func (l *queryLog) statements() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.sql)
}

// openTraced opens a second store on s's table and configuration whose
// connections record their statements in the returned log. The store
// opens no connection of its pool until a call needs one.
func openTraced(t testing.TB, s *Store) (*Store, *queryLog) {
	t.Helper()
	cfg := s.pool.Config()
	log := &queryLog{}
	cfg.ConnConfig.Tracer = log
	traced, err := openConfig(t.Context(), cfg, s.opts)
	require.NoError(t, err)
	t.Cleanup(func() { traced.Close() })
	log.mu.Lock()
	log.sql = nil // Open's own statements
	log.mu.Unlock()
	return traced, log
}
