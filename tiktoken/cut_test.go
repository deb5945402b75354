package tiktoken

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cutText returns a random text of whitespace-heavy parts, with letters,
// marks, digits, punctuation, contractions and invalid UTF-8 among them.
func cutText(r *rand.Rand, n int) string {
	return joinRandom(r, n, " ", "  ", "\n", "\r", "\r\n", "\t", "\v", "\f", "\u0085", "\u00a0", "\u2028", "\u3000",
		"a", "Ab", "A", "\u0301", "1", "123", "!", "/", "'s", "'S", ".", "日本", "\xff", "\xe2\x82", "<|endoftext|>")
}

// joinRandom returns n of parts, drawn at random, joined.
func joinRandom(r *rand.Rand, n int, parts ...string) string {
	var b strings.Builder
	for range n {
		b.WriteString(parts[r.IntN(len(parts))])
	}
	return b.String()
}

// TestSafeCutAddsUp: at every place safeCut accepts, the encoder's counts
// of the two sides add up to its count of the whole text, and CountTokens
// (which cuts a long text) counts what tiktoken counts.
func TestSafeCutAddsUp(t *testing.T) {
	t.Parallel()
	for _, enc := range []string{O200kBase, Cl100kBase} {
		c, ref := refFor(t, enc)
		lib := c.enc.codec
		cuts := 0
		for seed := range uint64(300) {
			r := rand.New(rand.NewPCG(seed, 19))
			s := cutText(r, 1+r.IntN(120))
			whole, err := lib.Count(s)
			require.NoError(t, err)
			for i := range len(s) {
				if !safeCut(s, i) {
					continue
				}
				cuts++
				left, err := lib.Count(s[:i])
				require.NoError(t, err)
				right, err := lib.Count(s[i:])
				require.NoError(t, err)
				require.Equal(t, whole, left+right, "%s seed %d: %q cut at %d", enc, seed, s, i)
			}
			long := strings.Repeat(s, 1+2*minChunk/len(s))
			assert.Equal(t, ref.count(t, long), c.CountTokens(long), "%s seed %d", enc, seed)
		}
		assert.Greater(t, cuts, 500, enc)
	}
}

func FuzzSafeCut(f *testing.F) {
	f.Add("a \n b", 3)
	f.Add("!!\n\u00a0y", 3)
	f.Add("x\r  \n\t\n/", 2)
	c, err := New(O200kBase)
	require.NoError(f, err)
	lib := c.enc.codec
	f.Fuzz(func(t *testing.T, s string, i int) {
		if len(s) > 4096 || !safeCut(s, i) { // the encoder is quadratic in long runs
			return
		}
		whole, err := lib.Count(s)
		require.NoError(t, err)
		left, err := lib.Count(s[:i])
		require.NoError(t, err)
		right, err := lib.Count(s[i:])
		require.NoError(t, err)
		assert.Equal(t, whole, left+right, "%q cut at %d", s, i)
	})
}
