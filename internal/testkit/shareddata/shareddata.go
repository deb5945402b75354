// Package shareddata finds the third-party evaluation data that lives
// outside the repository, in a shared/data directory next to (or above) the
// checkout: ../shared/data from the repository root in development, a
// shared/ copy beside the clone in CI. Tests that use it skip when it is
// absent, and fail in CI (see package ci).
package shareddata

import (
	"os"
	"path/filepath"

	"github.com/chitta-go/chitta/internal/testkit/ci"
)

// Dir returns the path of shared/data/name (shared/data itself for name
// "") in the nearest directory at or above the working directory that has
// one, and whether it was found.
func Dir(name string) (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	return find(dir, name)
}

func find(dir, name string) (string, bool) {
	for {
		p := filepath.Join(dir, "shared", "data", name)
		if info, err := os.Stat(p); err == nil && info.IsDir() {
			return p, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// ForTest returns [Dir](name) for a test that needs the data: when it is
// absent the test fails in CI (where the data sits beside the clone) and is
// skipped elsewhere.
func ForTest(t ci.TB, name string) string {
	t.Helper()
	dir, ok := Dir(name)
	if !ok {
		ci.Need(t, "%s not found above the working directory", filepath.Join("shared", "data", name))
	}
	return dir
}
