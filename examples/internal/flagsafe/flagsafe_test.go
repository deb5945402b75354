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
		{"URL given to a duration", []string{"--timeout", "postgres://agent:SECRET@db/mem"},
			"invalid value for flag -timeout (not repeated here: it may hold a password): parse error"},
		{"URL given to a bool", []string{"--distill=postgres://agent:SECRET@db/mem"},
			"invalid boolean value for flag -distill (not repeated here: it may hold a password): parse error"},
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
			err := flagsafe.WithoutValue(fs.Parse(tt.args))
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			assert.NotContains(t, err.Error(), "SECRET")
		})
	}
	require.NoError(t, flagsafe.WithoutValue(nil))
	other := errors.New("other")
	assert.Same(t, other, flagsafe.WithoutValue(other))
}

func TestUnexpected(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "unexpected argument after the flags (2 in all; not repeated here: it may hold a password; read from stdin)",
		flagsafe.Unexpected(2, "read from stdin").Error())
}
