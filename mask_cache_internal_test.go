package chitta

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// NewCompactor gives masking a MaskCache without modifying the caller's
// MaskOptions, and keeps one the caller set.
func TestCompactorMaskCache(t *testing.T) {
	t.Parallel()
	mask := &MaskOptions{MinTokens: 7}
	c, err := NewCompactor(&Options{Mask: mask}, Policy{MaxTokens: 100})
	require.NoError(t, err)
	require.Nil(t, mask.Cache)
	require.NotNil(t, c.opts.Mask.Cache)
	require.Equal(t, 7, c.opts.Mask.MinTokens)

	own := NewMaskCache()
	c, err = NewCompactor(&Options{Mask: &MaskOptions{Cache: own}}, Policy{MaxTokens: 100})
	require.NoError(t, err)
	require.Same(t, own, c.opts.Mask.Cache)

	c, err = NewCompactor(&Options{}, Policy{MaxTokens: 100})
	require.NoError(t, err)
	require.Nil(t, c.opts.Mask)
}

// framing4 counts words and 4 tokens of framing per message (framing -1:
// negative framing, which countMessage does not add).
type framing4 struct{ framing int }

func (framing4) CountTokens(s string) int       { return len(strings.Fields(s)) }
func (f framing4) FramingTokens(m *Message) int { return f.framing }

// maxCounter counts every text as math.MaxInt tokens, so that a message's
// count saturates.
type maxCounter struct{ framing4 }

func (maxCounter) CountTokens(string) int { return math.MaxInt }

// contentTokens, from a message's count, gives what counting its Content
// alone gives, for every kind of counter.
func TestContentTokens(t *testing.T) {
	t.Parallel()
	m := &Message{Role: RoleTool, Content: "one two three", ToolResultIDs: []string{"c1"}}
	for _, tc := range []struct {
		name string
		tc   TokenCounter
	}{
		{"plain", TokenCounterFunc(func(s string) int { return len(s) })},
		{"framing", framing4{4}},
		{"zero framing", framing4{0}},
		{"negative framing", framing4{-1}},
		{"saturated", maxCounter{framing4{4}}},
		{"cached framing", NewCachedTokenCounter(framing4{4}, 0)},
		{"cached plain", NewCachedTokenCounter(nil, 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n := countMessage(tc.tc, m)
			assert.Equal(t, tc.tc.CountTokens(m.Content), contentTokens(tc.tc, m, n))
		})
	}
}

// A call's scratch comes back from the pool cleared (its forms too), and
// appending to one result copy, or to one form's results, never
// overwrites the next.
func TestMaskScratch(t *testing.T) {
	t.Parallel()
	s := newScratch(3)
	require.Len(t, s.infos, 3)
	s.infos[1] = msgInfo{loaded: true, maskEntry: maskEntry{values: 7, calls: []idName{{"a", "b"}}}}
	a := s.copyResults([]toolResult{{block: 1, text: "x"}})
	b := s.copyResults([]toolResult{{block: 2, text: "y"}, {block: 3}})
	assert.Nil(t, s.copyResults(nil))
	a = append(a, toolResult{block: 9})
	assert.Equal(t, 2, b[0].block, "appending to a copy leaves the next one alone")
	assert.Equal(t, 9, a[1].block)
	p := &pass{msgs: make([]Message, 3), scratch: s}
	r := s.makeResults(1)
	r = append(r, toolResult{block: 5})
	c := s.makeResults(2)
	require.Empty(t, c)
	c = append(c, toolResult{block: 6})
	r = append(r, toolResult{block: 7}) // beyond its capacity
	assert.Equal(t, 6, c[0].block, "appending to a form's results leaves the next one alone")
	assert.Equal(t, []int{5, 7}, []int{r[0].block, r[1].block})
	seen := map[*maskedMessage]bool{}
	for k := range 3*formChunk + 1 {
		f := p.newForm()
		require.False(t, seen[f], "form %d handed out twice", k)
		seen[f] = true
		require.Zero(t, *f)
		f.memory, f.results, f.omitted = "m", c, []uint64{1}
	}
	p.initForms()
	p.masked[2], p.forms[1].maskedTokens = p.newForm(), 4
	vs := append(carve(&s.values, 2), "v", "w")
	hs := append(carve(&s.hashes, 1), 8)
	us := append(carve(&s.units, 1), unit{members: []int{1}})
	_ = append(carve(&s.words, 1), []uint64{3})
	assert.Equal(t, []string{"v", "w"}, vs)
	assert.Equal(t, []uint64{8}, hs)
	assert.Len(t, us, 1)
	p.releaseScratch()
	require.Nil(t, p.scratch)
	for range 4 { // the pool may hand back this scratch or a new one
		got := newScratch(2)
		require.Len(t, got.infos, 2)
		assert.Empty(t, got.results)
		assertCleared(t, got.infos)
		assertCleared(t, got.results)
		assertCleared(t, got.masked)
		assertCleared(t, got.states)
		assertCleared(t, got.values)
		assertCleared(t, got.hashes)
		assertCleared(t, got.units)
		assertCleared(t, got.words)
		for _, chunk := range got.forms {
			for _, f := range chunk {
				assert.Zero(t, f)
			}
		}
		(&pass{scratch: got}).releaseScratch()
	}
}

// assertCleared checks that every element of s, up to its capacity, is
// zero.
func assertCleared[T any](t *testing.T, s []T) {
	t.Helper()
	for k, v := range s[:cap(s)] {
		assert.Zero(t, v, "element %d", k)
	}
}

// A MaskCache's value words are the hashes of valueWords of the text's
// first maxValueScan bytes, cold and warm, and words of texts no call has read
// for two calls are dropped once there are many.
func TestMaskCacheWordsOf(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("id HAT028 and JG7FMM. ", 2000) + " LATE999"
	texts := []string{"", "no values here", "order #W2378156 for user mia_li_3668: 2024-05-21.", long, `{"a":"ABC","n":12}`}
	c := NewMaskCache()
	var nilCache *MaskCache
	for pass := range 2 {
		for _, text := range texts {
			want := valueHashes(valueWords(nil, text[:min(len(text), maxValueScan)]))
			got := c.wordsOf(text)
			require.NotNil(t, got)
			assert.Equal(t, len(want), len(got), "pass %d, %.20q", pass, text)
			if len(want) > 0 {
				assert.Equal(t, want, got, "pass %d", pass)
				assert.Equal(t, want, nilCache.wordsOf(text))
			}
		}
		c.done()
	}
	assert.Contains(t, c.wordsOf(long), valueHash("JG7FMM"))
	assert.NotContains(t, c.wordsOf(long), valueHash("LATE999"), "only the first 32 KiB are read")
	for k := range 3000 { // many calls, each reading one new text
		c.wordsOf(fmt.Sprintf("call %d ID%d", k, k))
		c.done()
	}
	assert.Less(t, len(c.words), 1100, "words no call reads any more are dropped")
}
