package langchaingo_test

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
	"github.com/chitta-go/chitta/adapt/langchaingo"
)

// pngBytes returns a w × h PNG image.
func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))))
	return b.Bytes()
}

// mediaConversation has images as binary parts (one cached), as a data
// URL and by URL, and a PDF.
func mediaConversation(t *testing.T) []llms.MessageContent {
	dataURL := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngBytes(t, 1024, 1024))
	return []llms.MessageContent{
		{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.TextPart("what is wrong here"), llms.BinaryPart("image/png", pngBytes(t, 200, 200))}},
		{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.ImageURLWithDetailPart(dataURL, "low"), llms.ImageURLPart("https://x/a.png")}},
		{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.BinaryPart("application/pdf", []byte("%PDF")), llms.BinaryPart("image/png", []byte("not a png"))}},
		{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.CachedContent{ContentPart: llms.BinaryPart("image/png", pngBytes(t, 1000, 1000))}}},
		llms.TextParts(llms.ChatMessageTypeAI, "the layout overflows"),
	}
}

// TestMessagesMediaTokens: an image counts as the costliest of the
// providers' rules for its size (the provider is unknown; low detail is
// OpenAI's alone), an unreadable or URL image as the largest maximum, as
// chitta.ParseMessages reads the SDK's JSON (before, the adapter set no
// MediaTokens: 0 for every message).
func TestMessagesMediaTokens(t *testing.T) {
	t.Parallel()
	msgs := mediaConversation(t)
	cm, err := langchaingo.Messages(msgs)
	require.NoError(t, err)
	adapttest.ParsedMedia(t, msgs, cm, []int{258, 1399 + chitta.GeminiMaxImageTokens, chitta.GeminiMaxImageTokens, 1334, 0})
	assert.Equal(t, "[document]\n[image]", cm[2].Content)
}

// TestCompactBudgetWithImages: the images count against the budget
// (BeforeTokens includes them).
func TestCompactBudgetWithImages(t *testing.T) {
	t.Parallel()
	msgs := append(mediaConversation(t), llms.TextParts(llms.ChatMessageTypeHuman, "fix it"))
	out, res, err := langchaingo.Compact(t.Context(), msgs, &chitta.Options{MaxTokens: 300, KeepLast: 1})
	require.NoError(t, err)
	assert.Greater(t, res.Stats.BeforeTokens, 258+1399+2*chitta.GeminiMaxImageTokens+1334)
	assert.LessOrEqual(t, res.Stats.AfterTokens, 300)
	for _, i := range []int{1, 2, 3} {
		assert.NotContains(t, res.Kept, i, "message %d's images alone exceed the budget", i)
	}
	assert.Len(t, out, len(res.Kept))
}
