package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestArgumentsNeverEchoed: a command-line error never repeats an argument
// or a flag's value, on stderr or in the error (flagsafe words them): the
// server's command line is in the MCP client's settings, and a password
// with a space split the --store URL ("unexpected argument \"SECRET@…\""),
// while the flag package printed a URL given to the wrong flag, with the
// usage after it.
func TestArgumentsNeverEchoed(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"password with a space":  {"--store", "postgres://agent:pa", "SECRET@127.0.0.1:1/mem"},
		"URL given to --timeout": {"--timeout", "postgres://agent:SECRET@db/mem"},
		"URL given to --mode":    {"--mode", "postgres://agent:SECRET@db/mem"},
		"bad syntax":             {"-=SECRET"},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var stderr bytes.Buffer
			_, err := parseFlags(args, &stderr)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "not repeated here")
			assert.NotContains(t, err.Error(), "SECRET")
			assert.Empty(t, stderr.String(), "the error is main's one line")
		})
	}
}
