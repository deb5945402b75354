package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/openai"
)

// newEmbedder returns the embedder every method shares, behind a
// chitta.CachedEmbedder so that each text is embedded once across
// questions, cuts, ratios and methods, and a description for the report.
//
// "hash" is chitta.HashEmbedder with -dims dimensions; "openai:URL#model"
// is an OpenAI-compatible /v1/embeddings server (the key, if any, is read
// from OPENAI_API_KEY).
func newEmbedder(c *config) (chitta.Embedder, string, error) {
	var base chitta.Embedder
	var desc string
	switch {
	case c.embedder == "hash":
		h := chitta.NewHashEmbedder(c.dims)
		base, desc = h, fmt.Sprintf("chitta.HashEmbedder, %d dimensions", h.Dimensions())
	case strings.HasPrefix(c.embedder, "openai:"):
		url, model, ok := strings.Cut(strings.TrimPrefix(c.embedder, "openai:"), "#")
		if !ok || url == "" || model == "" {
			return nil, "", fmt.Errorf("-embedder %q: want openai:URL#model", c.embedder)
		}
		e, err := openai.New(&openai.Options{BaseURL: url, Model: model, APIKey: os.Getenv("OPENAI_API_KEY")})
		if err != nil {
			return nil, "", fmt.Errorf("-embedder: %w", err)
		}
		base, desc = e, fmt.Sprintf("openai %s at %s", model, url)
	default:
		return nil, "", fmt.Errorf("-embedder %q: want hash or openai:URL#model", c.embedder)
	}
	return chitta.NewCachedEmbedder(base, c.cache), desc + ", behind chitta.CachedEmbedder", nil
}
