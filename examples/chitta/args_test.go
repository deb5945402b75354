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

// TestFlagValueSaysWhatItTakes: a value the flag package cannot parse is
// refused with what the flag takes, not the flag package's bare "parse
// error" (which named neither a format nor a range).
func TestFlagValueSaysWhatItTakes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--timeout", "abc"}, "flag -timeout (not repeated here: it may hold a password): parse error: want a duration such as 30s or 1m30s"},
		{[]string{"--store-timeout=1e9h"}, "flag -store-timeout (not repeated here: it may hold a password): parse error: want a duration such as 30s or 1m30s"},
		{[]string{"--verbose=maybe"}, "flag -verbose (not repeated here: it may hold a password): parse error: want true or false"},
	} {
		t.Run(tt.args[0], func(t *testing.T) {
			t.Parallel()
			_, err := parseFlags(tt.args, &bytes.Buffer{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
