package chitta

import (
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// refCountWords is the obvious definition CountWords must agree with.
func refCountWords(text string) int {
	words, in := 0, false
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		i += n
		if r != utf8.RuneError && unicode.IsSpace(r) {
			in = false
		} else if !in {
			in = true
			words++
		}
	}
	return words
}

func FuzzCountWords(f *testing.F) {
	for _, s := range []string{"", " ", "a", " a b  c ", "héllo\u00a0wörld", "\xff \xfe", "x\u2003y\u3000z", "\t\n\v\f\r", "\uFFFD \uFFFD"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		assert.Equal(t, refCountWords(s), CountWords(s), "%q", s)
	})
}

func TestCountWordsMatchesReference(t *testing.T) {
	t.Parallel()
	for _, s := range synthTurns(9, 50) {
		assert.Equal(t, refCountWords(s), CountWords(s))
	}
}
