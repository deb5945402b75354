package genai_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"google.golang.org/genai"

	adapter "github.com/chitta-go/chitta/adapt/genai"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
)

// idCallsBareResponses is a turn whose function calls carry IDs (as the
// API may send them) answered by responses without IDs, as the SDK's
// genai.NewPartFromFunctionResponse(name, response) builds them: the
// Gemini API pairs them by position. The second turn answers its calls
// out of order, the first response by ID, the second by position.
func idCallsBareResponses() []*genai.Content {
	return []*genai.Content{
		genai.NewContentFromText("weather in paris and rome", genai.RoleUser),
		genai.NewContentFromParts([]*genai.Part{
			{FunctionCall: &genai.FunctionCall{ID: "a", Name: "weather", Args: map[string]any{"city": "paris"}}},
			{FunctionCall: &genai.FunctionCall{ID: "b", Name: "weather", Args: map[string]any{"city": "rome"}}},
		}, genai.RoleModel),
		genai.NewContentFromParts([]*genai.Part{
			genai.NewPartFromFunctionResponse("weather", map[string]any{"output": "sunny " + strings.Repeat("warm ", 60)}),
			genai.NewPartFromFunctionResponse("weather", map[string]any{"output": "rain"}),
		}, genai.RoleUser),
		genai.NewContentFromText("Paris is sunny, Rome rainy.", genai.RoleModel),
		genai.NewContentFromText("and the forecast for both?", genai.RoleUser),
		genai.NewContentFromParts([]*genai.Part{
			{FunctionCall: &genai.FunctionCall{ID: "c", Name: "forecast", Args: map[string]any{"city": "paris"}}},
			{FunctionCall: &genai.FunctionCall{ID: "d", Name: "forecast", Args: map[string]any{"city": "rome"}}},
		}, genai.RoleModel),
		genai.NewContentFromParts([]*genai.Part{
			{FunctionResponse: &genai.FunctionResponse{ID: "d", Name: "forecast", Response: map[string]any{"output": "storms " + strings.Repeat("wet ", 60)}}},
			genai.NewPartFromFunctionResponse("forecast", map[string]any{"output": "clear"}),
		}, genai.RoleUser),
		genai.NewContentFromText("thanks", genai.RoleUser),
	}
}

// TestIDCallsPairWithBareResponses: a function response without an ID
// answers the next unanswered call of the turn before it, whether or not
// that call has an ID, as chitta.ParseMessages pairs the SDK's JSON and
// the Gemini API pairs them (the adapter paired only calls without IDs by
// position, so that Compact kept the calls and dropped their responses,
// a call turn with no response turn, which the API refuses).
func TestIDCallsPairWithBareResponses(t *testing.T) {
	t.Parallel()
	cm := adapttest.MatchesParse(t, idCallsBareResponses(), adapter.Messages)
	assert.Equal(t, []string{"a", "b"}, cm[2].ToolResultIDs)
	assert.Equal(t, []string{"d", "c"}, cm[6].ToolResultIDs)
	adapttest.KeepsPairsAndValues(t, idCallsBareResponses, adapter.Compact, []int{1, 2}, []int{5, 6})
}

// streamedTurns is a history as the SDK's Chat.SendStream records it: one
// model content a chunk, a streamed reply's text and its parallel calls
// (without IDs, as the Gemini API sends them) in contents of their own.
// The second turn's call has no response (the user moved on), so it must
// not take one of the third turn's.
func streamedTurns() []*genai.Content {
	call := func(name, city string) *genai.Content {
		return genai.NewContentFromFunctionCall(name, map[string]any{"city": city}, genai.RoleModel)
	}
	return []*genai.Content{
		genai.NewContentFromText("weather in paris and rome", genai.RoleUser),
		genai.NewContentFromText("Let me check both.", genai.RoleModel),
		call("weather", "paris"),
		call("weather", "rome"),
		genai.NewContentFromParts([]*genai.Part{
			genai.NewPartFromFunctionResponse("weather", map[string]any{"output": "sunny " + strings.Repeat("warm ", 60)}),
			genai.NewPartFromFunctionResponse("weather", map[string]any{"output": "rain"}),
		}, genai.RoleUser),
		genai.NewContentFromText("Paris is sunny, Rome rainy.", genai.RoleModel),
		call("forecast", "oslo"),
		genai.NewContentFromText("never mind oslo; the forecast for paris?", genai.RoleUser),
		genai.NewContentFromText("Checking.", genai.RoleModel),
		call("forecast", "paris"),
		genai.NewContentFromParts([]*genai.Part{
			genai.NewPartFromFunctionResponse("forecast", map[string]any{"output": "storms " + strings.Repeat("wet ", 60)}),
		}, genai.RoleUser),
		genai.NewContentFromText("thanks", genai.RoleUser),
	}
}

// TestStreamedTurnsPair: the parallel calls of a streamed reply, one
// content each, are one turn: the responses without IDs answer them in
// order. The adapter, and chitta.ParseMessages, took each content for a
// turn of its own, so both responses answered the last call and the first
// was left unanswered: Compact could keep the responses without it.
func TestStreamedTurnsPair(t *testing.T) {
	t.Parallel()
	cm := adapttest.MatchesParse(t, streamedTurns(), adapter.Messages)
	assert.Equal(t, []string{"functionCall@2.0", "functionCall@3.0"}, cm[4].ToolResultIDs)
	assert.Equal(t, []string{"functionCall@9.0"}, cm[10].ToolResultIDs, "a turn after a user text starts anew")
	adapttest.KeepsPairsAndValues(t, streamedTurns, adapter.Compact, []int{2, 3, 4}, []int{9, 10})
}
