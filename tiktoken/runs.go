package tiktoken

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
)

// Runs of white space across line breaks.
//
// OpenAI's split expressions hold the alternative \s*[\r\n]+: at a run of
// white space holding a line break, greedy \s* backtracks to the run's LAST
// line break, so " \n \n" or "\n  \n\n" is one piece. The compiled
// expression of tiktoken-go/tokenizer v0.10.0 backtracks to the FIRST line
// break instead (its generated code searches the run from the left), so it
// splits such a piece into one piece per group of consecutive line breaks.
// Everything else it splits as OpenAI does (once CountTokens has read U+007F
// as U+001F, see "Exactness" in doc.go): its pieces refine OpenAI's, and
// they differ only inside a white-space piece holding two groups of line
// breaks with other white space between them (a multi-break run). CountTokens
// finds those pieces itself and counts them by byte-pair encoding over the
// tokens made of white-space bytes; the codec counts the text between them.

// wsByte reports the bytes that occur in the UTF-8 encoding of a white-space
// character (unicode.IsSpace, which is \s of both OpenAI's expressions and
// regexp2). A token that is a substring of a run of white space holds no
// other byte.
var wsByte = func() (set [256]bool) {
	add := func(lo, hi, stride rune) {
		for c := lo; c <= hi; c += stride {
			for _, b := range []byte(string(c)) {
				set[b] = true
			}
		}
	}
	for _, r := range unicode.White_Space.R16 {
		add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
	}
	for _, r := range unicode.White_Space.R32 {
		add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
	}
	return set
}()

// vocabSize is the number of token IDs of each encoding, specials included
// (tiktoken's n_vocab); Decode fails on the IDs without a token.
var vocabSize = map[string]uint{O200kBase: 200019, Cl100kBase: 100277}

// runs returns e with its table of white-space ranks and, for o200k_base,
// its split expression, built on the first call (about 50 ms: it decodes
// every token). A token's ID is its BPE rank in tiktoken.
func (e *encoding) runs() *encoding {
	e.runsOnce.Do(e.loadRuns)
	return e
}

func (e *encoding) loadRuns() {
	e.wsRanks = make(map[string]uint32)
	for id := range vocabSize[e.name] {
		tok, err := e.codec.Decode([]uint{id})
		if err != nil || tok == "" || !allWSBytes(tok) {
			continue
		}
		e.wsRanks[tok] = uint32(id)
	}
	if e.name == O200kBase {
		// The library's own expression (this string selects its compiled
		// code): it splits as OpenAI's does up to a run's first line break,
		// which is all markAbsorbs asks of it.
		e.split = regexp2.MustCompile(`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`, regexp2.None)
	}
}

// allWSBytes reports whether every byte of s is in wsByte.
func allWSBytes(s string) bool {
	for i := range len(s) {
		if !wsByte[s[i]] {
			return false
		}
	}
	return true
}

func isBreak(b byte) bool { return b == '\n' || b == '\r' }

// nextRun returns the first multi-break run of text at or after from, as
// the bounds [s, end) of the white-space piece OpenAI's expression makes of
// it, or s = -1 if there is none. Both expressions must start a piece at lo
// (0, or the end of the previous run), and from ≥ lo must not be inside a
// run of white space that holds a line break at or after from.
func (e *encoding) nextRun(text string, lo, from int) (s, end int) {
	known := lo // a place where both expressions start a piece
	for from < len(text) {
		j := strings.IndexAny(text[from:], "\r\n")
		if j < 0 {
			return -1, -1
		}
		j += from
		// The maximal run of white space holding text[j]: [a, b), its last
		// line break at last.
		a := j
		for a > from {
			r, n := utf8.DecodeLastRuneInString(text[:a])
			if !unicode.IsSpace(r) {
				break
			}
			a -= n
		}
		b, last := j, j
		for b < len(text) {
			r, n := utf8.DecodeRuneInString(text[b:])
			if !unicode.IsSpace(r) {
				break
			}
			if r == '\n' || r == '\r' {
				last = b
			}
			b += n
		}
		from = b
		// OpenAI's piece runs from a to last+1, the library's to the end of
		// the first group of line breaks, g: they differ if a line break
		// follows g. But when the run opens with line breaks right after a
		// symbol, the symbol's piece ( ?[^\s\p{L}\p{N}]+ and then [\r\n/]*
		// or [\r\n]*) takes that group, and the run's piece starts at g.
		g := skipBreaks(text, j)
		if last >= g {
			s = a
			if a == j && a > 0 && e.absorbs(text, known, a) {
				s = g
			}
			if s == a || last >= skipBreaks(text, g+strings.IndexAny(text[g:], "\r\n")) {
				return s, last + 1
			}
		}
		// The piece holding the run's last line break ends after it, but for
		// a symbol's piece in o200k_base when a '/' follows.
		if last+1 == len(text) || text[last+1] != '/' {
			known = last + 1
		}
	}
	return -1, -1
}

// skipBreaks returns the end of the line breaks that start at text[i].
func skipBreaks(text string, i int) int {
	for i < len(text) && isBreak(text[i]) {
		i++
	}
	return i
}

// absorbs reports whether the piece that ends with the character before
// text[a], a line break that opens a run of white space, continues with
// that line break (both expressions start a piece at lo ≤ a): whether that
// character is matched by the symbol alternative ( ?[^\s\p{L}\p{N}]+ and
// then [\r\n/]* or [\r\n]*). After a letter or a digit it is not; after
// any other character it is, but for a combining mark in o200k_base, whose
// word alternatives take marks as letters: a mark ends a word piece or a
// symbol piece depending on where that piece started, which markAbsorbs
// asks the library's split expression.
func (e *encoding) absorbs(text string, lo, a int) bool {
	r, _ := utf8.DecodeLastRuneInString(text[:a])
	switch {
	case unicode.IsLetter(r) || unicode.IsNumber(r):
		return false
	case e.name == O200kBase && unicode.Is(unicode.M, r):
		return e.markAbsorbs(text, lo, a)
	}
	return true
}

// markAbsorbs splits text from the last place before a where both
// expressions start a piece (lo, or after a line break followed by a
// character that neither continues a run of white space nor the [\r\n/]*
// of a symbol piece), up to and including the line break text[a], with the
// library's expression (which splits as OpenAI's there), and reports
// whether the last piece holds more than that line break.
func (e *encoding) markAbsorbs(text string, lo, a int) bool {
	start := lo
	for i := a - 1; i > lo; {
		j := strings.LastIndexAny(text[lo:i], "\r\n")
		if j < 0 {
			break
		}
		j += lo
		if r, _ := utf8.DecodeRuneInString(text[j+1:]); r != '/' && !unicode.IsSpace(r) {
			start = j + 1
			break
		}
		i = j
	}
	split := e.runs().split
	m, err := split.FindStringMatch(text[start : a+1])
	var last *regexp2.Match
	for m != nil && err == nil {
		last = m
		m, err = split.FindNextMatch(m)
	}
	// regexp2 fails only on a timeout, which split does not set.
	return err != nil || last == nil || last.RuneLength > 1
}

// bpeCount returns the number of tokens tiktoken's byte-pair encoding
// splits piece into, given the ranks of all tokens that are substrings of
// piece: the whole piece if it is a token, else the parts left when pairs
// of adjacent parts are merged, the lowest rank first and the leftmost of
// equal ranks first. It takes O(n log n) time for a piece of n bytes.
func bpeCount(ranks map[string]uint32, piece string) int {
	if _, ok := ranks[piece]; ok || len(piece) < 2 {
		return min(len(piece), 1)
	}
	if len(piece) >= math.MaxInt32 { // beyond int32 positions: an upper bound
		return len(piece)
	}
	// next[i] is the start of the part after the part starting at i
	// (len(piece) for the last), or -1 once that part is merged away.
	next := make([]int32, len(piece)+1)
	prev := make([]int32, len(piece)+1)
	for i := range next {
		next[i], prev[i] = int32(i+1), int32(i-1)
	}
	rank := func(i int32) (uint32, bool) {
		j := next[i]
		if j >= int32(len(piece)) {
			return 0, false
		}
		r, ok := ranks[piece[i:next[j]]]
		return r, ok
	}
	var h mergeHeap
	for i := int32(0); i+1 < int32(len(piece)); i++ {
		if r, ok := rank(i); ok {
			h = append(h, merge{r, i, next[next[i]]})
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
	parts := len(piece)
	for len(h) > 0 {
		m := h.pop()
		// Stale: a part at m.at was merged away, or grew since.
		if next[m.at] < 0 || next[m.at] >= int32(len(piece)) || next[next[m.at]] != m.end {
			continue
		}
		j := next[m.at]
		next[m.at], next[j] = m.end, -1
		prev[m.end] = m.at
		parts--
		for _, i := range [2]int32{prev[m.at], m.at} {
			if i < 0 {
				continue
			}
			if r, ok := rank(i); ok {
				h.push(merge{r, i, next[next[i]]})
			}
		}
	}
	return parts
}

// merge is a candidate merge of the parts from at up to end.
type merge struct {
	rank    uint32
	at, end int32
}

// mergeHeap is a binary min-heap of candidate merges ordered by rank, then
// by position (typed, unlike container/heap, so that a push does not
// allocate).
type mergeHeap []merge

func (h mergeHeap) less(a, b int) bool {
	return h[a].rank < h[b].rank || h[a].rank == h[b].rank && h[a].at < h[b].at
}

func (h *mergeHeap) push(m merge) {
	*h = append(*h, m)
	for i := len(*h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		(*h)[i], (*h)[p] = (*h)[p], (*h)[i]
		i = p
	}
}

func (h *mergeHeap) pop() merge {
	old := *h
	top := old[0]
	old[0] = old[len(old)-1]
	*h = old[:len(old)-1]
	h.down(0)
	return top
}

func (h mergeHeap) down(i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h.less(c+1, c) {
			c++
		}
		if !h.less(c, i) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}
