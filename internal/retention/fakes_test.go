package retention

import (
	"cmp"
	"context"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/chitta-go/chitta"
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

// sliceStore is a fake memory store: an exact cosine scan over a slice.
type sliceStore struct {
	mu   sync.RWMutex
	mems []chitta.Memory
}

func newSliceStore(int) (chitta.MemoryStore, error) { return &sliceStore{}, nil }

func (s *sliceStore) Add(_ context.Context, m chitta.Memory) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.mems {
		if s.mems[i].ID == m.ID {
			s.mems[i] = m
			return nil
		}
	}
	s.mems = append(s.mems, m)
	return nil
}

func (s *sliceStore) Recall(_ context.Context, v []float32, k int) ([]chitta.Hit, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if k <= 0 {
		return nil, nil
	}
	hits := make([]chitta.Hit, 0, len(s.mems))
	for _, m := range s.mems {
		hits = append(hits, chitta.Hit{Memory: m, Similarity: cosine(v, m.Vector)})
	}
	slices.SortStableFunc(hits, func(a, b chitta.Hit) int { return cmp.Compare(b.Similarity, a.Similarity) })
	return hits[:min(k, len(hits))], nil
}

func (s *sliceStore) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.mems)
}

func cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i] * b[i])
		na += float64(a[i] * a[i])
		nb += float64(b[i] * b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// wordTokens counts one token per word, which keeps budgets easy to work
// out by hand.
var wordTokens = chitta.TokenCounterFunc(chitta.CountWords)

// fakeEpisode records an episode memory the way chitta.RecordEpisode does
// (text from the stats, kind episode), for tests that run without it.
func fakeEpisode(ctx context.Context, store chitta.MemoryStore, emb chitta.Embedder, st chitta.Stats, session string) error {
	text := "[pre-compact] compaction " + session
	v, err := emb.Embed(ctx, []string{text})
	if err != nil {
		return err
	}
	n := 0
	if l, ok := store.(interface{ Len() int }); ok {
		n = l.Len()
	}
	return store.Add(ctx, chitta.Memory{ID: session + "/" + string(rune('a'+n)), Text: text, Kind: chitta.KindEpisode, Confidence: 0.7, Vector: v[0]})
}
