// Package chittatest holds test doubles for chitta's interfaces, for the
// tests of code that calls chitta (the way net/http/httptest serves
// net/http): embedders whose vectors a test controls and an in-memory store
// whose answers a test controls. They are deliberately simple and exact, so
// that a test can compute expected scores by hand; they are not fast and not
// meant for production. chitta's own tests, its adapters' and its
// evaluation's use them too.
//
// Every double is safe for concurrent use by Compact and Compactor (which
// may call an embedder from several goroutines). Their exported fields are
// the test's to set before the first call and to read after the last one;
// reading or writing them while a call runs is a data race.
package chittatest

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"sync"

	"github.com/chitta-go/chitta"
)

// TableEmbedder returns the vector its table holds for each text and fails
// for a text it does not know. It records every call. The zero value has no
// vectors and fails every text. Embed returns copies: the table stays the
// test's. Embed is safe for concurrent use once Vectors is set.
type TableEmbedder struct {
	Vectors map[string][]float32 // text → vector; read, never written, by Embed

	mu    sync.Mutex
	Calls [][]string // texts of each Embed call, in order (copies)
}

// Embed implements chitta.Embedder.
func (e *TableEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.Calls = append(e.Calls, append([]string(nil), texts...))
	e.mu.Unlock()
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, ok := e.Vectors[t]
		if !ok {
			return nil, fmt.Errorf("chittatest: no vector for %q", t)
		}
		out[i] = append([]float32(nil), v...)
	}
	return out, nil
}

// CallCount returns the number of Embed calls so far.
func (e *TableEmbedder) CallCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.Calls)
}

// SeededEmbedder maps every text to a deterministic pseudo-random vector
// of Dims components (each in [-1, 1]) derived from an FNV hash of the text.
// Equal texts give equal vectors; different texts give nearly orthogonal
// ones. It is cheap and has no state, for benchmarks and property tests.
// The zero value gives empty vectors, which Compact takes for a failed
// embedder (it scores without embeddings; Stats.Embedding is false): set
// Dims. It is safe for concurrent use, and its vectors belong to the caller.
type SeededEmbedder struct {
	Dims int // length of every vector
}

// Embed implements chitta.Embedder.
func (e SeededEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = SeededVector(t, e.Dims)
	}
	return out, nil
}

// SeededVector returns the vector SeededEmbedder gives text.
func SeededVector(text string, dims int) []float32 {
	h := fnv.New64a()
	h.Write([]byte(text))
	x := h.Sum64() | 1
	v := make([]float32, dims)
	for j := range v {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		v[j] = float32(int64(x>>11)%2001-1000) / 1000
	}
	return v
}

// FuncEmbedder adapts a function for misbehaving-embedder tests (an alias
// of chitta.EmbedderFunc, so its zero value, nil, always fails). It is as
// safe for concurrent use as the function is.
type FuncEmbedder = chitta.EmbedderFunc

// Store is an in-memory chitta.MemoryStore with an exact cosine scan. It
// does not implement chitta.BatchRecaller, so Compact calls Recall once per
// message. Err and AddErr make Recall and Add fail. The zero value is an
// empty store. Add keeps the Memory it is given (its Vector is not copied);
// Recall's hits share the stored vectors: do not modify them. Its methods
// are safe for concurrent use; read or set the fields only while no call
// runs.
type Store struct {
	mu       sync.Mutex
	Memories []chitta.Memory // what Add stored, in order of first Add; a test may preload it
	Err      error           // returned by Recall when set
	AddErr   error           // returned by Add when set
	Recalls  int             // number of Recall calls
}

// Add implements chitta.MemoryStore.
func (s *Store) Add(ctx context.Context, m chitta.Memory) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.AddErr != nil {
		return s.AddErr
	}
	for i := range s.Memories {
		if s.Memories[i].ID == m.ID {
			s.Memories[i] = m
			return nil
		}
	}
	s.Memories = append(s.Memories, m)
	return nil
}

// Recall implements chitta.MemoryStore with an exact scan.
func (s *Store) Recall(ctx context.Context, q []float32, k int) ([]chitta.Hit, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Recalls++
	if s.Err != nil {
		return nil, s.Err
	}
	if k <= 0 {
		return nil, nil
	}
	hits := make([]chitta.Hit, 0, len(s.Memories))
	for _, m := range s.Memories {
		hits = append(hits, chitta.Hit{Memory: m, Similarity: cosine(q, m.Vector)})
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Similarity > hits[j].Similarity })
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits, nil
}

func cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var d, na, nb float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return d / math.Sqrt(na*nb)
}
