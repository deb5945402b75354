package embedspec

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/llamacpp"
)

// openLlama opens a GGUF embedding model with llama.cpp behind an
// embedding cache (a long MCP session compacts the same messages again and
// again), with the spec's prefixes. Without the llamacpp build tag it fails
// with llamacpp.ErrUnavailable.
func openLlama(_ context.Context, path string, p prefixes) (*Embedder, error) {
	var opts *llamacpp.Options
	if p != (prefixes{}) {
		opts = &llamacpp.Options{QueryPrefix: p.query, DocumentPrefix: p.document}
	}
	return openLlamaWith(path, opts)
}

// openLlamaWith is openLlama with llama.cpp options (nil: defaults). When
// they give queries another prefix than documents, Queries is the model's
// query side, behind a cache of its own.
func openLlamaWith(path string, opts *llamacpp.Options) (*Embedder, error) {
	e, err := llamacpp.New(path, opts)
	if err != nil {
		return nil, fmt.Errorf("embedder llamacpp:%s: %w", path, err)
	}
	out := &Embedder{
		Embedder: chitta.NewCachedEmbedder(e, 0),
		Name:     fmt.Sprintf("llamacpp (%s, %d dims)", filepath.Base(path), e.Dimensions()),
		Dims:     e.Dimensions(),
		close:    e.Close,
	}
	if opts != nil && opts.QueryPrefix != opts.DocumentPrefix {
		out.Queries = chitta.NewCachedEmbedder(e.Queries(), 0)
	}
	return out, nil
}
