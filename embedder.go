package chitta

import (
	"context"
	"fmt"
)

// Embedder turns texts into vectors. Embed must return exactly one vector
// per text, in order, all of the same non-zero length; [Compact] checks this
// and falls back to recency + structural scoring (logging a warning) when an
// embedder misbehaves. Vectors need not be normalised: Compact compares
// them by cosine, in float64 where float32 squares would overflow or
// underflow, so any finite scale works, and an all-zero vector means "no
// embedding" for its text (scored as if there were no Embedder; it is
// neither recalled against the Store nor distilled). Implementations must
// be safe for concurrent use. The returned slices belong to the caller.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// EmbedderFunc adapts a function to [Embedder]. It is as safe for
// concurrent use as the function is. A nil EmbedderFunc is an embedder that
// always fails (an error wrapping [ErrInvalidOption]), so [Compact] scores
// without embeddings and logs a warning rather than panicking.
type EmbedderFunc func(ctx context.Context, texts []string) ([][]float32, error)

// Embed returns f(ctx, texts), or an error wrapping [ErrInvalidOption] when
// f is nil.
func (f EmbedderFunc) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if f == nil {
		return nil, fmt.Errorf("%w: nil EmbedderFunc", ErrInvalidOption)
	}
	return f(ctx, texts)
}
