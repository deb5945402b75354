package chitta

import (
	"bufio"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"strings"
)

// This file estimates what providers bill for images, for
// [Message.MediaTokens]: ParseMessages and the typed adapters (adapt/*)
// share these rules.
//
// Anthropic (the rule of the Claude vision documentation): an image whose
// long edge exceeds 1568 pixels, or that would cost more than about 1600
// tokens, is scaled down, keeping its aspect ratio, until it fits both
// limits; it then costs ceil(width × height / 750) tokens. Newer
// high-resolution Claude models may bill larger images at more; that is
// not modelled.
//
// OpenAI (the tile rule of GPT-4o, GPT-4.1 and the o-series): detail
// "low" costs 85 tokens; otherwise the image is scaled to fit 2048 × 2048,
// then its shortest side to 768, and costs 85 + 170 per 512-pixel tile.
// Models billed by 32-pixel patches (gpt-4.1-mini and -nano, o4-mini,
// GPT-5) are not modelled.
//
// Gemini (the rule of the Gemini API's token documentation): an image
// with both sides at most 384 pixels costs 258 tokens; a larger one is
// cropped and scaled into 768 × 768 tiles, 258 tokens each. The Vertex AI
// input limits scale an image down (padding it) to fit 3072 × 3072, so
// at most 4 × 4 tiles. A genai image part whose media resolution sets
// numTokens above zero counts exactly that instead (see [ParseMessages]).
// Not modelled: Gemini 3's media_resolution levels without a count (a
// fixed budget per image, at most 2240 tokens, below the 16-tile cap,
// that depends on the model), and video, audio and PDF pages.
//
// An image whose provider chitta cannot tell (a langchaingo or eino part)
// counts as the largest of the three rules for its size, [MaxImageTokens].
//
// An image whose size cannot be read (a URL or file ID, data that is not
// PNG, JPEG, GIF or WebP) counts as the most its rule bills, so that a
// budget errs on the safe side.

// Fixed image estimates, in tokens.
const (
	// AnthropicMaxImageTokens is the most the Anthropic rule bills for one
	// image (its ~1.15-megapixel limit), and the estimate for an image
	// whose size is unknown.
	AnthropicMaxImageTokens = 1600
	// OpenAIMaxImageTokens is the most the OpenAI tile rule bills for one
	// image at high or auto detail (8 tiles: 768 × 2048), and the estimate
	// for such an image whose size is unknown.
	OpenAIMaxImageTokens = 85 + 170*8
	// OpenAILowDetailImageTokens is what OpenAI bills for an image at
	// detail "low", whatever its size.
	OpenAILowDetailImageTokens = 85
	// GeminiMaxImageTokens is the most the Gemini rule bills for one
	// image: 16 tiles of 258 tokens, a 3072 × 3072 image, the size Gemini
	// scales a larger one down to. It is the estimate for a Gemini image
	// whose size is unknown (a file URI), and, being the largest of the
	// three maxima, for an image whose provider and size are both unknown.
	GeminiMaxImageTokens = geminiTileTokens * 16
)

// geminiTileTokens is what Gemini bills for a small image or a tile.
const geminiTileTokens = 258

// GeminiImageTokens returns the tokens Gemini bills for an image of
// width × height pixels (see the rule above), at most
// [GeminiMaxImageTokens]; a width or height that is not positive gives
// GeminiMaxImageTokens. It is safe for concurrent use.
func GeminiImageTokens(width, height int) int {
	if width <= 0 || height <= 0 {
		return GeminiMaxImageTokens
	}
	if width <= 384 && height <= 384 {
		return geminiTileTokens
	}
	w, h := float64(width), float64(height)
	if s := 3072 / max(w, h); s < 1 {
		w, h = w*s, h*s
	}
	tiles := math.Ceil(math.Floor(w)/768) * math.Ceil(math.Floor(h)/768)
	return min(GeminiMaxImageTokens, geminiTileTokens*max(1, int(tiles)))
}

// MaxImageTokens returns the largest of [AnthropicImageTokens],
// [OpenAIImageTokens] (at high detail) and [GeminiImageTokens] for an
// image of width × height pixels: the estimate for an image whose
// provider chitta cannot tell, which errs on the safe side. A width or
// height that is not positive gives the largest maximum,
// [GeminiMaxImageTokens]. It is safe for concurrent use.
func MaxImageTokens(width, height int) int {
	return max(AnthropicImageTokens(width, height), OpenAIImageTokens(width, height, "high"), GeminiImageTokens(width, height))
}

// AnthropicImageTokens returns the tokens Anthropic bills for an image of
// width × height pixels (see the rule above), at most
// [AnthropicMaxImageTokens]; a width or height that is not positive gives
// AnthropicMaxImageTokens. It is safe for concurrent use.
func AnthropicImageTokens(width, height int) int {
	if width <= 0 || height <= 0 {
		return AnthropicMaxImageTokens
	}
	w, h := float64(width), float64(height)
	scale := min(1, 1568/max(w, h))
	if area := w * h * scale * scale; area > AnthropicMaxImageTokens*750 {
		scale *= math.Sqrt(AnthropicMaxImageTokens * 750 / area)
	}
	w, h = max(1, math.Floor(w*scale)), max(1, math.Floor(h*scale))
	return min(AnthropicMaxImageTokens, int(math.Ceil(w*h/750)))
}

// OpenAIImageTokens returns the tokens OpenAI bills for an image of
// width × height pixels at the given detail ("low", "high", "auto" or
// empty; anything but "low" is billed as high), by the tile rule above; a
// width or height that is not positive gives [OpenAIMaxImageTokens] (or
// [OpenAILowDetailImageTokens] for "low"). It is safe for concurrent use.
func OpenAIImageTokens(width, height int, detail string) int {
	if detail == "low" {
		return OpenAILowDetailImageTokens
	}
	if width <= 0 || height <= 0 {
		return OpenAIMaxImageTokens
	}
	w, h := float64(width), float64(height)
	if s := 2048 / max(w, h); s < 1 {
		w, h = w*s, h*s
	}
	if s := 768 / min(w, h); s < 1 {
		w, h = w*s, h*s
	}
	tiles := math.Ceil(math.Floor(w)/512) * math.Ceil(math.Floor(h)/512)
	return OpenAILowDetailImageTokens + 170*max(1, int(tiles))
}

// AnthropicBase64ImageTokens returns [AnthropicImageTokens] for the image
// whose base64 data (standard encoding, as an Anthropic base64 image
// source holds it) is data, reading only its header; data whose size
// cannot be read gives [AnthropicMaxImageTokens]. It is safe for
// concurrent use.
func AnthropicBase64ImageTokens(data string) int {
	w, h, _ := Base64ImageSize(data)
	return AnthropicImageTokens(w, h)
}

// OpenAIImageURLTokens returns [OpenAIImageTokens] for the image at url at
// the given detail: a data URL ("data:image/png;base64,…") is read for
// its size (its header only); any other URL, or data whose size cannot be
// read, counts as the most its detail bills. It is safe for concurrent
// use.
func OpenAIImageURLTokens(url, detail string) int {
	if detail == "low" {
		return OpenAILowDetailImageTokens
	}
	w, h, _ := DataURLImageSize(url)
	return OpenAIImageTokens(w, h, detail)
}

// Base64ImageSize returns [ImageSize] of the image whose standard base64
// data (padded or not, line breaks ignored) is data, decoding only its
// header; ok is false when the size cannot be read. It is safe for
// concurrent use.
func Base64ImageSize(data string) (width, height int, ok bool) {
	return ImageSize(base64Reader(data))
}

// DataURLImageSize returns [ImageSize] of the image a base64 data URL
// ("data:image/png;base64,…") holds, decoding only its header; ok is
// false for any other URL or when the size cannot be read. It is safe for
// concurrent use.
func DataURLImageSize(url string) (width, height int, ok bool) {
	if rest, found := strings.CutPrefix(url, "data:"); found {
		if meta, data, found := strings.Cut(rest, ","); found && strings.HasSuffix(meta, ";base64") {
			return Base64ImageSize(data)
		}
	}
	return 0, 0, false
}

// base64Reader decodes standard base64, padded or not, ignoring line
// breaks.
func base64Reader(data string) io.Reader {
	enc := base64.StdEncoding
	if !strings.HasSuffix(strings.TrimRight(data, "\r\n"), "=") {
		enc = base64.RawStdEncoding
	}
	return base64.NewDecoder(enc, strings.NewReader(data))
}

// ImageSize returns the width and height of the PNG, JPEG, GIF or WebP
// image r holds, reading only as much of r as its header takes; ok is
// false for any other data or a header it cannot read. It never panics on
// bad data.
func ImageSize(r io.Reader) (width, height int, ok bool) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(30)
	var cfg image.Config
	var err error
	switch {
	case len(head) >= 8 && string(head[:8]) == "\x89PNG\r\n\x1a\n":
		cfg, err = png.DecodeConfig(br)
	case len(head) >= 3 && string(head[:3]) == "\xff\xd8\xff":
		cfg, err = jpeg.DecodeConfig(br)
	case len(head) >= 6 && (string(head[:6]) == "GIF87a" || string(head[:6]) == "GIF89a"):
		cfg, err = gif.DecodeConfig(br)
	case len(head) >= 30 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		w, h := webpSize(head)
		return w, h, w > 0 && h > 0
	default:
		return 0, 0, false
	}
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
		return 0, 0, false
	}
	return cfg.Width, cfg.Height, true
}

// webpSize reads the size from the first 30 bytes of a WebP file: its
// first chunk, VP8 (lossy), VP8L (lossless) or VP8X (extended).
func webpSize(b []byte) (int, int) {
	switch string(b[12:16]) {
	case "VP8 ": // frame header after a 3-byte tag and the start code 9d 01 2a
		if b[23] != 0x9d || b[24] != 0x01 || b[25] != 0x2a {
			return 0, 0
		}
		return int(binary.LittleEndian.Uint16(b[26:]) & 0x3fff), int(binary.LittleEndian.Uint16(b[28:]) & 0x3fff)
	case "VP8L": // signature 0x2f, then 14 bits of width-1 and 14 of height-1
		if b[20] != 0x2f {
			return 0, 0
		}
		v := binary.LittleEndian.Uint32(b[21:])
		return int(v&0x3fff) + 1, int(v>>14&0x3fff) + 1
	case "VP8X": // flags, 3 reserved bytes, 24 bits of width-1 and of height-1
		u24 := func(p []byte) int { return int(p[0]) | int(p[1])<<8 | int(p[2])<<16 }
		return u24(b[24:]) + 1, u24(b[27:]) + 1
	}
	return 0, 0
}

// anthropicImageTokens estimates an Anthropic image block from its source:
// a base64 source is read for its size; a URL or file source, or a source
// chitta cannot read, counts as AnthropicMaxImageTokens.
func anthropicImageTokens(source json.RawMessage) int {
	var src struct {
		Type json.RawMessage `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	if !isObject(source) || json.Unmarshal(source, &src) != nil {
		return AnthropicMaxImageTokens
	}
	typ, _ := optString(src.Type)
	data, ok := optString(src.Data)
	if typ != "base64" || !ok {
		return AnthropicMaxImageTokens
	}
	return AnthropicBase64ImageTokens(data)
}

// openAIImageTokens estimates an OpenAI image part from its image_url
// member (chat: {"url", "detail"}; Responses: a string, with detail
// beside it) and the part's own detail member.
func openAIImageTokens(imageURL, detail json.RawMessage) int {
	url, _ := optString(imageURL)
	d, _ := optString(detail)
	if isObject(imageURL) {
		var iu struct {
			URL    json.RawMessage `json:"url"`
			Detail json.RawMessage `json:"detail"`
		}
		if json.Unmarshal(imageURL, &iu) == nil {
			url, _ = optString(iu.URL)
			if s, _ := optString(iu.Detail); s != "" {
				d = s
			}
		}
	}
	return OpenAIImageURLTokens(url, d)
}

// appendDocument renders an Anthropic document block: "[document]", its
// title and context, and the text of a text source (its data) or of a
// content source (its blocks, whose images count as media). A PDF (a
// base64, URL or file source) reads as "[document]" alone and adds no
// media tokens: its pages are not estimated.
func appendDocument(b *strings.Builder, m *Message, blk json.RawMessage, f string, depth int) *contentError {
	var doc struct {
		Title   json.RawMessage `json:"title"`
		Context json.RawMessage `json:"context"`
		Source  json.RawMessage `json:"source"`
	}
	if json.Unmarshal(blk, &doc) != nil {
		return &contentError{f, "invalid block"}
	}
	addText(b, "[document]")
	if err := addStrings(b, f+".", member{"title", doc.Title}, member{"context", doc.Context}); err != nil {
		return err
	}
	if !isObject(doc.Source) {
		return nil
	}
	var src struct {
		Type    json.RawMessage `json:"type"`
		Data    json.RawMessage `json:"data"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(doc.Source, &src) != nil {
		return &contentError{f + ".source", "want an object"}
	}
	switch typ, _ := optString(src.Type); typ {
	case "text":
		return addStrings(b, f+".source.", member{"data", src.Data})
	case "content":
		return appendContent(b, m, src.Content, f+".source.content", depth+1)
	}
	return nil
}
