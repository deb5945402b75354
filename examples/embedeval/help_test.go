package main

import (
	"io"
	"testing"

	"github.com/chitta-go/chitta/examples/internal/exitcode/exitcodetest"
)

func TestHelpExitsZero(t *testing.T) {
	exitcodetest.Help(t, "embedeval", func(args ...string) error {
		return run(t.Context(), args, io.Discard)
	}, errUsage)
}
