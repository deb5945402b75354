//go:build unix

package claudecode_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta/examples/internal/claudecode"
)

// TestReadFileHostilePaths: a FIFO, devices and a directory are refused
// at once, without reading (a FIFO with no writer used to block in open
// forever, /dev/zero to run the process out of memory).
func TestReadFileHostilePaths(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "session.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	link := filepath.Join(t.TempDir(), "link.jsonl")
	require.NoError(t, os.Symlink("/dev/zero", link))
	tests := []struct{ name, path, what string }{
		{"fifo without a writer", fifo, "FIFO"},
		{"/dev/zero", "/dev/zero", "device"},
		{"/dev/urandom", "/dev/urandom", "device"},
		{"symlink to a device", link, "device"},
		{"directory", t.TempDir(), "directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			_, err := claudecode.ReadFileContext(t.Context(), tt.path, nil)
			require.ErrorIs(t, err, claudecode.ErrNotRegular)
			assert.Contains(t, err.Error(), tt.what)
			assert.Less(t, time.Since(start), 2*time.Second)
		})
	}
}
