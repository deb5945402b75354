package genai_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	adapter "github.com/chitta-go/chitta/adapt/genai"
)

// TestFunctionScoringText pins the text chitta scores for function calls
// and responses: the name, a space and the args or response as
// encoding/json renders them (sorted keys, HTML-safe escapes, ES6 numbers).
func TestFunctionScoringText(t *testing.T) {
	t.Parallel()
	msgs, err := adapter.Messages([]*genai.Content{
		genai.NewContentFromParts([]*genai.Part{{FunctionCall: &genai.FunctionCall{ID: "c1", Name: "grep", Args: map[string]any{"pattern": "a<b && c", "paths": []any{"x.go", "y.go"}, "max": 1e-7}}}}, genai.RoleModel),
		genai.NewContentFromParts([]*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: "c1", Name: "grep", Response: map[string]any{"output": "x.go:3: a<b\ty.go:\"q\"", "n": 2, "ok": true, "err": nil}}}}, genai.RoleUser),
	})
	require.NoError(t, err)
	assert.Equal(t, `grep {"max":1e-7,"paths":["x.go","y.go"],"pattern":"a\u003cb \u0026\u0026 c"}`, msgs[0].Content)
	assert.Equal(t, `grep {"err":null,"n":2,"ok":true,"output":"x.go:3: a\u003cb\ty.go:\"q\""}`, msgs[1].Content)
}
