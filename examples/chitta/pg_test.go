package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta/examples/internal/silentpg"
	"github.com/chitta-go/chitta/examples/internal/storepath"
	"github.com/chitta-go/chitta/internal/testkit/ci"
)

// pgURL returns CHITTA_TEST_DSN (scripts/test.sh starts PGlite and sets
// it) with a fresh namespace; without it the test skips, except in CI.
func pgURL(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("CHITTA_TEST_DSN")
	if dsn == "" {
		ci.Need(t, "CHITTA_TEST_DSN is not set: run the tests through scripts/test.sh, or `bash scripts/pglite.sh go -C examples/chitta test ./...`")
	}
	require.True(t, storepath.IsDSN(dsn), "CHITTA_TEST_DSN must be a postgres:// URL for the harness tests")
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return fmt.Sprintf("%s%schitta_table=chitta_harness_test&chitta_namespace=%s-%d", dsn, sep, t.Name(), os.Getpid())
}

// TestPostgresStore remembers in one process and recalls in another
// through --store postgres://….
func TestPostgresStore(t *testing.T) {
	dsn := pgURL(t)
	home := t.TempDir()
	r := runChitta(t, home, call(1, "remember", `{"text":"Deploys go out on Tuesdays after the freeze.","kind":"habit","confidence":0.6}`), "--store", dsn)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"memories":1`)

	r = runChitta(t, home, call(2, "recall", `{"text":"when do deploys go out?","k":1}`), "--store", dsn, "--verbose")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "Deploys go out on Tuesdays")
	assert.Contains(t, r.stdout, `"kind":"habit"`)
	assert.Contains(t, r.stderr, "store=", "the verbose log names the store")

	r = runChitta(t, home, call(3, "list_memories", `{"kinds":["habit"]}`), "--store", dsn)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "Deploys go out on Tuesdays")
	var id string
	for _, part := range strings.Split(r.stdout, `\"id\":\"`)[1:] {
		id, _, _ = strings.Cut(part, `\"`)
	}
	if id == "" { // structured content carries the IDs unescaped
		for _, part := range strings.Split(r.stdout, `"id":"`)[1:] {
			id, _, _ = strings.Cut(part, `"`)
		}
	}
	require.NotEmpty(t, id, r.stdout)
	r = runChitta(t, home, call(4, "forget", `{"id":"`+id+`"}`), "--store", dsn)
	require.Equal(t, 0, r.code, r.stderr)
	r = runChitta(t, home, call(5, "recall", `{"text":"when do deploys go out?","k":1}`), "--store", dsn)
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stdout, "Deploys go out on Tuesdays", "forgotten")

	r = runChitta(t, home, call(6, "compact_context", `{"messages":`+conversation+`,"query":"deploys"}`), "--store", dsn)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"before_tokens"`)
}

// TestPostgresStoreErrorsHidePassword needs no server: nothing listens on
// port 1, and a bad URL fails before any connection.
func TestPostgresStoreErrorsHidePassword(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, dsn, want string }{
		{"unreachable", "postgres://agent:hunter2@127.0.0.1:1/db?sslmode=disable&connect_timeout=5", "cannot connect"},
		{"bad url", "postgres://agent:hunter2%zz@127.0.0.1/db", "bad DSN"},
		{"bad option", "postgres://agent:hunter2@127.0.0.1:1/db?chitta_table=Bad-Table", "Options.Table"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runChitta(t, t.TempDir(), call(1, "recall", `{"text":"x"}`), "--store", tt.dsn, "--verbose")
			assert.Equal(t, 1, r.code)
			assert.Contains(t, r.stderr, tt.want)
			assert.NotContains(t, r.stderr, "hunter2")
			assert.NotContains(t, r.stdout, "hunter2")
		})
	}
}

// TestPostgresNoAnswer: a PostgreSQL server that accepts the connection
// and never answers stops chitta after --store-timeout (not --timeout, the
// drain at the end of input), in every mode, with exit status 1 and an
// error naming the store without its password; chitta used to wait for it
// for good, before reading stdin (an MCP client's initialize was never
// answered), and then for --timeout, 60 s by default, twice what Claude
// Code waits for an MCP server to start.
func TestPostgresNoAnswer(t *testing.T) {
	t.Parallel()
	dsn := silentpg.URL(t)
	for _, tt := range []struct{ name, stdin, mode string }{
		{"oneshot remember", call(1, "remember", `{"text":"x"}`), "oneshot"},
		{"oneshot compact_context", call(1, "compact_context", `{"messages":[{"role":"user","content":"hi"}]}`), "oneshot"},
		{"auto session", initializeLine + "\n" + initializedLine + "\n", "auto"},
		{"serve", initializeLine + "\n", "serve"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// A guard against the old hang, not a measure: --store-timeout is 2s.
			ctx, cancel := context.WithTimeout(t.Context(), 45*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, binary, "--store", dsn, "--mode", tt.mode, "--store-timeout", "2s", "--timeout", "1h")
			cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+t.TempDir())
			cmd.Stdin = strings.NewReader(tt.stdin)
			r := runCmd(t, cmd)
			assert.Equal(t, 1, r.code, r.stderr)
			assert.Empty(t, r.stdout)
			assert.Contains(t, r.stderr, "open store postgres://agent:xxxxx@127.0.0.1:")
			assert.Contains(t, r.stderr, "no answer within 2s (--store-timeout)")
			assert.NotContains(t, r.stderr, "hunter2")
		})
	}
}

// TestPostgresNULBytes: a NUL byte (a tool's binary output, a pasted
// string) is one PostgreSQL text cannot hold; with --store postgres://…
// chitta stores U+FFFD in its place, as the hook does and as a store file
// keeps it, instead of refusing the memory: remember failed with a tool
// error, and compact_context distilled nothing from such a message.
func TestPostgresNULBytes(t *testing.T) {
	dsn := pgURL(t)
	home := t.TempDir()
	r := runChitta(t, home, call(1, "remember", `{"text":"run go test\u0000 now"}`), "--store", dsn)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.NotContains(t, r.stdout, `"isError":true`)

	msgs := `[{"role":"user","content":"the binary dump \u0000 shows the bootloader config at offset 0x7c00 and nothing else of use"},` +
		`{"role":"assistant","content":"noted"},{"role":"user","content":"now what?"}]`
	r = runChitta(t, home, call(2, "compact_context", `{"messages":`+msgs+`,"distill_novel":true,"target_ratio":0.1}`), "--store", dsn)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "1 memories distilled")
	assert.NotContains(t, r.stderr, "store write failed")

	r = runChitta(t, home, call(3, "list_memories", `{}`), "--store", dsn)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "run go test\uFFFD now")
	assert.Contains(t, r.stdout, "bootloader config")
}

// TestPostgresListReadError: a read that fails part way through
// list_memories (here the second page of 256 holds a row pgx cannot scan, a
// created_at of infinity) is a tool error naming it; list_memories used to
// answer with what it had read as the whole list ("50 of 256 memories" of
// 261).
func TestPostgresListReadError(t *testing.T) {
	dsn := pgURL(t)
	home := t.TempDir()
	r := runChitta(t, home, call(1, "remember", `{"text":"the seed memory","kind":"fact"}`), "--store", dsn)
	require.Equal(t, 0, r.code, r.stderr)

	u, err := url.Parse(dsn)
	require.NoError(t, err)
	namespace := u.Query().Get("chitta_namespace")
	conn, err := pgx.Connect(t.Context(), os.Getenv("CHITTA_TEST_DSN"))
	require.NoError(t, err)
	defer conn.Close(context.Background())
	_, err = conn.Exec(t.Context(), `INSERT INTO chitta_harness_test (namespace, id, text, kind, confidence, source, created_at, created_nanos, embedding)
		SELECT namespace, 'a' || lpad(g::text, 3, '0'), 'memory ' || g, 'fact', 1, 'test', now(), 0, embedding
		FROM chitta_harness_test, generate_series(1, 260) g WHERE namespace = $1`, namespace)
	require.NoError(t, err)
	_, err = conn.Exec(t.Context(), `UPDATE chitta_harness_test SET created_at = 'infinity' WHERE namespace = $1 AND id = 'a258'`, namespace)
	require.NoError(t, err)

	r = runChitta(t, home, call(2, "list_memories", `{}`), "--store", dsn)
	assert.Equal(t, 1, r.code, "one-shot mode exits 1 on a tool error: %s", r.stderr)
	head := r.stdout[:min(len(r.stdout), 400)]
	assert.True(t, strings.Contains(r.stdout, `"isError":true`), "a tool error: %s", head)
	assert.True(t, strings.Contains(r.stdout, "list memories: "), "naming the read: %s", head)
	assert.True(t, strings.Contains(strings.ToLower(r.stdout), "infinity"), "and why: %s", head)
	assert.False(t, strings.Contains(r.stdout, `"total"`), "no total: %s", head)
}

// TestPostgresTableWithoutIndex: a table loaded without a vector index
// (chitta_index=none) is not indexed when chitta starts on it with the
// default index (a build over a large table outlasts --store-timeout and
// holds the table's writers meanwhile); chitta warns, with the statement
// that builds it, and its searches answer without it.
func TestPostgresTableWithoutIndex(t *testing.T) {
	table := fmt.Sprintf("chitta_harness_noindex_%d", os.Getpid())
	dsn := strings.Replace(pgURL(t), "chitta_table=chitta_harness_test", "chitta_table="+table, 1)
	home := t.TempDir()
	r := runChitta(t, home, call(1, "remember", `{"text":"The staging database is rebuilt every Sunday night."}`), "--store", dsn+"&chitta_index=none")
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stderr, "lacks the vector index", "no index is wanted")

	r = runChitta(t, home, call(2, "recall", `{"text":"when is staging rebuilt?","k":1}`), "--store", dsn)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "rebuilt every Sunday night")
	assert.Contains(t, r.stderr, "lacks the vector index")
	assert.Contains(t, r.stderr, `CREATE INDEX IF NOT EXISTS`)

	conn, err := pgx.Connect(t.Context(), os.Getenv("CHITTA_TEST_DSN"))
	require.NoError(t, err)
	defer conn.Close(context.Background())
	var indexed bool
	require.NoError(t, conn.QueryRow(t.Context(), "SELECT to_regclass($1) IS NOT NULL", table+"_embedding_hnsw").Scan(&indexed))
	assert.False(t, indexed, "chitta left the index unbuilt")
}
