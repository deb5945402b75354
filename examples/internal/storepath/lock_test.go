//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd || windows

package storepath

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta/internal/testkit/symlink"
)

func TestLockFileExcludes(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := lockFile(t.Context(), path, LockWait)
	require.NoError(t, err)
	acquired := make(chan struct{})
	go func() {
		unlock2, err := lockFile(t.Context(), path, LockWait) // flock and LockFileEx locks are per open file
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
	symlink.Make(t, victim, path)
	unlock, err := lockFile(t.Context(), path, LockWait)
	require.Error(t, err)
	assert.Nil(t, unlock)
	assert.ErrorContains(t, err, "symbolic link")
	assert.NoFileExists(t, victim, "the link's target is not created")
}

// TestSharedLocksLinkTarget: a save to a store reached through a symbolic
// link takes the lock of the file it writes, the one a save naming the
// real path takes (it took a lock beside the link, so it did not wait for
// a save through the real path, and the later rename dropped the other's
// memories).
func TestSharedLocksLinkTarget(t *testing.T) {
	t.Parallel()
	target, link, viaLink := storeViaLink(t)
	unlock, err := lockFile(t.Context(), target+".lock", 0) // a save through the real path
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // give up at once on a held lock
	err = viaLink.SaveContext(ctx)
	unlock()
	require.ErrorIs(t, err, ErrLocked)
	assert.Equal(t, 1, viaLink.Unsaved(), "nothing written while the other save holds the lock")
	assert.Equal(t, []string{"first"}, texts(t, target))

	require.NoError(t, viaLink.Save())
	assert.ElementsMatch(t, []string{"first", "second"}, texts(t, target))
	assert.NoFileExists(t, link+".lock", "no lock beside the link")
}
