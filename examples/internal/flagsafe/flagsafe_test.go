package flagsafe_test

import (
	"errors"
	"flag"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta/examples/internal/flagsafe"
)

func TestWithoutValue(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		// "parse error" alone does not say what the flag takes: the
		// error adds it, from the flag's type.
		{"URL given to a duration", []string{"--timeout", "postgres://agent:SECRET@db/mem"},
			"invalid value for flag -timeout (not repeated here: it may hold a password): parse error: want a duration such as 30s or 1m30s"},
		{"URL given to a bool", []string{"--distill=postgres://agent:SECRET@db/mem"},
			"invalid boolean value for flag -distill (not repeated here: it may hold a password): parse error: want true or false"},
		{"word given to an int", []string{"--limit", "SECRET"},
			"invalid value for flag -limit (not repeated here: it may hold a password): parse error: want an integer"},
		{"int out of range", []string{"--limit", "99999999999999999999999"},
			"invalid value for flag -limit (not repeated here: it may hold a password): value out of range: want an integer"},
		{"word given to a float", []string{"--ratio=SECRET"},
			"invalid value for flag -ratio (not repeated here: it may hold a password): parse error: want a number"},
		{"bad syntax", []string{"-=SECRET"}, "bad flag syntax (not repeated here: it may hold a password)"},
		{"unknown flag", []string{"--stor", "postgres://agent:SECRET@db/mem"}, "flag provided but not defined: -stor"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			fs.Duration("timeout", time.Second, "")
			fs.Bool("distill", false, "")
			fs.String("store", "", "")
			fs.Int("limit", 1, "")
			fs.Float64("ratio", 0, "")
			err := flagsafe.WithoutValue(fs, fs.Parse(tt.args))
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			assert.NotContains(t, err.Error(), "SECRET")
		})
	}
	require.NoError(t, flagsafe.WithoutValue(nil, nil))
	other := errors.New("other")
	assert.Same(t, other, flagsafe.WithoutValue(nil, other))
	// Without the flag set, the reason stays as the flag package gave it.
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Duration("timeout", time.Second, "")
	assert.Equal(t, "invalid value for flag -timeout (not repeated here: it may hold a password): parse error",
		flagsafe.WithoutValue(nil, fs.Parse([]string{"--timeout=x"})).Error())
}

func TestUnexpected(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "unexpected argument after the flags (2 in all; not repeated here: it may hold a password; read from stdin)",
		flagsafe.Unexpected(2, "read from stdin").Error())
}
