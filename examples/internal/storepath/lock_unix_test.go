//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package storepath

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLockFileExcludes(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := lockFile(path)
	require.NoError(t, err)
	acquired := make(chan struct{})
	go func() {
		unlock2, err := lockFile(path) // flock locks are per open file
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
