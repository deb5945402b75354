package main

// TEMPORARY: stand-ins until the embed and store branches land.

import (
	"context"
	"hash/fnv"
	"math"
	"strings"

	"github.com/chitta-go/chitta"
)

type embedder interface {
	chitta.Embedder
	Dimensions() int
}

type fakeEmbedder struct{}

func newEmbedder() embedder { return fakeEmbedder{} }

func (fakeEmbedder) Dimensions() int { return 256 }

func (fakeEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 256)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
		}) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%256]++
		}
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		if n > 0 {
			for j := range v {
				v[j] /= float32(math.Sqrt(n))
			}
		}
		out[i] = v
	}
	return out, nil
}

func newStore(dims int) (*chitta.HNSWStore, error) { return chitta.NewHNSWStore(dims, nil) }
