package tiktoken_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta/tiktoken"
)

// TestCountTokensLongWhitespaceRuns: a run of white space that mixes line
// breaks with other white space (blank lines holding a space, as editors
// leave them) costs time linear in its length. The encoder's split
// expression rescans the rest of such a run for every piece it returns, so
// on main a run of 1 MiB (" \n" repeated) took about 8 minutes, and this
// test did not finish within a 60 s -timeout. Each " \n" is one token, and
// the encoder ends a piece after each line break, so the count
// of k units is k times the count of one.
func TestCountTokensLongWhitespaceRuns(t *testing.T) {
	t.Parallel()
	const k = 1 << 18
	for _, enc := range []string{tiktoken.O200kBase, tiktoken.Cl100kBase} {
		c, err := tiktoken.New(enc)
		require.NoError(t, err)
		for _, unit := range []string{" \n", "\t\n", "  \r\n", "\u00a0\n", "\u3000\n"} {
			want := k*c.CountTokens(unit) + c.CountTokens("x")
			assert.Equal(t, want, c.CountTokens(strings.Repeat(unit, k)+"x"), "%s %q", enc, unit)
		}
	}
}
