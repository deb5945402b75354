package tiktoken

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDELReadsAsUnitSeparator: CountTokens counts U+007F as U+001F, which
// OpenAI's expressions class alike (a control character: neither white
// space, letter, digit nor line break), and which, like U+007F, no token
// of more than one byte holds, so that neither ever merges with a
// neighbour: the pieces split at the same places and count alike.
func TestDELReadsAsUnitSeparator(t *testing.T) {
	t.Parallel()
	for _, enc := range []string{O200kBase, Cl100kBase} {
		_, ref := refFor(t, enc)
		for tok := range ref.ranks {
			if len(tok) > 1 {
				require.NotContains(t, tok, "\x7f", enc)
				require.NotContains(t, tok, "\x1f", enc)
			}
		}
		for seed := range uint64(300) {
			r := rand.New(rand.NewPCG(seed, 17))
			s := joinRandom(r, 1+r.IntN(60), "\x7f", "\x7f", "a", "B", "1", "!", " ", "\n", "\u0301", "'s", "/", "\t")
			sub := strings.ReplaceAll(s, "\x7f", "\x1f")
			require.Equal(t, ref.count(t, s), ref.count(t, sub), "%s %q", enc, s)
			var lens, subLens []int
			for _, p := range ref.pieces(t, s) {
				lens = append(lens, len(p))
			}
			for _, p := range ref.pieces(t, sub) {
				subLens = append(subLens, len(p))
			}
			require.Equal(t, lens, subLens, "%s %q", enc, s)
		}
	}
}
