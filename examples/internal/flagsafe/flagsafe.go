// Package flagsafe words the command-line errors of chitta's harness
// programs so that they never repeat an argument or a flag's value: the
// command line of an MCP server or a Claude Code hook lives in the client's
// settings and may carry a postgres:// URL with its password or an
// embedder URL with an API key, and the client shows the error line and
// keeps it in its logs or transcript. The flag's name and the reason stay.
package flagsafe

import (
	"fmt"
	"regexp"
	"strings"
)

// NotRepeated says why an error does not quote a command-line argument.
const NotRepeated = "not repeated here: it may hold a password"

// valueRE reads the flag package's errors that quote a flag's value.
var valueRE = regexp.MustCompile(`^invalid (boolean )?value ".*" for (?:flag )?-(\S+): (.*)$`)

// WithoutValue returns a flag.FlagSet.Parse error without the argument or
// value it quotes ("invalid value ... for flag -x", "bad flag syntax: ...");
// other errors (an unknown flag names only what was typed as a flag) are
// returned as they are. A nil err gives nil.
func WithoutValue(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if m := valueRE.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("invalid %svalue for flag -%s (%s): %s", m[1], m[2], NotRepeated, m[3])
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
