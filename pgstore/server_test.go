//go:build pgserver

package pgstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/internal/testkit/pgenv"
)

// TestConcurrentFirstOpensNewDatabase: agents that open a store at the same
// moment on a database without pgvector all succeed. Concurrent CREATE
// EXTENSION IF NOT EXISTS fails as concurrent CREATE INDEX does (before
// Open took its locks, 5 of 6 Opens failed in every round on PostgreSQL 15,
// with "pgvector extension missing": pg_extension_name_index). It needs a
// server that runs a backend per connection and a role that may create
// databases: PGlite serves one database on one backend, so this test is
// built with -tags pgserver only, as scripts/test.sh's pass on a real
// server (scripts/postgres.sh) builds it.
func TestConcurrentFirstOpensNewDatabase(t *testing.T) {
	dsn := testDSN(t)
	ctx := t.Context()
	admin, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	t.Cleanup(func() { admin.Close(context.Background()) }) // after the databases' cleanups
	var version string
	require.NoError(t, admin.QueryRow(ctx, "SELECT version()").Scan(&version))
	if strings.Contains(version, "emscripten") || strings.Contains(version, "wasm") {
		t.Fatalf("-tags pgserver needs a server with a backend per connection, not PGlite (%s): run it with scripts/postgres.sh", version)
	}
	for round := range 3 {
		db := fmt.Sprintf("chitta_test_%d_db%d", os.Getpid(), round)
		_, err := admin.Exec(ctx, "CREATE DATABASE "+quote(db))
		require.NoError(t, err, "the role must be allowed to create databases")
		t.Cleanup(func() {
			_, err := admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+quote(db)+" WITH (FORCE)")
			assert.NoError(t, err)
		})
		const opens = 6
		stores, errs := atOnce(opens, func() (*Store, error) {
			pc, err := pgxpool.ParseConfig(dsn)
			if err != nil {
				return nil, err
			}
			pc.ConnConfig.Database = db
			return openConfig(ctx, pc, Options{Dims: 4, Table: DefaultTable, Namespace: DefaultNamespace, Index: IndexHNSW})
		})
		for _, s := range stores {
			s.Close()
		}
		for i, err := range errs {
			require.NoError(t, err, "round %d, open %d of %d", round+1, i+1, opens)
		}
	}
}

// TestPasswordNeverInErrors meets the server's own refusals with a password
// in the DSN: a wrong password, then the right one for a role that may
// neither create the tables nor write to them. Each error names the cause
// (the server's message) and never the password, raw or URL-escaped. The
// role is a member of chitta_password, which scripts/postgres.sh makes
// authenticate with scram-sha-256.
func TestPasswordNeverInErrors(t *testing.T) {
	dsn := testDSN(t)
	ctx := t.Context()
	owner := openTest(t, Options{Dims: 4}) // tables the role may read only
	role := fmt.Sprintf("chitta_test_%d_pw", os.Getpid())
	password := "p@ss/w:rd?" + strconv.FormatUint(rand.Uint64(), 36)
	wrong := "wr@ng/pw?" + strconv.FormatUint(rand.Uint64(), 36)
	_, err := owner.pool.Exec(ctx, fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s' IN ROLE chitta_password", quote(role), password))
	require.NoError(t, err, "scripts/postgres.sh creates the role chitta_password")
	t.Cleanup(func() {
		_, err := owner.pool.Exec(context.Background(), "DROP OWNED BY "+quote(role)+"; DROP ROLE "+quote(role))
		assert.NoError(t, err)
	})
	for _, tb := range []string{owner.opts.Table, owner.opts.Table + "_schema", owner.opts.Table + "_generation"} {
		_, err := owner.pool.Exec(ctx, "GRANT SELECT ON "+quote(tb)+" TO "+quote(role))
		require.NoError(t, err)
	}
	as := func(pw string) string {
		u, err := url.Parse(dsn)
		require.NoError(t, err)
		u.User = url.UserPassword(role, pw)
		return u.String()
	}
	hidden := func(t *testing.T, err error, secret string) {
		t.Helper()
		require.Error(t, err)
		for _, form := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret), url.UserPassword("u", secret).String()[2:]} {
			assert.NotContains(t, err.Error(), form)
		}
	}

	_, err = Open(ctx, as(wrong), &Options{Dims: 4, Table: owner.opts.Table})
	require.ErrorIs(t, err, ErrConnect)
	assert.Contains(t, err.Error(), "password authentication failed")
	hidden(t, err, wrong)

	_, err = Open(ctx, as(password), &Options{Dims: 4, Table: uniqueTable()})
	assert.Contains(t, err.Error(), "permission denied")
	hidden(t, err, password)

	reader, err := Open(ctx, as(password), &Options{Dims: 4, Table: owner.opts.Table})
	require.NoError(t, err, "complete tables are only read")
	defer reader.Close()
	_, err = reader.Recall(ctx, []float32{1, 0, 0, 0}, 3)
	require.NoError(t, err)
	err = reader.Add(ctx, chitta.Memory{Text: "x", Vector: []float32{1, 0, 0, 0}})
	assert.Contains(t, err.Error(), "permission denied")
	hidden(t, err, password)
}

// TestStatementsKeepCustomPlans: pgx prepares every statement, and after
// five executions PostgreSQL may switch a prepared statement to a generic
// plan. For BestSimilarities that plan sorted the whole namespace once per
// query vector (338 ms against 24 ms for 60 vectors over 10 000 memories,
// BenchmarkRoundTrips). Every search now forces custom plans (SET LOCAL
// in its transaction): after a dozen calls of each search on one
// connection, no pgstore statement in pg_prepared_statements has used a
// generic plan.
func TestStatementsKeepCustomPlans(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{Dims: 8})
	require.NoError(t, s.add(ctx, memories(11, 2000, 8)))
	_, err := s.pool.Exec(ctx, "ANALYZE "+quote(s.opts.Table))
	require.NoError(t, err)
	cfg := s.pool.Config()
	cfg.MaxConns = 1 // every statement on the connection read below
	one, err := openConfig(ctx, cfg, s.opts)
	require.NoError(t, err)
	defer one.Close()
	rng := rand.New(rand.NewPCG(5, 5))
	filter := chitta.KindFilter{Exclude: []string{chitta.KindEpisode}}
	for range 12 {
		qs := make([][]float32, 60) // a compaction's messages: with a few, the generic plan was not taken
		for i := range qs {
			qs[i] = randomVec(rng, 8)
		}
		_, err := one.BestSimilarities(ctx, qs, filter)
		require.NoError(t, err)
		_, err = one.RecallBatch(ctx, qs, 3)
		require.NoError(t, err)
		_, err = one.RecallMatching(ctx, qs[0], 3, filter)
		require.NoError(t, err)
	}
	rows, err := one.pool.Query(ctx, "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%'||$1||'%'", s.opts.Table)
	require.NoError(t, err)
	type stmt struct {
		sql             string
		generic, custom int64
	}
	got, err := collect(rows, func(r pgx.Rows) (stmt, error) {
		var st stmt
		return st, r.Scan(&st.sql, &st.generic, &st.custom)
	})
	require.NoError(t, err)
	require.NotEmpty(t, got, "pgx's default protocol prepares the statements")
	for _, st := range got {
		assert.Zero(t, st.generic, "generic plans of %.80s… (custom %d)", st.sql, st.custom)
	}
}

// TestDeferIndexLetsWritersOn: with a write in flight on a table that holds
// memories without the index, an Open with DeferIndex returns at once,
// and the writer is not held back; an Open that builds the index waits
// for the write (CREATE INDEX takes a SHARE lock, which conflicts with the
// writer's ROW EXCLUSIVE), so that a hook's Open with a deadline shorter
// than the write, or than the build, failed. (On PGlite every client's
// statements run on one backend, which an open transaction holds; so the
// test is built with -tags pgserver only.)
func TestDeferIndexLetsWritersOn(t *testing.T) {
	ctx := t.Context()
	loaded := openTest(t, Options{Dims: 4, Index: IndexNone})
	for _, m := range memories(9, 20, 4) {
		require.NoError(t, loaded.Add(ctx, m))
	}
	writer := openDeferredDuring(t, loaded, "UPDATE "+quote(loaded.opts.Table)+" SET confidence = 0.5 WHERE id = 'm0003'")
	opts := loaded.opts
	opts.Index = IndexHNSW
	short2, cancel2 := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel2()
	_, err := Open(short2, testDSN(t), &opts)
	require.ErrorIs(t, err, context.DeadlineExceeded, "building the index waits for the write in flight")
	require.NoError(t, writer.Commit(ctx))
}

// TestSearchSettingsOnAnyBackend: a search runs with the store's settings
// on a backend that never ran them, as behind a pooler in transaction mode
// (PgBouncer, Supavisor, Neon's pooled URLs), which hands each transaction
// to whichever backend is free. The settings were SET once per connection,
// so they held on one backend only; here that backend is RESET, as one the
// pooler never gave the store's connect would be, and sequential scans and
// sorts are off so that the hnsw index answers. Without
// hnsw.iterative_scan the index yields its ef_search nearest memories of
// the whole table, and the filter on the namespace (10 of 3 010) left
// none of them: Recall answered 0 hits of 3, BestSimilarities 0 for
// every query. (On PGlite a RESET would reach every test's connection,
// since all share one backend.)
func TestSearchSettingsOnAnyBackend(t *testing.T) {
	ctx := t.Context()
	big := openTest(t, Options{Dims: 8, Namespace: "big"})
	require.NoError(t, big.add(ctx, memories(21, 3000, 8)))
	cfg := big.pool.Config()
	cfg.MaxConns = 1
	opts := big.opts
	opts.Namespace = "small"
	small, err := openConfig(ctx, cfg, opts)
	require.NoError(t, err)
	defer small.Close()
	few := memories(22, 10, 8)
	require.NoError(t, small.add(ctx, few))
	_, err = big.pool.Exec(ctx, "ANALYZE "+quote(opts.Table))
	require.NoError(t, err)
	opts.Index = IndexNone
	exact, err := Open(ctx, testDSN(t), &opts)
	require.NoError(t, err)
	defer exact.Close()

	_, err = small.pool.Exec(ctx, "RESET ALL; SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off")
	require.NoError(t, err)
	searchesAnswerExactly(t, small, exact)
	var plan string
	require.NoError(t, small.pool.QueryRow(ctx, "SELECT current_setting('enable_seqscan')").Scan(&plan))
	assert.Equal(t, "off", plan, "the searches ran on the RESET connection")
}

// TestSearchesBehindPgBouncer: the searches behind a real PgBouncer in
// transaction mode (scripts/postgres.sh starts one when
// scripts/install-postgres.sh found it) answer as an exact store does, on
// a pooler backend the store's connect never ran on: another client holds
// the backend the store connected through, so the searches go to a new
// one. Before the settings were SET LOCAL in each search, they held on
// the first backend only, and the searches on the new one answered 0
// hits of 3 (the plan forced onto the hnsw index, as in
// TestSearchSettingsOnAnyBackend, by the database's own settings: the
// pooler's new backend reads them when it starts).
func TestSearchesBehindPgBouncer(t *testing.T) {
	ctx := t.Context()
	pooled := pgenv.PgBouncer(t)
	admin, err := pgx.Connect(ctx, testDSN(t))
	require.NoError(t, err)
	t.Cleanup(func() { admin.Close(context.Background()) })
	db := fmt.Sprintf("chitta_test_%d_pooled", os.Getpid())
	_, err = admin.Exec(ctx, "CREATE DATABASE "+quote(db))
	require.NoError(t, err)
	t.Cleanup(func() {
		_, err := admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+quote(db)+" WITH (FORCE)")
		assert.NoError(t, err)
	})
	for _, set := range []string{"enable_seqscan = off", "enable_bitmapscan = off", "enable_sort = off"} {
		_, err = admin.Exec(ctx, "ALTER DATABASE "+quote(db)+" SET "+set)
		require.NoError(t, err)
	}
	onDB := func(dsn string) string {
		u, err := url.Parse(dsn)
		require.NoError(t, err)
		u.Path = "/" + db
		return u.String()
	}
	direct, pooled := onDB(testDSN(t)), onDB(pooled)

	big, err := Open(ctx, direct, &Options{Dims: 8, Namespace: "big"})
	require.NoError(t, err)
	defer big.Close()
	require.NoError(t, big.add(ctx, memories(21, 3000, 8)))
	_, err = big.pool.Exec(ctx, "ANALYZE "+quote(DefaultTable))
	require.NoError(t, err)
	small, err := Open(ctx, pooled, &Options{Dims: 8, Namespace: "small"})
	require.NoError(t, err)
	defer small.Close()
	require.NoError(t, small.add(ctx, memories(22, 10, 8)))
	exact, err := Open(ctx, direct, &Options{Dims: 8, Namespace: "small", Index: IndexNone})
	require.NoError(t, err)
	defer exact.Close()

	// Another client of the pooler takes the backend the store has used
	// (PgBouncer hands out the most recently used one first) and keeps
	// it in a transaction.
	other, err := pgx.Connect(ctx, pooled)
	require.NoError(t, err)
	defer other.Close(context.Background())
	tx, err := other.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(context.Background())
	var otherPID, storePID int
	require.NoError(t, tx.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&otherPID))
	require.NoError(t, small.pool.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&storePID))
	require.NotEqual(t, otherPID, storePID, "the pooler gives the store another backend")

	searchesAnswerExactly(t, small, exact)
}

// TestPreparedStatementsBehindPgBouncerSayWhy: behind PgBouncer 1.18 in
// transaction mode, pgx's default protocol prepares a statement on one
// backend and may run it on another, which does not have it (SQLSTATE
// 26000), or prepare it on a backend that has it from another client
// already (42P05: Open fails so once any process has opened a store
// through that pooler). Either error then says what to change in the DSN,
// not only "prepared statement … does not exist".
func TestPreparedStatementsBehindPgBouncerSayWhy(t *testing.T) {
	ctx := t.Context()
	pooled := pgenv.PgBouncer(t)
	prepared := strings.Replace(pooled, "&default_query_exec_mode=simple_protocol", "", 1)
	require.NotEqual(t, pooled, prepared)
	s := openTest(t, Options{Dims: 4}) // the tables, directly
	var failures []error
	check := func(err error) bool {
		if err == nil {
			return false
		}
		var pe *pgconn.PgError
		require.ErrorAs(t, err, &pe)
		assert.Contains(t, []string{"26000", "42P05"}, pe.Code, "%v", err)
		assert.ErrorContains(t, err, "default_query_exec_mode=simple_protocol")
		assert.Equal(t, 1, strings.Count(err.Error(), "SQLSTATE"), "the error once: %v", err)
		failures = append(failures, err)
		return true
	}
	for range 3 { // each round's Open prepares what the last one left on a backend
		behind, err := Open(ctx, prepared, &s.opts)
		if check(err) {
			continue
		}
		_, err = behind.Recall(ctx, []float32{1, 0, 0, 0}, 3) // prepared on the backend it ran on
		check(err)
		other, err := pgx.Connect(ctx, pooled) // takes that backend
		require.NoError(t, err)
		tx, err := other.Begin(ctx)
		require.NoError(t, err)
		_, err = tx.Exec(ctx, "SELECT 1")
		require.NoError(t, err)
		_, err = behind.Recall(ctx, []float32{1, 0, 0, 0}, 3)
		check(err)
		require.NoError(t, tx.Rollback(ctx))
		other.Close(ctx)
		behind.Close()
	}
	require.NotEmpty(t, failures, "pgx's prepared statements fail behind PgBouncer 1.18 in transaction mode")
}

// searchesAnswerExactly checks that Recall, RecallBatch and
// BestSimilarities of s answer 5 random queries as exact does.
func searchesAnswerExactly(t *testing.T, s, exact *Store) {
	t.Helper()
	ctx := t.Context()
	rng := rand.New(rand.NewPCG(23, 23))
	qs := make([][]float32, 5)
	for i := range qs {
		qs[i] = randomVec(rng, s.Dims())
	}
	batch, err := s.RecallBatch(ctx, qs, 3)
	require.NoError(t, err)
	best, err := s.BestSimilarities(ctx, qs, chitta.KindFilter{})
	require.NoError(t, err)
	for i, q := range qs {
		want, err := exact.Recall(ctx, q, 3)
		require.NoError(t, err)
		require.Len(t, want, 3)
		got, err := s.Recall(ctx, q, 3)
		require.NoError(t, err)
		assert.Equal(t, hitIDs(want), hitIDs(got), "Recall %d", i)
		assert.Equal(t, hitIDs(want), hitIDs(batch[i]), "RecallBatch %d", i)
		assert.InDelta(t, max(0, want[0].Similarity), best[i], 1e-9, "BestSimilarities %d", i)
	}
}

// hitIDs returns the IDs of hs, in order.
func hitIDs(hs []chitta.Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.ID
	}
	return out
}

// TestFailedSearchKeepsConnection: a search the server refuses leaves its
// connection in the pool. The statements after the error (COMMIT too) are
// skipped, so the connection came back in an aborted transaction and the
// pool closed it: every failed search cost a new connection (a new backend
// behind PgBouncer).
func TestFailedSearchKeepsConnection(t *testing.T) {
	ctx := t.Context()
	tbl := openTest(t, Options{Dims: 4})
	cfg := tbl.pool.Config()
	cfg.MaxConns = 1
	s, err := openConfig(ctx, cfg, tbl.opts)
	require.NoError(t, err)
	defer s.Close()
	one := func(r pgx.Rows) (int, error) {
		var i int
		return i, r.Scan(&i)
	}
	before, err := search(ctx, s, one, "SELECT pg_backend_pid()")
	require.NoError(t, err)
	_, err = search(ctx, s, one, "SELECT 1/0")
	var pe *pgconn.PgError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "22012", pe.Code) // division_by_zero
	after, err := search(ctx, s, one, "SELECT pg_backend_pid()")
	require.NoError(t, err)
	assert.Equal(t, before, after, "the same backend: the connection was kept")
	assert.EqualValues(t, 1, s.pool.Stat().NewConnsCount())
}

// TestSettingsFromTheDSNBehindPgBouncer: search settings the DSN gives as
// runtime parameters hold in every search behind PgBouncer, as the
// store's own do. They were left to the startup packet, which PgBouncer
// refuses ("unsupported startup parameter"), or drops when told to ignore
// them; now the store takes them out of it and sets them in each search.
func TestSettingsFromTheDSNBehindPgBouncer(t *testing.T) {
	ctx := t.Context()
	pooled := pgenv.PgBouncer(t)
	tbl := openTest(t, Options{Dims: 4})
	s, err := Open(ctx, pooled+"&hnsw.ef_search=213&plan_cache_mode=force_generic_plan", &tbl.opts)
	require.NoError(t, err)
	defer s.Close()
	got, err := search(ctx, s, func(r pgx.Rows) (string, error) {
		var v string
		return v, r.Scan(&v)
	}, "SELECT current_setting('hnsw.ef_search') || ' ' || current_setting('plan_cache_mode') || ' ' || current_setting('hnsw.iterative_scan')")
	require.NoError(t, err)
	assert.Equal(t, []string{"213 force_generic_plan strict_order"}, got)
	// A value the server refuses fails Open there too (the check runs as
	// a search's settings do, in a transaction of its own).
	_, err = Open(ctx, pooled+"&hnsw.ef_search=-5", &tbl.opts)
	require.ErrorIs(t, err, ErrBadDSN)
	assert.ErrorContains(t, err, "runtime parameter hnsw.ef_search: -5 is outside the valid range")
	s2, err := Open(ctx, pooled+"&HNSW.EF_SEARCH=214&ivfflat.probes=7", &tbl.opts)
	require.NoError(t, err)
	defer s2.Close()
	got, err = search(ctx, s2, func(r pgx.Rows) (string, error) {
		var v string
		return v, r.Scan(&v)
	}, "SELECT current_setting('hnsw.ef_search') || ' ' || current_setting('ivfflat.probes')")
	require.NoError(t, err)
	assert.Equal(t, []string{"214 7"}, got)
}

// TestDeferIndexDoesNotWaitForALoad: a DeferIndex Open of a table without
// memories but with a load in flight (rows not yet committed, which no
// other session sees) does not wait for the load to build its index: it
// took the table for empty, and CREATE INDEX waited for the loader's lock.
func TestDeferIndexDoesNotWaitForALoad(t *testing.T) {
	loader := openTest(t, Options{Dims: 4, Index: IndexNone})
	openDeferredDuring(t, loader, "INSERT INTO "+quote(loader.opts.Table)+" (namespace, id, text, kind, confidence, source, created_at, created_nanos, embedding) VALUES ('default', 'a', 'x', 'fact', 1, '', now(), 0, '[1,0,0,0]')")
}

// openDeferredDuring runs write in a transaction on s's table, left open
// (rolled back when the test ends), and checks that an Open of the table
// with IndexHNSW and DeferIndex returns within 5 s with the index
// missing. It returns the writer's transaction.
func openDeferredDuring(t *testing.T, s *Store, write string) pgx.Tx {
	t.Helper()
	ctx := t.Context()
	writer, err := s.pool.Begin(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { writer.Rollback(context.Background()) })
	_, err = writer.Exec(ctx, write)
	require.NoError(t, err)
	opts := s.opts
	opts.Index, opts.DeferIndex = IndexHNSW, true
	short, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	deferred, err := Open(short, testDSN(t), &opts)
	require.NoError(t, err, "a deferred index does not wait for the write in flight")
	deferred.Close()
	assert.NotEmpty(t, deferred.MissingIndex())
	return writer
}

// TestInvalidIndexIsReported: an index of the name that is not valid (a
// CREATE INDEX CONCURRENTLY that failed leaves one) is left alone by
// Open, with DeferIndex or without, and MissingIndex gives the statements
// that replace it. It counted as present: MissingIndex said nothing, and
// every search scanned the table.
func TestInvalidIndexIsReported(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{Dims: 4})
	require.NoError(t, s.add(ctx, memories(31, 20, 4)))
	// A unique index over duplicate text fails, as CONCURRENTLY leaves it.
	name := s.opts.Table + "_embedding_hnsw"
	_, err := s.pool.Exec(ctx, "DROP INDEX "+quote(name))
	require.NoError(t, err)
	_, err = s.pool.Exec(ctx, "CREATE UNIQUE INDEX CONCURRENTLY "+quote(name)+" ON "+quote(s.opts.Table)+" (kind)")
	require.Error(t, err, "duplicate kinds")
	var valid bool
	require.NoError(t, s.pool.QueryRow(ctx, "SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass($1)", quote(name)).Scan(&valid))
	require.False(t, valid, "the failed build left an invalid index")

	for _, deferIndex := range []bool{false, true} {
		opts := s.opts
		opts.DeferIndex = deferIndex
		again, err := Open(ctx, testDSN(t), &opts)
		require.NoError(t, err)
		again.Close()
		assert.Equal(t, `DROP INDEX IF EXISTS "`+name+`"; `+again.indexDDL(), again.MissingIndex(), "DeferIndex %v", deferIndex)
	}
	_, err = s.pool.Exec(ctx, (&Store{opts: s.opts, invalid: true}).MissingIndex())
	require.NoError(t, err, "the statements replace the index")
	require.NoError(t, s.pool.QueryRow(ctx, "SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass($1)", quote(name)).Scan(&valid))
	assert.True(t, valid)
}
