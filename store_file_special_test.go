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

// TestSaveFileKeepsPermissions: saving over an existing store keeps the
// mode its owner chose (the replacement was created at 0600 before, so a
// group-readable 0640 store became 0600 on every save), and a new store
// is created at 0600 whatever the umask.
func TestSaveFileKeepsPermissions(t *testing.T) {
	t.Parallel()
	for _, mode := range []os.FileMode{0o640, 0o644, 0o400, 0o600, 0o660} {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "m.chitta")
			require.NoError(t, richStore(t, 1, 6).SaveFile(path))
			info, err := os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "a new store")
			require.NoError(t, os.Chmod(path, mode))

			require.NoError(t, richStore(t, 3, 6).SaveFile(path))
			info, err = os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, mode, info.Mode().Perm())
			s, err := chitta.LoadHNSWStore(path)
			require.NoError(t, err)
			assert.Equal(t, 3, s.Len())
		})
	}
}

// TestSaveFileHardLink shows the documented effect of the rename: a hard
// link to the store keeps the old contents and stops being the store.
func TestSaveFileHardLink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "m.chitta")
	require.NoError(t, richStore(t, 1, 6).SaveFile(path))
	hard := filepath.Join(dir, "hard.chitta")
	require.NoError(t, os.Link(path, hard))

	require.NoError(t, richStore(t, 4, 6).SaveFile(path))
	s, err := chitta.LoadHNSWStore(path)
	require.NoError(t, err)
	assert.Equal(t, 4, s.Len())
	old, err := chitta.LoadHNSWStore(hard)
	require.NoError(t, err)
	assert.Equal(t, 1, old.Len(), "the hard link keeps the old file")
}
