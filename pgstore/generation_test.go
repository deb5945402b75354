package pgstore

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// TestCoverageCacheAfterRecreate: the tables dropped and created again
// (by hand, by a reset script, by a later Open) while a Store and a
// chitta.CoverageCache live on must not give a generation seen before:
// the cache keys its entries by (store, generation), and a counter that
// restarted at 1 served the old tables' coverage for the new tables'
// memories.
func TestCoverageCacheAfterRecreate(t *testing.T) {
	ctx := t.Context()
	emb := chitta.NewHashEmbedder(64)
	s := openTest(t, Options{Dims: 64})
	add := func(text string) uint64 {
		t.Helper()
		v, err := emb.Embed(ctx, []string{text})
		require.NoError(t, err)
		require.NoError(t, s.Add(ctx, chitta.Memory{Text: text, Kind: chitta.KindFact, Vector: v[0]}))
		g, err := s.Generation(ctx)
		require.NoError(t, err)
		return g
	}
	msgs := []chitta.Message{
		{Role: chitta.RoleUser, Content: "the deploy key rotates every 90 days"},
		{Role: chitta.RoleAssistant, Content: "noted: the deploy key rotates every 90 days"},
		{Role: chitta.RoleUser, Content: "now fix the flaky retry test"},
	}
	cache := &chitta.CoverageCache{}
	coverage := func(cache *chitta.CoverageCache) []float64 {
		t.Helper()
		res, err := chitta.Compact(ctx, msgs, &chitta.Options{Embedder: emb, Store: s, CoverageCache: cache, TargetRatio: 1})
		require.NoError(t, err)
		out := make([]float64, len(res.Scores))
		for i, sc := range res.Scores {
			out[i] = sc.Coverage
		}
		return out
	}

	before := add("the deploy key rotates every 90 days")
	old := coverage(cache)
	require.Greater(t, old[0], 0.9, "the memory covers the first message")

	// Drop the tables and let another Open create them again.
	tb := s.opts.Table
	_, err := s.pool.Exec(ctx, "DROP TABLE "+quote(tb)+", "+quote(tb+"_schema")+", "+quote(tb+"_generation"))
	require.NoError(t, err)
	other, err := Open(ctx, testDSN(t), &Options{Dims: 64, Table: tb})
	require.NoError(t, err)
	other.Close()
	g, err := s.Generation(ctx)
	require.NoError(t, err)
	assert.Zero(t, g, "an empty namespace")

	after := add("user prefers tabs over spaces")
	assert.NotEqual(t, before, after, "a generation is never given again")
	want := coverage(nil)
	assert.Less(t, want[0], 0.9, "the new memory does not cover the first message")
	assert.Equal(t, want, coverage(cache), "the cache serves the new tables' coverage")
}
