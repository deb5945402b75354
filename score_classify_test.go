package chitta_test

import (
	"bytes"
	"context"
	"log/slog"
	"math"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// TestCompactCachedEmbedderUnusableVectors: an answer that a
// CachedEmbedder refuses (ErrInvalidEmbedding, ErrDimensionMismatch) is
// logged as unusable vectors, like the same answer from the bare
// embedder, and not as a failed embedder; and, as for the bare embedder,
// a ctx done when the bad answer comes back does not turn it into an
// error: Compact degrades and logs it.
func TestCompactCachedEmbedderUnusableVectors(t *testing.T) {
	t.Parallel()
	msgs := []chitta.Message{msg(chitta.RoleUser, "one"), msg(chitta.RoleAssistant, "two")}
	nan := func(_ context.Context, texts []string) ([][]float32, error) {
		v := make([][]float32, len(texts))
		for k := range v {
			v[k] = []float32{1, float32(math.NaN())}
		}
		return v, nil
	}
	short := func(context.Context, []string) ([][]float32, error) { return [][]float32{{1, 0}}, nil }
	// growing answers 2 dimensions on its first call and 3 after it, so a
	// CachedEmbedder warmed by the first call refuses the second with
	// ErrDimensionMismatch.
	growing := func() chitta.EmbedderFunc {
		var calls atomic.Int32
		return func(_ context.Context, texts []string) ([][]float32, error) {
			dims := 2
			if calls.Add(1) > 1 {
				dims = 3
			}
			v := make([][]float32, len(texts))
			for k := range v {
				v[k] = make([]float32, dims)
				v[k][0] = 1
			}
			return v, nil
		}
	}
	for _, tc := range []struct {
		name   string
		emb    func() chitta.EmbedderFunc
		cached bool
		warm   bool   // the CachedEmbedder embeds one text before Compact
		cancel bool   // the embedder cancels ctx before answering
		log    string // part of the warning besides "unusable vectors"
	}{
		{"bare NaN", func() chitta.EmbedderFunc { return nan }, false, false, false, "NaN or infinite"},
		{"cached NaN", func() chitta.EmbedderFunc { return nan }, true, false, false, "NaN or infinite"},
		{"cached too few", func() chitta.EmbedderFunc { return short }, true, false, false, "1 vectors for 3 texts"},
		{"cached dimension mismatch", growing, true, true, false, "cached vectors have 2"},
		{"bare NaN cancelled", func() chitta.EmbedderFunc { return nan }, false, false, true, "NaN or infinite"},
		{"cached NaN cancelled", func() chitta.EmbedderFunc { return nan }, true, false, true, "NaN or infinite"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			inner := tc.emb()
			var emb chitta.Embedder = chitta.EmbedderFunc(func(c context.Context, texts []string) ([][]float32, error) {
				if tc.cancel {
					cancel()
				}
				return inner(c, texts)
			})
			if tc.cached {
				ce := chitta.NewCachedEmbedder(emb, 0)
				if tc.warm {
					_, err := ce.Embed(t.Context(), []string{"warm"})
					require.NoError(t, err)
				}
				emb = ce
			}
			var buf bytes.Buffer
			opts := &chitta.Options{Query: "q", Embedder: emb, Logger: slog.New(slog.NewTextHandler(&buf, nil))}
			res, err := chitta.Compact(ctx, msgs, opts)
			require.NoError(t, err)
			assert.False(t, res.Stats.Embedding)
			assert.Contains(t, buf.String(), "unusable vectors")
			assert.NotContains(t, buf.String(), "embedder failed")
			assert.Contains(t, buf.String(), tc.log)
		})
	}
}

// TestCompactCachedQueryEmbedderUnusableVector: a CachedEmbedder as
// QueryEmbedder that refuses its answer while ctx is done is a warning,
// as the bare QueryEmbedder's is, not ctx.Err().
func TestCompactCachedQueryEmbedderUnusableVector(t *testing.T) {
	t.Parallel()
	msgs := []chitta.Message{msg(chitta.RoleUser, "one"), msg(chitta.RoleAssistant, "two")}
	for _, cached := range []bool{false, true} {
		t.Run(map[bool]string{false: "bare", true: "cached"}[cached], func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var queries chitta.Embedder = chitta.EmbedderFunc(func(context.Context, []string) ([][]float32, error) {
				cancel()
				return [][]float32{{1, float32(math.Inf(1))}}, nil
			})
			if cached {
				queries = chitta.NewCachedEmbedder(queries, 0)
			}
			messages := chitta.EmbedderFunc(func(_ context.Context, texts []string) ([][]float32, error) {
				v := make([][]float32, len(texts))
				for k := range v {
					v[k] = []float32{1, float32(k)}
				}
				return v, nil
			})
			var buf bytes.Buffer
			opts := &chitta.Options{Query: "q", Embedder: messages, QueryEmbedder: queries, Logger: slog.New(slog.NewTextHandler(&buf, nil))}
			res, err := chitta.Compact(ctx, msgs, opts)
			require.NoError(t, err)
			assert.True(t, res.Stats.Embedding)
			assert.Contains(t, buf.String(), "query embedder failed")
			assert.Contains(t, buf.String(), "NaN or infinite")
		})
	}
}
