// Package clipmsg bounds messages that may quote input (an error naming a
// value a client or a hook input sent), so that a huge value — a
// conversation pasted into the wrong field, or a secret — is neither sent
// back nor logged whole. The chitta MCP server and the precompact hook
// share it.
package clipmsg

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Max is the bound the harness programs put on an error message or a
// stderr line, in bytes.
const Max = 1024

// Cut returns s when it is at most max bytes long; else s cut at a
// character boundary and followed by "… (N bytes cut)", at most max bytes
// in all (just the "… (N bytes cut)" when max is smaller than that). It is
// safe for concurrent use and keeps no reference to s beyond the result.
func Cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	// The count is at most len(s): reserve its digits.
	n := max - len("… ( bytes cut)") - len(strconv.Itoa(len(s)))
	if n < 0 {
		n = 0
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return fmt.Sprintf("%s… (%d bytes cut)", s[:n], len(s)-n)
}
