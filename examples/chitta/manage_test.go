package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// callJSON calls a tool over cs and decodes its structured result into out.
func callJSON(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content)
	require.NoError(t, json.Unmarshal(structuredJSON(t, res), out))
}

// TestListForgetExec drives list_memories and forget through a real MCP
// session: the built binary, the official SDK client over stdio.
func TestListForgetExec(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	home := t.TempDir()
	store := filepath.Join(home, "m.chitta")
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(binary, "--store", store)}, nil)
	require.NoError(t, err)
	defer cs.Close()

	var ids []string
	for _, m := range []struct{ text, kind string }{
		{"The staging database is read-only on Fridays.", chitta.KindFact},
		{"Never force-push to main.", chitta.KindCorrection},
		{"[pre-compact] Memory-aware compaction: 100→40 tokens. Session: s", chitta.KindEpisode},
		{"The user prefers table tests.", chitta.KindPreference},
	} {
		var out rememberOutput
		callJSON(t, cs, "remember", map[string]any{"text": m.text, "kind": m.kind}, &out)
		ids = append(ids, out.ID)
	}

	var list listOutput
	callJSON(t, cs, "list_memories", nil, &list)
	assert.Equal(t, 4, list.Total)
	require.Len(t, list.Memories, 4)
	assert.Equal(t, []string{ids[3], ids[2], ids[1], ids[0]}, listedIDs(list), "newest first")
	assert.Equal(t, "Never force-push to main.", list.Memories[2].Text)

	callJSON(t, cs, "list_memories", map[string]any{"exclude_kinds": []string{"episode"}, "limit": 2, "offset": 1}, &list)
	assert.Equal(t, 3, list.Total)
	assert.Equal(t, 1, list.Offset)
	assert.Equal(t, []string{ids[1], ids[0]}, listedIDs(list))
	callJSON(t, cs, "list_memories", map[string]any{"kinds": []string{"correction", "preference"}}, &list)
	assert.Equal(t, []string{ids[3], ids[1]}, listedIDs(list))
	callJSON(t, cs, "list_memories", map[string]any{"offset": 10}, &list)
	assert.Equal(t, 4, list.Total)
	assert.Empty(t, list.Memories)

	var gone forgetOutput
	callJSON(t, cs, "forget", map[string]any{"id": ids[1]}, &gone)
	assert.Equal(t, forgetOutput{ID: ids[1], Memories: 3}, gone)

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "forget", Arguments: map[string]any{"id": ids[1]}})
	assert.Contains(t, argError(t, res, err), `id: no memory with ID "`+ids[1]+`"`)

	// The deletion is in the file: another process does not see it.
	r := runChitta(t, home, call(1, "list_memories", `{}`), "--store", store)
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stdout, "force-push")
	assert.Contains(t, r.stdout, "read-only on Fridays")
	// The largest offset is a page past the end too, not an internal
	// error (offset+limit overflowed). (One-shot: an SDK client reads the
	// structured result's numbers as float64.)
	r = runChitta(t, home, call(3, "list_memories", `{"offset":9223372036854775807}`), "--store", store)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, `"memories":[],"total":3,"offset":9223372036854775807`)
	r = runChitta(t, home, call(2, "forget", `{"id":"nope"}`), "--store", store)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, `"isError":true`)
	assert.NotContains(t, r.stdout, `"error"`)
	assert.Contains(t, r.stdout, `no memory with ID \"nope\"`)
}

func listedIDs(l listOutput) []string {
	out := []string{}
	for _, m := range l.Memories {
		out = append(out, m.ID)
	}
	return out
}

func TestListForgetInvalidArguments(t *testing.T) {
	t.Parallel()
	a, saves := newTestApp(t)
	cs := connect(t, a)
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"list_memories", map[string]any{"limit": 0}, "limit: 0 out of range, want 1 to 1000 (default 50)"},
		{"list_memories", map[string]any{"limit": 1001}, "limit: 1001 out of range"},
		{"list_memories", map[string]any{"offset": -1}, "offset: -1 out of range, want >= 0"},
		{"list_memories", map[string]any{"kinds": []string{""}}, "kinds[0]: want a non-empty kind"},
		{"list_memories", map[string]any{"kinds": "fact"}, "kinds: want"},
		{"forget", map[string]any{}, "id: required"},
		{"forget", map[string]any{"id": 7}, "id: want a string"},
		{"forget", map[string]any{"id": "x", "extra": 1}, `unknown field "extra"`},
		{"recall", map[string]any{"text": "x", "min_similarity": 1.5}, "min_similarity: 1.5 out of range, want 0 to 1 (default 0)"},
		{"recall", map[string]any{"text": "x", "min_similarity": -0.1}, "min_similarity: -0.1 out of range"},
	}
	for _, tt := range tests {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
		assert.Contains(t, argError(t, res, err, "%s %v", tt.tool, tt.args), tt.want)
	}
	assert.Zero(t, saves.Load())
}

// TestRecallMinSimilarity: recall never returns a negative similarity and
// honours min_similarity.
func TestRecallMinSimilarity(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, err := chitta.NewHNSWStore(2, nil)
	require.NoError(t, err)
	for id, v := range map[string][]float32{"same": {1, 0}, "near": {0.6, 0.8}, "opposite": {-1, 0}, "away": {-0.6, 0.8}} {
		require.NoError(t, store.Add(ctx, chitta.Memory{ID: id, Text: id, Kind: chitta.KindFact, Confidence: 1, Vector: v}))
	}
	emb := chitta.EmbedderFunc(func(_ context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i := range texts {
			out[i] = []float32{1, 0}
		}
		return out, nil
	})
	cs := connect(t, newApp(store, emb, nil, nil))
	tests := []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"text": "q", "k": 4}, []string{"same", "near"}},
		{map[string]any{"text": "q", "k": 4, "min_similarity": 0.7}, []string{"same"}},
		{map[string]any{"text": "q", "k": 4, "min_similarity": 0}, []string{"same", "near"}},
		{map[string]any{"text": "q", "k": 1}, []string{"same"}},
	}
	for _, tt := range tests {
		var out recallOutput
		callJSON(t, cs, "recall", tt.args, &out)
		var got []string
		for _, m := range out.Memories {
			got = append(got, m.ID)
			assert.GreaterOrEqual(t, m.Similarity, 0.0)
		}
		assert.Equal(t, tt.want, got, "%v", tt.args)
	}
}
