// Package symlink makes the symbolic links tests need, and stops a test
// (see package ci: it fails in CI, is skipped elsewhere) where the system
// reports a link made but made none: Wine 8.0's CreateSymbolicLinkW does
// that, so tests of links cannot run under Wine (scripts/test-wine.sh).
package symlink

import (
	"os"

	"github.com/chitta-go/chitta/internal/testkit/ci"
)

// Make makes newname a symbolic link to oldname. Where os.Symlink fails
// (Windows without the privilege to create links, or Developer Mode), the
// test fails; where it succeeds without making a link, the test stops
// with [ci.Need].
func Make(tb ci.TB, oldname, newname string) {
	tb.Helper()
	makeWith(tb, os.Symlink, oldname, newname)
}

// makeWith is [Make] with the link made by symlink.
func makeWith(tb ci.TB, symlink func(oldname, newname string) error, oldname, newname string) {
	tb.Helper()
	if err := symlink(oldname, newname); err != nil {
		tb.Fatalf("%v", err)
		return
	}
	if info, err := os.Lstat(newname); err != nil || info.Mode()&os.ModeSymlink == 0 {
		ci.Need(tb, "os.Symlink(%q, %q) succeeded but made no symbolic link (Lstat: %v, %v)", oldname, newname, info, err)
	}
}
