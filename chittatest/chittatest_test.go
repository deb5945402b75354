package chittatest_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/chittatest"
)

func TestTableEmbedder(t *testing.T) {
	vec := []float32{1, 0}
	e := &chittatest.TableEmbedder{Vectors: map[string][]float32{"a": vec}}
	got, err := e.Embed(t.Context(), []string{"a"})
	require.NoError(t, err)
	got[0][0] = 9
	assert.Equal(t, float32(1), vec[0], "Embed returns a copy; the table stays the test's")

	_, err = e.Embed(t.Context(), []string{"b"})
	require.ErrorContains(t, err, `no vector for "b"`)
	assert.Equal(t, 2, e.CallCount())
	assert.Equal(t, [][]string{{"a"}, {"b"}}, e.Calls)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = e.Embed(ctx, []string{"a"})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 2, e.CallCount(), "a cancelled call is not recorded")
}

func TestSeededEmbedder(t *testing.T) {
	e := chittatest.SeededEmbedder{Dims: 8}
	got, err := e.Embed(t.Context(), []string{"x", "x", "y"})
	require.NoError(t, err)
	require.Len(t, got, 3)
	assert.Len(t, got[0], 8)
	assert.Equal(t, got[0], got[1], "equal texts give equal vectors")
	assert.NotEqual(t, got[0], got[2])
	assert.Equal(t, chittatest.SeededVector("x", 8), got[0])
	for _, v := range got[0] {
		assert.True(t, v >= -1 && v <= 1, "component %v outside [-1, 1]", v)
	}
}

func TestSeededEmbedderZeroDims(t *testing.T) {
	msgs := []chitta.Message{{Role: chitta.RoleUser, Content: "a b c"}, {Role: chitta.RoleUser, Content: "d e f"}, {Role: chitta.RoleUser, Content: "g h i"}}
	for _, dims := range []int{0, 8} {
		res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Embedder: chittatest.SeededEmbedder{Dims: dims}, Store: &chittatest.Store{}, MaxTokens: 5})
		require.NoError(t, err)
		assert.Equal(t, dims > 0, res.Stats.Embedding, "Dims %d: the zero value's empty vectors count as a failed embedder, as its doc says", dims)
	}
}

func TestCountingEmbedder(t *testing.T) {
	var zero chittatest.CountingEmbedder
	_, err := zero.Embed(t.Context(), []string{"a"})
	require.ErrorContains(t, err, "Next is nil", "the zero value fails; it does not panic")

	boom := errors.New("boom")
	c := &chittatest.CountingEmbedder{Next: chittatest.SeededEmbedder{Dims: 4}}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			_, err := c.Embed(t.Context(), []string{"p", "q"})
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	assert.Equal(t, 8, c.Calls())
	assert.Len(t, c.Texts(), 16)

	c.Reset()
	c.Corrupt = func(v [][]float32) [][]float32 { return v[:1] }
	got, err := c.Embed(t.Context(), []string{"p", "q"})
	require.NoError(t, err)
	assert.Len(t, got, 1, "Corrupt rewrites Next's answer")

	c.Err = boom
	_, err = c.Embed(t.Context(), []string{"p"})
	require.ErrorIs(t, err, boom)
	assert.Equal(t, 2, c.Calls())
}

func TestStore(t *testing.T) {
	var s chittatest.Store
	ctx := t.Context()
	hits, err := s.Recall(ctx, []float32{1, 0}, 3)
	require.NoError(t, err)
	assert.Empty(t, hits, "the zero value is an empty store")

	require.NoError(t, s.Add(ctx, chitta.Memory{ID: "a", Text: "old", Vector: []float32{1, 0}}))
	require.NoError(t, s.Add(ctx, chitta.Memory{ID: "b", Vector: []float32{0, 1}}))
	require.NoError(t, s.Add(ctx, chitta.Memory{ID: "a", Text: "new", Vector: []float32{1, 0}}))
	require.Len(t, s.Memories, 2, "an Add with a known ID replaces")
	assert.Equal(t, "new", s.Memories[0].Text)

	hits, err = s.Recall(ctx, []float32{1, 0.1}, 1)
	require.NoError(t, err)
	require.Len(t, hits, 1)
	assert.Equal(t, "a", hits[0].Memory.ID)
	assert.InDelta(t, 0.995, hits[0].Similarity, 1e-3)

	hits, err = s.Recall(ctx, []float32{1, 0, 0}, 2)
	require.NoError(t, err)
	for _, h := range hits {
		assert.Zero(t, h.Similarity, "a query of another dimension matches nothing")
	}
	assert.Equal(t, 3, s.Recalls)

	boom := errors.New("down")
	s.Err, s.AddErr = boom, boom
	_, err = s.Recall(ctx, []float32{1, 0}, 1)
	require.ErrorIs(t, err, boom)
	require.ErrorIs(t, s.Add(ctx, chitta.Memory{ID: "c"}), boom)
}

// A test of code that calls chitta, with an exact in-memory store and a
// deterministic embedder: the turn the store already knows is dropped.
func Example() {
	ctx := context.Background()
	emb := chittatest.SeededEmbedder{Dims: 16}
	store := &chittatest.Store{}
	known := "the deploy key lives in vault under ops/deploy"
	if err := store.Add(ctx, chitta.Memory{ID: "m1", Text: known, Vector: chittatest.SeededVector(known, 16)}); err != nil {
		panic(err)
	}
	msgs := []chitta.Message{
		{Role: chitta.RoleUser, Content: known},
		{Role: chitta.RoleUser, Content: "please rotate the staging certificate today"},
		{Role: chitta.RoleUser, Content: "and then tell me when it is done"},
	}
	res, err := chitta.Compact(ctx, msgs, &chitta.Options{Embedder: emb, Store: store, MaxTokens: 20, KeepLast: 1})
	if err != nil {
		panic(err)
	}
	for _, m := range res.Messages {
		fmt.Println(m.Content)
	}
	fmt.Println("recalls:", store.Recalls)
	// Output:
	// please rotate the staging certificate today
	// and then tell me when it is done
	// recalls: 3
}
