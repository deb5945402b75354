package symlink

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta/internal/testkit/ci"
)

// TestMakeNoLink: a link reported made but not made (Wine 8.0 makes
// nothing; here a regular file stands in) stops the test: skipped
// outside CI, failed in CI.
func TestMakeNoLink(t *testing.T) {
	dir := t.TempDir()
	wine := func(_, newname string) error { return os.WriteFile(newname, nil, 0o600) }
	for _, tc := range []struct {
		ci   string
		fail bool
	}{{"", false}, {"true", true}} {
		t.Setenv("CI", tc.ci)
		link := filepath.Join(dir, "link-ci"+tc.ci)
		var f ci.Recorder
		makeWith(&f, wine, "target", link)
		want := fmt.Sprintf("os.Symlink(%q, %q) succeeded but made no symbolic link", "target", link)
		if tc.fail {
			assert.Contains(t, f.Fatal, "missing in CI: "+want)
			assert.Empty(t, f.Skip)
		} else {
			assert.Contains(t, f.Skip, want)
			assert.Empty(t, f.Fatal)
		}
	}
}

// TestMakeFails: a link that cannot be made fails the test, in CI or not
// (Wine 8.0 reports success even where newname exists, so the error is
// made here).
func TestMakeFails(t *testing.T) {
	t.Setenv("CI", "")
	var f ci.Recorder
	refuse := func(oldname, newname string) error {
		return &os.LinkError{Op: "symlink", Old: oldname, New: newname, Err: os.ErrExist}
	}
	makeWith(&f, refuse, "target", "link")
	assert.Equal(t, "symlink target link: file already exists", f.Fatal)
	assert.Empty(t, f.Skip)
}

func TestMake(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	require.NoError(t, os.WriteFile(target, []byte("x"), 0o600))
	link := filepath.Join(dir, "link")
	Make(t, "target", link)
	info, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, info.Mode()&os.ModeSymlink, "a link")
	got, err := os.ReadFile(link)
	require.NoError(t, err)
	assert.Equal(t, "x", string(got), "to the target")
}
