// Package flagsafe words the command-line errors of chitta's harness
// programs so that they never repeat an argument or a flag's value: the
// command line of an MCP server or a Claude Code hook lives in the client's
// settings and may carry a postgres:// URL with its password or an
// embedder URL with an API key, and the client shows the error line and
// keeps it in its logs or transcript. The flag's name and the reason stay.
package flagsafe

import (
	"flag"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// NotRepeated says why an error does not quote a command-line argument.
const NotRepeated = "not repeated here: it may hold a password"

// valueRE reads the flag package's errors that quote a flag's value.
var valueRE = regexp.MustCompile(`^invalid (boolean )?value ".*" for (?:flag )?-(\S+): (.*)$`)

// WithoutValue returns the error err of fs.Parse without the argument or
// value it quotes ("invalid value ... for flag -x", "bad flag syntax: ...");
// other errors (an unknown flag names only what was typed as a flag) are
// returned as they are. A nil err gives nil.
//
// For a flag of fs that is a duration, a boolean, an integer or a number,
// the error of an invalid value also says what the flag takes ("want a
// duration such as 30s or 1m30s"): the flag package's reason ("parse
// error") does not. A nil fs adds nothing.
func WithoutValue(fs *flag.FlagSet, err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if m := valueRE.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("invalid %svalue for flag -%s (%s): %s%s", m[1], m[2], NotRepeated, m[3], wants(fs, m[2]))
	}
	if strings.HasPrefix(msg, "bad flag syntax: ") {
		return fmt.Errorf("bad flag syntax (%s)", NotRepeated)
	}
	return err
}

// Unexpected is the error for n arguments left after the flags, which it
// counts but does not quote (a password with a space splits a URL there);
// hint says where the program's input comes from instead.
func Unexpected(n int, hint string) error {
	return fmt.Errorf("unexpected argument after the flags (%d in all; %s; %s)", n, NotRepeated, hint)
}

// wants returns ": want …" naming what the flag name of fs takes, or ""
// when fs is nil, has no such flag, or its type is not one of the flag
// package's durations, booleans, integers or numbers.
func wants(fs *flag.FlagSet, name string) string {
	if fs == nil {
		return ""
	}
	f := fs.Lookup(name)
	if f == nil {
		return ""
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return ""
	}
	switch g.Get().(type) {
	case time.Duration:
		return ": want a duration such as 30s or 1m30s"
	case bool:
		return ": want true or false"
	case int, int64, uint, uint64:
		return ": want an integer"
	case float64:
		return ": want a number"
	}
	return ""
}
