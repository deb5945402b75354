package chitta_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// TestCompactConcurrentSharedOptions runs Compact from several goroutines
// over one shared Options holding the package's own concurrent-safe parts
// (CachedEmbedder over HashEmbedder, CachedTokenCounter, HNSWStore) and
// checks, under -race, that every result equals the one computed alone.
// A second phase distils into the shared store while other goroutines
// recall from it.
func TestCompactConcurrentSharedOptions(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	convs := randomConversations(21, 12)
	const dims = 64
	store, err := chitta.NewHNSWStore(dims, nil)
	require.NoError(t, err)
	he := chitta.NewHashEmbedder(dims)
	for i, text := range chitta.SynthTurns(3, 30) {
		v, err := he.Embed(ctx, []string{text})
		require.NoError(t, err)
		if err := store.Add(ctx, chitta.Memory{ID: fmt.Sprint(i), Text: text, Vector: v[0]}); err != nil {
			require.ErrorIs(t, err, chitta.ErrInvalidVector) // a text without words
		}
	}
	opts := &chitta.Options{
		Query:    "fix the config error",
		Embedder: chitta.NewCachedEmbedder(he, 64), // small: evictions while others read
		Store:    store,
		Tokens:   chitta.NewCachedTokenCounter(nil, 32),
		KeepLast: 2,
	}
	want := make([]*chitta.Result, len(convs))
	for i, msgs := range convs {
		want[i], err = chitta.Compact(ctx, msgs, &chitta.Options{Query: opts.Query, Embedder: he, Store: store, KeepLast: 2})
		require.NoError(t, err)
	}

	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			for k := range 3 * len(convs) {
				i := (g*5 + k) % len(convs)
				got, err := chitta.Compact(ctx, convs[i], opts)
				if !assert.NoError(t, err) {
					return
				}
				assert.Equal(t, want[i].Kept, got.Kept, "conversation %d", i)
				assert.Equal(t, want[i].Scores, got.Scores, "conversation %d", i)
			}
		})
	}
	wg.Wait()

	distil := *opts
	distil.DistillNovel = true
	for g := range 4 {
		wg.Go(func() {
			for k := range len(convs) {
				i := (g*3 + k) % len(convs)
				o := opts
				if g%2 == 0 {
					o = &distil
				}
				got, err := chitta.Compact(ctx, convs[i], o)
				if !assert.NoError(t, err) {
					return
				}
				assert.NoError(t, got.DistillErr)
				assert.Len(t, got.Distilled, got.Stats.Distilled)
			}
		})
	}
	wg.Wait()
	assert.Greater(t, store.Len(), 30, "the distilling goroutines recorded memories")
}
