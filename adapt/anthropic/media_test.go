package anthropic_test

import (
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/anthropic"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
)

var pngBase64 = adapttest.PNGBase64

// mediaConversation has images (base64 in a message and in a tool
// result, and by URL) and a text document.
func mediaConversation(t *testing.T) []sdk.MessageParam {
	r := sdk.NewToolResultBlock("tu_1", "", false)
	r.OfToolResult.Content = []sdk.ToolResultBlockParamContentUnion{
		{OfText: &sdk.TextBlockParam{Text: "the screenshot"}},
		{OfImage: &sdk.ImageBlockParam{Source: sdk.ImageBlockParamSourceUnion{OfBase64: &sdk.Base64ImageSourceParam{Data: pngBase64(t, 1000, 1000), MediaType: "image/png"}}}},
	}
	doc := sdk.DocumentBlockParam{Title: sdk.String("Runbook"), Source: sdk.DocumentBlockParamSourceUnion{OfText: &sdk.PlainTextSourceParam{Data: "restart the worker pool"}}}
	return []sdk.MessageParam{
		sdk.NewUserMessage(sdk.NewTextBlock("what is wrong here"), sdk.NewImageBlockBase64("image/png", pngBase64(t, 200, 200))),
		sdk.NewAssistantMessage(sdk.NewToolUseBlock("tu_1", map[string]any{"url": "http://localhost"}, "screenshot")),
		sdk.NewUserMessage(r, sdk.NewImageBlock(sdk.URLImageSourceParam{URL: "https://example.com/a.png"})),
		sdk.NewUserMessage(sdk.ContentBlockParamUnion{OfDocument: &doc}),
		sdk.NewAssistantMessage(sdk.NewTextBlock("the layout overflows")),
	}
}

// TestMessagesMediaTokens: images carry what Anthropic bills for them,
// and a text document reads as its text, as chitta.ParseMessages reads the
// SDK's JSON.
func TestMessagesMediaTokens(t *testing.T) {
	t.Parallel()
	msgs := mediaConversation(t)
	cm, err := anthropic.Messages(msgs)
	require.NoError(t, err)
	adapttest.ParsedMedia(t, msgs, cm, []int{54, 0, 1334 + chitta.AnthropicMaxImageTokens, 0, 0})
	assert.Equal(t, "[document]\nRunbook\nrestart the worker pool", cm[3].Content)
}

// TestCompactBudgetWithImages: the images count against the budget, and a
// pooled builder converting a conversation without images after one with
// them counts none.
func TestCompactBudgetWithImages(t *testing.T) {
	t.Parallel()
	msgs := mediaConversation(t)
	out, res, err := anthropic.Compact(t.Context(), msgs, &chitta.Options{MaxTokens: 200, KeepLast: 1})
	require.NoError(t, err)
	assert.LessOrEqual(t, res.Stats.AfterTokens, 200)
	assert.Greater(t, res.Stats.BeforeTokens, 1334+chitta.AnthropicMaxImageTokens)
	assert.NotContains(t, res.Kept, 2, "the screenshots alone exceed the budget")
	assert.Len(t, out, len(res.Kept))

	plain := []sdk.MessageParam{
		sdk.NewUserMessage(sdk.NewTextBlock("what is wrong here")),
		sdk.NewAssistantMessage(sdk.NewToolUseBlock("tu_1", map[string]any{"url": "http://localhost"}, "screenshot")),
		sdk.NewUserMessage(sdk.NewToolResultBlock("tu_1", "the screenshot", false)),
		sdk.NewUserMessage(sdk.NewTextBlock("anything")),
		sdk.NewAssistantMessage(sdk.NewTextBlock("the layout overflows")),
	}
	for range 3 {
		_, res, err = anthropic.Compact(t.Context(), plain, &chitta.Options{MaxTokens: 200})
		require.NoError(t, err)
		assert.Less(t, res.Stats.BeforeTokens, 100, "no media left over from the previous conversation")
	}
}

// TestMaskDropsTheResultsImages: masking a tool result takes its image
// out of the count; the image beside it in the message stays counted, as
// the rewritten value counts.
func TestMaskDropsTheResultsImages(t *testing.T) {
	t.Parallel()
	msgs := mediaConversation(t)
	r := msgs[2].OfUser.Content[0].OfToolResult
	r.Content[0].OfText.Text = strings.Repeat("the screenshot of the settings page ", 40)
	for _, id := range []string{"tu_2", "tu_3", "tu_4"} { // newer results, kept by KeepRecent
		msgs = append(msgs,
			sdk.NewAssistantMessage(sdk.NewToolUseBlock(id, map[string]any{}, "ls")),
			sdk.NewUserMessage(sdk.NewToolResultBlock(id, "a.go", false)))
	}
	out, res, err := anthropic.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: 1, Mask: &chitta.MaskOptions{}})
	require.NoError(t, err)
	require.True(t, res.Scores[2].Masked)
	got, err := anthropic.Messages(out)
	require.NoError(t, err)
	for j, i := range res.Kept {
		if i == 2 {
			assert.Equal(t, chitta.AnthropicMaxImageTokens, res.Messages[j].MediaTokens, "the URL image beside the result")
			assert.Equal(t, res.Messages[j].MediaTokens, got[j].MediaTokens, "as the rewritten value counts")
		}
	}
	assert.Greater(t, res.Scores[2].OriginalTokens-res.Scores[2].Tokens, 1334, "the result's image is saved")
}
