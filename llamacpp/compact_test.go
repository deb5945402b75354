//go:build cgo && llamacpp

package llamacpp

import (
	"testing"

	"github.com/chitta-go/chitta"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompactQueryEmbedder: with QueryEmbedder: e.Queries(), Compact
// compares the messages' document vectors (DocumentPrefix) with the query's
// query vector (QueryPrefix); without it, with the query's document vector.
func TestCompactQueryEmbedder(t *testing.T) {
	ctx := t.Context()
	e := newTiny(t, &Options{QueryPrefix: "query: ", DocumentPrefix: "passage: "})
	msgs := []chitta.Message{
		{Role: chitta.RoleUser, Content: "the build failed in parseConfig"},
		{Role: chitta.RoleAssistant, Content: "added a default path and retried"},
		{Role: chitta.RoleUser, Content: "now the tests pass with race enabled"},
	}
	const query = "why did the build fail"
	texts := []string{msgs[0].Content, msgs[1].Content, msgs[2].Content}
	docs, err := e.Embed(ctx, texts)
	require.NoError(t, err)
	q, err := e.EmbedQueries(ctx, []string{query})
	require.NoError(t, err)
	qd, err := e.Embed(ctx, []string{query})
	require.NoError(t, err)

	asym, err := chitta.Compact(ctx, msgs, &chitta.Options{Query: query, Embedder: e, QueryEmbedder: e.Queries()})
	require.NoError(t, err)
	sym, err := chitta.Compact(ctx, msgs, &chitta.Options{Query: query, Embedder: e})
	require.NoError(t, err)
	require.True(t, asym.Stats.Embedding)
	differs := false
	for i := range msgs {
		want := max(0, cosine(docs[i], q[0]))
		assert.InDelta(t, want, asym.Scores[i].Semantic, 1e-5, "message %d: cosine to the query side", i)
		assert.InDelta(t, max(0, cosine(docs[i], qd[0])), sym.Scores[i].Semantic, 1e-5, "message %d: cosine to the document side", i)
		differs = differs || asym.Scores[i].Semantic != sym.Scores[i].Semantic
	}
	assert.True(t, differs, "the prefixes change the query's vector")
}
