package chitta_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"

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
