package main

// TEMPORARY: stand-ins until the embed and store branches land.

import (
	"context"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"sync"

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

type fakeStore struct {
	mu  sync.Mutex
	mem []chitta.Memory
}

func newStore(int) (*fakeStore, error) { return &fakeStore{}, nil }

func (s *fakeStore) Add(_ context.Context, m chitta.Memory) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mem = append(s.mem, m)
	return nil
}

func (s *fakeStore) Recall(_ context.Context, v []float32, k int) ([]chitta.Hit, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var hits []chitta.Hit
	for _, m := range s.mem {
		var d float64
		for j := range v {
			d += float64(v[j] * m.Vector[j])
		}
		hits = append(hits, chitta.Hit{Memory: m, Similarity: d})
	}
	slices.SortFunc(hits, func(a, b chitta.Hit) int { return -cmpF(a.Similarity, b.Similarity) })
	return hits[:min(k, len(hits))], nil
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
