package tiktoken

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCountTokensLongWhitespaceRuns: a run of white space that mixes line
// breaks with other white space (blank lines holding a space, as editors
// leave them) costs time linear in its length, and counts as tiktoken
// counts it: one piece, up to its last line break. The encoder's split
// expression rescans the rest of such a run for every piece it returns, so
// a run of 1 MiB (" \n" repeated) once took about 8 minutes, and this test
// did not finish within a 60 s -timeout.
func TestCountTokensLongWhitespaceRuns(t *testing.T) {
	t.Parallel()
	const k = 1 << 18
	for _, enc := range []string{O200kBase, Cl100kBase} {
		c, ref := refFor(t, enc)
		for _, unit := range []string{" \n", "\t\n", "  \r\n", "\u00a0\n", "\u3000\n"} {
			text := strings.Repeat(unit, k) + "x"
			assert.Equal(t, ref.count(t, text), c.CountTokens(text), "%s %q", enc, unit)
		}
	}
}
