// Package ci tells the project's tests whether they run in CI, where a
// missing prerequisite (a server, a tool, the shared data) is a failure
// rather than a skip: .ci/run sets CI=true and the test command installs
// and starts everything the tests need.
package ci

import (
	"fmt"
	"os"
)

// Enabled reports whether the CI environment variable is set to anything
// but "", "0" or "false" (CI=true in .ci/run; other CI systems set 1).
func Enabled() bool {
	switch os.Getenv("CI") {
	case "", "0", "false":
		return false
	}
	return true
}

// TB is the part of testing.TB that [Need] uses.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
}

// Need stops the test for a missing prerequisite: Fatalf in CI, with the
// message after "missing in CI: ", Skipf elsewhere.
func Need(tb TB, format string, args ...any) {
	tb.Helper()
	if Enabled() {
		tb.Fatalf("missing in CI: "+format, args...)
		return
	}
	tb.Skipf(format, args...)
}

// Recorder is a [TB] that records the message of its last Fatalf and
// Skipf, for the tests of helpers that call [Need].
type Recorder struct{ Fatal, Skip string }

// Helper does nothing.
func (*Recorder) Helper() {}

// Fatalf records the message in Fatal.
func (r *Recorder) Fatalf(format string, args ...any) { r.Fatal = fmt.Sprintf(format, args...) }

// Skipf records the message in Skip.
func (r *Recorder) Skipf(format string, args ...any) { r.Skip = fmt.Sprintf(format, args...) }
