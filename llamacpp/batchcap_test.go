//go:build cgo && llamacpp

package llamacpp

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLargestBatchSizeContext: the largest BatchSize no longer sizes the
// context (and llama.cpp's compute buffer, quadratic in it) beyond the
// model's per-text limit; New with it allocated an 8.3 GB compute buffer
// for a 512-token model.
func TestLargestBatchSizeContext(t *testing.T) {
	t.Parallel()
	def := newTiny(t, nil)
	e := newTiny(t, &Options{BatchSize: MaxBatchSize})
	assert.Equal(t, def.maxTokens, e.maxTokens)
	assert.Equal(t, max(def.maxTokens, DefaultBatchSize), e.ctxSize, "context sized by the text limit")
	assert.LessOrEqual(t, e.pack, e.ctxSize)
	texts := sampleTexts(300)
	got, err := e.Embed(t.Context(), texts)
	require.NoError(t, err)
	want, err := def.Embed(t.Context(), texts)
	require.NoError(t, err)
	for i := range texts {
		assert.InDelta(t, 1, cosine(got[i], want[i]), 1e-3, "text %d", i)
	}
	runtime.KeepAlive(e)
}
