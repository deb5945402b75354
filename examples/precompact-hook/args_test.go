package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestArgumentsNeverEchoed: a command-line error names the flag and what is
// wrong but never repeats an argument or a flag's value (flagsafe words
// them; its own test covers each form), which may be a PostgreSQL URL or a
// piece of one: a password with a space split the --store URL, and the
// hook printed the rest ("unexpected argument \"SECRET@127.0.0.1:1/mem\""),
// as it printed a URL given to the wrong flag; Claude Code shows that line
// and keeps it in the transcript.
func TestArgumentsNeverEchoed(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"password with a space":   {"--store", "postgres://agent:pa", "SECRET@127.0.0.1:1/mem"},
		"flag before the URL":     {"--store", "--distill", "postgres://agent:SECRET@db/mem", "x"},
		"URL given to --timeout":  {"--timeout", "postgres://agent:SECRET@db/mem"},
		"URL given to --distill=": {"--distill=postgres://agent:SECRET@db/mem"},
		"bad syntax":              {"-=SECRET"},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var stderr bytes.Buffer
			_, err := parseFlags(args, &stderr)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "not repeated here")
			assert.NotContains(t, err.Error(), "SECRET")
			assert.Empty(t, stderr.String(), "the error is the hook's one line")
		})
	}
	_, err := parseFlags([]string{"--store", "postgres://agent:pa", "SECRET@127.0.0.1:1/mem"}, &bytes.Buffer{})
	assert.EqualError(t, err, "unexpected argument after the flags (1 in all; not repeated here: it may hold a password; the hook input is read from stdin)")
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
		{[]string{"--brief-tokens", "lots"}, "flag -brief-tokens (not repeated here: it may hold a password): parse error: want an integer"},
		{[]string{"--lexical=high"}, "flag -lexical (not repeated here: it may hold a password): parse error: want a number"},
		{[]string{"--distill=maybe"}, "flag -distill (not repeated here: it may hold a password): parse error: want true or false"},
	} {
		t.Run(tt.args[0], func(t *testing.T) {
			t.Parallel()
			_, err := parseFlags(tt.args, &bytes.Buffer{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
