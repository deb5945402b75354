//go:build pgserver

package pgstore

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
