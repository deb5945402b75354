package main

import (
	"context"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta/examples/internal/silentpg"
)

// TestRefusesUnsavableStore: a --store that can never be saved to stops
// chitta at start, before any tool runs (a trailing slash was accepted and
// the first save failed after the remember had run).
func TestRefusesUnsavableStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dangling := filepath.Join(dir, "dangling.chitta")
	if err := os.Symlink(filepath.Join(dir, "nowhere", "m.chitta"), dangling); err != nil {
		t.Fatal(err)
	}
	for _, store := range []string{filepath.Join(dir, "newdir") + "/", dir, dangling} {
		r := runChitta(t, dir, call(1, "remember", `{"text":"x"}`), "--store", store)
		assert.Equal(t, 1, r.code, store)
		assert.Empty(t, r.stdout, "no tool ran")
		assert.Contains(t, r.stderr, "store path is not a regular file")
	}
	assert.NoDirExists(t, filepath.Join(dir, "newdir"))
	r := runChitta(t, dir, "", "--timeout", "0s")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "--timeout 0s: want > 0")
	r = runChitta(t, dir, "", "--store-timeout", "-1s")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "--store-timeout -1s: want > 0")
}

// claudeCodeStartWait is how long Claude Code waits by default for an MCP
// server it starts to answer initialize (MCP_TIMEOUT, 30 000 ms).
const claudeCodeStartWait = 30 * time.Second

// TestStoreWaitUnderClientWait: by default chitta gives a postgres://
// store less time to answer at start than Claude Code gives chitta, so
// that a store that never answers is reported while the client still
// listens; the wait was --timeout, 60 s by default, and the drain at the
// end of input keeps that default.
func TestStoreWaitUnderClientWait(t *testing.T) {
	t.Parallel()
	cfg, err := parseFlags([]string{"--store", filepath.Join(t.TempDir(), "m.chitta")}, io.Discard)
	require.NoError(t, err)
	assert.Less(t, cfg.storeTimeout, claudeCodeStartWait)
	assert.Equal(t, 60*time.Second, cfg.timeout)
}

// TestLogReadyCountsOnlyWhenLogged: the start-up line's memory count (a
// round trip to the server with a postgres:// store) is taken only when
// the line is logged, with --verbose; without it the count was asked for
// and thrown away at every start.
func TestLogReadyCountsOnlyWhenLogged(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		level slog.Level
		calls int
	}{{slog.LevelInfo, 0}, {slog.LevelDebug, 1}} {
		var out strings.Builder
		log := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: tc.level}))
		calls := 0
		logReady(t.Context(), log, "m.chitta", func() int { calls++; return 7 }, "hash")
		assert.Equal(t, tc.calls, calls, tc.level)
		if tc.calls > 0 {
			assert.Contains(t, out.String(), "memories=7")
		} else {
			assert.Empty(t, out.String())
		}
	}
}

// silentEmbedder returns an openai: --embedder spec for a server that
// accepts connections and never answers (silentpg's, spoken to in HTTP).
func silentEmbedder(t *testing.T) string {
	t.Helper()
	u, err := url.Parse(silentpg.URL(t))
	require.NoError(t, err)
	return "openai:http://" + u.Host + "/v1#m"
}

// TestEmbedderNoAnswer: an openai: embedder whose server never answers
// stops chitta within --store-timeout, as a postgres:// store does, with
// an error naming the flag: its probe waited 30 s, all the time Claude
// Code gives an MCP server to start. --store-timeout bounds the probe and
// the store's open together.
func TestEmbedderNoAnswer(t *testing.T) {
	t.Parallel()
	// A guard against the old 30 s wait, not a measure: --store-timeout is 2s.
	ctx, cancel := context.WithTimeout(t.Context(), 25*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "--store", filepath.Join(t.TempDir(), "m.chitta"), "--embedder", silentEmbedder(t), "--store-timeout", "2s")
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+t.TempDir())
	cmd.Stdin = strings.NewReader(initializeLine + "\n")
	r := runCmd(t, cmd)
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Empty(t, r.stdout)
	assert.Contains(t, r.stderr, "probe")
	assert.Contains(t, r.stderr, "no answer within 2s (--store-timeout)")
}
