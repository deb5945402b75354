package storepath

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta/internal/testkit/symlink"
)

// TestOpenRefusesUnsavablePaths: paths the first save would fail on are
// refused at start, before any tool runs (a trailing slash was accepted
// and failed only at the first save).
func TestOpenRefusesUnsavablePaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o600))
	tests := []struct {
		name, path, msg string
		link            string // made a symbolic link to this first
	}{
		{name: "trailing slash, new directory", path: filepath.Join(dir, "newdir") + "/", msg: "names a directory"},
		{name: "trailing slash, existing directory", path: dir + "/", msg: "names a directory"},
		{name: "existing directory", path: dir, msg: "is a directory"},
		{name: "dangling symbolic link", path: filepath.Join(dir, "dangling.chitta"), msg: "which does not exist",
			link: filepath.Join(dir, "nowhere", "m.chitta")},
		{name: "under a file", path: filepath.Join(file, "m.chitta"), msg: "not a directory"},
		{name: "two levels under a file", path: filepath.Join(file, "sub", "m.chitta"), msg: file + ", is not a directory"},
		{name: "empty", path: "", msg: "names a directory"},
	}
	if runtime.GOOS == "linux" {
		tests = append(tests, struct{ name, path, msg, link string }{name: "device", path: "/dev/null", msg: "special file"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.link != "" {
				symlink.Make(t, tt.link, tt.path)
			}
			_, err := OpenShared(tt.path, 4)
			require.ErrorIs(t, err, ErrNotFile)
			assert.ErrorContains(t, err, tt.msg)
		})
	}
	_, err := os.Stat(filepath.Join(dir, "newdir"))
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing created")
}

// TestSharedSavesThroughSymlink: a store path that is a link stays one,
// and its target gets every save.
func TestSharedSavesThroughSymlink(t *testing.T) {
	t.Parallel()
	target, link, viaLink := storeViaLink(t)
	require.NoError(t, viaLink.Save())
	info, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, info.Mode()&os.ModeSymlink, "still a link")
	assert.ElementsMatch(t, []string{"first", "second"}, texts(t, target))
}

// storeViaLink saves a store holding the memory "first" to real.chitta in
// a new directory, and returns its path, that of link.chitta (a relative
// symbolic link to it) and the store opened through the link with the
// memory "second" added and not saved.
func storeViaLink(t *testing.T) (target, link string, viaLink *Shared) {
	t.Helper()
	dir := t.TempDir()
	target = filepath.Join(dir, "real.chitta")
	s, err := OpenShared(target, 4)
	require.NoError(t, err)
	require.NoError(t, s.Add(t.Context(), mem("first", 0)))
	require.NoError(t, s.Save())
	link = filepath.Join(dir, "link.chitta")
	symlink.Make(t, "real.chitta", link)
	viaLink, err = OpenShared(link, 4)
	require.NoError(t, err)
	require.NoError(t, viaLink.Add(t.Context(), mem("second", 1)))
	return target, link, viaLink
}

// TestSharedSaveErrorPrefix: a failed save says "save store" once (the
// chitta command printed "save store: save store: …").
func TestSharedSaveErrorPrefix(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "data"), 0o700))
	link := filepath.Join(dir, "m.chitta")
	symlink.Make(t, filepath.Join("data", "m.chitta"), link)
	s, err := OpenShared(filepath.Join(dir, "real.chitta"), 4)
	require.NoError(t, err)
	s.path = link // the link dangles now, as if its target was removed after start
	require.NoError(t, s.Add(t.Context(), mem("x", 0)))
	err = s.Save()
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "save store: "), err.Error())
	assert.Equal(t, 1, strings.Count(err.Error(), "save store"), err.Error())
	assert.ErrorContains(t, err, "symbolic link")
	assert.Equal(t, 1, s.Unsaved(), "the failed save's memory is still to be saved")
	s.path = filepath.Join(dir, "real.chitta")
	require.NoError(t, s.Save())
	assert.Zero(t, s.Unsaved())
}

// TestSharedRemovesStaleTemps: what killed saves left is removed when the
// store is opened and when it is saved, under the lock; a fresh temporary
// file (a save in progress elsewhere) is kept.
func TestSharedRemovesStaleTemps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	s, err := OpenShared(path, 4)
	require.NoError(t, err)
	require.NoError(t, s.Add(t.Context(), mem("x", 0)))
	require.NoError(t, s.Save())
	stale := func(name string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, make([]byte, 1024), 0o600))
		old := time.Now().Add(-time.Hour)
		require.NoError(t, os.Chtimes(p, old, old))
		return p
	}
	first := stale("." + FileName + ".tmp-1234")
	fresh := filepath.Join(dir, "."+FileName+".tmp-5678")
	require.NoError(t, os.WriteFile(fresh, nil, 0o600))
	s2, err := OpenShared(path, 4)
	require.NoError(t, err)
	assert.NoFileExists(t, first, "removed on open")
	assert.FileExists(t, fresh)

	second := stale("." + FileName + ".tmp-999")
	require.NoError(t, s2.Add(t.Context(), mem("y", 1)))
	require.NoError(t, s2.Save())
	assert.NoFileExists(t, second, "removed on save")
	assert.FileExists(t, fresh)
	assert.ElementsMatch(t, []string{"x", "y"}, texts(t, path))
}

// TestOpenInDirectoriesNotMadeYet: a store whose directories do not exist
// yet (the default per-project store, on first use) opens empty, and its
// first save makes them. On Windows a missing parent directory is reported
// as ERROR_PATH_NOT_FOUND, which is syscall.ENOTDIR there, and every such
// store was refused as "under a non-directory" (found under Wine).
func TestOpenInDirectoriesNotMadeYet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "projects", "p-1234", FileName)
	st, err := Open(path, 4)
	require.NoError(t, err)
	assert.Equal(t, 0, st.Len())
	s, err := OpenShared(path, 4)
	require.NoError(t, err)
	require.NoError(t, s.Add(t.Context(), mem("first", 0)))
	require.NoError(t, s.Save())
	assert.FileExists(t, path)
}
