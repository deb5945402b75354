package tiktoken

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exactGolden are counts of OpenAI's tiktoken for runs of white space with
// several line breaks and for U+007F (DEL), which the library's compiled
// expression matches with no alternative, leaving it out of the count (the
// library's count in the comment); the test checks them against the
// reference too.
var exactGolden = []struct {
	text          string
	o200k, cl100k int
}{
	{"a\n\n  \n\nb", 3, 4},                                // library: 4, 4
	{"today\n \n", 2, 2},                                  // 3, 3 (tiktoken's test_simple_regex)
	{"today\n  \n", 2, 2},                                 // 3, 3
	{"today\n ", 3, 3},                                    // no such run: 3, 3
	{"x\n \n \n", 3, 3},                                   // 4, 4
	{"  \n\t\n", 2, 2},                                    // 2, 2
	{"\r\n  \r\n\r\n", 2, 2},                              // 2, 2
	{"a.\n  \n  \nb", 4, 4},                               // ".\n" takes the first break: 5, 5
	{"a!\u0301\n \nb", 5, 6},                              // "!\u0301" ends a word piece in o200k_base: 6, 6
	{"!!\u0301\n \nb", 5, 5},                              // "!!\u0301\n" is a symbol piece: 5, 5
	{"x!\u0301\n \n", 4, 5},                               // 5, 5
	{"\u00a0\n\u00a0\n", 4, 2},                            // 4, 2
	{"\u3000\n\u3000\n", 2, 4},                            // 2, 4
	{"end\n \n   ", 3, 3},                                 // 4, 4
	{"func f() {\n\tx := 1\n\t\n\treturn x\n}\n", 13, 13}, // 14, 14
	{"\x7f", 1, 1},                                        // 0, 0
	{"a\x7fb", 3, 3},                                      // 2, 2
	{"\x7f\x7f", 2, 2},                                    // 0, 0
	{" \x7f", 2, 2},                                       // 1, 1
	{"\x7fa", 2, 2},                                       // 1, 1
	{"x\x7f\n \n", 4, 4},                                  // 3, 3
	{"!\x7f\u0301\n \ny", 6, 6},                           // 5, 5
}

func TestCountTokensExact(t *testing.T) {
	t.Parallel()
	for _, enc := range []string{O200kBase, Cl100kBase} {
		c, ref := refFor(t, enc)
		for _, g := range exactGolden {
			want := g.o200k
			if enc == Cl100kBase {
				want = g.cl100k
			}
			assert.Equal(t, want, ref.count(t, g.text), "%s %q: reference", enc, g.text)
			assert.Equal(t, want, c.CountTokens(g.text), "%s %q", enc, g.text)
		}
	}
}

// TestCountTokensMatchesReference: on random whitespace-heavy text, short
// and longer than the chunks CountTokens counts apart, CountTokens counts
// what OpenAI's tiktoken counts.
func TestCountTokensMatchesReference(t *testing.T) {
	t.Parallel()
	for _, enc := range []string{O200kBase, Cl100kBase} {
		c, ref := refFor(t, enc)
		runs := 0
		for seed := range uint64(1500) {
			r := rand.New(rand.NewPCG(seed, 11))
			var s string
			switch seed % 3 {
			case 0:
				s = wsText(r, 1+r.IntN(60))
			case 1:
				s = cutText(r, 1+r.IntN(60))
			default:
				s = wsText(r, 200+r.IntN(400))
			}
			if s, _ := c.enc.nextRun(s, 0, 0); s >= 0 {
				runs++
			}
			require.Equal(t, ref.count(t, s), c.CountTokens(s), "%s seed %d: %q", enc, seed, s)
		}
		assert.Greater(t, runs, 300, enc)
	}
}

// fuzzExact compares CountTokens with the reference for enc.
func fuzzExact(f *testing.F, enc string) {
	for _, g := range exactGolden {
		f.Add(g.text)
	}
	for _, s := range []string{"\n\t\t\n\t\t\n", "x\r\n \r\n", ");\n\n    \n    }", "\u00a0\n \u3000\n\u2028 \n", "é\n \n", "a\u0301\u0302\n\t\n",
		"//\n  \n", ".\n/\n \n", "'s\n \n", "1\n \n", "\xff\n \n", "\n \n\u0301", " \n \nx", "\n \n \n ", "\t\n\t\n\tif", "\x7f", "a\x7f\n \n"} {
		f.Add(s)
	}
	c, ref := refFor(f, enc)
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 { // the reference's rescan is quadratic in a piece
			return
		}
		assert.Equal(t, ref.count(t, s), c.CountTokens(s), "%q", s)
	})
}

func FuzzCountTokensExactO200k(f *testing.F)  { fuzzExact(f, O200kBase) }
func FuzzCountTokensExactCl100k(f *testing.F) { fuzzExact(f, Cl100kBase) }

// TestBPECount: bpeCount, over the white-space ranks only, counts the
// reference's merge of every run.
func TestBPECount(t *testing.T) {
	t.Parallel()
	for _, enc := range []string{O200kBase, Cl100kBase} {
		c, ref := refFor(t, enc)
		ranks := c.enc.runs().wsRanks
		for seed := range uint64(500) {
			r := rand.New(rand.NewPCG(seed, 13))
			run := joinRandom(r, 1+r.IntN(300), "\n", " ", "  ", "\t", "\r\n", "\u00a0", "\u3000", "\u2028", "\u0085", "\v")
			require.Len(t, ref.bpe(run), bpeCount(ranks, run), "%s %q", enc, run)
		}
	}
}

// TestCountTokensRunsConcurrent: Counters count multi-break runs
// concurrently, the first of them building the white-space table (run with
// -race).
func TestCountTokensRunsConcurrent(t *testing.T) {
	t.Parallel()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for _, enc := range []string{O200kBase, Cl100kBase} {
				c, err := New(enc)
				if !assert.NoError(t, err) {
					return
				}
				for _, g := range exactGolden[i:] {
					want := g.o200k
					if enc == Cl100kBase {
						want = g.cl100k
					}
					assert.Equal(t, want, c.CountTokens(g.text), "%s %q", enc, g.text)
				}
			}
		})
	}
	wg.Wait()
}
