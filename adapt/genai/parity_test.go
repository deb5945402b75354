package genai_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/chitta-go/chitta"
	adapter "github.com/chitta-go/chitta/adapt/genai"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
)

// multimodalResponses is a conversation whose function responses carry
// Parts (an image and a file beside the output), one answering by ID and
// one by position.
func multimodalResponses() []*genai.Content {
	png := append([]byte{0x89, 'P', 'N', 'G'}, bytes.Repeat([]byte{7}, 3000)...)
	return []*genai.Content{
		genai.NewContentFromText("Screenshot the page, then fetch the report", genai.RoleUser),
		genai.NewContentFromParts([]*genai.Part{
			{FunctionCall: &genai.FunctionCall{ID: "fc1", Name: "screenshot", Args: map[string]any{"url": "https://x"}}},
			{FunctionCall: &genai.FunctionCall{Name: "fetch", Args: map[string]any{"name": "q3"}}},
		}, genai.RoleModel),
		genai.NewContentFromParts([]*genai.Part{
			{FunctionResponse: &genai.FunctionResponse{ID: "fc1", Name: "screenshot", Response: map[string]any{"output": "captured " + strings.Repeat("the page ", 60)},
				Parts: []*genai.FunctionResponsePart{genai.NewFunctionResponsePartFromBytes(png, "image/png"), nil, {MediaProcessing: "x"}}}},
			{FunctionResponse: &genai.FunctionResponse{Name: "fetch", Response: map[string]any{"pages": 3},
				Parts: []*genai.FunctionResponsePart{genai.NewFunctionResponsePartFromURI("gs://b/q3.pdf", "application/pdf")}}},
		}, genai.RoleUser),
		genai.NewContentFromText("The page shows the Q3 chart.", genai.RoleModel),
		genai.NewContentFromText("Thanks. Anything else?", genai.RoleUser),
	}
}

// TestMessagesFunctionResponseParts: a function response's Parts are
// scored after its output, inline and file data as "[image]" or
// "[document]" (as the content's own parts), a part with neither by its
// JSON, as chitta.ParseMessages reads the SDK's JSON of them; masking a
// response replaces them with the placeholder too, and the conversation
// stays valid on the wire.
func TestMessagesFunctionResponseParts(t *testing.T) {
	t.Parallel()
	msgs := multimodalResponses()
	cm := adapttest.MatchesParse(t, msgs, adapter.Messages)
	assert.True(t, strings.HasSuffix(cm[2].Content, " \n[image]\n{\"mediaProcessing\":\"x\"}\n{\"pages\":3}\n[document]"), cm[2].Content)
	assert.Equal(t, []string{"fc1", "functionCall@1.1"}, cm[2].ToolResultIDs)
	opts := &chitta.Options{TargetRatio: 1, Mask: &chitta.MaskOptions{MaxResultTokens: 20}}
	_, out, res := adapttest.Masked(t, multimodalResponses, adapter.Compact, adapter.Messages, opts)
	require.Equal(t, 1, res.Stats.Masked, "the responses are cut")
	fr := out[2].Parts[0].FunctionResponse
	assert.Nil(t, fr.Parts, "the masked response's image is gone")
	assert.Equal(t, "fc1", fr.ID)
	adapttest.ValidWire(t, out, "the returned values")
}

// TestMessagesNilPartAsParsed: a nil *genai.Part, which the SDK encodes as
// null, is skipped by the adapter and by chitta.ParseMessages alike (the
// parser refused the whole conversation before).
func TestMessagesNilPartAsParsed(t *testing.T) {
	t.Parallel()
	msgs := []*genai.Content{
		{Role: genai.RoleUser, Parts: []*genai.Part{nil, genai.NewPartFromText("list the files")}},
		{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "ls", Args: map[string]any{"dir": "."}}}, nil}},
		{Role: genai.RoleUser, Parts: []*genai.Part{nil, {FunctionResponse: &genai.FunctionResponse{Name: "ls", Response: map[string]any{"output": "a.go"}}}}},
	}
	cm := adapttest.MatchesParse(t, msgs, adapter.Messages)
	assert.Equal(t, "list the files", cm[0].Content)
	assert.Equal(t, cm[1].ToolCallIDs, cm[2].ToolResultIDs, "the call and its response pair by position")
}
