package main

import (
	"os"
	"path/filepath"
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
