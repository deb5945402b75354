//go:build pgserver

package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta/internal/testkit/pgenv"
)

// TestPostgresBehindPgBouncer: chitta keeps its memories through a real
// PgBouncer in transaction mode (scripts/postgres.sh starts one in front of
// the test server; -tags pgserver, as scripts/test.sh's real-server pass
// builds it), the way hosted PostgreSQL's pooled URLs serve it: a memory
// one process stores, another recalls, and compact_context reads its
// coverage there.
func TestPostgresBehindPgBouncer(t *testing.T) {
	pooled := pgenv.PgBouncer(t)
	dsn := fmt.Sprintf("%s&chitta_table=chitta_harness_test&chitta_namespace=%s-%d", pooled, t.Name(), os.Getpid())
	home := t.TempDir()
	r := runChitta(t, home, call(1, "remember", `{"text":"The release train leaves on Thursdays at noon."}`), "--store", dsn)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"memories":1`)

	r = runChitta(t, home, call(2, "recall", `{"text":"when does the release train leave?","k":1}`), "--store", dsn)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "Thursdays at noon")

	r = runChitta(t, home, call(3, "compact_context", `{"messages":`+conversation+`,"query":"deploys"}`), "--store", dsn)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"before_tokens"`)
	assert.NotContains(t, r.stderr, "SQLSTATE")
}
