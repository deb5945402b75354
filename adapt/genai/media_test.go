package genai_test

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/chitta-go/chitta"
	adapter "github.com/chitta-go/chitta/adapt/genai"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
)

// encoded returns a w × h image in format ("png" or "jpeg").
func encoded(t *testing.T, format string, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	img := image.NewGray(image.Rect(0, 0, w, h))
	if format == "jpeg" {
		require.NoError(t, jpeg.Encode(&b, img, nil))
	} else {
		require.NoError(t, png.Encode(&b, img))
	}
	return b.Bytes()
}

// mediaConversation has images inline (a small PNG, a 1000 × 1000 JPEG,
// one in a function response), by URI, and a PDF.
func mediaConversation(t *testing.T) []*genai.Content {
	return []*genai.Content{
		genai.NewContentFromParts([]*genai.Part{genai.NewPartFromText("what is wrong here"), genai.NewPartFromBytes(encoded(t, "png", 200, 200), "image/png")}, genai.RoleUser),
		genai.NewContentFromParts([]*genai.Part{{FunctionCall: &genai.FunctionCall{ID: "s1", Name: "screenshot", Args: map[string]any{"url": "http://localhost"}}}}, genai.RoleModel),
		genai.NewContentFromParts([]*genai.Part{
			{FunctionResponse: &genai.FunctionResponse{ID: "s1", Name: "screenshot", Response: map[string]any{"output": "the screenshot"},
				Parts: []*genai.FunctionResponsePart{genai.NewFunctionResponsePartFromBytes(encoded(t, "jpeg", 1000, 1000), "image/jpeg")}}},
			genai.NewPartFromURI("gs://b/a.png", "image/png"),
			genai.NewPartFromURI("gs://b/f.pdf", "application/pdf"),
		}, genai.RoleUser),
		genai.NewContentFromText("the layout overflows", genai.RoleModel),
	}
}

// TestMessagesMediaTokens: images carry what Gemini bills for them, as
// chitta.ParseMessages reads the SDK's JSON (before, the adapter set no
// MediaTokens: 0 for every message).
func TestMessagesMediaTokens(t *testing.T) {
	t.Parallel()
	msgs := mediaConversation(t)
	cm, err := adapter.Messages(msgs)
	require.NoError(t, err)
	adapttest.ParsedMedia(t, msgs, cm, []int{258, 0, 258*4 + chitta.GeminiMaxImageTokens, 0})
	assert.Equal(t, "the screenshot\n[image]\n[image]\n[document]", cm[2].Content)
}

// TestCompactBudgetWithImages: the images count against the budget
// (BeforeTokens includes them), and masking the function response takes
// its image out of the count while the URI image beside it stays.
func TestCompactBudgetWithImages(t *testing.T) {
	t.Parallel()
	msgs := append(mediaConversation(t), genai.NewContentFromText("fix it", genai.RoleUser))
	out, res, err := adapter.Compact(t.Context(), msgs, &chitta.Options{MaxTokens: 300, KeepLast: 1})
	require.NoError(t, err)
	assert.Greater(t, res.Stats.BeforeTokens, 258+258*4+chitta.GeminiMaxImageTokens)
	assert.LessOrEqual(t, res.Stats.AfterTokens, 300)
	assert.NotContains(t, res.Kept, 2, "the images alone exceed the budget")
	assert.Len(t, out, len(res.Kept))

	msgs = mediaConversation(t)
	msgs[2].Parts[0].FunctionResponse.Response["output"] = strings.Repeat("the screenshot of the settings page ", 40)
	for _, id := range []string{"s2", "s3", "s4"} { // newer results, kept by KeepRecent
		msgs = append(msgs,
			genai.NewContentFromParts([]*genai.Part{{FunctionCall: &genai.FunctionCall{ID: id, Name: "ls", Args: map[string]any{}}}}, genai.RoleModel),
			genai.NewContentFromParts([]*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: id, Name: "ls", Response: map[string]any{"output": "a.go"}}}}, genai.RoleUser))
	}
	out, res, err = adapter.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: 1, Mask: &chitta.MaskOptions{}})
	require.NoError(t, err)
	require.True(t, res.Scores[2].Masked)
	got, err := adapter.Messages(out)
	require.NoError(t, err)
	for j, i := range res.Kept {
		if i == 2 {
			assert.Equal(t, chitta.GeminiMaxImageTokens, res.Messages[j].MediaTokens, "the URI image beside the response")
			assert.Equal(t, res.Messages[j].MediaTokens, got[j].MediaTokens, "as the rewritten value counts")
		}
	}
	assert.Greater(t, res.Scores[2].OriginalTokens-res.Scores[2].Tokens, 258*4, "the response's image is saved")
}

// resolution returns a part's media resolution of numTokens tokens at
// level (either may be zero: unset).
func resolution(level genai.PartMediaResolutionLevel, numTokens int32) *genai.PartMediaResolution {
	r := &genai.PartMediaResolution{Level: level}
	if numTokens != 0 {
		r.NumTokens = &numTokens
	}
	return r
}

// TestMessagesMediaResolution: an image part whose MediaResolution sets
// NumTokens > 0 counts exactly NumTokens, inline or by URI, as
// chitta.ParseMessages counts the SDK's JSON; Level alone, and NumTokens
// not positive, leave the Gemini rule (before, the rule applied to every
// part: 258 for the small PNG with NumTokens 70).
func TestMessagesMediaResolution(t *testing.T) {
	t.Parallel()
	small, large := encoded(t, "png", 200, 200), encoded(t, "jpeg", 1000, 1000)
	high, medium, low := genai.PartMediaResolutionLevelMediaResolutionHigh, genai.PartMediaResolutionLevelMediaResolutionMedium, genai.PartMediaResolutionLevelMediaResolutionLow
	tests := []struct {
		name string
		part *genai.Part
		res  *genai.PartMediaResolution
		want int
	}{
		{"inline, fewer tokens than the rule", genai.NewPartFromBytes(small, "image/png"), resolution("", 70), 70},
		{"inline, more tokens than the rule", genai.NewPartFromBytes(large, "image/jpeg"), resolution(high, 1120), 1120},
		{"by URI", genai.NewPartFromURI("gs://b/a.png", "image/png"), resolution(medium, 280), 280},
		{"level only", genai.NewPartFromBytes(large, "image/jpeg"), resolution(low, 0), 258 * 4},
		{"zero", genai.NewPartFromBytes(small, "image/png"), &genai.PartMediaResolution{NumTokens: new(int32)}, 258},
		{"negative", genai.NewPartFromURI("gs://b/a.png", "image/png"), resolution("", -5), chitta.GeminiMaxImageTokens},
		{"a document stays uncounted", genai.NewPartFromURI("gs://b/f.pdf", "application/pdf"), resolution("", 560), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.part.MediaResolution = tt.res
			msgs := []*genai.Content{genai.NewContentFromParts([]*genai.Part{genai.NewPartFromText("look"), tt.part}, genai.RoleUser)}
			cm, err := adapter.Messages(msgs)
			require.NoError(t, err)
			adapttest.ParsedMedia(t, msgs, cm, []int{tt.want})
		})
	}

	// Beside the rule's images: each part counts by its own resolution.
	msgs := mediaConversation(t)
	msgs[0].Parts[1].MediaResolution = resolution(genai.PartMediaResolutionLevelMediaResolutionHigh, 1120)
	msgs[2].Parts[1].MediaResolution = resolution("", 280)
	cm, err := adapter.Messages(msgs)
	require.NoError(t, err)
	adapttest.ParsedMedia(t, msgs, cm, []int{1120, 0, 258*4 + 280, 0})
}
