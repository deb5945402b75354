package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/brief"
	"github.com/chitta-go/chitta/examples/internal/storepath"
	"github.com/chitta-go/chitta/internal/testkit/ci"
	"github.com/chitta-go/chitta/pgstore"
)

// pgURL returns CHITTA_TEST_DSN (scripts/test.sh starts PGlite and sets
// it) with a namespace of its own; without it the test skips, except in CI.
func pgURL(t *testing.T) (url, namespace string) {
	t.Helper()
	dsn := os.Getenv("CHITTA_TEST_DSN")
	if dsn == "" {
		ci.Need(t, "CHITTA_TEST_DSN is not set: run the tests through scripts/test.sh, or `bash scripts/pglite.sh go -C examples/precompact-hook test ./...`")
	}
	require.True(t, storepath.IsDSN(dsn), "CHITTA_TEST_DSN must be a postgres:// URL for the hook tests")
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	namespace = fmt.Sprintf("%s-%d", t.Name(), os.Getpid())
	return dsn + sep + "chitta_table=chitta_hook_test&chitta_namespace=" + namespace, namespace
}

// TestPostgresStore: PreCompact records its episode and brief in
// PostgreSQL, and a later SessionStart process brings the brief back.
func TestPostgresStore(t *testing.T) {
	url, namespace := pgURL(t)
	transcript := writeTranscript(t, 10)

	pre := runHook(t, strings.NewReader(hookJSON(t, "PreCompact", transcript, "sess-pg", "")), "--store", url)
	require.Equal(t, 0, pre.code, pre.stderr)
	assert.True(t, strings.HasPrefix(pre.stdout, "Preservation brief from chitta"), pre.stdout)
	assert.Contains(t, pre.stderr, "chitta_hook_test", "the summary names the store")

	s, err := pgstore.Open(t.Context(), os.Getenv("CHITTA_TEST_DSN"), &pgstore.Options{
		Dims: chitta.NewHashEmbedder(0).Dimensions(), Table: "chitta_hook_test", Namespace: namespace})
	require.NoError(t, err)
	defer s.Close()
	got := map[string]int{}
	for m, err := range s.All(t.Context()) {
		require.NoError(t, err)
		got[m.Kind]++
	}
	assert.Equal(t, map[string]int{chitta.KindEpisode: 1, chitta.KindBrief: 1}, got)

	post := runHook(t, strings.NewReader(hookJSON(t, "SessionStart", transcript, "sess-pg", "compact")), "--store", url)
	require.Equal(t, 0, post.code, post.stderr)
	assert.Contains(t, post.stdout, strings.TrimSpace(strings.SplitN(pre.stdout, "\n", 3)[1]), "the session's brief (its first item)")
}

// TestPostgresStoreErrorsHidePassword needs no server: nothing listens on
// port 1. SessionStart fails without its store (PreCompact makes its brief
// anyway: TestStoreOpenFailureKeepsBrief, which checks its line too).
func TestPostgresStoreErrorsHidePassword(t *testing.T) {
	t.Parallel()
	transcript := writeTranscript(t, 3)
	r := runHook(t, strings.NewReader(hookJSON(t, "SessionStart", transcript, "s", "compact")),
		"--store", "postgres://agent:hunter2@127.0.0.1:1/db?sslmode=disable&connect_timeout=5")
	assert.NotEqual(t, 0, r.code)
	assert.Contains(t, r.stderr, "cannot connect")
	assert.Contains(t, r.stderr, "xxxxx", "the URL is shown redacted")
	assert.NotContains(t, r.stderr, "hunter2")
	assert.NotContains(t, r.stdout, "hunter2")
}

// TestPostgresStoreNULBytes: a NUL byte in what the hook stores (a command
// in the brief, the session ID in the episode) is one PostgreSQL text cannot
// hold; the hook stores U+FFFD in its place and still prints its brief, as
// it does with a store file, instead of failing without one.
func TestPostgresStoreNULBytes(t *testing.T) {
	url, namespace := pgURL(t)
	path := filepath.Join(t.TempDir(), "nul.jsonl")
	var b strings.Builder
	for i := range 4 {
		id := fmt.Sprintf("toolu_%03d", i)
		b.WriteString(entry(t, "user", fmt.Sprintf("p%03d", i), "", fmt.Sprintf("Round %d: run the tests of pkg%d.", i, i)))
		b.WriteString(entry(t, "assistant", fmt.Sprintf("a%03d", i), fmt.Sprintf("msg_%03d", i), []any{map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": fmt.Sprintf("go test ./pkg%d\x00", i)}}}))
		b.WriteString(entry(t, "user", fmt.Sprintf("r%03d", i), "", []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": "FAIL\x00 pkg"}}))
	}
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o600))

	pre := runHook(t, strings.NewReader(hookJSON(t, "PreCompact", path, "sess\x00nul", "")), "--store", url)
	require.Equal(t, 0, pre.code, pre.stderr)
	assert.Contains(t, pre.stdout, "go test ./pkg3", "the brief is printed")

	s, err := pgstore.Open(t.Context(), os.Getenv("CHITTA_TEST_DSN"), &pgstore.Options{
		Dims: chitta.NewHashEmbedder(0).Dimensions(), Table: "chitta_hook_test", Namespace: namespace})
	require.NoError(t, err)
	defer s.Close()
	got := map[string]string{}
	for m, err := range s.All(t.Context()) {
		require.NoError(t, err)
		got[m.Kind] = m.Text
	}
	assert.Contains(t, got[chitta.KindEpisode], "Session: sess\uFFFDnul")
	assert.Contains(t, got[chitta.KindBrief], "go test ./pkg3\uFFFD")
}

// TestPostgresReadsStopAtDeadline: the hook's reads without a ctx of their
// own (the count in the summary, the brief SessionStart prints) end with
// the hook's context: once the deadline has passed they no longer query,
// so a server that stops answering after the brief's write cannot hold the
// hook past --timeout and cost it the brief. They used a context of their
// own, 30 s from the call.
func TestPostgresReadsStopAtDeadline(t *testing.T) {
	url, _ := pgURL(t)
	ctx, cancel := context.WithCancel(t.Context())
	p, err := openPG(ctx, url, chitta.NewHashEmbedder(0).Dimensions(), false)
	require.NoError(t, err)
	defer p.Close()
	require.NoError(t, brief.Record(ctx, p, chitta.NewHashEmbedder(0), "s", "the brief"))
	require.Equal(t, 1, p.Len())
	_, ok := p.Get(brief.ID("s"))
	require.True(t, ok)

	cancel() // the hook's deadline
	assert.Equal(t, -1, p.Len(), "no count once the hook's context is done")
	_, ok = p.Get(brief.ID("s"))
	assert.False(t, ok, "no read once the hook's context is done")
}

// TestPostgresTableWithoutIndex: on a table that holds memories without
// its vector index (loaded with pgstore.IndexNone), the hook does not
// build the index under its deadline (a build over a large table outlasts
// --timeout, is rolled back, and holds the table's writers meanwhile, at
// every run); it searches without it, and its summary line says so and
// gives the statement that builds it.
func TestPostgresTableWithoutIndex(t *testing.T) {
	url, namespace := pgURL(t)
	table := fmt.Sprintf("chitta_hook_noindex_%d", os.Getpid())
	url = strings.Replace(url, "chitta_table=chitta_hook_test", "chitta_table="+table, 1)
	dims := chitta.NewHashEmbedder(0).Dimensions()
	loaded, err := pgstore.Open(t.Context(), os.Getenv("CHITTA_TEST_DSN"), &pgstore.Options{
		Dims: dims, Table: table, Namespace: namespace, Index: pgstore.IndexNone})
	require.NoError(t, err)
	vecs, err := chitta.NewHashEmbedder(0).Embed(t.Context(), []string{"loaded before"})
	require.NoError(t, err)
	require.NoError(t, loaded.Add(t.Context(), chitta.Memory{ID: "bulk-1", Text: "loaded before", Vector: vecs[0]}))
	loaded.Close()

	transcript := writeTranscript(t, 10)
	pre := runHook(t, strings.NewReader(hookJSON(t, "PreCompact", transcript, "sess-noindex", "")), "--store", url)
	require.Equal(t, 0, pre.code, pre.stderr)
	assert.Contains(t, pre.stderr, "lacks the vector index")
	assert.Contains(t, pre.stderr, `CREATE INDEX IF NOT EXISTS "`+table+`_embedding_hnsw"`)
	post := runHook(t, strings.NewReader(hookJSON(t, "SessionStart", transcript, "sess-noindex", "compact")), "--store", url)
	require.Equal(t, 0, post.code, post.stderr)
	assert.Contains(t, post.stderr, "lacks the vector index")

	again, err := pgstore.Open(t.Context(), os.Getenv("CHITTA_TEST_DSN"), &pgstore.Options{
		Dims: dims, Table: table, Namespace: namespace, DeferIndex: true})
	require.NoError(t, err)
	defer again.Close()
	assert.NotEmpty(t, again.MissingIndex(), "the hook left the index unbuilt")
	n, err := again.Len(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 3, n, "the loaded memory, the episode and the brief")

	// The summary of a store with its index has no such note.
	plain := runHook(t, strings.NewReader(hookJSON(t, "PreCompact", transcript, "sess-indexed", "")), "--store", strings.Replace(url, table, "chitta_hook_test", 1))
	require.Equal(t, 0, plain.code, plain.stderr)
	assert.NotContains(t, plain.stderr, "lacks the vector index")
}
