package main

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestArgumentsNeverEchoed: a command-line error names the flag and what is
// wrong but never repeats an argument or a flag's value, which may be a
// PostgreSQL URL or a piece of one: a password with a space split the
// --store URL, and the hook printed the rest ("unexpected argument
// \"SECRET@127.0.0.1:1/mem\""), as it printed a URL given to the wrong
// flag; Claude Code shows that line and keeps it in the transcript.
func TestArgumentsNeverEchoed(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"password with a space", []string{"--store", "postgres://agent:pa", "SECRET@127.0.0.1:1/mem"},
			"unexpected argument after the flags (1 in all; not repeated here: it may hold a password; the hook input is read from stdin)"},
		{"flag before the URL", []string{"--store", "--distill", "postgres://agent:SECRET@db/mem", "x"},
			"unexpected argument after the flags (2 in all; not repeated here: it may hold a password; the hook input is read from stdin)"},
		{"URL given to --timeout", []string{"--timeout", "postgres://agent:SECRET@db/mem"},
			"invalid value for flag -timeout (not repeated here: it may hold a password): parse error"},
		{"URL given to --distill=", []string{"--distill=postgres://agent:SECRET@db/mem"},
			"invalid boolean value for flag -distill (not repeated here: it may hold a password): parse error"},
		{"bad syntax", []string{"-=SECRET"}, "bad flag syntax (not repeated here: it may hold a password)"},
		{"unknown flag", []string{"--stor", "postgres://agent:SECRET@db/mem"}, "flag provided but not defined: -stor"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseFlags(tt.args, io.Discard)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			assert.NotContains(t, err.Error(), "SECRET")
		})
	}
}
