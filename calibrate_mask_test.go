package chitta_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// A MaskCache keeps the token counts of placeholder forms only for a
// counter that counts a text the same way every time. A CalibratedCounter
// does not (its estimates move with each observation): with one, a cached
// compaction after an observation equals an uncached one. The cache used
// to serve the counts taken before the observation: the originals being
// remembered, their placeholders read the same, while the counter's
// estimate of those placeholders had moved.
func TestMaskCacheCalibratedCounter(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	for seed := range uint64(100) {
		in := lookupConversation(t, seed)
		cal := chitta.NewCalibratedCounter(nil)
		cache := chitta.NewMaskCache()
		opts := func(c *chitta.MaskCache) *chitta.Options {
			return &chitta.Options{TargetRatio: 0.3, Tokens: cal, Mask: &chitta.MaskOptions{MinTokens: 1, Cache: c}}
		}
		cal.Observe(in, 2*truth(in)) // every message of in is remembered
		for range 2 {                // the second call keeps the forms' counts
			_, err := chitta.Compact(ctx, in, opts(cache))
			require.NoError(t, err)
		}
		other := distinctConversation(seed, 30)
		for k := 10; k <= 30; k += 10 {
			cal.Observe(other[:k], 3*truth(other[:k])) // the model's estimates move
		}
		got, err := chitta.Compact(ctx, in, opts(cache))
		require.NoError(t, err)
		want, err := chitta.Compact(ctx, in, opts(nil))
		require.NoError(t, err)
		assert.Equal(t, want.Scores, got.Scores, "seed %d", seed)
		assert.Equal(t, want.Stats, got.Stats, "seed %d", seed)
	}
}

// lookupConversation is a random wire conversation with JSON lookups.
func lookupConversation(t *testing.T, seed uint64) []chitta.Message {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 41))
	in, err := chitta.ParseMessages([]byte(randomWireConversation(r)))
	require.NoError(t, err)
	return jsonLookups(r, in)
}
