package chitta_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/internal/testkit/symlink"
)

// TestSaveFileThroughSymlink: a store path that is a symbolic link keeps
// being a link, and the file it points to gets the new contents (a rename
// over the link replaced it with a regular file before).
func TestSaveFileThroughSymlink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	real := filepath.Join(dir, "data", "real.chitta")
	require.NoError(t, os.MkdirAll(filepath.Dir(real), 0o700))
	require.NoError(t, richStore(t, 2, 6).SaveFile(real))
	link := filepath.Join(dir, "link.chitta")
	symlink.Make(t, filepath.Join("data", "real.chitta"), link)
	chain := filepath.Join(dir, "chain.chitta")
	symlink.Make(t, "link.chitta", chain)

	require.NoError(t, richStore(t, 5, 6).SaveFile(chain))
	for _, p := range []string{link, chain} {
		info, err := os.Lstat(p)
		require.NoError(t, err)
		assert.NotZero(t, info.Mode()&os.ModeSymlink, "%s is still a link", p)
	}
	s, err := chitta.LoadHNSWStore(real)
	require.NoError(t, err)
	assert.Equal(t, 5, s.Len(), "the target was written")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 3, "no temporary file left beside the link")
}

// TestSaveFileDanglingSymlink: a link to nothing is an error naming the
// link and its target, and the link is left alone.
func TestSaveFileDanglingSymlink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	link := filepath.Join(dir, "m.chitta")
	symlink.Make(t, filepath.Join(dir, "gone", "m.chitta"), link)
	err := richStore(t, 1, 6).SaveFile(link)
	require.Error(t, err)
	assert.ErrorContains(t, err, link)
	assert.ErrorContains(t, err, filepath.Join(dir, "gone", "m.chitta"))
	info, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, info.Mode()&os.ModeSymlink)
}

// TestRemoveStaleTempFiles leaves a store's directory with what killed
// saves leave behind, next to look-alikes that must survive.
func TestRemoveStaleTempFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	store := filepath.Join(dir, "m.chitta")
	require.NoError(t, richStore(t, 1, 6).SaveFile(store))
	old := time.Now().Add(-time.Hour)
	write := func(name string, stale bool) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte("partial"), 0o600))
		if stale {
			require.NoError(t, os.Chtimes(p, old, old))
		}
		return p
	}
	gone := []string{write(".m.chitta.tmp-123456", true), write(".m.chitta.tmp-9", true)}
	kept := []string{
		write(".m.chitta.tmp-777", false),     // a save in progress
		write(".m.chitta.tmp-1.tmp-99", true), // another store's (m.chitta.tmp-1)
		write(".m.chitta.bak.tmp-5", true),    // another store's (m.chitta.bak)
		write(".m.chitta.tmp-12x", true),      // not what CreateTemp makes
		write("m.chitta.tmp-5", true),         // no leading dot
		write(".other.chitta.tmp-5", true),    // another store's
		write(".m.chitta.tmp-", true),         // no digits
	}
	sub := filepath.Join(dir, ".m.chitta.tmp-55")
	require.NoError(t, os.Mkdir(sub, 0o700))
	require.NoError(t, os.Chtimes(sub, old, old))
	kept = append(kept, sub, store)

	n, err := chitta.RemoveStaleTempFiles(store, 0)
	require.NoError(t, err)
	assert.Equal(t, len(gone), n)
	for _, p := range gone {
		assert.NoFileExists(t, p)
	}
	for _, p := range kept {
		_, err := os.Lstat(p)
		assert.NoError(t, err, "%s kept", p)
	}
	n, err = chitta.RemoveStaleTempFiles(filepath.Join(dir, "missing", "m.chitta"), 0)
	require.NoError(t, err, "a missing directory has nothing to clean")
	assert.Zero(t, n)
}

// TestRemoveStaleTempFilesKeepsLinks: a symbolic link named like a
// temporary file is kept (only regular files are removed). Apart from
// TestRemoveStaleTempFiles, which runs where links cannot be made (Wine).
func TestRemoveStaleTempFilesKeepsLinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	store := filepath.Join(dir, "m.chitta")
	require.NoError(t, richStore(t, 1, 6).SaveFile(store))
	stale := filepath.Join(dir, ".m.chitta.tmp-9")
	require.NoError(t, os.WriteFile(stale, []byte("partial"), 0o600))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(stale, old, old))
	lnk := filepath.Join(dir, ".m.chitta.tmp-66")
	symlink.Make(t, store, lnk)

	n, err := chitta.RemoveStaleTempFiles(store, 0)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.NoFileExists(t, stale)
	info, err := os.Lstat(lnk)
	require.NoError(t, err, "%s kept", lnk)
	assert.NotZero(t, info.Mode()&os.ModeSymlink)
	assert.FileExists(t, store)
}

// TestSaveFileLongName saves to files whose names are valid but too long
// to take the temporary file's "." and ".tmp-" and digits as well (the
// limit is 255 bytes on common file systems): SaveFile failed with "file
// name too long" for any name over about 238 bytes. The temporary file's
// name keeps a prefix of the base cut at a rune boundary, and
// RemoveStaleTempFiles finds what a killed save of it leaves.
func TestSaveFileLongName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, base := range []string{strings.Repeat("n", 255), strings.Repeat("é", 127), strings.Repeat("a", 238) + "日本語"} {
		path := filepath.Join(dir, base)
		s := richStore(t, 3, 4)
		require.NoError(t, s.SaveFile(path), "first save (%d bytes)", len(base))
		require.NoError(t, s.SaveFile(path), "a save over the file (%d bytes)", len(base))
		got, err := chitta.LoadHNSWStore(path)
		require.NoError(t, err)
		assert.Equal(t, 3, got.Len())
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 3, "no temporary file left")

	// A killed save's temporary file, named as SaveFile names it, is found.
	base := strings.Repeat("n", 255)
	path := filepath.Join(dir, base)
	stale := filepath.Join(dir, "."+base[:239]+".tmp-123")
	require.NoError(t, os.WriteFile(stale, []byte("partial"), 0o600))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(stale, old, old))
	n, err := chitta.RemoveStaleTempFiles(path, 0)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.NoFileExists(t, stale)
	assert.FileExists(t, path)
}
