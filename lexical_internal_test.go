package chitta

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBM25IDFDownweightsWordInEveryTurn(t *testing.T) {
	t.Parallel()
	docs := []*lexDoc{
		newLexDoc("deploy the staging cluster"),
		newLexDoc("deploy the production cluster"),
		newLexDoc("deploy and rollback"),
		newLexDoc("deploy once more"),
	}
	got := new(lexScratch).bm25(newLexQuery("deploy rollback"), docs)
	require.Len(t, got, len(docs))
	assert.InDelta(t, 1, got[2], 1e-12, "the turn sharing the rare word is the best")
	for _, j := range []int{0, 1, 3} {
		// "deploy" is in every turn: its IDF is ln(1 + 0.5/4.5) ≈ 0.105
		// against ≈ 1.466 for "rollback", so a turn sharing only it scores
		// a small fraction of the best (equal IDFs would give about half).
		assert.Greater(t, got[j], 0.0, "doc %d still shares a word", j)
		assert.Less(t, got[j], 0.15, "doc %d", j)
	}
	none := new(lexScratch).bm25(newLexQuery("kubernetes"), docs)
	assert.Equal(t, []float64{0, 0, 0, 0}, none, "no shared feature: all zero")
	assert.Equal(t, []float64{0}, new(lexScratch).bm25(newLexQuery(""), docs[:1]))
}

func TestBM25LengthNormalisation(t *testing.T) {
	t.Parallel()
	short := newLexDoc("rollback failed")
	long := newLexDoc("rollback failed while the operator was reading the very long changelog of the release notes today")
	got := new(lexScratch).bm25(newLexQuery("rollback"), []*lexDoc{short, long, newLexDoc("unrelated words here")})
	assert.InDelta(t, 1, got[0], 1e-12)
	assert.Less(t, got[1], got[0], "b = 0.75 favours the shorter turn")
}

func TestLexDocsCachedEmbedder(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	c := NewCachedEmbedder(NewHashEmbedder(64), 8)
	msgs := []Message{{Role: RoleUser, Content: "parseConfig failed on line 42"}, {Role: RoleAssistant, Content: "retry the deploy"}}
	texts, idx := []string{msgs[0].Content, msgs[1].Content}, []int{0, 1}
	fresh := lexDocs(nil, msgs, idx, nil)
	ents := make([]*cacheEntry, len(texts))
	_, err := c.embedShared(ctx, texts, ents) // misses: new entries
	require.NoError(t, err)
	require.NotContains(t, ents, (*cacheEntry)(nil))
	second := lexDocs(nil, msgs, idx, ents)
	assert.Equal(t, fresh, second, "cached pass equals the fresh one")
	again := make([]*cacheEntry, len(texts))
	_, err = c.embedShared(ctx, texts, again) // hits: the same entries
	require.NoError(t, err)
	assert.Equal(t, ents, again)
	third := lexDocs(nil, msgs, idx, again)
	for i := range texts {
		assert.Same(t, second[i], third[i], "text %d: tokenised once, then reused", i)
	}
	assert.Equal(t, fresh, lexDocs(nil, msgs, idx, []*cacheEntry{nil, nil}), "no entry: computed freshly")
	assert.Equal(t, fresh[1:], lexDocs(nil, msgs, idx[1:], nil))
}

func TestLexDocWordLevelFeatures(t *testing.T) {
	t.Parallel()
	assert.Len(t, newLexDoc("rollback").keys(), 1, "a word, no character trigrams")
	// parse, config, their bigram and the whole identifier.
	d := newLexDoc("parseConfig")
	assert.Len(t, d.keys(), 4)
	assert.InDelta(t, 1+1+0.5+0.7, d.length, 1e-6)
	assert.Equal(t, d.keys(), newLexDoc("parse_config").keys(), "the HashEmbedder's own splitting: same features")
	assert.ElementsMatch(t, []float32{2, 1}, newLexDoc("rollback rollbacks").counts(), "the word twice (stemmed), the bigram once")
	// The embedder's trigrams are untouched by the lexical pass.
	v1, err := NewHashEmbedder(64).Embed(t.Context(), []string{"rollback"})
	require.NoError(t, err)
	newLexDoc("rollback")
	v2, err := NewHashEmbedder(64).Embed(t.Context(), []string{"rollback"})
	require.NoError(t, err)
	assert.Equal(t, v1, v2)
}

// keys returns the feature hashes of d, in its order.
func (d *lexDoc) keys() []uint64 {
	out := make([]uint64, len(d.feats))
	for k, f := range d.feats {
		out[k] = f.key
	}
	return out
}

// counts returns the feature counts of d, in its order.
func (d *lexDoc) counts() []float32 {
	out := make([]float32, len(d.feats))
	for k, f := range d.feats {
		out[k] = f.cnt
	}
	return out
}
