package main

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/chittatest"
	"github.com/chitta-go/chitta/examples/internal/claudecode"
)

// TestCompactQueryEmbedder: the hook's compaction embeds the query with
// the embedder's query side when it has one (embedspec.Embedder.Queries,
// an asymmetric llamacpp model) and the turns with the embedder; the brief
// is made either way.
func TestCompactQueryEmbedder(t *testing.T) {
	t.Parallel()
	tr, err := readTranscript(t.Context(), writeTranscript(t, 12))
	require.NoError(t, err)
	window := claudecode.Tail(tr.Turns, turns)
	cfg, err := parseFlags(nil, io.Discard)
	require.NoError(t, err)
	const query = "the HTTP timeout"
	docs := &chittatest.CountingEmbedder{Next: chitta.NewHashEmbedder(0)}
	queries := &chittatest.CountingEmbedder{Next: chitta.NewHashEmbedder(0)}
	hs, err := chitta.NewHNSWStore(chitta.DefaultHashDimensions, nil)
	require.NoError(t, err)
	o := compactAndRecord(t.Context(), cfg, query, window, "sess", docs, queries, &failingStore{HNSWStore: hs}, nil)
	require.NoError(t, o.err)
	assert.Contains(t, o.stdout, "Preservation brief from chitta")
	assert.Equal(t, []string{query}, queries.Texts())
	assert.NotContains(t, docs.Texts(), query)
	assert.Positive(t, docs.Calls())
}
