package chitta

import (
	"context"
	"time"
)

// Memory kinds used by chitta itself. A [Memory.Kind] may be any string.
const (
	KindFact       = "fact"       // a plain remembered fact (the default kind)
	KindCorrection = "correction" // the user corrected the agent
	KindPreference = "preference" // the user stated a preference
	KindHabit      = "habit"      // a recurring practice or convention
	KindWisdom     = "wisdom"     // an explanation or rule the assistant gave
	KindEpisode    = "episode"    // something that happened (including compactions)
)

// Memory is one thing the agent has learned. Vector is its embedding; a
// store may normalise it on insert.
type Memory struct {
	ID         string    `json:"id"`
	Text       string    `json:"text"`
	Kind       string    `json:"kind"`
	Confidence float64   `json:"confidence"`
	Vector     []float32 `json:"vector,omitempty"`
	CreatedAt  time.Time `json:"created_at"`
	Source     string    `json:"source,omitempty"`
}

// Hit is a recalled memory with its true cosine similarity to the query.
type Hit struct {
	Memory
	Similarity float64 `json:"similarity"`
}

// MemoryStore is the agent's persistent memory as [Compact] sees it.
//
// Recall returns up to k memories nearest to vector, most similar first,
// each with its true cosine similarity; it must not modify the store (no
// access counters, no side effects), and k <= 0 returns no hits. Add stores
// a memory, replacing one with the same ID. Implementations must be safe for
// concurrent use.
type MemoryStore interface {
	Recall(ctx context.Context, vector []float32, k int) ([]Hit, error)
	Add(ctx context.Context, m Memory) error
}

// BatchRecaller is implemented by stores that answer many queries at once
// more cheaply than one by one. [Compact] uses it, when the store has it, to
// compute every message's coverage in one call. The result has one slice of
// hits per vector, in order.
type BatchRecaller interface {
	RecallBatch(ctx context.Context, vectors [][]float32, k int) ([][]Hit, error)
}
