package chitta

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/chitta-go/chitta/internal/vecmath"
)

// Weights of the three score terms.
const (
	recencyWeight   = 0.3
	semanticWeight  = 0.4
	noveltyWeight   = 0.3 // applied to 1 − coverage
	neutralSemantic = 0.5
	oldestRecency   = 0.1
)

// score fills Recency, Semantic, Coverage and Score of every non-pinned
// message.
func (p *pass) score(ctx context.Context, o *resolved) error {
	n := len(p.free)
	for j, i := range p.free {
		s := &p.scores[i]
		s.Recency = 1
		if n > 1 {
			s.Recency = oldestRecency + (1-oldestRecency)*float64(j)/float64(n-1)
		}
		s.Semantic = neutralSemantic
	}
	if err := p.embed(ctx, o); err != nil {
		return err
	}
	p.mixLexical(o)
	if err := p.cover(ctx, o); err != nil {
		return err
	}
	sem, cov := identity, identity
	if o.Rescale {
		sem = p.rescaler(func(s *TurnScore) float64 { return s.Semantic })
		cov = p.rescaler(func(s *TurnScore) float64 { return s.Coverage })
	}
	for _, i := range p.free {
		s := &p.scores[i]
		s.Score = s.Structural * (recencyWeight*s.Recency + semanticWeight*sem(s.Semantic) + noveltyWeight*(1-cov(s.Coverage)))
	}
	return nil
}

func identity(x float64) float64 { return x }

// rescaler returns the function mapping the range of term over the
// non-pinned messages onto [0, 1]; a constant range maps to 0.5.
func (p *pass) rescaler(term func(*TurnScore) float64) func(float64) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, i := range p.free {
		x := term(&p.scores[i])
		lo, hi = min(lo, x), max(hi, x)
	}
	if !(hi-lo > 1e-12) {
		return func(float64) float64 { return 0.5 }
	}
	return func(x float64) float64 { return (x - lo) / (hi - lo) }
}

// embed embeds every non-empty non-pinned message and the query in one
// call (the query in a call of its own with Options.QueryEmbedder) and
// fills Semantic. Embedder failures degrade to no embeddings, query
// embedder failures to no query; only a done ctx is an error.
func (p *pass) embed(ctx context.Context, o *resolved) error {
	if o.Embedder == nil {
		return nil
	}
	var texts []string
	var owners []int // message index per text; -1 for the query
	for _, i := range p.free {
		if strings.TrimSpace(p.msgs[i].Content) != "" {
			texts = append(texts, p.msgs[i].Content)
			owners = append(owners, i)
		}
	}
	if len(texts) == 0 {
		return nil
	}
	hasQuery := strings.TrimSpace(o.Query) != ""
	if hasQuery && o.QueryEmbedder == nil {
		texts = append(texts, o.Query)
		owners = append(owners, -1)
	}
	var ents []*cacheEntry // each text's cache entry, where Options.Lexical caches its pass
	if _, shared := o.Embedder.(sharedEmbedder); shared && o.Lexical > 0 {
		ents = make([]*cacheEntry, len(texts))
	}
	vecs, err := embedTexts(ctx, o.Embedder, texts, ents)
	switch {
	case err == nil:
	case errors.Is(err, errVectors): // an answer that failed the check (ours or CachedEmbedder's): logged whatever ctx says
		o.log.Warn("chitta: embedder returned unusable vectors; scoring by recency and structure only", "err", err)
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	default:
		o.log.Warn("chitta: embedder failed; scoring by recency and structure only", "err", err)
		return nil
	}
	p.vecs = make([][]float32, len(p.msgs))
	if ents != nil {
		p.ents = make([]*cacheEntry, len(p.msgs))
	}
	var query []float32
	for k, i := range owners {
		v := vecs[k]
		if sumSquares(v) == 0 {
			// A zero vector carries no direction: treat as no embedding.
			// Summed in float64: a float32 norm overflows (components
			// ~1e20) or underflows (~1e-30) on vectors that do have one,
			// and cosine, computed in float64 for them, is scale-free.
			continue
		}
		if i < 0 {
			query = v
		} else {
			p.vecs[i] = v
			if p.ents != nil {
				p.ents[i] = ents[k]
			}
		}
	}
	for _, v := range p.vecs {
		if v != nil {
			p.embedded = true
			break
		}
	}
	if !p.embedded {
		p.vecs, p.ents = nil, nil
		return nil
	}
	if hasQuery && o.QueryEmbedder != nil {
		if query, err = p.embedQuery(ctx, o, len(vecs[0])); err != nil {
			return err
		}
	}
	if query != nil {
		p.queried = true
		for _, i := range p.free {
			if v := p.vecs[i]; v != nil {
				p.scores[i].Semantic = clamp01(float64(vecmath.Cosine(v, query)))
			}
		}
	}
	return nil
}

// embedTexts embeds texts with e and checks the answer: one vector per
// text, all of one non-zero length, all finite (an error wrapping
// errVectors otherwise, as a CachedEmbedder's refusals also do). A
// sharedEmbedder hands out the vectors it keeps (read-only: Compact never
// writes a vector) and, when ents is not nil, each text's cache entry in
// it.
func embedTexts(ctx context.Context, e Embedder, texts []string, ents []*cacheEntry) ([][]float32, error) {
	var vecs [][]float32
	var err error
	se, shared := e.(sharedEmbedder)
	if shared {
		vecs, err = se.embedShared(ctx, texts, ents)
	} else {
		vecs, err = e.Embed(ctx, texts)
	}
	if err != nil {
		return nil, err
	}
	// A sharedEmbedder has checked every vector for NaN and Inf before
	// caching it; the count and lengths are checked in any case.
	if err := checkVectors(vecs, len(texts), !shared); err != nil {
		return nil, err
	}
	return vecs, nil
}

// embedQuery embeds Options.Query with Options.QueryEmbedder and returns
// its vector, or nil (logged) when the embedder fails or returns a vector
// that is unusable, zero, or not of the messages' dims; only a done ctx is
// an error.
func (p *pass) embedQuery(ctx context.Context, o *resolved, dims int) ([]float32, error) {
	vecs, err := embedTexts(ctx, o.QueryEmbedder, []string{o.Query}, nil)
	switch {
	case err != nil && !errors.Is(err, errVectors) && ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		o.log.Warn("chitta: query embedder failed; scoring without the query", "err", err)
		return nil, nil
	case len(vecs[0]) != dims:
		o.log.Warn("chitta: query embedder's vector does not match the messages'; scoring without the query",
			"err", fmt.Errorf("%w: QueryEmbedder gave %d dimensions, Embedder %d", ErrDimensionMismatch, len(vecs[0]), dims))
		return nil, nil
	case sumSquares(vecs[0]) == 0:
		// No direction, as from Embedder, and tested as there: in float64,
		// since a float32 norm is 0 for vectors that have one (components
		// ~1e20 overflow, ~1e-20 underflow).
		return nil, nil
	}
	return vecs[0], nil
}

// sharedEmbedder is implemented by embedders that can hand out vectors
// they keep (CachedEmbedder), saving a copy. The caller must not modify them.
type sharedEmbedder interface {
	embedShared(ctx context.Context, texts []string, ents []*cacheEntry) ([][]float32, error)
}

var errVectors = errors.New("bad vectors")

// checkVectors verifies an embedder's answer: one vector per text, all of
// one non-zero length, and (if finite is set) without NaN or Inf.
func checkVectors(vecs [][]float32, want int, finite bool) error {
	if len(vecs) != want {
		return &vectorError{"got " + itoa(len(vecs)) + " vectors for " + itoa(want) + " texts"}
	}
	dims := -1
	for k, v := range vecs {
		if len(v) == 0 {
			return &vectorError{"vector " + itoa(k) + " is empty"}
		}
		if dims < 0 {
			dims = len(v)
		} else if len(v) != dims {
			return &vectorError{"vector " + itoa(k) + " has " + itoa(len(v)) + " dimensions, want " + itoa(dims)}
		}
		if finite && !vecmath.AllFinite(v) {
			return &vectorError{"vector " + itoa(k) + " has a NaN or infinite component"}
		}
	}
	return nil
}

type vectorError struct{ msg string }

func (e *vectorError) Error() string { return e.msg }
func (e *vectorError) Unwrap() error { return errVectors }

// cover fills Coverage from the store: the best similarity to a memory
// that passes the coverage filter (see coverages). Store failures leave
// coverage 0 and are logged; only a done ctx is an error.
func (p *pass) cover(ctx context.Context, o *resolved) error {
	if o.Store == nil || p.vecs == nil {
		return nil
	}
	idx := make([]int, 0, len(p.free))
	queries := make([][]float32, 0, len(p.free))
	for _, i := range p.free {
		if p.vecs[i] != nil {
			idx = append(idx, i)
			queries = append(queries, p.vecs[i])
		}
	}
	cov, err := coverages(ctx, o, queries)
	if err != nil {
		return err
	}
	for k, i := range idx {
		p.scores[i].Coverage = cov[k]
	}
	return nil
}

// bestSimilarity is the highest similarity among the hits that pass f,
// clamped to [0, 1].
func bestSimilarity(hits []Hit, f KindFilter) float64 {
	best := 0.0
	for _, h := range hits {
		if !f.Match(h.Kind) {
			continue
		}
		if s := clamp01(h.Similarity); s > best {
			best = s
		}
	}
	return best
}

// clamp01 clamps x to [0, 1], mapping NaN to 0.
func clamp01(x float64) float64 {
	switch {
	case math.IsNaN(x) || x < 0:
		return 0
	case x > 1:
		return 1
	}
	return x
}

func itoa(n int) string { return strconv.Itoa(n) }
