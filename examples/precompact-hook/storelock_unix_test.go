//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLockedStoreKeepsBrief: when another process holds the store's lock
// for longer than the hook's --timeout (a chitta stopped with Ctrl-Z while
// saving), the save gives up at the deadline and the hook still prints the
// brief it made and exits 0, its summary line naming the store failure. The
// save waited its own 10 s for the lock, past the deadline, and the hook
// exited 1 ("timed out"), the brief lost for a memory write.
func TestLockedStoreKeepsBrief(t *testing.T) {
	t.Parallel()
	store := filepath.Join(t.TempDir(), "memory.chitta")
	lock, err := os.OpenFile(store+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	defer lock.Close()
	require.NoError(t, syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB))
	transcript := writeTranscript(t, 10)

	r := runHook(t, strings.NewReader(hookJSON(t, "PreCompact", transcript, "s", "")), "--store", store, "--timeout", "3s")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, "Preservation brief from chitta"), r.stdout)
	assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
	assert.Contains(t, r.stderr, "writing to store "+store+" failed")
	assert.Contains(t, r.stderr, "lock")
	assert.NoFileExists(t, store)
}
