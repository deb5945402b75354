package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
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
	assert.Contains(t, r.stderr, "--timeout")
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
