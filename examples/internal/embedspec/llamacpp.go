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
// again). Without the llamacpp build tag it fails with
// llamacpp.ErrUnavailable.
func openLlama(_ context.Context, path string) (*Embedder, error) {
	e, err := llamacpp.New(path, nil)
	if err != nil {
		return nil, fmt.Errorf("embedder llamacpp:%s: %w", path, err)
	}
	return &Embedder{
		Embedder: chitta.NewCachedEmbedder(e, 0),
		Name:     fmt.Sprintf("llamacpp (%s, %d dims)", filepath.Base(path), e.Dimensions()),
		Dims:     e.Dimensions(),
		close:    e.Close,
	}, nil
}
