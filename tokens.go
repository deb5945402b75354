package chitta

import (
	"unicode"
	"unicode/utf8"
)

// TokenCounter counts the tokens of a message's [Message.Content]. Plug in
// an exact tokenizer through [Options.Tokens]; the default is
// [EstimateTokens]. Implementations must be safe for concurrent use and must
// not return a negative count.
type TokenCounter interface {
	CountTokens(text string) int
}

// TokenCounterFunc adapts a function to [TokenCounter].
type TokenCounterFunc func(text string) int

// CountTokens returns f(text).
func (f TokenCounterFunc) CountTokens(text string) int { return f(text) }

// EstimateTokens returns floor(words × 1.3), where a word is a maximal run of
// non-whitespace (Unicode white space). It is the spec's estimate, cheap and
// deterministic; invalid UTF-8 bytes count as word characters.
func EstimateTokens(text string) int {
	return CountWords(text) * 13 / 10
}

// CountWords returns the number of maximal runs of non-whitespace in text.
func CountWords(text string) int {
	words := 0
	in := false
	for i := 0; i < len(text); {
		c := text[i]
		var space bool
		if c < utf8.RuneSelf {
			space = asciiSpace[c]
			i++
		} else {
			r, n := utf8.DecodeRuneInString(text[i:])
			space = r != utf8.RuneError && unicode.IsSpace(r)
			i += n
		}
		if space {
			in = false
		} else if !in {
			in = true
			words++
		}
	}
	return words
}

var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}
