package main

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/chittatest"
)

// TestCompactContextQueryEmbedder: compact_context embeds its query with
// the app's query side when it has one (an asymmetric llamacpp model) and
// the messages with the embedder; without one, the query with the messages.
func TestCompactContextQueryEmbedder(t *testing.T) {
	t.Parallel()
	const query = "fix the nil pointer panic in Parse"
	for _, withQueries := range []bool{false, true} {
		a, _ := newTestApp(t)
		docs := &chittatest.CountingEmbedder{Next: chitta.NewHashEmbedder(testDims)}
		queries := &chittatest.CountingEmbedder{Next: chitta.NewHashEmbedder(testDims)}
		a.embedder = docs
		if withQueries {
			a.queries = queries
		}
		cs := connect(t, a)
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{
			Name:      "compact_context",
			Arguments: json.RawMessage(`{"messages": ` + conversation + `, "query": "` + query + `", "target_ratio": 0.5}`),
		})
		require.NoError(t, err)
		require.False(t, res.IsError, "%v", res.Content)
		if withQueries {
			assert.Equal(t, []string{query}, queries.Texts())
			assert.NotContains(t, docs.Texts(), query)
		} else {
			assert.Zero(t, queries.Calls())
			assert.Contains(t, docs.Texts(), query)
		}
		assert.Positive(t, docs.Calls())
	}
}
