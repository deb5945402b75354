package main

// TEMPORARY: until the embed branch's CachedEmbedder lands.

import (
	"context"

	"github.com/chitta-go/chitta"
)

const (
	embedderName = "CachedEmbedder over HashEmbedder"
	storeName    = "HNSWStore"
)

func newEmbedder() (chitta.Embedder, *counts, int) {
	c := &counts{}
	h := chitta.NewHashEmbedder(0)
	return chitta.EmbedderFunc(func(ctx context.Context, texts []string) ([][]float32, error) {
		c.requested += len(texts)
		c.embedded += len(texts)
		return h.Embed(ctx, texts)
	}), c, h.Dimensions()
}

func newStore(dims int) (*chitta.HNSWStore, error) { return chitta.NewHNSWStore(dims, nil) }
