//go:build pgserver

package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta/internal/testkit/pgenv"
)

// TestPostgresBehindPgBouncer: the hook records its episode and brief
// through a real PgBouncer in transaction mode (scripts/postgres.sh starts
// one; -tags pgserver, as scripts/test.sh's real-server pass builds it),
// and a later SessionStart brings the brief back through it.
func TestPostgresBehindPgBouncer(t *testing.T) {
	pooled := pgenv.PgBouncer(t)
	direct, _ := pgURL(t)
	_, query, _ := strings.Cut(direct, "chitta_table=")
	url := pooled + "&chitta_table=" + query
	transcript := writeTranscript(t, 10)

	pre := runHook(t, strings.NewReader(hookJSON(t, "PreCompact", transcript, "sess-pooled", "")), "--store", url)
	require.Equal(t, 0, pre.code, pre.stderr)
	assert.True(t, strings.HasPrefix(pre.stdout, "Preservation brief from chitta"), pre.stdout)
	assert.Contains(t, pre.stderr, "episode", "the summary says the episode was saved")
	assert.NotContains(t, pre.stderr, "failed")

	post := runHook(t, strings.NewReader(hookJSON(t, "SessionStart", transcript, "sess-pooled", "compact")), "--store", url)
	require.Equal(t, 0, post.code, post.stderr)
	assert.Contains(t, post.stdout, strings.TrimSpace(strings.SplitN(pre.stdout, "\n", 3)[1]), "the session's brief (its first item)")
}
