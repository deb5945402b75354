package chitta_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// encodedImage returns an image of w × h pixels in format ("png", "jpeg"
// or "gif").
func encodedImage(t *testing.T, format string, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	var b bytes.Buffer
	var err error
	switch format {
	case "png":
		err = png.Encode(&b, img)
	case "jpeg":
		err = jpeg.Encode(&b, img, nil)
	case "gif":
		err = gif.Encode(&b, img, nil)
	}
	require.NoError(t, err)
	return b.Bytes()
}

func pngBase64(t *testing.T, w, h int) string {
	return base64.StdEncoding.EncodeToString(encodedImage(t, "png", w, h))
}

// webpHeader returns the first 30 bytes of a WebP file of w × h pixels
// whose first chunk is kind ("VP8 ", "VP8L" or "VP8X"), as the WebP
// container specification lays them out.
func webpHeader(kind string, w, h int) []byte {
	b := make([]byte, 30)
	copy(b, "RIFF")
	binary.LittleEndian.PutUint32(b[4:], 1000)
	copy(b[8:], "WEBPVP8 ")
	copy(b[12:], kind)
	switch kind {
	case "VP8 ":
		copy(b[23:], []byte{0x9d, 0x01, 0x2a})
		binary.LittleEndian.PutUint16(b[26:], uint16(w))
		binary.LittleEndian.PutUint16(b[28:], uint16(h))
	case "VP8L":
		b[20] = 0x2f
		binary.LittleEndian.PutUint32(b[21:], uint32(w-1)|uint32(h-1)<<14)
	case "VP8X":
		for i, v := range []int{w - 1, h - 1} {
			b[24+3*i], b[25+3*i], b[26+3*i] = byte(v), byte(v>>8), byte(v>>16)
		}
	}
	return b
}

func TestImageSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data []byte
		w, h int
		ok   bool
	}{
		{"png", encodedImage(t, "png", 640, 480), 640, 480, true},
		{"jpeg", encodedImage(t, "jpeg", 33, 1200), 33, 1200, true},
		{"gif", encodedImage(t, "gif", 1, 1), 1, 1, true},
		{"webp lossy", webpHeader("VP8 ", 1920, 1080), 1920, 1080, true},
		{"webp lossless", webpHeader("VP8L", 16383, 7), 16383, 7, true},
		{"webp extended", webpHeader("VP8X", 20000, 3000), 20000, 3000, true},
		{"truncated png", encodedImage(t, "png", 640, 480)[:12], 0, 0, false},
		{"text", []byte("not an image at all, just words"), 0, 0, false},
		{"empty", nil, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, h, ok := chitta.ImageSize(bytes.NewReader(tt.data))
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.w, w)
			assert.Equal(t, tt.h, h)
		})
	}
}

func TestAnthropicImageTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		w, h, want int
	}{
		{200, 200, 54},     // ceil(40000/750)
		{1000, 1000, 1334}, // under both limits
		{1092, 1092, 1590}, // the documented ~1.19-megapixel square
		{1568, 300, 628},   // the long edge at its limit
		{2000, 100, 164},   // long edge scaled to 1568: 1568 × 78
		{3000, 1500, 1599}, // scaled to 1568 × 784, then to the area limit: 1549 × 774
		{0, 100, chitta.AnthropicMaxImageTokens},
		{-5, -5, chitta.AnthropicMaxImageTokens},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%dx%d", tt.w, tt.h), func(t *testing.T) {
			assert.Equal(t, tt.want, chitta.AnthropicImageTokens(tt.w, tt.h))
		})
	}
	// From the encoded data, as a base64 image source holds it.
	assert.Equal(t, 54, chitta.AnthropicBase64ImageTokens(pngBase64(t, 200, 200)))
	assert.Equal(t, 54, chitta.AnthropicBase64ImageTokens(strings.TrimRight(pngBase64(t, 200, 200), "=")))
	assert.Equal(t, chitta.AnthropicMaxImageTokens, chitta.AnthropicBase64ImageTokens("!!not base64"))
}

func TestOpenAIImageTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		w, h   int
		detail string
		want   int
	}{
		{1024, 1024, "high", 85 + 170*4}, // shortest side to 768: 2 × 2 tiles
		{1024, 1024, "low", 85},
		{2048, 4096, "auto", 85 + 170*6}, // 1024 × 2048, then 768 × 1536: 2 × 3
		{100, 100, "", 85 + 170},
		{4000, 500, "high", 85 + 170*4}, // 2048 × 256: 4 × 1
		{0, 0, "high", chitta.OpenAIMaxImageTokens},
		{0, 0, "low", chitta.OpenAILowDetailImageTokens},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%dx%d %s", tt.w, tt.h, tt.detail), func(t *testing.T) {
			assert.Equal(t, tt.want, chitta.OpenAIImageTokens(tt.w, tt.h, tt.detail))
		})
	}
	assert.Equal(t, 1445, chitta.OpenAIMaxImageTokens)
	dataURL := "data:image/png;base64," + pngBase64(t, 1024, 1024)
	assert.Equal(t, 765, chitta.OpenAIImageURLTokens(dataURL, "high"))
	assert.Equal(t, 85, chitta.OpenAIImageURLTokens(dataURL, "low"))
	assert.Equal(t, chitta.OpenAIMaxImageTokens, chitta.OpenAIImageURLTokens("https://example.com/a.png", ""))
	assert.Equal(t, chitta.OpenAIMaxImageTokens, chitta.OpenAIImageURLTokens("data:image/png,rawbytes", ""))
}

func TestGeminiImageTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		w, h, want int
	}{
		{384, 384, 258}, // both sides at most 384: one image
		{1, 384, 258},
		{385, 100, 258},       // one 768 tile
		{768, 768, 258},       // one tile
		{1000, 1000, 258 * 4}, // 2 × 2 tiles
		{1920, 1080, 258 * 6}, // 3 × 2
		{3072, 3072, chitta.GeminiMaxImageTokens},
		{10000, 10000, chitta.GeminiMaxImageTokens}, // scaled to 3072 × 3072
		{10000, 100, 258 * 4},                       // scaled to 3072 × 30: 4 × 1
		{0, 100, chitta.GeminiMaxImageTokens},
		{-5, -5, chitta.GeminiMaxImageTokens},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%dx%d", tt.w, tt.h), func(t *testing.T) {
			assert.Equal(t, tt.want, chitta.GeminiImageTokens(tt.w, tt.h))
		})
	}
	assert.Equal(t, 4128, chitta.GeminiMaxImageTokens)
}

func TestMaxImageTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		w, h, want int
	}{
		{200, 200, 258},    // Gemini's 258 over Anthropic's 54 and OpenAI's 255
		{1000, 1000, 1334}, // Anthropic's
		{1024, 1024, 1399}, // Anthropic's, over OpenAI's 765 and Gemini's 1032
		{3000, 3000, chitta.GeminiMaxImageTokens},
		{0, 0, chitta.GeminiMaxImageTokens}, // the largest maximum
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%dx%d", tt.w, tt.h), func(t *testing.T) {
			assert.Equal(t, tt.want, chitta.MaxImageTokens(tt.w, tt.h))
			assert.GreaterOrEqual(t, tt.want, chitta.AnthropicImageTokens(tt.w, tt.h))
			assert.GreaterOrEqual(t, tt.want, chitta.OpenAIImageTokens(tt.w, tt.h, "high"))
			assert.GreaterOrEqual(t, tt.want, chitta.GeminiImageTokens(tt.w, tt.h))
		})
	}
	w, h, ok := chitta.DataURLImageSize("data:image/png;base64," + pngBase64(t, 30, 20))
	require.True(t, ok)
	assert.Equal(t, [2]int{30, 20}, [2]int{w, h})
	_, _, ok = chitta.DataURLImageSize("https://x/y.png")
	assert.False(t, ok)
	w, h, ok = chitta.Base64ImageSize(strings.TrimRight(pngBase64(t, 7, 9), "="))
	require.True(t, ok)
	assert.Equal(t, [2]int{7, 9}, [2]int{w, h})
}

func TestParseMessagesMediaTokens(t *testing.T) {
	t.Parallel()
	anthropicPNG := `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + pngBase64(t, 200, 200) + `"}}`
	openaiPNG := "data:image/png;base64," + pngBase64(t, 1024, 1024)
	tests := []struct {
		name    string
		msg     string
		media   int
		content string
	}{
		{"text only", `{"role":"user","content":"hello there"}`, 0, "hello there"},
		{"anthropic base64", `{"role":"user","content":[{"type":"text","text":"look"},` + anthropicPNG + `]}`, 54, "look\n[image]"},
		{"anthropic url", `{"role":"user","content":[{"type":"image","source":{"type":"url","url":"https://x/y.png"}}]}`, chitta.AnthropicMaxImageTokens, "[image]"},
		{"anthropic file", `{"role":"user","content":[{"type":"image","source":{"type":"file","file_id":"f1"}}]}`, chitta.AnthropicMaxImageTokens, "[image]"},
		{"anthropic two images in a tool_result", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[` + anthropicPNG + `,` + anthropicPNG + `]}]}`, 108, "[image]\n[image]"},
		{"openai chat data url", `{"role":"user","content":[{"type":"image_url","image_url":{"url":"` + openaiPNG + `","detail":"high"}}]}`, 765, "[image]"},
		{"openai chat low", `{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://x/y.png","detail":"low"}}]}`, 85, "[image]"},
		{"openai chat url", `{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://x/y.png"}}]}`, chitta.OpenAIMaxImageTokens, "[image]"},
		{"responses input_image", `{"role":"user","content":[{"type":"input_image","image_url":"` + openaiPNG + `","detail":"auto"}]}`, 765, "[image]"},
		{"responses input_image file id", `{"role":"user","content":[{"type":"input_image","file_id":"file-1","detail":"low"}]}`, 85, "[image]"},
		{"responses screenshot", `{"type":"computer_call_output","call_id":"c1","output":{"type":"computer_screenshot","image_url":"` + openaiPNG + `"}}`, 765, "[image]"},
		{"anthropic text document", `{"role":"user","content":[{"type":"document","title":"Notes","source":{"type":"text","media_type":"text/plain","data":"the deploy key rotates weekly"}}]}`, 0, "[document]\nNotes\nthe deploy key rotates weekly"},
		{"anthropic content document", `{"role":"user","content":[{"type":"document","source":{"type":"content","content":[{"type":"text","text":"page one"},` + anthropicPNG + `]}}]}`, 54, "[document]\npage one\n[image]"},
		{"anthropic pdf document", `{"role":"user","content":[{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}}]}`, 0, "[document]"},
		{"image with its count", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image","media_tokens":321}]},{"type":"image","media_tokens":0}]}`, 321, "[image]\n[image]"},
		{"genai inline image unreadable", `{"role":"user","parts":[{"inlineData":{"mimeType":"image/png","data":"AAAA"}}]}`, chitta.GeminiMaxImageTokens, "[image]"},
		{"genai inline image", `{"role":"model","parts":[{"inlineData":{"mimeType":"image/png","data":"` + pngBase64(t, 1000, 1000) + `"}}]}`, 258 * 4, "[image]"},
		{"genai inline_data", `{"role":"user","parts":[{"inline_data":{"mime_type":"image/png","data":"` + pngBase64(t, 200, 200) + `"}}]}`, 258, "[image]"},
		{"genai file image", `{"role":"user","parts":[{"fileData":{"mimeType":"image/jpeg","fileUri":"gs://b/a.jpg"}}]}`, chitta.GeminiMaxImageTokens, "[image]"},
		{"genai pdf", `{"role":"user","parts":[{"inlineData":{"mimeType":"application/pdf","data":"JVBERi0="}}]}`, 0, "[document]"},
		{"genai function response image", `{"role":"user","parts":[{"functionResponse":{"id":"f","name":"shot","response":{"output":"ok"},"parts":[{"inlineData":{"mimeType":"image/png","data":"` + pngBase64(t, 300, 300) + `"}}]}}]}`, 258, "ok\n[image]"},
		{"langchaingo image_url", `{"role":"human","parts":[{"type":"image_url","image_url":{"url":"https://x/y.png"}}]}`, chitta.GeminiMaxImageTokens, "[image]"},
		{"langchaingo data url", `{"role":"human","parts":[{"type":"image_url","image_url":{"url":"` + openaiPNG + `"}}]}`, 1399, "[image]"},
		{"langchaingo binary", `{"role":"human","parts":[{"type":"binary","binary":{"mime_type":"image/png","data":"` + pngBase64(t, 200, 200) + `"}}]}`, 258, "[image]"},
		{"eino base64data", `{"role":"user","user_input_multi_content":[{"type":"image_url","image":{"base64data":"` + pngBase64(t, 1000, 1000) + `","mime_type":"image/png"}}]}`, 1334, "[image]"},
		{"eino url", `{"role":"user","multi_content":[{"type":"image_url","image_url":{"url":"https://x/y.png"}}]}`, chitta.GeminiMaxImageTokens, "[image]"},
		{"eino output data url", `{"role":"assistant","assistant_output_multi_content":[{"type":"image_url","image":{"url":"` + openaiPNG + `"}}]}`, 1399, "[image]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs, err := chitta.ParseMessages([]byte("[" + tt.msg + "]"))
			require.NoError(t, err)
			require.Len(t, msgs, 1)
			assert.Equal(t, tt.media, msgs[0].MediaTokens)
			assert.Equal(t, tt.content, msgs[0].Content)
		})
	}
	_, err := chitta.ParseMessages([]byte(`[{"role":"user","content":[{"type":"document","source":{"type":"text","data":7}}]}]`))
	require.ErrorIs(t, err, chitta.ErrInvalidMessages)
	assert.ErrorContains(t, err, "content[0].source.data")
	for _, bad := range []string{`-1`, `1.5`, `"7"`} {
		_, err = chitta.ParseMessages([]byte(`[{"role":"user","content":[{"type":"image","media_tokens":` + bad + `}]}]`))
		require.ErrorIs(t, err, chitta.ErrInvalidMessages, bad)
		assert.ErrorContains(t, err, "content[0].media_tokens", bad)
	}
}

func TestCompactCountsMediaTokens(t *testing.T) {
	t.Parallel()
	words := chitta.TokenCounterFunc(func(s string) int { return len(strings.Fields(s)) })
	msgs := []chitta.Message{
		{Role: chitta.RoleUser, Content: "first question about the deploy"},
		{Role: chitta.RoleUser, Content: "[image]", MediaTokens: 1600},
		{Role: chitta.RoleAssistant, Content: "the deploy failed on the config"},
		{Role: chitta.RoleUser, Content: "[image]", MediaTokens: 1600},
		{Role: chitta.RoleUser, Content: "fix the config please"},
	}
	res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{MaxTokens: 100, Tokens: words, KeepLast: 1})
	require.NoError(t, err)
	assert.Equal(t, 5+1+1600+6+1+1600+4, res.Stats.BeforeTokens) // "[image]" is a word
	assert.Equal(t, 1601, res.Scores[1].Tokens)
	assert.LessOrEqual(t, res.Stats.AfterTokens, 100, "the images alone exceed the budget")
	assert.NotContains(t, res.Kept, 1)
	assert.NotContains(t, res.Kept, 3)
	assert.Contains(t, res.Kept, 0)
	assert.Contains(t, res.Kept, 4)

	// Without media the same conversation fits whole.
	plain := append([]chitta.Message(nil), msgs...)
	for i := range plain {
		plain[i].MediaTokens = 0
	}
	res, err = chitta.Compact(t.Context(), plain, &chitta.Options{MaxTokens: 100, Tokens: words, KeepLast: 1})
	require.NoError(t, err)
	assert.Len(t, res.Kept, 5)

	bad := append([]chitta.Message(nil), msgs...)
	bad[3].MediaTokens = -1
	_, err = chitta.Compact(t.Context(), bad, &chitta.Options{MaxTokens: 100, Tokens: words})
	require.ErrorIs(t, err, chitta.ErrInvalidTokenCount)
	var me *chitta.MessageError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, 3, me.Index)
	assert.Equal(t, "MediaTokens", me.Field)
}

func TestMaskedResultDropsItsMedia(t *testing.T) {
	t.Parallel()
	img := `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + pngBase64(t, 400, 400) + `"}}`
	long := strings.Repeat("screenshot taken of the failing page layout ", 30)
	data := `[{"role":"user","content":"check the page"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"screenshot","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"` + long + `"},` + img + `]},` + img + `]},` +
		`{"role":"assistant","content":"the layout is broken"},`
	for _, id := range []string{"t2", "t3", "t4"} { // newer results, kept by KeepRecent
		data += `{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"ls","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"a.go"}]},`
	}
	data += `{"role":"user","content":"fix it"}]`
	msgs, err := chitta.ParseMessages([]byte(data))
	require.NoError(t, err)
	require.Equal(t, 2*214, msgs[2].MediaTokens, "one image in the result, one beside it")
	res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: 1, Mask: &chitta.MaskOptions{}})
	require.NoError(t, err)
	require.Contains(t, res.Kept, 2)
	s := res.Scores[2]
	require.True(t, s.Masked, "the old result is masked")
	var out chitta.Message
	for i, k := range res.Kept {
		if k == 2 {
			out = res.Messages[i]
		}
	}
	assert.Equal(t, 214, out.MediaTokens, "the image beside the result stays, the one in it is gone")
	assert.Equal(t, 1, strings.Count(string(out.Raw), `"type":"image"`))
	assert.Greater(t, s.OriginalTokens-s.Tokens, 214, "the masked image's tokens are saved")
	assert.GreaterOrEqual(t, s.Tokens, 214)
}

func TestCalibratedCounterObserveSubtractsMedia(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("word ", 100) // 130 tokens by EstimateTokens
	tests := []struct {
		name     string
		media    int
		reported int
		ratio    float64
	}{
		{"no media", 0, 260, 2},
		{"an image", 1600, 260 + 1600, 2},           // the text's 260 are learnt, not the image's
		{"media above the report", 5000, 1000, 1.0}, // no positive text count: ignored
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := chitta.NewCalibratedCounter(nil)
			msgs := []chitta.Message{{Role: chitta.RoleUser, Content: text, MediaTokens: tt.media}}
			c.Observe(msgs, tt.reported)
			assert.InDelta(t, tt.ratio, c.Ratio(), 1e-9)
			if tt.reported > tt.media {
				// Compact counts the message as its remembered text plus its media:
				// what the provider reported.
				res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: 1, Tokens: c})
				require.NoError(t, err)
				assert.Equal(t, tt.reported, res.Stats.BeforeTokens)
			}
		})
	}
}

// A message whose MediaTokens its Raw does not show (an adapter's
// synthetic Raw) keeps them when masked: chitta cannot tell which result
// held them, so the count errs on the safe side.
func TestMaskedMediaNotInRawKept(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("the listing of the build directory tree ", 30)
	data := `[{"role":"user","content":"list it"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"ls","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"` + long + `"},{"type":"text","text":"[image]"}]},`
	for _, id := range []string{"t2", "t3", "t4"} {
		data += `{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"ls","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"a.go"}]},`
	}
	data += `{"role":"user","content":"fix it"}]`
	msgs, err := chitta.ParseMessages([]byte(data))
	require.NoError(t, err)
	cache := chitta.NewMaskCache()
	var tokens []int
	// Twice each: the second call of each finds its form in the cache,
	// which must not give one conversation's media to the other.
	for _, media := range []int{500, 500, 900, 900} {
		msgs[2].MediaTokens = media
		res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: 1, Mask: &chitta.MaskOptions{Cache: cache}})
		require.NoError(t, err)
		require.True(t, res.Scores[2].Masked)
		for i, k := range res.Kept {
			if k == 2 {
				assert.Equal(t, media, res.Messages[i].MediaTokens)
			}
		}
		tokens = append(tokens, res.Scores[2].Tokens)
	}
	assert.GreaterOrEqual(t, tokens[0], 500)
	assert.Equal(t, tokens[0], tokens[1])
	assert.Equal(t, tokens[0]+400, tokens[2], "the masked form counts its own media")
	assert.Equal(t, tokens[2], tokens[3])
	assert.Positive(t, cache.Stats().Forms, "the cache was used")
}

// TestParseMessagesGeminiMediaResolution: a genai image part whose
// mediaResolution (or media_resolution, as the REST API also writes it)
// sets numTokens (num_tokens) > 0 counts exactly that; a level alone, a
// count not positive or not an integer, or one on a function response's
// part (which the SDK's FunctionResponsePart has no field for) leaves the
// Gemini rule (before, the rule applied to all: 258 for the small PNG
// with numTokens 70).
func TestParseMessagesGeminiMediaResolution(t *testing.T) {
	t.Parallel()
	small := `"data":"` + pngBase64(t, 200, 200) + `"`
	inline := `"inlineData":{"mimeType":"image/png",` + small + `}`
	tests := []struct {
		name  string
		part  string
		media int
	}{
		{"camelCase", `{` + inline + `,"mediaResolution":{"numTokens":70}}`, 70},
		{"with a level", `{` + inline + `,"mediaResolution":{"level":"MEDIA_RESOLUTION_HIGH","numTokens":1120}}`, 1120},
		{"snake_case", `{"inline_data":{"mime_type":"image/png",` + small + `},"media_resolution":{"num_tokens":70}}`, 70},
		{"file data", `{"fileData":{"mimeType":"image/png","fileUri":"gs://b/a.png"},"mediaResolution":{"numTokens":280}}`, 280},
		{"level only", `{` + inline + `,"mediaResolution":{"level":"MEDIA_RESOLUTION_LOW"}}`, 258},
		{"zero", `{` + inline + `,"mediaResolution":{"numTokens":0}}`, 258},
		{"negative", `{"fileData":{"mimeType":"image/png","fileUri":"gs://b/a.png"},"mediaResolution":{"numTokens":-5}}`, chitta.GeminiMaxImageTokens},
		{"fraction", `{` + inline + `,"mediaResolution":{"numTokens":70.5}}`, 258},
		{"string", `{` + inline + `,"mediaResolution":{"numTokens":"70"}}`, 258},
		{"above int32", `{` + inline + `,"mediaResolution":{"numTokens":2147483648}}`, 258},
		{"not an object", `{` + inline + `,"mediaResolution":"MEDIA_RESOLUTION_HIGH"}`, 258},
		{"null", `{` + inline + `,"mediaResolution":null}`, 258},
		{"a document stays uncounted", `{"fileData":{"mimeType":"application/pdf","fileUri":"gs://b/f.pdf"},"mediaResolution":{"numTokens":560}}`, 0},
		{"function response part", `{"functionResponse":{"id":"f","name":"shot","response":{"output":"ok"},"parts":[{` + inline + `,"mediaResolution":{"numTokens":70}}]}}`, 258},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			msgs, err := chitta.ParseMessages([]byte(`[{"role":"user","parts":[{"text":"look"},` + tt.part + `]}]`))
			require.NoError(t, err)
			require.Len(t, msgs, 1)
			assert.Equal(t, tt.media, msgs[0].MediaTokens)
		})
	}
}
