//go:build !cgo || !llamacpp

package llamacpp

import (
	"context"

	"github.com/chitta-go/chitta"
)

// Embedder embeds texts with llama.cpp. In this build (without cgo or
// without the llamacpp build tag) it cannot be created: [New] always
// returns [ErrUnavailable], and the methods of a nil or zero Embedder
// return ErrUnavailable too; they are safe for concurrent use.
type Embedder struct{}

// New returns [ErrUnavailable]: this build has no llama.cpp support.
// Rebuild with cgo enabled and -tags llamacpp. Invalid options are still
// reported first, with [ErrInvalidOption], as in the real build.
func New(modelPath string, opts *Options) (*Embedder, error) {
	if _, err := opts.config(); err != nil {
		return nil, err
	}
	return nil, ErrUnavailable
}

// Embed returns [ErrUnavailable].
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return nil, ErrUnavailable
}

// EmbedQueries returns [ErrUnavailable].
func (e *Embedder) EmbedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	return nil, ErrUnavailable
}

// Queries returns a [chitta.Embedder] whose Embed returns [ErrUnavailable].
func (e *Embedder) Queries() chitta.Embedder { return chitta.EmbedderFunc(e.EmbedQueries) }

// Dimensions returns 0.
func (e *Embedder) Dimensions() int { return 0 }

// Close does nothing and returns nil.
func (e *Embedder) Close() error { return nil }

var _ chitta.Embedder = (*Embedder)(nil)
