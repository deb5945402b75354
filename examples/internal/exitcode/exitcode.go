// Package exitcode maps an example program's error to its exit status, the
// same way in every program: 0 on success and for -h (the flag package has
// printed the usage), 1 otherwise.
package exitcode

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// Of returns the exit status of the program prog whose run returned err.
// For err nil or wrapping [flag.ErrHelp] it is 0 and writes nothing. For an
// error wrapping reported (the program's sentinel for a flag error the flag
// package has already printed with the usage; nil for none) it is 1 and
// writes nothing more. Any other error is 1 with "prog: err" on stderr.
func Of(prog string, err, reported error, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case reported != nil && errors.Is(err, reported):
		return 1
	}
	fmt.Fprintf(stderr, "%s: %v\n", prog, err)
	return 1
}
