package exitcode_test

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/chitta-go/chitta/examples/internal/exitcode"
)

func TestOf(t *testing.T) {
	usage := errors.New("usage")
	for _, tc := range []struct {
		name   string
		err    error
		status int
		stderr string
	}{
		{"success", nil, 0, ""},
		{"help", flag.ErrHelp, 0, ""},
		{"wrapped help", fmt.Errorf("parse: %w", flag.ErrHelp), 0, ""},
		{"reported flag error", fmt.Errorf("%w: -x", usage), 1, ""},
		{"other error", errors.New("open x: no such file"), 1, "prog: open x: no such file\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr strings.Builder
			assert.Equal(t, tc.status, exitcode.Of("prog", tc.err, usage, &stderr))
			assert.Equal(t, tc.stderr, stderr.String())
		})
	}
	var stderr strings.Builder
	assert.Equal(t, 1, exitcode.Of("prog", usage, nil, &stderr), "no sentinel: every error is printed")
	assert.Equal(t, "prog: usage\n", stderr.String())
}
