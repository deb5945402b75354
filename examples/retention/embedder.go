package main

import (
	"context"
	"fmt"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/embedspec"
)

// newEmbedder opens the -embedder spec (hash, hash:DIMS, llamacpp[+PRESET]:PATH or
// openai[+PRESET]:URL#MODEL, see internal/embedspec) that every method shares. The
// hash embedder is put behind a chitta.CachedEmbedder too, so that every
// text is embedded once across questions, cuts, ratios and methods (the
// others already sit behind one). The evaluation embeds queries as
// documents: with a +PRESET, e.Queries is left unused and every text,
// query or turn, gets the preset's document prefix. The caller closes the
// result.
func newEmbedder(ctx context.Context, c *config) (*embedspec.Embedder, chitta.Embedder, error) {
	e, err := embedspec.Open(ctx, c.embedder)
	if err != nil {
		return nil, nil, fmt.Errorf("-embedder: %w", err)
	}
	if _, ok := e.Embedder.(*chitta.HashEmbedder); ok {
		return e, chitta.NewCachedEmbedder(e.Embedder, c.cache), nil
	}
	return e, e.Embedder, nil
}
