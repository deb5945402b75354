package retention

import (
	"context"
	"hash/fnv"
	"math"
	"strings"
	"sync"
	"unicode"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/chittatest"
)

// bagEmbedder is a fake embedder: a bag of lower-cased words hashed into
// dims buckets, L2-normalised. Texts sharing no word are orthogonal unless
// their words collide.
type bagEmbedder struct {
	dims  int
	mu    sync.Mutex
	calls int
	texts int
}

func (b *bagEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	b.mu.Lock()
	b.calls++
	b.texts += len(texts)
	b.mu.Unlock()
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, b.dims)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%uint32(b.dims)]++
		}
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		if n > 0 {
			for k := range v {
				v[k] /= float32(math.Sqrt(n))
			}
		}
		out[i] = v
	}
	return out, nil
}

func (b *bagEmbedder) Dimensions() int { return b.dims }

// newSliceStore returns the lead's exact-scan fake store.
func newSliceStore(int) (chitta.MemoryStore, error) { return &chittatest.Store{}, nil }

// wordTokens counts one token per word, which keeps budgets easy to work
// out by hand.
var wordTokens = chitta.TokenCounterFunc(chitta.CountWords)

// wordText returns n words, n tokens by wordTokens.
func wordText(n int) string { return strings.TrimSpace(strings.Repeat("w ", n)) }
