package genai_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/chitta-go/chitta"
	adapter "github.com/chitta-go/chitta/adapt/genai"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
)

// TestFunctionScoringText pins the text chitta scores for function calls
// and responses: a call's name, a space and its args, a response's
// response (without the name, as a tool result of the other SDKs reads),
// as encoding/json renders them (sorted keys, HTML-safe escapes, ES6
// numbers).
func TestFunctionScoringText(t *testing.T) {
	t.Parallel()
	msgs, err := adapter.Messages([]*genai.Content{
		genai.NewContentFromParts([]*genai.Part{{FunctionCall: &genai.FunctionCall{ID: "c1", Name: "grep", Args: map[string]any{"pattern": "a<b && c", "paths": []any{"x.go", "y.go"}, "max": 1e-7}}}}, genai.RoleModel),
		genai.NewContentFromParts([]*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: "c1", Name: "grep", Response: map[string]any{"output": "x.go:3: a<b\ty.go:\"q\"", "n": 2, "ok": true, "err": nil}}}}, genai.RoleUser),
	})
	require.NoError(t, err)
	assert.Equal(t, `grep {"max":1e-7,"paths":["x.go","y.go"],"pattern":"a\u003cb \u0026\u0026 c"}`, msgs[0].Content)
	assert.Equal(t, `{"err":null,"n":2,"ok":true,"output":"x.go:3: a\u003cb\ty.go:\"q\""}`, msgs[1].Content)
}

// TestOutputResponseText: a response that is only {"output": s} or
// {"error": s}, s a string, is scored as s itself, as
// ParseMessages reads the same JSON; anything else as its JSON.
func TestOutputResponseText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		response map[string]any
		want     string
	}{
		{map[string]any{"output": `{"name": "Ann"}`}, `{"name": "Ann"}`},
		{map[string]any{"error": "card declined"}, "card declined"},
		{map[string]any{"output": "x", "n": 1}, `{"n":1,"output":"x"}`},
		{map[string]any{"output": 7}, `{"output":7}`},
		{map[string]any{"result": "x"}, `{"result":"x"}`},
	}
	for _, tt := range tests {
		msgs, err := adapter.Messages([]*genai.Content{
			genai.NewContentFromParts([]*genai.Part{{FunctionCall: &genai.FunctionCall{ID: "a", Name: "user"}}}, genai.RoleModel),
			genai.NewContentFromParts([]*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: "a", Name: "user", Response: tt.response}}}, genai.RoleUser),
		})
		require.NoError(t, err)
		assert.Equal(t, tt.want, msgs[1].Content, "%v", tt.response)
		raw, err := json.Marshal(tt.response)
		require.NoError(t, err)
		parsed, err := chitta.ParseMessages([]byte(`[{"role":"model","parts":[{"functionCall":{"id":"a","name":"user"}}]},{"role":"user","parts":[{"functionResponse":{"id":"a","name":"user","response":` + string(raw) + `}}]}]`))
		require.NoError(t, err)
		assert.Equal(t, msgs[1].Content, parsed[1].Content, "ParseMessages reads the same JSON alike")
	}
}

// TestMessagesEmptyArgsAsParsed: a call without arguments (Args nil or
// empty, which the SDK's JSON omits) reads as its name and an empty
// response as no text, as chitta.ParseMessages reads the JSON (the
// adapter scored them as "null" and "{}"); a server tool call without
// arguments alike.
func TestMessagesEmptyArgsAsParsed(t *testing.T) {
	t.Parallel()
	msgs := []*genai.Content{
		genai.NewContentFromText("list the files", genai.RoleUser),
		{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{ID: "x", Name: "ls"}}}},
		{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: "x", Name: "ls"}}}},
		{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "pwd", Args: map[string]any{}}}, genai.NewPartFromText("and")}},
		{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{Name: "pwd", Response: map[string]any{}}}, genai.NewPartFromText("done")}},
	}
	cm := adapttest.MatchesParse(t, msgs, adapter.Messages)
	assert.Equal(t, "ls ", cm[1].Content)
	assert.Empty(t, cm[2].Content)
	assert.Equal(t, "pwd \nand", cm[3].Content)
	assert.Equal(t, "done", cm[4].Content)
	search, err := adapter.Messages([]*genai.Content{{Role: genai.RoleModel, Parts: []*genai.Part{{ToolCall: &genai.ToolCall{ID: "s", ToolType: genai.ToolTypeGoogleSearchWeb}}}}})
	require.NoError(t, err)
	assert.Equal(t, "GOOGLE_SEARCH_WEB ", search[0].Content)
}
