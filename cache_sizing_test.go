package chitta_test

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/chittatest"
)

// countingTokens counts the texts it is asked to count.
type countingTokens struct{ n atomic.Int64 }

func (c *countingTokens) CountTokens(text string) int {
	c.n.Add(1)
	return chitta.EstimateTokens(text)
}

// TestCachesGrowToTheConversation re-compacts a 6 000-message conversation
// (longer than DefaultCacheCapacity) grown by 10 turns, with a
// CachedEmbedder and a CachedTokenCounter of the default capacity: only
// the 10 new turns are embedded and counted, as with caches sized to the
// conversation. Before the caches grew, the LRU evicted what the next call
// needed and thousands of texts were embedded again.
func TestCachesGrowToTheConversation(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	msgs, refill := growingTurns(6000)
	embedder := &chittatest.CountingEmbedder{Next: chitta.NewHashEmbedder(64)}
	tokens := &countingTokens{}
	cached := chitta.NewCachedEmbedder(embedder, 0)
	counter := chitta.NewCachedTokenCounter(tokens, 0)
	opts := &chitta.Options{Query: "parseConfig", Embedder: cached, Tokens: counter}
	_, err := chitta.Compact(ctx, msgs, opts)
	require.NoError(t, err)
	for range 3 {
		refill()
		embedder.Reset()
		tokens.n.Store(0)
		res, err := chitta.Compact(ctx, msgs, opts)
		require.NoError(t, err)
		require.True(t, res.Stats.Embedding)
		assert.Equal(t, 10, len(embedder.Texts()), "only the new turns are embedded")
		assert.Equal(t, int64(10), tokens.n.Load(), "only the new turns are counted")
	}
	st := cached.Stats()
	assert.GreaterOrEqual(t, st.Capacity, 6011)
	assert.Greater(t, st.Capacity, chitta.DefaultCacheCapacity)
}

// TestCalibratedCounterGrowsItsCachedBase re-compacts a 6 000-message
// conversation grown by 10 turns with a CalibratedCounter around a
// CachedTokenCounter of the default capacity (the wrapping
// CalibratedCounter's doc recommends) and no observation yet: only the 10
// new turns reach the base counter, as with the CachedTokenCounter set as
// Options.Tokens directly. Before the CalibratedCounter passed Compact's
// reserve on, its base kept DefaultCacheCapacity and 1 923 texts were
// counted again.
func TestCalibratedCounterGrowsItsCachedBase(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	msgs, refill := growingTurns(6000)
	tokens := &countingTokens{}
	opts := &chitta.Options{Tokens: chitta.NewCalibratedCounter(chitta.NewCachedTokenCounter(tokens, 0))}
	_, err := chitta.Compact(ctx, msgs, opts)
	require.NoError(t, err)
	for range 3 {
		refill()
		tokens.n.Store(0)
		_, err := chitta.Compact(ctx, msgs, opts)
		require.NoError(t, err)
		assert.Equal(t, int64(10), tokens.n.Load(), "only the new turns are counted")
	}
	// A nil base, and a nil *CachedTokenCounter base, have nothing to grow.
	for _, base := range []chitta.TokenCounter{nil, (*chitta.CachedTokenCounter)(nil)} {
		_, err := chitta.Compact(ctx, msgs, &chitta.Options{Tokens: chitta.NewCalibratedCounter(base)})
		require.NoError(t, err)
	}
}
