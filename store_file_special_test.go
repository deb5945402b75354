//go:build unix

package chitta_test

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// fifoAndLink makes a named pipe and a symbolic link to it in a new
// directory.
func fifoAndLink(t *testing.T) (dir, fifo, link string) {
	t.Helper()
	dir = t.TempDir()
	fifo = filepath.Join(dir, "pipe.chitta")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	link = filepath.Join(dir, "link.chitta")
	require.NoError(t, os.Symlink("pipe.chitta", link))
	return dir, fifo, link
}

// TestLoadHNSWStoreRefusesSpecialFiles: a store path that names a named
// pipe (FIFO), a directory or a device is refused at once with
// ErrNotRegularFile; opening a FIFO for reading used to block until a
// writer came, forever in a hook or server.
func TestLoadHNSWStoreRefusesSpecialFiles(t *testing.T) {
	t.Parallel()
	dir, fifo, link := fifoAndLink(t)
	tests := []struct{ name, path, kind string }{
		{"named pipe", fifo, "named pipe"},
		{"link to a named pipe", link, "named pipe"},
		{"directory", dir, "directory"},
		{"device", "/dev/null", "device"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			done := make(chan error, 1)
			go func() {
				_, err := chitta.LoadHNSWStore(tt.path)
				done <- err
			}()
			select {
			case err := <-done:
				require.ErrorIs(t, err, chitta.ErrNotRegularFile)
				assert.ErrorContains(t, err, tt.path)
				assert.ErrorContains(t, err, tt.kind)
			case <-time.After(10 * time.Second):
				t.Fatal("LoadHNSWStore blocked on a special file")
			}
		})
	}
}

// TestSaveFileRefusesSpecialFiles: SaveFile refuses a path that names a
// named pipe, a directory or a device (directly or through a link) and
// leaves it as it is; its rename replaced a FIFO with a regular file (and,
// run as root, a device such as /dev/null: not tried here, for that reason).
func TestSaveFileRefusesSpecialFiles(t *testing.T) {
	t.Parallel()
	dir, fifo, link := fifoAndLink(t)
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o700))
	sock := filepath.Join(dir, "sock.chitta")
	l, err := net.Listen("unix", sock)
	require.NoError(t, err)
	defer l.Close()
	s, err := chitta.NewHNSWStore(4, nil)
	require.NoError(t, err)
	require.NoError(t, s.Add(t.Context(), chitta.Memory{ID: "a", Text: "a", Vector: []float32{1, 0, 0, 0}}))
	tests := []struct{ name, path, target, kind string }{
		{"named pipe", fifo, fifo, "named pipe"},
		{"link to a named pipe", link, fifo, "named pipe"},
		{"directory", sub, sub, "directory"},
		{"socket", sock, sock, "socket"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, err := os.Stat(tt.target)
			require.NoError(t, err)
			err = s.SaveFile(tt.path)
			require.ErrorIs(t, err, chitta.ErrNotRegularFile)
			assert.ErrorContains(t, err, tt.kind)
			after, err := os.Stat(tt.target)
			require.NoError(t, err)
			assert.Equal(t, before.Mode(), after.Mode(), "left as it was")
			assert.True(t, os.SameFile(before, after), "not replaced")
		})
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 4, "no temporary file left")
}
