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
	// Branch-free over ASCII: a word starts where a non-space follows a
	// space (or the start of text).
	words := 0
	prev := uint8(1) // 1 when the previous rune was white space
	for i := 0; i < len(text); {
		c := text[i]
		var space uint8
		if c < utf8.RuneSelf {
			space = asciiSpace[c]
			i++
		} else {
			r, n := utf8.DecodeRuneInString(text[i:])
			if r != utf8.RuneError && unicode.IsSpace(r) {
				space = 1
			}
			i += n
		}
		words += int(prev &^ space)
		prev = space
	}
	return words
}

var asciiSpace = [utf8.RuneSelf]uint8{'\t': 1, '\n': 1, '\v': 1, '\f': 1, '\r': 1, ' ': 1}
