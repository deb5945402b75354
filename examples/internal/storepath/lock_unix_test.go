//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package storepath

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLockFileExcludes(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := lockFile(t.Context(), path, lockTimeout)
	require.NoError(t, err)
	acquired := make(chan struct{})
	go func() {
		unlock2, err := lockFile(t.Context(), path, lockTimeout) // flock locks are per open file
		assert.NoError(t, err)
		close(acquired)
		if unlock2 != nil {
			unlock2()
		}
	}()
	select {
	case <-acquired:
		t.Fatal("second lock acquired while the first is held")
	case <-time.After(100 * time.Millisecond):
	}
	unlock()
	<-acquired
}

// TestLockFileRefusesSymlink: a lock path that is a symbolic link is not
// followed (O_CREATE would create or lock the file it names).
func TestLockFileRefusesSymlink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	path := filepath.Join(dir, "m.chitta.lock")
	require.NoError(t, os.Symlink(victim, path))
	unlock, err := lockFile(t.Context(), path, lockTimeout)
	require.Error(t, err)
	assert.Nil(t, unlock)
	assert.ErrorContains(t, err, "symbolic link")
	assert.NoFileExists(t, victim, "the link's target is not created")
}
