package chittatest

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/chitta-go/chitta"
)

// CountingEmbedder wraps an embedder and records every call and every text
// it is asked to embed. Err, when set, is returned instead of calling Next;
// Corrupt, when set, rewrites Next's answer (to inject wrong counts or
// dimensions). Set the fields before use; the methods are safe for
// concurrent use. Next must be set unless Err is: the zero value's Embed
// fails.
type CountingEmbedder struct {
	Next    chitta.Embedder               // the embedder asked, unless Err is set
	Err     error                         // when set, every Embed returns it
	Corrupt func([][]float32) [][]float32 // when set, rewrites Next's answer

	mu    sync.Mutex
	calls int
	texts []string
}

// Embed records the call and the texts, then returns Err or Next's
// (possibly corrupted) answer.
func (c *CountingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.mu.Lock()
	c.calls++
	c.texts = append(c.texts, texts...)
	c.mu.Unlock()
	if c.Err != nil {
		return nil, c.Err
	}
	if c.Next == nil {
		return nil, errors.New("chittatest: CountingEmbedder.Next is nil")
	}
	vecs, err := c.Next.Embed(ctx, texts)
	if err != nil || c.Corrupt == nil {
		return vecs, err
	}
	return c.Corrupt(vecs), nil
}

// Calls returns the number of Embed calls so far.
func (c *CountingEmbedder) Calls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}

// Texts returns a copy of every text embedded so far, in call order.
func (c *CountingEmbedder) Texts() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.texts)
}

// Reset forgets the recorded calls and texts.
func (c *CountingEmbedder) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls, c.texts = 0, nil
}
