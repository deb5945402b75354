package eino_test

import (
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	adapter "github.com/chitta-go/chitta/adapt/eino"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
)

// mediaConversation has images as base64 data, as data URLs (in the
// deprecated MultiContent too) and by URL.
func mediaConversation(t *testing.T) []*schema.Message {
	small, large := adapttest.PNGBase64(t, 200, 200), adapttest.PNGBase64(t, 1000, 1000)
	dataURL := "data:image/png;base64," + adapttest.PNGBase64(t, 1024, 1024)
	url := "https://x/a.png"
	return []*schema.Message{
		{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{
			{Type: schema.ChatMessagePartTypeText, Text: "what is wrong here"},
			{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{Base64Data: &small, MIMEType: "image/png"}}},
			{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{MessagePartCommon: schema.MessagePartCommon{URL: &url}}},
		}},
		{Role: schema.Assistant, AssistantGenMultiContent: []schema.MessageOutputPart{
			{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageOutputImage{MessagePartCommon: schema.MessagePartCommon{Base64Data: &large}}},
		}},
		//lint:ignore SA1019 MultiContent is deprecated, but callers still set it and the adapter reads it
		{Role: schema.User, MultiContent: []schema.ChatMessagePart{
			//lint:ignore SA1019 as above
			{Type: schema.ChatMessagePartTypeImageURL, ImageURL: &schema.ChatMessageImageURL{URL: dataURL}},
			{Type: schema.ChatMessagePartTypeImageURL},
		}},
		schema.AssistantMessage("the layout overflows", nil),
	}
}

// TestMessagesMediaTokens: an image counts as the costliest of the
// providers' rules for its size (the provider is unknown), an image by
// URL or without data as the largest maximum, as chitta.ParseMessages
// reads eino's JSON (before, the adapter set no MediaTokens: 0 for every
// message).
func TestMessagesMediaTokens(t *testing.T) {
	t.Parallel()
	msgs := mediaConversation(t)
	cm, err := adapter.Messages(msgs)
	require.NoError(t, err)
	adapttest.ParsedMedia(t, msgs, cm, []int{258 + chitta.GeminiMaxImageTokens, 1334, 1399 + chitta.GeminiMaxImageTokens, 0})
	assert.Equal(t, "what is wrong here\n[image]\n[image]", cm[0].Content)
}

// TestCompactBudgetWithImages: the images count against the budget
// (BeforeTokens includes them).
func TestCompactBudgetWithImages(t *testing.T) {
	t.Parallel()
	msgs := append([]*schema.Message{schema.UserMessage("look at these")}, mediaConversation(t)...)
	msgs = append(msgs, schema.UserMessage("fix it"))
	out, res, err := adapter.Compact(t.Context(), msgs, &chitta.Options{MaxTokens: 300, KeepLast: 1})
	require.NoError(t, err)
	assert.Greater(t, res.Stats.BeforeTokens, 258+1334+1399+2*chitta.GeminiMaxImageTokens)
	assert.LessOrEqual(t, res.Stats.AfterTokens, 300)
	for _, i := range []int{1, 2, 3} {
		assert.NotContains(t, res.Kept, i, "message %d's images alone exceed the budget", i)
	}
	assert.Len(t, out, len(res.Kept))
}
