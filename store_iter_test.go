package chitta_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// kindStore returns a store of n memories with 4-d vectors; memory i has
// kind kinds[i%len(kinds)] and ID "m<i>".
func kindStore(t *testing.T, n int, kinds ...string) *chitta.HNSWStore {
	t.Helper()
	s, err := chitta.NewHNSWStore(4, nil)
	require.NoError(t, err)
	for i := range n {
		require.NoError(t, s.Add(t.Context(), chitta.Memory{
			ID: fmt.Sprintf("m%03d", i), Text: fmt.Sprint(i), Kind: kinds[i%len(kinds)], Confidence: 1,
			Vector: []float32{1, float32(i), 0, 1},
		}))
	}
	return s
}

func seqIDs(seq func(func(chitta.Memory) bool)) []string {
	var out []string
	for m := range seq {
		out = append(out, m.ID)
	}
	return out
}

func TestHNSWStoreAll(t *testing.T) {
	t.Parallel()
	s := kindStore(t, 600, chitta.KindFact, chitta.KindEpisode, chitta.KindBrief)
	got := seqIDs(s.All())
	assert.Len(t, got, 600, "more than one batch")
	assert.Len(t, slices.Compact(slices.Sorted(slices.Values(got))), 600, "each once")

	facts := seqIDs(s.AllMatching(chitta.KindFilter{Include: []string{chitta.KindFact}}))
	assert.Len(t, facts, 200)
	notEpisodes := seqIDs(s.AllMatching(chitta.KindFilter{Exclude: []string{chitta.KindEpisode}}))
	assert.Len(t, notEpisodes, 400)

	// The loop body may write to the store: deleting everything while
	// iterating neither deadlocks nor yields a memory twice.
	n := 0
	for m := range s.All() {
		require.NoError(t, s.Delete(m.ID))
		n++
	}
	assert.Equal(t, 600, n)
	assert.Zero(t, s.Len())

	// Early break, copies, nil store.
	s = kindStore(t, 3, chitta.KindFact)
	for m := range s.All() {
		m.Vector[0] = 99
		break
	}
	for m := range s.All() {
		assert.NotEqual(t, float32(99), m.Vector[0], "a yielded memory is a copy")
	}
	var nilStore *chitta.HNSWStore
	assert.Empty(t, seqIDs(nilStore.All()))
}

func TestHNSWStoreRecallMatching(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := chitta.NewHNSWStore(2, nil)
	require.NoError(t, err)
	add := func(id, kind string, v ...float32) {
		require.NoError(t, s.Add(ctx, chitta.Memory{ID: id, Kind: kind, Confidence: 1, Vector: v}))
	}
	add("e1", chitta.KindEpisode, 1, 0)
	add("e2", chitta.KindEpisode, 1, 0.01)
	add("f1", chitta.KindFact, 1, 0.5)
	add("f2", chitta.KindFact, -1, 0)
	noEpisodes := chitta.KindFilter{Exclude: []string{chitta.KindEpisode}}

	hits, err := s.RecallMatching(ctx, []float32{1, 0}, 2, noEpisodes)
	require.NoError(t, err)
	require.Len(t, hits, 2, "the two nearest are episodes: a filtered scan still finds two")
	assert.Equal(t, "f1", hits[0].ID)
	assert.InDelta(t, 1/1.118033988749895, hits[0].Similarity, 1e-6)
	assert.Equal(t, "f2", hits[1].ID)
	assert.InDelta(t, -1, hits[1].Similarity, 1e-9)

	plain, err := s.Recall(ctx, []float32{1, 0}, 2)
	require.NoError(t, err)
	assert.Equal(t, []string{"e1", "e2"}, []string{plain[0].ID, plain[1].ID})

	hits, err = s.RecallMatching(ctx, []float32{1, 0}, 0, noEpisodes)
	require.NoError(t, err)
	assert.Empty(t, hits)
	_, err = s.RecallMatching(ctx, []float32{1, 0, 0}, 1, noEpisodes)
	require.ErrorIs(t, err, chitta.ErrDimensionMismatch)
	_, err = (*chitta.HNSWStore)(nil).RecallMatching(ctx, []float32{1}, 1, noEpisodes)
	require.ErrorIs(t, err, chitta.ErrInvalidOption)
}

// TestHNSWStoreAllEndsWhileAdding copies every memory under a new ID from
// inside the loop body. The iteration must end: memories the body adds in
// new slots are not yielded, or each copy would yield another copy for
// ever (the store grew without bound).
func TestHNSWStoreAllEndsWhileAdding(t *testing.T) {
	t.Parallel()
	const n = 300 // more than one batch
	s := kindStore(t, n, chitta.KindFact)
	yielded := 0
	for m := range s.All() {
		yielded++
		require.LessOrEqual(t, yielded, 2*n, "the iteration does not end")
		m.ID += "+"
		require.NoError(t, s.Add(t.Context(), m))
	}
	assert.Equal(t, n, yielded, "each memory there when the iteration began, once")
	assert.Equal(t, 2*n, s.Len())
}
