package chitta_test

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

func TestEstimateTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		words int
	}{
		{"", 0},
		{"   \n\t ", 0},
		{"one", 1},
		{"two words", 2},
		{"  leading and trailing  ", 3},
		{"tabs\tnew\nlines\r\nand\vform\ffeeds", 6},
		{"unicode\u00a0nbsp\u2003em\u3000ideographic\u0085nel", 5},
		{"日本語 テキスト", 2},
		{"\xff\xfe bad \xc3", 3},
		{"f(x)=y; git commit -m 'msg'", 5},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.words, chitta.CountWords(tt.in), "%q", tt.in)
		assert.Equal(t, tt.words*13/10, chitta.EstimateTokens(tt.in), "%q", tt.in)
	}
	assert.Equal(t, 13, chitta.EstimateTokens("a b c d e f g h i j"), "floor(10 × 1.3)")
	assert.Equal(t, 3, chitta.EstimateTokens("a b c"), "floor(3.9)")
}

// TestCountWordsMatchesFields checks the fast path against strings.Fields on
// random valid UTF-8 (where both use unicode.IsSpace).
func TestCountWordsMatchesFields(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := []rune("ab \t\n\u00a0\u2028é日\u0085x")
	for range 2000 {
		b := make([]rune, r.IntN(60))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		s := string(b)
		assert.Equal(t, len(strings.FieldsFunc(s, unicode.IsSpace)), chitta.CountWords(s), "%q", s)
	}
}

func FuzzEstimateTokens(f *testing.F) {
	f.Add("hello world")
	f.Add("\xff \u2003x")
	f.Fuzz(func(t *testing.T, s string) {
		n := chitta.CountWords(s)
		if n < 0 || n > len(s) {
			t.Fatalf("CountWords(%q) = %d", s, n)
		}
		if got := chitta.EstimateTokens(s); got != n*13/10 {
			t.Fatalf("EstimateTokens(%q) = %d, want %d", s, got, n*13/10)
		}
	})
}

func BenchmarkEstimateTokens(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	var sb strings.Builder
	words := []string{"the", "func", "parseConfig()", "error:", "/usr/lib/go", "données", "日本語", "\n", "x"}
	for sb.Len() < 1<<20 {
		sb.WriteString(words[r.IntN(len(words))])
		sb.WriteByte(' ')
	}
	text := sb.String()
	b.Run("impl=chitta", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			chitta.EstimateTokens(text)
		}
	})
	b.Run("impl=strings.Fields", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			_ = len(strings.Fields(text)) * 13 / 10
		}
	})
}

// countingCounter counts words and how often it was asked.
type countingCounter struct {
	mu    sync.Mutex
	calls map[string]int
}

func (c *countingCounter) CountTokens(s string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls == nil {
		c.calls = map[string]int{}
	}
	c.calls[s]++
	if s == "negative" {
		return -1
	}
	return chitta.CountWords(s)
}

func (c *countingCounter) asked(s string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[s]
}

func TestCachedTokenCounter(t *testing.T) {
	t.Parallel()
	inner := &countingCounter{}
	c := chitta.NewCachedTokenCounter(inner, 2)
	count := func(s string, want int) {
		t.Helper()
		assert.Equal(t, want, c.CountTokens(s), "%q", s)
	}
	count("a a", 2)
	count("a a", 2)
	assert.Equal(t, 1, inner.asked("a a"), "a hit is not recounted")
	count("b", 1)     // current generation full: {a a, b}
	count("c c c", 3) // rotation: old {a a, b}, current {c c c}
	count("a a", 2)   // old-generation hit, moved forward: current {c c c, a a}
	assert.Equal(t, 1, inner.asked("a a"))
	count("d", 1) // rotation: old {c c c, a a}, current {d}; b is gone
	count("b", 1)
	assert.Equal(t, 2, inner.asked("b"), "evicted after two rotations")
	count("a a", 2)
	assert.Equal(t, 1, inner.asked("a a"), "the last capacity texts stay cached")

	assert.Equal(t, -1, c.CountTokens("negative"))
	assert.Equal(t, -1, c.CountTokens("negative"))
	assert.Equal(t, 2, inner.asked("negative"), "negative counts are not cached")

	var zero chitta.CachedTokenCounter
	assert.Equal(t, chitta.EstimateTokens("one two three"), zero.CountTokens("one two three"), "zero value wraps EstimateTokens")
}

func TestCachedTokenCounterConcurrent(t *testing.T) {
	t.Parallel()
	c := chitta.NewCachedTokenCounter(nil, 16)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				s := strings.Repeat("w ", (g*7+i)%40)
				if got := c.CountTokens(s); got != chitta.EstimateTokens(s) {
					t.Errorf("CountTokens(%q) = %d", s, got)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestCompactWithCachedTokenCounter(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(8, 8))
	inner := &countingCounter{}
	tc := chitta.NewCachedTokenCounter(inner, 0)
	for range 20 {
		msgs := randomConversation(r)
		plain, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Tokens: chitta.TokenCounterFunc(chitta.CountWords)})
		require.NoError(t, err)
		cached, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Tokens: tc})
		require.NoError(t, err)
		again, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Tokens: tc})
		require.NoError(t, err)
		assert.Equal(t, plain.Scores, cached.Scores)
		assert.Equal(t, plain.Scores, again.Scores)
		for _, m := range msgs {
			assert.Equal(t, 1, inner.asked(m.Content), "each distinct text counted once")
		}
	}
}

// TestFramingTokensNilMessage: the FramingCounter implementations of this
// module count a nil message as 0 instead of panicking.
func TestFramingTokensNilMessage(t *testing.T) {
	t.Parallel()
	cal := chitta.NewCalibratedCounter(nil)
	cal.Observe([]chitta.Message{{Role: chitta.RoleUser, Content: "hello there"}}, 7)
	for name, fc := range map[string]chitta.FramingCounter{
		"CalibratedCounter, fresh":    chitta.NewCalibratedCounter(nil),
		"CalibratedCounter, observed": cal,
		"CachedTokenCounter":          chitta.NewCachedTokenCounter(cal, 0),
		"CachedTokenCounter, nil":     (*chitta.CachedTokenCounter)(nil),
	} {
		assert.NotPanics(t, func() { assert.Zero(t, fc.FramingTokens(nil), name) }, name)
	}
}
