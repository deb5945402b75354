package chitta

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/chitta-go/chitta/internal/vecmath"
)

// Memory kinds used by chitta itself. A [Memory.Kind] may be any string.
const (
	KindFact       = "fact"       // a plain remembered fact (the default kind)
	KindCorrection = "correction" // the user corrected the agent
	KindPreference = "preference" // the user stated a preference
	KindHabit      = "habit"      // a recurring practice or convention
	KindWisdom     = "wisdom"     // an explanation or rule the assistant gave
	KindEpisode    = "episode"    // something that happened (including compactions)
	KindBrief      = "brief"      // the last preservation brief of a session (one per session)
)

// Memory is one thing the agent has learned. Vector is its embedding; a
// store may normalise it on insert. A Memory is a plain value; the zero
// value has no vector, so a store rejects it ([ErrInvalidVector] or
// [ErrDimensionMismatch]). [HNSWStore] and pgstore copy what they keep and
// return copies.
type Memory struct {
	ID         string    `json:"id"`               // unique in a store; empty: MemoryID(Kind, Text) on Add
	Text       string    `json:"text"`             // what the agent learned, as it will read it back
	Kind       string    `json:"kind"`             // one of the Kind constants, or the caller's own; empty is allowed
	Confidence float64   `json:"confidence"`       // how sure the writer was, in [0, 1]
	Vector     []float32 `json:"vector,omitempty"` // the embedding of Text (the store's Dims)
	CreatedAt  time.Time `json:"created_at"`       // when it was learned; zero: the time of Add
	Source     string    `json:"source,omitempty"` // where it came from, free text (for example "distill-on-drop: message 4")
}

// Hit is a recalled memory with its true cosine similarity to the query.
// It is a plain value; the hits of [HNSWStore] and pgstore are copies that
// belong to the caller.
type Hit struct {
	Memory
	Similarity float64 `json:"similarity"` // cosine of the query and the memory's vector, in [-1, 1]
}

// MemoryStore is the agent's persistent memory as [Compact] sees it.
//
// Recall returns up to k memories nearest to vector, most similar first,
// each with its true cosine similarity; it must not modify the store (no
// access counters, no side effects), and k <= 0 returns no hits. Add stores
// a memory, replacing one with the same ID. Implementations must be safe for
// concurrent use. The hits Recall returns belong to the caller; [Compact]
// only reads them. Compact and [RecordEpisode] never modify a Memory (or
// its Vector) after passing it to Add, so a store may keep it as it is.
type MemoryStore interface {
	Recall(ctx context.Context, vector []float32, k int) ([]Hit, error)
	Add(ctx context.Context, m Memory) error
}

// BatchRecaller is implemented by stores that answer many queries at once
// more cheaply than one by one. [Compact] uses it, when the store has it, to
// compute every message's coverage in one call. The result has one slice of
// hits per vector, in order, each as [MemoryStore.Recall] would return it;
// it belongs to the caller. Implementations must be safe for concurrent
// use.
type BatchRecaller interface {
	RecallBatch(ctx context.Context, vectors [][]float32, k int) ([][]Hit, error)
}

// KindFilter selects memories by [Memory.Kind]. A memory passes when
// Include is empty or names its kind, and Exclude does not name it. The zero
// value passes every memory. A KindFilter is read-only once passed to a
// store; stores must not modify its slices.
type KindFilter struct {
	Include []string // kinds that pass; empty means every kind
	Exclude []string // kinds that never pass
}

// Match reports whether a memory of the given kind passes f.
func (f KindFilter) Match(kind string) bool {
	if len(f.Include) > 0 && !slices.Contains(f.Include, kind) {
		return false
	}
	return !slices.Contains(f.Exclude, kind)
}

// CoverageRecaller is an optional interface of a [MemoryStore] that answers
// a compaction's coverage queries without handing out memories: for each
// vector, the highest cosine similarity to a stored memory that passes the
// filter (0 when none does, and never below 0). It copies no memory or
// vector, so its cost per query is one float64. The result has one entry per
// vector, in order, and belongs to the caller. Implementations must be safe
// for concurrent use.
type CoverageRecaller interface {
	BestSimilarities(ctx context.Context, vectors [][]float32, f KindFilter) ([]float64, error)
}

// Generational is an optional interface of a [MemoryStore] whose contents
// carry a generation: a number that changes with every mutation (Add,
// Delete, a merge from another process) and stays the same while the
// contents do, so a caller may reuse anything computed from the store while
// the generation is unchanged. A generation must never come back for other
// contents (a store whose data is reset under the same value, such as
// tables dropped and created again, must not restart its count where it
// started before). An error means the generation is unknown and nothing
// may be reused. Implementations must be safe for concurrent use.
type Generational interface {
	Generation(ctx context.Context) (uint64, error)
}

// Defaults and limits of [HNSWOptions] and [NewHNSWStore].
const (
	DefaultHNSWM              = 16      // used when HNSWOptions.M is 0
	DefaultHNSWEfSearch       = 64      // used when HNSWOptions.EfSearch is 0
	DefaultHNSWEfConstruction = 200     // used when HNSWOptions.EfConstruction is 0
	DefaultHNSWShards         = 1       // used when HNSWOptions.Shards is 0
	DefaultHNSWOverfetch      = 8       // used when HNSWOptions.Overfetch is 0
	MaxStoreDims              = 1 << 16 // largest dims NewHNSWStore accepts
)

// HNSWOptions configures an [HNSWStore]. A nil *HNSWOptions, and the zero
// value of every field, means the documented default. With the defaults the
// store never builds a graph: every Recall is an exact scan (see
// [HNSWOptions.Crossover] for why).
type HNSWOptions struct {
	// Crossover is the number of memories at or above which Recall searches
	// HNSW graphs (github.com/coder/hnsw) instead of scanning every vector.
	// 0 means never: Recall is always exact. Measured on clustered 384-d
	// data, coder/hnsw reaches a recall@3 far below 0.95 (see the README),
	// so an approximate Recall is opt-in. RecallBatch is always exact. The
	// Add that brings the store to Crossover builds the graphs over every
	// memory while holding the write lock (tens of seconds at 100 000
	// memories); later Adds and Deletes update them. Negative is an error,
	// and so is any but 0 on Windows, where coder/hnsw does not build.
	Crossover int

	// M is the number of neighbours per graph node. 0 means
	// DefaultHNSWM (16); valid range 2–256.
	M int

	// EfSearch bounds the candidate queue of a graph search. 0 means
	// DefaultHNSWEfSearch (64); valid range 1–10000.
	EfSearch int

	// EfConstruction is the EfSearch used while inserting into a graph.
	// 0 means DefaultHNSWEfConstruction (200); valid range 1–10000.
	EfConstruction int

	// Shards is the number of independent graphs memories are spread over
	// (by slot); a Recall searches every shard and re-ranks the union
	// exactly. 0 means DefaultHNSWShards (1); valid range 1–1024.
	Shards int

	// Overfetch multiplies k for each shard's search: a Recall for k
	// memories asks each graph for Overfetch·k candidates. 0 means
	// DefaultHNSWOverfetch (8); valid range 1–1000.
	Overfetch int

	// Seed seeds the graphs' level generators. 0 means 1. coder/hnsw also
	// picks layer entry points by map iteration, so graphs, and therefore
	// approximate results, still vary from run to run.
	Seed int64
}

// resolve returns o with defaults applied, or an error naming the first
// field out of range.
func (o *HNSWOptions) resolve() (HNSWOptions, error) {
	var r HNSWOptions
	if o != nil {
		r = *o
	}
	if r.Crossover < 0 {
		return r, fmt.Errorf("%w: HNSWOptions.Crossover %d, want >= 0", ErrInvalidOption, r.Crossover)
	}
	if r.Crossover > 0 && !graphsAvailable {
		return r, fmt.Errorf("%w: HNSWOptions.Crossover %d: the graphs are not available on %s (github.com/coder/hnsw does not build there), want 0 (exact)", ErrInvalidOption, r.Crossover, runtime.GOOS)
	}
	for _, f := range []struct {
		name     string
		v        *int
		def, max int
		min      int
	}{
		{"M", &r.M, DefaultHNSWM, 256, 2},
		{"EfSearch", &r.EfSearch, DefaultHNSWEfSearch, 10000, 1},
		{"EfConstruction", &r.EfConstruction, DefaultHNSWEfConstruction, 10000, 1},
		{"Shards", &r.Shards, DefaultHNSWShards, 1024, 1},
		{"Overfetch", &r.Overfetch, DefaultHNSWOverfetch, 1000, 1},
	} {
		switch {
		case *f.v == 0:
			*f.v = f.def
		case *f.v < f.min || *f.v > f.max:
			return r, fmt.Errorf("%w: HNSWOptions.%s %d, want 0 (default %d) or %d–%d", ErrInvalidOption, f.name, *f.v, f.def, f.min, f.max)
		}
	}
	if r.Seed == 0 {
		r.Seed = 1
	}
	return r, nil
}

// HNSWStore is an in-memory [MemoryStore], [BatchRecaller],
// [CoverageRecaller] and [Generational] store that can be saved to and
// loaded from a file.
//
// Vectors are copied and normalised on insert and kept in a paged matrix,
// beside an int8 copy (one byte per component plus 8 bytes per memory).
// An exact scan reads the int8 copy with SIMD integer dot products, bounds
// every memory's similarity, and re-ranks in float64 the few whose bound
// reaches the k-th best, so it is exact while reading a quarter of the
// bytes of a float32 scan. Recall scans exactly unless
// [HNSWOptions.Crossover] enables the coder/hnsw graphs; RecallBatch and
// BestSimilarities always scan exactly. Every returned [Hit.Similarity] is
// the float64 cosine between the query and the stored vector, and the
// exact top k is the k most similar by that cosine. Hits are ordered most
// similar first, ties by ascending ID.
//
// The zero value is not usable; create one with [NewHNSWStore] or
// [LoadHNSWStore]. On a nil or zero store, Add, Recall, RecallBatch,
// Delete and SaveFile return an error wrapping [ErrInvalidOption], Len and
// Dims return 0 and Get finds nothing (BestSimilarities and Generation
// return that error too). An HNSWStore is safe for concurrent use: reads
// share a read lock, Add and Delete take the write lock. Every Memory and Hit it
// returns is a copy that the caller owns.
type HNSWStore struct {
	mu     sync.RWMutex
	dims   int
	opts   HNSWOptions
	vecs   matrix[float32] // row s is slot s's vector, unit length
	live   []bool          // per slot
	recs   []record        // per slot
	index  map[string]int32
	free   []int32 // dead slots to reuse, LIFO
	graphs graphs  // the coder/hnsw graphs (store_hnsw.go; none on Windows)

	// The int8 copy the exact scan reads (see store_scan.go): row s of q8
	// is slot s's, with scale qscale[s] and residual norm qerr[s]; qerrMax
	// bounds every qerr (it never decreases).
	q8      matrix[int8]
	qscale  []float32
	qerr    []float32
	qerrMax float32

	// saveMu serialises SaveFile calls, encode to rename: unserialised,
	// a save that encoded earlier could rename its older snapshot over a
	// later save's newer one, losing memories whose save had returned nil.
	saveMu sync.Mutex

	gen       uint64 // changes with every mutation; see Generation
	maskMu    sync.Mutex
	maskCache kindMaskCache
}

// record is a memory without its vector.
type record struct {
	id, text, kind, source string
	confidence             float64
	createdAt              time.Time
}

// NewHNSWStore returns an empty store for vectors of dims components
// (1–MaxStoreDims). A nil opts means all defaults. It returns an error
// wrapping ErrInvalidOption for a bad dims or option.
func NewHNSWStore(dims int, opts *HNSWOptions) (*HNSWStore, error) {
	if dims < 1 || dims > MaxStoreDims {
		return nil, fmt.Errorf("%w: dims %d, want 1–%d", ErrInvalidOption, dims, MaxStoreDims)
	}
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	return &HNSWStore{
		dims: dims, opts: o, index: make(map[string]int32), gen: generations.Add(1),
		vecs: newMatrix[float32](dims), q8: newMatrix[int8](dims),
	}, nil
}

// errUnusable is returned by the methods of a nil or zero HNSWStore.
var errUnusable = fmt.Errorf("%w: HNSWStore is nil or its zero value (use NewHNSWStore or LoadHNSWStore)", ErrInvalidOption)

// usable returns errUnusable for a nil or zero store.
func (s *HNSWStore) usable() error {
	if s == nil || s.dims == 0 {
		return errUnusable
	}
	return nil
}

// Dims returns the vector length the store was created with (0 for a nil
// or zero store).
func (s *HNSWStore) Dims() int {
	if s == nil {
		return 0
	}
	return s.dims
}

// Len returns the number of memories in the store (0 for a nil or zero
// store).
func (s *HNSWStore) Len() int {
	if s == nil {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.index)
}

// Add stores a copy of m, replacing any memory with the same ID. An empty
// ID is replaced by [MemoryID](m.Kind, m.Text); a zero CreatedAt by the
// current time; CreatedAt is stored in UTC without its monotonic reading.
// The vector is copied and normalised; the caller keeps m.Vector.
//
// Add returns an error wrapping ErrDimensionMismatch when len(m.Vector)
// differs from Dims, ErrInvalidVector for an empty or zero vector or one
// with a NaN or infinite component, ErrInvalidMemory for a Confidence that
// is NaN or outside [0, 1], an ID, Text, Kind or Source longer than
// 64 MiB, or a Kind holding a NUL byte, and ctx.Err() when ctx is done. On error the store is unchanged.
func (s *HNSWStore) Add(ctx context.Context, m Memory) error {
	if err := s.usable(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	vec, err := s.prepare(m.Vector, "Memory.Vector")
	if err != nil {
		return err
	}
	if math.IsNaN(m.Confidence) || m.Confidence < 0 || m.Confidence > 1 {
		return fmt.Errorf("%w: Confidence %v, want 0–1", ErrInvalidMemory, m.Confidence)
	}
	for _, f := range []struct{ name, v string }{{"ID", m.ID}, {"Text", m.Text}, {"Kind", m.Kind}, {"Source", m.Source}} {
		if len(f.v) > maxStringLen { // SaveFile could write it, LoadHNSWStore would refuse it
			return fmt.Errorf("%w: %s is %d bytes, want at most %d", ErrInvalidMemory, f.name, len(f.v), maxStringLen)
		}
	}
	if i := strings.IndexByte(m.Kind, 0); i >= 0 {
		// MemoryID separates the kind from the text by a NUL: kind "a\x00b"
		// with text "c" would get the ID of kind "a" with text "b\x00c".
		return fmt.Errorf("%w: Kind holds a NUL byte (at byte %d), want none", ErrInvalidMemory, i)
	}
	if m.ID == "" {
		m.ID = MemoryID(m.Kind, m.Text)
	}
	if m.CreatedAt.IsZero() {
		m.CreatedAt = time.Now()
	}
	rec := record{id: m.ID, text: m.Text, kind: m.Kind, source: m.Source, confidence: m.Confidence, createdAt: m.CreatedAt.UTC()}

	s.mu.Lock()
	defer s.mu.Unlock()
	s.put(rec, vec)
	return nil
}

// put inserts or replaces rec with the unit vector vec. The caller holds
// the write lock.
func (s *HNSWStore) put(rec record, vec []float32) {
	slot, exists := s.index[rec.id]
	if exists {
		s.graphDelete(slot)
	} else {
		if n := len(s.free); n > 0 {
			slot = s.free[n-1]
			s.free = s.free[:n-1]
		} else {
			slot = int32(len(s.recs))
			s.recs = append(s.recs, record{})
			s.live = append(s.live, false)
			s.vecs.grow()
			s.q8.grow()
			s.qscale = append(s.qscale, 0)
			s.qerr = append(s.qerr, 0)
		}
		s.index[rec.id] = slot
	}
	s.recs[slot] = rec
	s.live[slot] = true
	copy(s.row(slot), vec)
	s.qscale[slot], s.qerr[slot] = quantRow(s.q8.row(int(slot)), vec)
	s.qerrMax = max(s.qerrMax, s.qerr[slot])
	s.gen = generations.Add(1)
	s.graphAdd(slot)
}

// row returns the stored vector of slot (aliasing the matrix).
func (s *HNSWStore) row(slot int32) []float32 {
	return s.vecs.row(int(slot))
}

// prepare validates v against the store's dimension and returns a
// normalised copy. field names v in errors.
func (s *HNSWStore) prepare(v []float32, field string) ([]float32, error) {
	if len(v) == 0 {
		return nil, fmt.Errorf("%w: %s is empty", ErrInvalidVector, field)
	}
	if len(v) != s.dims {
		return nil, fmt.Errorf("%w: %s has %d dimensions, want %d", ErrDimensionMismatch, field, len(v), s.dims)
	}
	out := slices.Clone(v)
	if err := normalise(out); err != nil {
		return nil, fmt.Errorf("%w: %s %s", ErrInvalidVector, field, err)
	}
	return out, nil
}

// normalise scales v in place to unit length, summing in float64 so that
// no finite float32 input overflows.
func normalise(v []float32) error {
	if err := checkVector(v); err != nil {
		return err
	}
	inv := 1 / math.Sqrt(sumSquares(v))
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
	return nil
}

// checkVector reports a vector with a NaN or infinite component or with
// zero norm.
func checkVector(v []float32) error {
	if !vecmath.AllFinite(v) {
		return errors.New("has a NaN or infinite component")
	}
	if sumSquares(v) == 0 {
		return errors.New("is a zero vector")
	}
	return nil
}

func sumSquares(v []float32) float64 {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	return ss
}

// Delete removes the memory with the given ID. It returns an error wrapping
// ErrNotFound when there is none.
func (s *HNSWStore) Delete(id string) error {
	if err := s.usable(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	slot, ok := s.index[id]
	if !ok {
		return fmt.Errorf("%w: ID %s", ErrNotFound, quoteID(id))
	}
	s.graphDelete(slot)
	delete(s.index, id)
	s.live[slot] = false
	s.recs[slot] = record{}
	clear(s.row(slot))
	clear(s.q8.row(int(slot)))
	s.free = append(s.free, slot)
	s.gen = generations.Add(1)
	return nil
}

// Get returns a copy of the memory with the given ID (its Vector is the
// stored, normalised one, owned by the caller) and whether it exists.
func (s *HNSWStore) Get(id string) (Memory, bool) {
	if s == nil {
		return Memory{}, false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	slot, ok := s.index[id]
	if !ok {
		return Memory{}, false
	}
	return s.memory(slot), true
}

// memory returns a copy of slot's memory. The caller holds a lock.
func (s *HNSWStore) memory(slot int32) Memory {
	r := &s.recs[slot]
	return Memory{
		ID: r.id, Text: r.text, Kind: r.kind, Confidence: r.confidence,
		Vector: slices.Clone(s.row(slot)), CreatedAt: r.createdAt, Source: r.source,
	}
}

// Recall returns up to k memories most similar to vector, most similar
// first (ties by ascending ID), with their cosine similarity. It does not
// modify the store. A vector of the wrong length gives
// ErrDimensionMismatch, an empty or zero vector or one with a NaN or
// infinite component ErrInvalidVector (for any k), and a done ctx
// ctx.Err(); otherwise k <= 0 or an empty store gives no hits and no error. The caller owns the returned hits.
func (s *HNSWStore) Recall(ctx context.Context, vector []float32, k int) ([]Hit, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := s.checkQuery(vector, "query vector"); err != nil {
		return nil, err // for any k, as RecallBatch
	}
	if k <= 0 {
		return []Hit{}, nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	k = min(k, len(s.index))
	if k == 0 {
		return []Hit{}, nil
	}
	if s.graphs.built() && len(s.index) >= s.opts.Crossover {
		q, err := s.prepare(vector, "query vector")
		if err != nil {
			return nil, err
		}
		if best, err := s.graphSearch(q, k); best != nil && err == nil {
			return s.hits(vector, best), nil
		}
	}
	var hits []Hit
	err := s.exactTop(ctx, [][]float32{vector}, k, nil, func(_ int, best []scored) { hits = s.hitsOf(best) })
	if err != nil {
		return nil, err
	}
	return hits, nil
}

// RecallBatch answers one exact Recall per vector in a single pass over the
// stored vectors, so Compact's per-message coverage costs one scan. The
// result has one slice of hits per vector, in order; k <= 0 gives empty
// slices. A bad vector fails the whole batch with an error naming its index.
// The caller owns the returned slices.
func (s *HNSWStore) RecallBatch(ctx context.Context, vectors [][]float32, k int) ([][]Hit, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := s.checkQueries(vectors); err != nil {
		return nil, err
	}
	out := make([][]Hit, len(vectors))
	for i := range out {
		out[i] = []Hit{}
	}
	if k <= 0 || len(vectors) == 0 {
		return out, nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	k = min(k, len(s.index))
	if k == 0 {
		return out, nil
	}
	err := s.exactTop(ctx, vectors, k, nil, func(j int, best []scored) { out[j] = s.hitsOf(best) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// hits turns candidate slots into Hits with their similarity recomputed in
// float64 from the caller's query q (cosine is scale-invariant, so this
// avoids the rounding of the normalised copy), sorted. The caller holds a
// lock.
func (s *HNSWStore) hits(q []float32, slots []int32) []Hit {
	out := make([]Hit, len(slots))
	for i, slot := range slots {
		out[i] = Hit{Memory: s.memory(slot), Similarity: vecmath.Cosine64(q, s.row(slot))}
	}
	slices.SortFunc(out, func(a, b Hit) int {
		if c := cmp.Compare(b.Similarity, a.Similarity); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// maxQuotedID is how many bytes of an ID an error quotes.
const maxQuotedID = 128

// quoteID quotes id for an error, its first maxQuotedID bytes (cut at a
// character boundary) and its length when longer: an ID may be 64 MiB.
func quoteID(id string) string {
	if len(id) <= maxQuotedID {
		return strconv.Quote(id)
	}
	cut := maxQuotedID
	for cut > 0 && !utf8.RuneStart(id[cut]) {
		cut--
	}
	return fmt.Sprintf("%q… (%d bytes)", id[:cut], len(id))
}
