package chitta

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCalibratedCounterMemoryBound observes far more distinct messages
// than CalibrationMemory: the remembered counts stay within two
// generations, the latest call's messages are all remembered, the oldest
// are forgotten and estimated again.
func TestCalibratedCounterMemoryBound(t *testing.T) {
	t.Parallel()
	c := NewCalibratedCounter(nil)
	msg := func(i int) Message {
		return Message{Role: RoleUser, Content: fmt.Sprintf("message number %d about the build", i)}
	}
	const calls, perCall = 40, 500 // 20 000 messages, 40 000 counts
	for k := range calls {
		batch := make([]Message, perCall)
		for i := range batch {
			batch[i] = msg(k*perCall + i)
		}
		c.Observe(batch, 10*perCall)
		c.mu.Lock()
		require.LessOrEqual(t, len(c.cur), CalibrationMemory)
		require.LessOrEqual(t, len(c.old), CalibrationMemory)
		c.mu.Unlock()
	}
	assert.Equal(t, calls, c.Observations())
	known := func(m Message) bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, ok := c.lookup(c.messageKey(&m))
		return ok
	}
	for i := (calls - 1) * perCall; i < calls*perCall; i++ {
		require.True(t, known(msg(i)), "message %d of the latest call", i)
		m := msg(i)
		assert.Equal(t, 10, c.CountTokens(m.Content)+c.FramingTokens(&m))
	}
	assert.False(t, known(msg(0)), "the first message is forgotten")
}

// TestCalibratedCounterPrior: a base that counts as EstimateTokens (nil, a
// CachedTokenCounter around nil, or a nil *CachedTokenCounter, whose
// CountTokens is EstimateTokens) gets EstimateTokens' prior; any other
// base the base count alone.
func TestCalibratedCounterPrior(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		base TokenCounter
		want features
	}{
		{"nil", nil, priorEstimate},
		{"cached around nil", NewCachedTokenCounter(nil, 0), priorEstimate},
		{"nil cached", (*CachedTokenCounter)(nil), priorEstimate},
		{"cached around a custom counter", NewCachedTokenCounter(TokenCounterFunc(func(string) int { return 1 }), 0), priorBase},
		{"custom", TokenCounterFunc(func(string) int { return 1 }), priorBase},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, NewCalibratedCounter(tt.base).prior(), tt.name)
	}
}

// TestPieces checks the pre-tokenizer split that prices unseen text: one
// per piece, plus the weights of pieces that are often split.
func TestPieces(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want float64
	}{
		{"", 0},
		{"hello world", 2},             // "hello", " world"
		{"camelCaseName", 3},           // "camel", "Case", "Name"
		{"1234567", 3},                 // "123", "456", "7"
		{`{"a":1}`, 5},                 // `{"`, "a", `":`, "1", "}"
		{"  - README.md\n", 5 + 4*0.5}, // " ", " -", " README", ".md", "\n"
		{"\n      - cli.py", 5},        // "\n", "     ", " -", " cli", ".py"
		{"====== x", 2 + 3*0.4},        // "======", " x"
		{"/workspace/file", 2 + 0.7},   // "/workspace", "/file"
		{"naïve café", 2},              // non-ASCII bytes are letters
		{"a\tb", 2},                    // "a", "\tb": a tab joins a word as a space does
	}
	for _, tt := range tests {
		got, _, _ := pieces(tt.text)
		assert.InDelta(t, tt.want, got, 1e-9, "%q", tt.text)
		auto, _, _ := piecesAutomaton(tt.text)
		assert.InDelta(t, tt.want, auto, 1e-9, "automaton %q", tt.text)
	}
}

// States of piecesAutomaton: where in a piece the last byte left it.
const (
	pStart    = iota
	pUpper    // in a word, after a capital
	pLower    // in a word, after a lower-case letter
	pSymWord1 // in a word that began with one symbol, after 1–4 lower-case letters
	pSymWord2 //
	pSymWord3 //
	pSymWord4 //
	pDigit1   // in a number, after 1–3 digits
	pDigit2   //
	pDigit3   //
	pSymbol1  // a piece of one symbol, which a letter joins
	pSymbols2 // a piece of 2, 3, 4 or more symbols (a leading space included)
	pSymbols3 //
	pSymbols4 //
	pBreaks2  // line breaks that end a piece of symbols, 2, 3, 4 or more bytes long
	pBreaks3  //
	pBreaks4  //
	pSpace1   // one space, or other white space (tab), not counted yet
	pTab1     //
	pSpaces   // several spaces or tabs, the last a space or not, not counted yet
	pTabs     //
	pBreak    // white space up to a line break, counted
	pBrSpace1 // white space after pBreak, not counted yet
	pBrTab1   //
	pBrSpaces //
	pBrTabs   //
	nStates
)

// pieceStep is the automaton of piecesAutomaton: for each state and byte class,
// the next state and what the byte adds, in tenths of a token.
var pieceStep = func() (t [nStates][nKinds]struct{ next, add uint8 }) {
	pending := func(s int) (n uint8, ok bool) { // pieces a pending run of white space still owes
		switch s {
		case pSpace1, pTab1, pBrSpace1, pBrTab1:
			return 1, true
		case pSpaces, pTabs, pBrSpaces, pBrTabs:
			return 2, true
		}
		return 0, false
	}
	for s := range nStates {
		owed, ws := pending(s)
		lastSpace := s == pSpace1 || s == pSpaces || s == pBrSpace1 || s == pBrSpaces
		set := func(k, next int, add uint8) { t[s][k] = struct{ next, add uint8 }{uint8(next), add} }
		// Letters.
		switch {
		case s == pUpper:
			set(kUpper, pUpper, 0)
			set(kLower, pLower, 0)
		case s == pLower:
			set(kUpper, pUpper, 10) // camelCase: a capital starts a piece
			set(kLower, pLower, 0)
		case s >= pSymWord1 && s <= pSymWord4:
			set(kUpper, pUpper, 10)
			if s == pSymWord4 {
				set(kLower, pLower, pieceSymWordWeight)
			} else {
				set(kLower, s+1, 0)
			}
		case s == pSymbol1: // the symbol is the word's prefix
			set(kUpper, pUpper, 0)
			set(kLower, pSymWord1, 0)
		case ws: // the last space or tab is the word's prefix
			set(kUpper, pUpper, 10*owed)
			set(kLower, pLower, 10*owed)
		default:
			set(kUpper, pUpper, 10)
			set(kLower, pLower, 10)
		}
		// Digits: up to three a piece; white space never joins them.
		switch {
		case s == pDigit1 || s == pDigit2:
			set(kDigit, s+1, 0)
		case ws:
			set(kDigit, pDigit1, 10*(owed+1))
		default:
			set(kDigit, pDigit1, 10)
		}
		// Symbols: a run is one piece, with one leading space (not a tab).
		for _, k := range []int{kSymbol, kControl} {
			switch {
			case s == pSymbol1 || s == pSymbols2:
				set(k, s+1, 0)
			case s == pSymbols3 || s == pSymbols4:
				set(k, pSymbols4, pieceLongSymWeight)
			case ws && lastSpace:
				set(k, pSymbols2, 10*owed)
			case ws:
				set(k, pSymbol1, 10*(owed+1))
			default:
				set(k, pSymbol1, 10)
			}
		}
		// White space waits for what follows it.
		switch {
		case s == pBreak || s >= pBrSpace1:
			set(kSpace, pBrSpaces, 0)
			set(kTab, pBrTabs, 0)
			if s == pBreak {
				set(kSpace, pBrSpace1, 0)
				set(kTab, pBrTab1, 0)
			}
		case ws:
			set(kSpace, pSpaces, 0)
			set(kTab, pTabs, 0)
		default:
			set(kSpace, pSpace1, 0)
			set(kTab, pTab1, 0)
		}
		// Line breaks end a piece of symbols, or white space up to them is one piece.
		switch {
		case s == pSymbol1:
			set(kBreak, pBreaks2, 0)
		case s == pSymbols2 || s == pBreaks2:
			set(kBreak, pBreaks3, 0)
		case s == pSymbols3 || s == pSymbols4 || s == pBreaks3 || s == pBreaks4:
			set(kBreak, pBreaks4, pieceLongSymWeight)
		case s == pBreak || s >= pBrSpace1:
			set(kBreak, pBreak, 0)
		default: // pending white space or anything else: a new piece
			set(kBreak, pBreak, 10)
		}
	}
	return t
}()

// piecesAutomaton is pieces written as a table-driven automaton over
// bytes (one state per place in a piece), an independent formulation that
// pieces must match. It is slower than pieces: each byte waits for the
// table load of the one before.
func piecesAutomaton(s string) (est float64, symbols, digits int) {
	var kinds [nKinds]int
	tenths, caps, pendingCaps, upper := 0, 0, 0, 0
	st := uint8(pStart)
	for i := 0; i < len(s); i++ {
		k := pieceKind[s[i]]
		kinds[k]++
		step := pieceStep[st][k]
		tenths += int(step.add)
		st = step.next
		// All-capitals words: capitals beyond two count once the run ends
		// without a lower-case letter.
		switch {
		case k == kUpper:
			upper++
			if upper >= 3 {
				pendingCaps++
			}
			continue
		case k == kLower && upper > 0:
			pendingCaps = 0
		}
		caps += pendingCaps
		pendingCaps, upper = 0, 0
	}
	caps += pendingCaps
	if st == pSpace1 || st == pTab1 || st >= pSpaces && st != pBreak {
		tenths += 10 // white space at the end is a piece
	}
	return float64(tenths+pieceCapsWeight*caps) / 10, kinds[kSymbol], kinds[kDigit]
}

// FuzzPieces checks pieces against piecesAutomaton, and its symbol and
// digit counts against a plain count, on any bytes.
func FuzzPieces(f *testing.F) {
	for _, s := range []string{"", "hello world", "  - README.md\n", "\t}\n\t\treturn nil", "a  1", "x \t-y", "}\n/", "ABCdef GHI jKLM", "====\n\n", "  \n  ", "/snake_case_name", "é日本\x00\x7f", "12345 678"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, sym, dig := pieces(s)
		want, autoSym, autoDig := piecesAutomaton(s)
		require.InDelta(t, want, got, 1e-9, "%q", s)
		require.Equal(t, autoSym, sym, "%q", s)
		require.Equal(t, autoDig, dig, "%q", s)
		var wantSym, wantDig int
		for i := 0; i < len(s); i++ {
			switch b := s[i]; {
			case '0' <= b && b <= '9':
				wantDig++
			case '!' <= b && b <= '~' && !('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'):
				wantSym++
			}
		}
		require.Equal(t, wantSym, sym, "%q", s)
		require.Equal(t, wantDig, dig, "%q", s)
	})
}

// TestPiecesRandom compares pieces with piecesAutomaton on random strings
// over the bytes that change pieces.
func TestPiecesRandom(t *testing.T) {
	t.Parallel()
	alphabet := []byte("aZbY09 \t\n\r/-{}\"._\x01\xc3")
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		got, _, _ := pieces(string(b))
		want, _, _ := piecesAutomaton(string(b))
		require.InDelta(t, want, got, 1e-9, "%q", b)
	}
}

// BenchmarkPieces measures the pre-tokenizer split that prices unseen
// text against EstimateTokens, the pass it adds to, on a mix of Go code,
// an indented listing, prose and JSON.
func BenchmarkPieces(b *testing.B) {
	text := strings.Repeat("func (s *Server) Run(ctx context.Context) error {\n\tif err != nil { return fmt.Errorf(\"run: %w\", err) }\n  - README.md\n    - cli.py\nThe build fails because config is missing, please check again. {\"path\":\"/src/pkg/main.go\",\"line\":42}\n", 50)
	b.Run("split=pieces", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			pieces(text)
		}
	})
	b.Run("split=EstimateTokens", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			EstimateTokens(text)
		}
	})
}
