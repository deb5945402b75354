// Package pgenv gives tests the PostgreSQL pooler the test command starts:
// scripts/postgres.sh runs a PgBouncer in transaction mode in front of its
// throw-away server, when scripts/install-postgres.sh found or installed
// one, and exports its URL.
package pgenv

import (
	"os"

	"github.com/chitta-go/chitta/internal/testkit/ci"
)

// PgBouncer returns CHITTA_PGBOUNCER_DSN, the postgres:// URL of the
// PgBouncer (pgx's simple protocol, database postgres). Without it the test
// stops through [ci.Need]: it fails in CI and is skipped elsewhere.
func PgBouncer(tb ci.TB) string {
	tb.Helper()
	dsn := os.Getenv("CHITTA_PGBOUNCER_DSN")
	if dsn == "" {
		ci.Need(tb, "CHITTA_PGBOUNCER_DSN is not set: run the test through scripts/postgres.sh with PgBouncer installed (apt-get install pgbouncer)")
	}
	return dsn
}
