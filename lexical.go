package chitta

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"
)

// BM25 parameters of the lexical score ([Options.Lexical]).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// lexDoc is the lexical pass of one text: the hashes of its HashEmbedder
// word-level features (words, whole identifiers and bigrams; character
// trigrams are left out: on the shared evaluation data they made the score
// no better and the pass about twice as large) with how many times each
// occurs, sorted by hash, and its length (the summed weight of every
// occurrence: 1 for a word, 0.1 for a stop word, 0.5 for a bigram, 0.7 for a
// whole identifier; see [HashEmbedder]). It is built for [lexDoc.count],
// which BM25 calls for each query feature: a 256-bit filter of the hashes'
// low bits answers most absent features at once, and dir indexes the sorted
// features by their top bits, about one per bucket (the hashes are uniform):
// the features whose top bits are b lie in feats[dir[b]:dir[b+1]]. That is
// 20 to 24 bytes per feature and about 100 per text. A lexDoc is never
// modified once built, so caches share it.
type lexDoc struct {
	bloom  [4]uint64    // bit key&255 set for every key: rules most absent features out without reading keys
	feats  []lexFeature // sorted by key
	dir    []uint32
	shift  uint8 // a key's bucket is key >> shift (64: a single bucket)
	length float64
}

// lexFeatures tokenises text with the HashEmbedder's tokenizer and calls
// visit with each word-level feature: its hash, its count and its summed
// weight, in order of first occurrence.
func lexFeatures(text string, visit func(key uint64, cnt, sumw float32)) {
	st := hashStatePool.Get().(*hashState)
	defer st.release()
	st.prev, st.noGram = 0, true
	st.tokenize(text)
	st.noGram = false
	for _, i := range st.used {
		sl := &st.slots[i]
		visit(sl.key, sl.cnt, sl.sumw)
		sl.key = 0
	}
	st.used = st.used[:0]
}

// lexFeature is one feature of a text: its hash and its count.
type lexFeature struct {
	key uint64
	cnt float32
}

// newLexDoc returns the lexical pass of text.
func newLexDoc(text string) *lexDoc {
	d := &lexDoc{}
	var fs []lexFeature
	lexFeatures(text, func(key uint64, cnt, sumw float32) {
		fs = append(fs, lexFeature{key, cnt})
		d.length += float64(sumw) // in order of occurrence, as always
	})
	n := len(fs)
	if n == 0 {
		return d
	}
	slices.SortFunc(fs, func(a, b lexFeature) int { return cmp.Compare(a.key, b.key) })
	d.feats = slices.Clone(fs)
	// About one key per bucket: 2^bits >= n buckets.
	b := bits.Len(uint(n - 1))
	d.shift = uint8(64 - b)
	d.dir = make([]uint32, 1<<b+1)
	for _, f := range d.feats {
		k := f.key
		d.dir[k>>d.shift+1]++
		d.bloom[k>>6&3] |= 1 << (k & 63)
	}
	for i := 1; i < len(d.dir); i++ {
		d.dir[i] += d.dir[i-1]
	}
	return d
}

// count returns how many times feature key occurs in the text (0 when it
// does not).
func (d *lexDoc) count(key uint64) float32 {
	if d.bloom[key>>6&3]&(1<<(key&63)) == 0 {
		return 0 // no key of the text has these low bits (nor does an empty text)
	}
	b := key >> d.shift
	for k := d.dir[b]; k < d.dir[b+1]; k++ {
		if f := &d.feats[k]; f.key == key {
			return f.cnt
		}
	}
	return 0
}

// lexQuery is the lexical pass of the query: its features in order of
// first occurrence and their mean occurrence weights.
type lexQuery struct {
	keys    []uint64
	weights []float32
}

// newLexQuery returns the lexical pass of the query text.
func newLexQuery(text string) lexQuery {
	var q lexQuery
	lexFeatures(text, func(key uint64, cnt, sumw float32) {
		q.keys = append(q.keys, key)
		q.weights = append(q.weights, sumw/cnt)
	})
	return q
}

// lexDocs appends to dst the lexical pass of the messages idx: from their
// CachedEmbedder entries (ents, per message; nil or a nil entry when there
// is none), computing and keeping the missing ones, and freshly otherwise.
func lexDocs(dst []*lexDoc, msgs []Message, idx []int, ents []*cacheEntry) []*lexDoc {
	for _, i := range idx {
		var e *cacheEntry
		if ents != nil {
			e = ents[i]
		}
		if e != nil {
			if d := e.lex.Load(); d != nil {
				dst = append(dst, d)
				continue
			}
		}
		d := newLexDoc(msgs[i].Content)
		if e != nil && !e.lex.CompareAndSwap(nil, d) {
			d = e.lex.Load() // built meanwhile by a concurrent call: share it
		}
		dst = append(dst, d)
	}
	return dst
}

// lexHit is a feature a document shares with the query: the query
// feature's index and the count in the document.
type lexHit struct {
	q  int32
	tf float32
}

// lexScratch is the working memory of one lexical pass, reused between
// calls (lexScratchPool) so that a re-compaction allocates next to nothing
// for it.
type lexScratch struct {
	idx     []int
	docs    []*lexDoc
	hits    []lexHit
	offsets []int
	df      []int
	idf     []float64
	out     []float64
}

var lexScratchPool = sync.Pool{New: func() any { return new(lexScratch) }}

// maxPooledHits bounds the scratch kept in the pool (about 1 MB).
const maxPooledHits = 1 << 17

func (sc *lexScratch) release() {
	if cap(sc.hits) <= maxPooledHits && cap(sc.idx) <= maxPooledHits {
		lexScratchPool.Put(sc)
	}
}

// bm25 scores every document against the query: Okapi BM25 (k1 1.2, b
// 0.75) over the word-level HashEmbedder features of the texts, with the inverse
// document frequency ln(1 + (N − df + 0.5)/(df + 0.5)) counted over docs
// alone and each query feature weighted by its HashEmbedder weight (so stop
// words count little). The scores are divided by the best, so the best
// document scores 1; all are 0 when no document shares a feature with the
// query. BM25 scores query features only, so each document is asked for
// the query's few features ([lexDoc.count]) rather than scanned. The
// result is sc's: valid until sc is used again.
func (sc *lexScratch) bm25(query lexQuery, docs []*lexDoc) []float64 {
	out := resize(sc.out, len(docs))
	sc.out = out
	if len(docs) == 0 || len(query.keys) == 0 {
		return out
	}
	// One pass finds every shared feature (hits, grouped by document from
	// offsets[j]) and the document frequencies; the second scores the hits.
	df := resize(sc.df, len(query.keys))
	offsets := resize(sc.offsets, len(docs)+1)
	hits := sc.hits[:0]
	var total float64
	for j, d := range docs {
		total += d.length
		for q, key := range query.keys {
			if tf := d.count(key); tf > 0 {
				df[q]++
				hits = append(hits, lexHit{q: int32(q), tf: tf})
			}
		}
		offsets[j+1] = len(hits)
	}
	sc.df, sc.offsets, sc.hits = df, offsets, hits
	avg := total / float64(len(docs))
	if avg <= 0 || len(hits) == 0 {
		return out
	}
	n := float64(len(docs))
	idf := resize(sc.idf, len(df))
	sc.idf = idf
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

// resize returns s with length n and every element zero, reusing its
// array when it is large enough.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// mixLexical mixes the conversation's own BM25 score into Semantic:
// (1 − Lexical)·cosine + Lexical·BM25, for every message that has a cosine
// to the query. It does nothing when Lexical is 0, when there is no query
// cosine, or when no message shares a feature with the query.
func (p *pass) mixLexical(o *resolved) {
	if o.Lexical == 0 || !p.queried {
		return
	}
	sc := lexScratchPool.Get().(*lexScratch)
	defer sc.release()
	sc.idx = sc.idx[:0]
	for _, i := range p.free {
		if p.vecs[i] != nil {
			sc.idx = append(sc.idx, i)
		}
	}
	sc.docs = lexDocs(sc.docs[:0], p.msgs, sc.idx, p.ents)
	lex := sc.bm25(newLexQuery(o.Query), sc.docs)
	clear(sc.docs) // the pool must not keep lexical passes alive
	if !slices.ContainsFunc(lex, func(x float64) bool { return x > 0 }) {
		return
	}
	for k, i := range sc.idx {
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
	// Candidates as small records (the heap moves 24 bytes, not a unit).
	cs := make([]rankItem, 0, len(cands))
	minCost := math.MaxInt
	for k, u := range cands {
		if p.scores[u.members[0]].Kept {
			continue // pinned
		}
		sim := math.Inf(-1)
		for _, i := range u.members {
			sim = max(sim, p.reserveSimilarity(i))
		}
		cs = append(cs, rankItem{sim: sim, last: u.last, k: k})
		minCost = min(minCost, u.cost)
	}
	// RelevanceReserve × free read as the decimal the caller wrote (the
	// nudge as in prepare's target), capped at free: the nudge adds whole
	// tokens once free passes 1e12, and near math.MaxInt the product is
	// beyond int (b < float64(free) <= 2^63 keeps the conversion in range;
	// min, float64(free) being free rounded, possibly up).
	budget := free
	if b := math.Floor(o.RelevanceReserve * float64(free) * (1 + 1e-12)); b < float64(free) {
		budget = min(free, int(b))
	}
	used := 0
	// Most similar first; the reserve is spent after a small share of the
	// candidates, once what is left is below the cheapest unit: byRank
	// orders only that share.
	for c := range byRank(cs) {
		if budget-used < minCost {
			break // nothing else fits
		}
		u := &cands[c.k]
		if used+u.cost > budget {
			continue
		}
		used += u.cost
		for _, i := range u.members {
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
