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
