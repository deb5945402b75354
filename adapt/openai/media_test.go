package openai_test

import (
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
	adapter "github.com/chitta-go/chitta/adapt/openai"
)

func pngDataURL(t *testing.T, w, h int) string {
	return "data:image/png;base64," + adapttest.PNGBase64(t, w, h)
}

// TestMessagesMediaTokens: chat image parts carry what OpenAI bills for
// them, as chitta.ParseMessages counts the SDK's JSON.
func TestMessagesMediaTokens(t *testing.T) {
	t.Parallel()
	img := func(url, detail string) openai.ChatCompletionContentPartUnionParam {
		return openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: url, Detail: detail})
	}
	msgs := []openai.ChatCompletionMessageParamUnion{
		openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{openai.TextContentPart("look"), img(pngDataURL(t, 1024, 1024), "high")}),
		openai.AssistantMessage("a chart"),
		openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{img("https://x/a.png", ""), img("https://x/b.png", "low")}),
	}
	cm, err := adapter.Messages(msgs)
	require.NoError(t, err)
	adapttest.ParsedMedia(t, msgs, cm, []int{765, 0, chitta.OpenAIMaxImageTokens + chitta.OpenAILowDetailImageTokens})
	res, err := chitta.Compact(t.Context(), cm, &chitta.Options{MaxTokens: 100, KeepLast: 1})
	require.NoError(t, err)
	assert.NotContains(t, res.Kept, 0, "the image alone exceeds the budget")
}

// TestResponsesMessagesMediaTokens: input_image parts of a message and of
// a function_call_output carry what OpenAI bills for them.
func TestResponsesMessagesMediaTokens(t *testing.T) {
	t.Parallel()
	url := pngDataURL(t, 2048, 4096)
	out := responses.ResponseInputItemParamOfFunctionCallOutput(responses.ResponseFunctionCallOutputItemListParam{
		{OfInputText: &responses.ResponseInputTextContentParam{Text: "the page"}},
		{OfInputImage: &responses.ResponseInputImageContentParam{ImageURL: openai.String(url)}},
	})
	out.OfFunctionCallOutput.CallID = openai.String("call_a")
	items := []responses.ResponseInputItemUnionParam{
		responses.ResponseInputItemParamOfMessage(responses.ResponseInputMessageContentListParam{
			{OfInputText: &responses.ResponseInputTextParam{Text: "open it"}},
			{OfInputImage: &responses.ResponseInputImageParam{ImageURL: openai.String(url), Detail: responses.ResponseInputImageDetailLow}},
		}, responses.EasyInputMessageRoleUser),
		responses.ResponseInputItemParamOfFunctionCall(`{}`, "call_a", "screenshot"),
		out,
	}
	cm, err := adapter.ResponsesMessages(items)
	require.NoError(t, err)
	adapttest.ParsedMedia(t, items, cm, []int{85, 0, 85 + 170*6})
}

// TestResponsesOtherOutputsMediaTokens: a computer_call_output's
// screenshot and the input_image parts of a custom_tool_call_output carry
// what OpenAI bills for them, as chitta.ParseMessages counts their JSON
// (before, the adapter read both through their JSON and kept the
// "[image]" text but not its tokens).
func TestResponsesOtherOutputsMediaTokens(t *testing.T) {
	t.Parallel()
	shot := pngDataURL(t, 1280, 800)
	custom := responses.ResponseInputItemParamOfCustomToolCallOutput("call_p", []responses.ResponseCustomToolCallOutputOutputOutputContentListItemUnionParam{
		{OfInputText: &responses.ResponseInputTextParam{Text: "rendered"}},
		{OfInputImage: &responses.ResponseInputImageParam{ImageURL: openai.String(pngDataURL(t, 512, 512)), Detail: responses.ResponseInputImageDetailHigh}},
		{OfInputImage: &responses.ResponseInputImageParam{FileID: openai.String("file_1"), Detail: responses.ResponseInputImageDetailAuto}},
	})
	items := []responses.ResponseInputItemUnionParam{
		responses.ResponseInputItemParamOfMessage("look at the screen", responses.EasyInputMessageRoleUser),
		{OfComputerCall: &responses.ResponseComputerToolCallParam{ID: "cu_1", CallID: "call_c", Status: responses.ResponseComputerToolCallStatusCompleted, Type: responses.ResponseComputerToolCallTypeComputerCall,
			Action: responses.ResponseComputerToolCallActionUnionParam{OfScreenshot: &responses.ResponseComputerToolCallActionScreenshotParam{}}}},
		responses.ResponseInputItemParamOfComputerCallOutput("call_c", responses.ResponseComputerToolCallOutputScreenshotParam{ImageURL: openai.String(shot)}),
		responses.ResponseInputItemParamOfCustomToolCall("call_p", "draw()", "render"),
		custom,
	}
	cm, err := adapter.ResponsesMessages(items)
	require.NoError(t, err)
	adapttest.ParsedMedia(t, items, cm, []int{0, 0, chitta.OpenAIImageURLTokens(shot, ""), 0,
		chitta.OpenAIImageTokens(512, 512, "high") + chitta.OpenAIMaxImageTokens})
	for _, i := range []int{2, 4} {
		assert.Contains(t, cm[i].Content, "[image]", "message %d", i)
	}
}
