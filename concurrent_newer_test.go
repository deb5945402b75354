package chitta_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// TestCompactConcurrentNewerOptions shares one Options with the newer
// parts (RelevanceReserve, Lexical with a CachedEmbedder holding the
// lexical passes, Mask with a nil Cache and with a shared MaskCache)
// between goroutines: under -race, every result equals the one computed
// alone. A CalibratedCounter observed by other goroutines meanwhile is
// checked for races only, its counts moving by design.
func TestCompactConcurrentNewerOptions(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	he := chitta.NewHashEmbedder(64)
	convs := make([][]chitta.Message, 8)
	for i := range convs {
		convs[i] = lookupConversation(t, uint64(i))
	}
	base := chitta.Options{Query: "look up the reservation", TargetRatio: 0.3, RelevanceReserve: 0.5, Lexical: 0.3}
	for name, mask := range map[string]*chitta.MaskOptions{
		"no mask":       nil,
		"mask":          {MinTokens: 1},
		"mask, cached":  {MinTokens: 1, Cache: chitta.NewMaskCache()},
		"mask, restore": {MinTokens: 1, KeepRecent: 1, Restore: true, Actions: chitta.ActionsByScore},
	} {
		want := make([]*chitta.Result, len(convs))
		for i, msgs := range convs {
			o := base
			o.Embedder, o.Mask = he, mask
			if mask != nil {
				m := *mask
				m.Cache = nil
				o.Mask = &m
			}
			var err error
			want[i], err = chitta.Compact(ctx, msgs, &o)
			require.NoError(t, err)
		}
		shared := base
		shared.Embedder, shared.Mask = chitta.NewCachedEmbedder(he, 64), mask
		shared.Tokens = chitta.NewCachedTokenCounter(nil, 32)
		t.Run(name, func(t *testing.T) { compactConcurrently(t, convs, want, &shared, 2) })
	}

	cal := chitta.NewCalibratedCounter(chitta.NewCachedTokenCounter(nil, 0))
	shared := base
	shared.Embedder, shared.Tokens, shared.Mask = chitta.NewCachedEmbedder(he, 64), cal, &chitta.MaskOptions{MinTokens: 1, Cache: chitta.NewMaskCache()}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for k := range 2 * len(convs) {
				i := (g*3 + k) % len(convs)
				if g%2 == 0 {
					cal.Observe(convs[i], 2*truth(convs[i])+k)
					continue
				}
				_, err := chitta.Compact(ctx, convs[i], &shared)
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 2*2*len(convs), cal.Observations())
}

// compactConcurrently compacts every conversation rounds times from 4
// goroutines sharing opts, and checks each result against want.
func compactConcurrently(t *testing.T, convs [][]chitta.Message, want []*chitta.Result, opts *chitta.Options, rounds int) {
	t.Helper()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for k := range rounds * len(convs) {
				i := (g*3 + k) % len(convs)
				got, err := chitta.Compact(t.Context(), convs[i], opts)
				if !assert.NoError(t, err) {
					return
				}
				assert.Equal(t, want[i].Kept, got.Kept, "conversation %d", i)
				assert.Equal(t, want[i].Scores, got.Scores, "conversation %d", i)
			}
		})
	}
	wg.Wait()
}
