//go:build unix

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// lockStore takes the lock of the store file at store, as another
// process's save would hold it, until the test ends or it calls the
// function returned.
func lockStore(t *testing.T, store string) (unlock func()) {
	t.Helper()
	lock, err := os.OpenFile(store+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	t.Cleanup(func() { lock.Close() })
	require.NoError(t, syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB))
	return func() { require.NoError(t, syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)) }
}

// TestOneShotLockedStoreWaitsOnce: a one-shot remember whose store lock
// another process holds waits for it at most --timeout (when under the
// 10 s lock wait), once: the final save of the memory it could not write,
// right after, does not wait the whole lock wait again. It said so and
// exited 1 after twice the 10 s, whatever --timeout was. The error says
// that the memory was not saved.
func TestOneShotLockedStoreWaitsOnce(t *testing.T) {
	t.Parallel()
	store := filepath.Join(t.TempDir(), "m.chitta")
	lockStore(t, store)
	// A guard against the old 20 s, not a measure: --timeout is 2s.
	ctx, cancel := context.WithTimeout(t.Context(), 12*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "--store", store, "--timeout", "2s")
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+t.TempDir())
	cmd.Stdin = strings.NewReader(call(1, "remember", `{"text":"x"}`))
	r := runCmd(t, cmd)
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"isError":true`, "the remember says its save failed")
	assert.Contains(t, r.stdout, "store locked")
	assert.Contains(t, r.stderr, "1 unsaved memory changes lost")
	assert.Contains(t, r.stderr, "store locked")
	assert.NoFileExists(t, store, "nothing written past the lock")
}

// TestSessionLockedStoreSavedAtEnd: in a session, a remember whose save
// found the store locked (past --timeout) is saved by the final save once
// the lock is free, nothing lost.
func TestSessionLockedStoreSavedAtEnd(t *testing.T) {
	t.Parallel()
	store := filepath.Join(t.TempDir(), "m.chitta")
	unlock := lockStore(t, store)
	c := startChitta(t, "--store", store, "--mode", "serve", "--timeout", "2s")
	c.send(t, initializeLine)
	c.send(t, initializedLine)
	c.send(t, rememberLine)
	r := c.response(t, "1")
	require.Contains(t, r.raw, `"isError":true`, "the save failed")
	unlock()
	require.NoError(t, c.stdin.Close())
	select {
	case <-c.done:
	case <-time.After(15 * time.Second):
		t.Fatalf("still running 15s after stdin closed: %s", c.stderr)
	}
	assert.Equal(t, 0, c.cmd.ProcessState.ExitCode(), c.stderr.String())
	s, err := chitta.LoadHNSWStore(store)
	require.NoError(t, err)
	assert.Equal(t, 1, s.Len(), "saved at the end")
}
