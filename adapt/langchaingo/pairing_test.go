package langchaingo_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
	"github.com/chitta-go/chitta/adapt/langchaingo"
)

// geminiTools is a conversation as langchaingo's googleai and vertex
// providers make it: their ToolCalls carry no ID, and the tool messages
// answer them with a ToolCallResponse of the tool's name and output only
// (as langchaingo's own googleai tests build them), in the order of the
// calls, one tool message each or one for both; a function message (the
// legacy role, a ToolCallResponse of a name, as langchaingo's OpenAI
// functions agent builds it) answers the last call.
func geminiTools() []llms.MessageContent {
	call := func(name, city string) llms.ContentPart {
		return llms.ToolCall{Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: fmt.Sprintf(`{"location":%q}`, city)}}
	}
	answer := func(role llms.ChatMessageType, rs ...llms.ContentPart) llms.MessageContent {
		return llms.MessageContent{Role: role, Parts: rs}
	}
	out := func(name, text string) llms.ContentPart { return llms.ToolCallResponse{Name: name, Content: text} }
	return []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "What is the weather like in Chicago and in Boston?"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{call("getCurrentWeather", "Chicago"), call("getCurrentWeather", "Boston")}},
		answer(llms.ChatMessageTypeTool, out("getCurrentWeather", "64 and sunny "+strings.Repeat("breeze ", 60))),
		answer(llms.ChatMessageTypeTool, out("getCurrentWeather", "51 and rainy")),
		llms.TextParts(llms.ChatMessageTypeAI, "Chicago is sunny, Boston rainy."),
		llms.TextParts(llms.ChatMessageTypeHuman, "And the forecast for both?"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{call("forecast", "Chicago"), call("forecast", "Boston")}},
		answer(llms.ChatMessageTypeTool, out("forecast", "storms "+strings.Repeat("wind ", 60)), out("forecast", "clear")),
		llms.TextParts(llms.ChatMessageTypeAI, "Storms in Chicago, clear in Boston."),
		llms.TextParts(llms.ChatMessageTypeHuman, "And tomorrow in Chicago?"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{call("forecast", "Chicago tomorrow")}},
		answer(llms.ChatMessageTypeFunction, out("forecast", "snow "+strings.Repeat("cold ", 40))),
		llms.TextParts(llms.ChatMessageTypeHuman, "Thanks."),
	}
}

// TestBareCallsPairByPosition: ToolCalls without an ID pair with the
// ToolCallResponses without one that follow them, by position, as the
// Gemini API pairs the function calls and responses langchaingo sends it
// (the adapter left them unpaired, so that Compact kept a call and
// dropped its response, or the reverse, which the API refuses), in the
// adapter as in chitta.ParseMessages of langchaingo's JSON.
func TestBareCallsPairByPosition(t *testing.T) {
	t.Parallel()
	cm := adapttest.MatchesParse(t, geminiTools(), langchaingo.Messages)
	assert.Equal(t, []string{"tool_call@1.0", "tool_call@1.1"}, cm[1].ToolCallIDs)
	assert.Equal(t, []string{"tool_call@1.0"}, cm[2].ToolResultIDs)
	assert.Equal(t, []string{"tool_call@1.1"}, cm[3].ToolResultIDs)
	assert.Equal(t, cm[6].ToolCallIDs, cm[7].ToolResultIDs)
	assert.Equal(t, cm[10].ToolCallIDs, cm[11].ToolResultIDs)
	adapttest.KeepsPairsAndValues(t, geminiTools, langchaingo.Compact, []int{1, 2, 3}, []int{6, 7}, []int{10, 11})
	for _, ratio := range []float64{0.2, 0.4, 0.6} {
		for _, mask := range []*chitta.MaskOptions{nil, {}} {
			out, res, err := langchaingo.Compact(t.Context(), geminiTools(), &chitta.Options{TargetRatio: ratio, Mask: mask})
			require.NoError(t, err)
			got, err := langchaingo.Messages(out)
			require.NoError(t, err)
			adapttest.Paired(t, got)
			if mask != nil && res.Stats.Masked > 0 {
				assert.Contains(t, strings.Join(contents(got), "\n"), chitta.MaskPrefix+"forecast output", "ratio %v: a placeholder names the call's tool", ratio)
			}
		}
	}
}

func contents(msgs []chitta.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Content)
	}
	return out
}
