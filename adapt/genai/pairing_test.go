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
