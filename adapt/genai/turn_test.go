package genai_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/chitta-go/chitta"
	adapter "github.com/chitta-go/chitta/adapt/genai"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
)

// droppedPrompt is a conversation the Gemini API accepts: a model text
// turn, a long prompt, then a function-call turn. Under a budget that fits
// all but the prompt (which scores below the call group), the prompt used
// to be dropped, leaving the model text right before the function call:
// the API answers 400 "Please ensure that function call turn comes
// immediately after a user turn or after a function response turn".
func droppedPrompt() []*genai.Content {
	return []*genai.Content{
		genai.NewContentFromText("plan the trip", genai.RoleUser),
		genai.NewContentFromText("which city", genai.RoleModel),
		genai.NewContentFromText(strings.Repeat("word ", 60), genai.RoleUser),
		genai.NewContentFromFunctionCall("flights", map[string]any{"to": "NRT"}, genai.RoleModel),
		genai.NewContentFromFunctionResponse("flights", map[string]any{"output": "three flights"}, genai.RoleUser),
		genai.NewContentFromText("found three", genai.RoleModel),
		genai.NewContentFromText("book the first", genai.RoleUser),
	}
}

// callTurnFault returns the index in out of the first function-call
// content that does not come right after a user content (a prompt or a
// function response), or -1.
func callTurnFault(out []*genai.Content) int {
	for j, c := range out {
		calls := false
		for _, p := range c.Parts {
			calls = calls || (p != nil && p.FunctionCall != nil)
		}
		if calls && (j == 0 || out[j-1].Role == genai.RoleModel) {
			return j
		}
	}
	return -1
}

// TestCompactCallTurnAfterUser: Compact and the Compactor keep the prompt
// a kept function-call turn needs (and the call group with it), so that
// the call comes right after a user turn, as the Gemini API requires.
func TestCompactCallTurnAfterUser(t *testing.T) {
	t.Parallel()
	in := droppedPrompt()
	require.Equal(t, -1, callTurnFault(in), "the input is valid")
	opts := &chitta.Options{MaxTokens: 30, Tokens: chitta.TokenCounterFunc(chitta.CountWords)}
	out, res, err := adapter.Compact(t.Context(), in, opts)
	require.NoError(t, err)
	assert.Equal(t, -1, callTurnFault(out), "kept %v", res.Kept)
	assert.Equal(t, []int{2, 3, 4, 6}, res.Kept, "the prompt before the call is kept, and so is the call group")
	adapttest.ValidWire(t, out, "the returned values")

	c, err := adapter.NewCompactor(opts, chitta.Policy{MaxTokens: 30})
	require.NoError(t, err)
	out, res, err = c.Compact(t.Context(), in)
	require.NoError(t, err)
	assert.Equal(t, -1, callTurnFault(out), "Compactor: kept %v", res.Kept)
	adapttest.ValidWire(t, out, "the Compactor's values")
}
