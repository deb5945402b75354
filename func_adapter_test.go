package chitta_test

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// TestNilFuncAdapters: a nil EmbedderFunc or TokenCounterFunc in Options
// does not panic Compact (nor a Compactor): a nil EmbedderFunc is an
// embedder that fails, so scoring degrades to recency and structure with a
// warning, and a nil TokenCounterFunc counts as EstimateTokens, as a nil
// Options.Tokens does.
func TestNilFuncAdapters(t *testing.T) {
	t.Parallel()
	msgs := []chitta.Message{
		{Role: chitta.RoleSystem, Content: "You are terse."},
		{Role: chitta.RoleUser, Content: "My name is Ada and I deploy on Fridays."},
		{Role: chitta.RoleAssistant, Content: "Noted, Ada."},
		{Role: chitta.RoleUser, Content: "When do I deploy?"},
	}
	want, err := chitta.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: 0.6})
	require.NoError(t, err)

	tests := []struct {
		name          string
		opts          chitta.Options
		wantEmbedding bool
		wantWarning   bool
	}{
		{name: "nil EmbedderFunc", opts: chitta.Options{Embedder: chitta.EmbedderFunc(nil), Query: "deploy"}, wantWarning: true},
		{name: "cached nil EmbedderFunc", opts: chitta.Options{Embedder: chitta.NewCachedEmbedder(chitta.EmbedderFunc(nil), 0)}, wantWarning: true},
		{name: "nil TokenCounterFunc", opts: chitta.Options{Tokens: chitta.TokenCounterFunc(nil)}},
		{name: "cached nil TokenCounterFunc", opts: chitta.Options{Tokens: chitta.NewCachedTokenCounter(chitta.TokenCounterFunc(nil), 0)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var logs bytes.Buffer
			opts := tt.opts
			opts.TargetRatio = 0.6
			opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			var (
				res *chitta.Result
				err error
			)
			require.NotPanics(t, func() { res, err = chitta.Compact(t.Context(), msgs, &opts) })
			require.NoError(t, err)
			assert.Equal(t, tt.wantEmbedding, res.Stats.Embedding)
			assert.Equal(t, want.Stats.BeforeTokens, res.Stats.BeforeTokens, "tokens as EstimateTokens counts them")
			assert.Equal(t, want.Kept, res.Kept)
			assert.Equal(t, tt.wantWarning, bytes.Contains(logs.Bytes(), []byte("level=WARN")), logs.String())

			c, err := chitta.NewCompactor(&opts, chitta.Policy{MaxTokens: 1000})
			require.NoError(t, err)
			require.NotPanics(t, func() { res, err = c.Compact(t.Context(), msgs) })
			require.NoError(t, err)
			assert.Len(t, res.Messages, len(msgs))
		})
	}

	t.Run("direct calls", func(t *testing.T) {
		t.Parallel()
		var (
			e    chitta.EmbedderFunc
			vecs [][]float32
			err  error
		)
		require.NotPanics(t, func() { vecs, err = e.Embed(t.Context(), []string{"x"}) })
		require.ErrorIs(t, err, chitta.ErrInvalidOption)
		assert.Nil(t, vecs)
		var tc chitta.TokenCounterFunc
		assert.Equal(t, chitta.EstimateTokens("one two three four"), tc.CountTokens("one two three four"))
	})
}
