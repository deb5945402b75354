// Package exitcodetest checks an example program's handling of -h and of an
// unknown flag, for the programs' tests.
package exitcodetest

import (
	"bytes"
	"flag"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/chitta-go/chitta/examples/internal/exitcode"
)

// Help checks that run (the program's run with only its arguments given)
// makes -h exit status 0 and an unknown flag 1, with nothing printed by
// [exitcode.Of] after what the flag package printed (reported is the
// program's flag-error sentinel).
func Help(t testing.TB, prog string, run func(args ...string) error, reported error) {
	t.Helper()
	var printed bytes.Buffer
	err := run("-h")
	assert.ErrorIs(t, err, flag.ErrHelp)
	assert.Equal(t, 0, exitcode.Of(prog, err, reported, &printed))
	assert.Equal(t, 1, exitcode.Of(prog, run("-bogus"), reported, &printed))
	assert.Empty(t, printed.String(), "the flag package has printed the error and the usage")
}
