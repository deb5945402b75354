package chitta

import (
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
