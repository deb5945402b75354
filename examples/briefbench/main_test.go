package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunOnTheSample measures a directory holding the repository's sample
// session: one window, every path and command carried, no boilerplate.
func TestRunOnTheSample(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "internal", "claudecode", "testdata", "session.jsonl"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "s.jsonl"), data, 0o600))
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-data", dir, "-runs", "1"}, &out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 4, out.String())
	assert.Contains(t, lines[2], "| s | 7 |")
	assert.Contains(t, lines[2], "| (2) 1.00 / 1.00 | (1) 1.00 / 1.00 |")
	assert.True(t, strings.HasSuffix(lines[2], "| 0 |"), "no boilerplate: %s", lines[2])
	assert.Contains(t, lines[3], "**all 1 windows**")

	require.Error(t, run(t.Context(), []string{"-data", t.TempDir()}, &out), "no transcripts")
}

func TestLooksLikeBoilerplate(t *testing.T) {
	t.Parallel()
	assert.True(t, looksLikeBoilerplate("[distill-on-drop:user] The user doesn't want to proceed with this tool use."))
	assert.True(t, looksLikeBoilerplate("[distill-on-drop:assistant] Great! Now let me check the tests."))
	assert.False(t, looksLikeBoilerplate("[distill-on-drop:assistant] The retry loop never backs off, so the API throttles us."))
	assert.False(t, looksLikeBoilerplate("[distill-on-drop:user] Great! Now let me think."), "users are never filler")
}
