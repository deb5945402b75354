package chitta

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// BM25 parameters of the lexical score ([Options.Lexical]).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// lexDoc is the lexical pass of one text: the hashes of its HashEmbedder
// word-level features (words, whole identifiers and bigrams; character
// trigrams are left out: on the shared evaluation data they made the score
// no better and the pass about twice as large), how many times each
// occurs, their mean occurrence weight (1 for a word, 0.1 for a stop word,
// 0.5 for a bigram, 0.7 for a whole identifier; see [HashEmbedder]), and
// its length (the summed weight of every occurrence). A lexDoc is never
// modified once built, so caches share it.
type lexDoc struct {
	keys    []uint64
	counts  []float32
	weights []float32
	length  float64
}

// newLexDoc tokenises text with the HashEmbedder's tokenizer and returns
// its word-level features.
func newLexDoc(text string) *lexDoc {
	st := hashStatePool.Get().(*hashState)
	defer st.release()
	st.prev, st.noGram = 0, true
	st.tokenize(text)
	st.noGram = false
	n := len(st.used)
	d := &lexDoc{keys: make([]uint64, n), counts: make([]float32, n), weights: make([]float32, n)}
	for k, i := range st.used {
		sl := &st.slots[i]
		d.keys[k], d.counts[k], d.weights[k] = sl.key, sl.cnt, sl.sumw/sl.cnt
		d.length += float64(sl.sumw)
		sl.key = 0
	}
	st.used = st.used[:0]
	return d
}

// lexDocs returns the lexical pass of every text, from the CachedEmbedder's
// entries when e is one (computing and keeping the missing ones) and
// freshly otherwise.
func lexDocs(e Embedder, texts []string) []*lexDoc {
	out := make([]*lexDoc, len(texts))
	c, ok := e.(*CachedEmbedder)
	if !ok || c == nil || c.items == nil {
		for i, t := range texts {
			out[i] = newLexDoc(t)
		}
		return out
	}
	keys := make([]cacheKey, len(texts))
	var miss []int
	for i, t := range texts {
		keys[i] = c.key(t)
	}
	c.mu.Lock()
	for i := range texts {
		if en, ok := c.items[keys[i]]; ok && en.lex != nil {
			out[i] = en.lex
		} else {
			miss = append(miss, i)
		}
	}
	c.mu.Unlock()
	if len(miss) == 0 {
		return out
	}
	for _, i := range miss {
		out[i] = newLexDoc(texts[i])
	}
	c.mu.Lock()
	for _, i := range miss {
		if en, ok := c.items[keys[i]]; ok && en.lex == nil {
			en.lex = out[i]
		}
	}
	c.mu.Unlock()
	return out
}

// lexHit is a feature a document shares with the query: the query
// feature's index and the count in the document.
type lexHit struct {
	q  int32
	tf float32
}

// bm25 scores every document against the query: Okapi BM25 (k1 1.2, b
// 0.75) over the word-level HashEmbedder features of the texts, with the inverse
// document frequency ln(1 + (N − df + 0.5)/(df + 0.5)) counted over docs
// alone and each query feature weighted by its HashEmbedder weight (so stop
// words and character trigrams count little). The scores are divided by
// the best, so the best document scores 1; all are 0 when no document
// shares a feature with the query.
func bm25(query *lexDoc, docs []*lexDoc) []float64 {
	out := make([]float64, len(docs))
	if len(docs) == 0 || len(query.keys) == 0 {
		return out
	}
	// An open-addressing set of the query's features (hashes are already
	// mixed, so their low bits index it), at most a quarter full.
	size := 1
	for size < 4*len(query.keys) {
		size <<= 1
	}
	mask := uint64(size - 1)
	slot := make([]int32, size) // query feature index + 1; 0 = empty
	for q, k := range query.keys {
		i := k & mask
		for slot[i] != 0 {
			i = (i + 1) & mask
		}
		slot[i] = int32(q + 1)
	}
	find := func(key uint64) int {
		for i := key & mask; slot[i] != 0; i = (i + 1) & mask {
			if q := int(slot[i] - 1); query.keys[q] == key {
				return q
			}
		}
		return -1
	}
	// One pass finds every shared feature (hits, grouped by document from
	// offsets[j]) and the document frequencies; the second scores the hits.
	df := make([]int, len(query.keys))
	hits := make([]lexHit, 0, 4*len(docs))
	offsets := make([]int, len(docs)+1)
	var total float64
	for j, d := range docs {
		total += d.length
		for k, key := range d.keys {
			if q := find(key); q >= 0 {
				df[q]++
				hits = append(hits, lexHit{q: int32(q), tf: d.counts[k]})
			}
		}
		offsets[j+1] = len(hits)
	}
	avg := total / float64(len(docs))
	if avg <= 0 || len(hits) == 0 {
		return out
	}
	n := float64(len(docs))
	idf := make([]float64, len(df))
	for q, k := range df {
		idf[q] = float64(query.weights[q]) * math.Log(1+(n-float64(k)+0.5)/(float64(k)+0.5))
	}
	for j, d := range docs {
		norm := bm25K1 * (1 - bm25B + bm25B*d.length/avg)
		s := 0.0
		for _, h := range hits[offsets[j]:offsets[j+1]] {
			tf := float64(h.tf)
			s += idf[h.q] * tf * (bm25K1 + 1) / (tf + norm)
		}
		out[j] = s
	}
	best := slices.Max(out)
	if best > 0 {
		for j := range out {
			out[j] /= best
		}
	}
	return out
}

// mixLexical mixes the conversation's own BM25 score into Semantic:
// (1 − Lexical)·cosine + Lexical·BM25, for every message that has a cosine
// to the query. It does nothing when Lexical is 0, when there is no query
// cosine, or when no message shares a feature with the query.
func (p *pass) mixLexical(o *resolved) {
	if o.Lexical == 0 || !p.queried {
		return
	}
	var idx []int
	var texts []string
	for _, i := range p.free {
		if p.vecs[i] != nil {
			idx = append(idx, i)
			texts = append(texts, p.msgs[i].Content)
		}
	}
	docs := lexDocs(o.Embedder, texts)
	lex := bm25(newLexDoc(o.Query), docs)
	if !slices.ContainsFunc(lex, func(x float64) bool { return x > 0 }) {
		return
	}
	for k, i := range idx {
		s := &p.scores[i]
		s.Semantic = (1-o.Lexical)*s.Semantic + o.Lexical*lex[k]
	}
}

// reserve keeps, before the rest of the budget is filled, the units most
// similar to the query that are not kept yet, first fit, until
// RelevanceReserve × free tokens are spent, and returns the tokens it
// kept. A unit's similarity is the highest reserveSimilarity of its
// members (Semantic discounted by Coverage, novelty.go); ties go to the
// later unit. It keeps nothing without a query cosine.
func (p *pass) reserve(o *resolved, cands []unit, free int) int {
	if !p.reserving(o) || free <= 0 {
		return 0
	}
	type cand struct {
		u   unit
		sim float64
	}
	var cs []cand
	for _, u := range cands {
		if p.scores[u.members[0]].Kept {
			continue // pinned
		}
		c := cand{u: u, sim: math.Inf(-1)}
		for _, i := range u.members {
			c.sim = max(c.sim, p.reserveSimilarity(i))
		}
		cs = append(cs, c)
	}
	slices.SortFunc(cs, func(a, b cand) int {
		return cmp.Or(cmp.Compare(b.sim, a.sim), cmp.Compare(b.u.last, a.u.last))
	})
	budget := int(math.Floor(o.RelevanceReserve * float64(free) * (1 + 1e-12)))
	used := 0
	for _, c := range cs {
		if used+c.u.cost > budget {
			continue
		}
		used += c.u.cost
		for _, i := range c.u.members {
			p.scores[i].Kept = true
		}
	}
	return used
}

// checkShare validates an option that is a share in [0, 1] (0 = off).
func checkShare(name string, v float64) error {
	if math.IsNaN(v) || v < 0 || v > 1 {
		return fmt.Errorf("%w: %s %v, want 0 (off) to 1", ErrInvalidOption, name, v)
	}
	return nil
}
