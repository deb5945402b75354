package chitta

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCalibratedCounterMemoryBound observes far more distinct messages
// than CalibrationMemory: the remembered counts stay within two
// generations, the latest call's messages are all remembered, the oldest
// are forgotten and estimated again.
func TestCalibratedCounterMemoryBound(t *testing.T) {
	t.Parallel()
	c := NewCalibratedCounter(nil)
	msg := func(i int) Message {
		return Message{Role: RoleUser, Content: fmt.Sprintf("message number %d about the build", i)}
	}
	const calls, perCall = 40, 500 // 20 000 messages, 40 000 counts
	for k := range calls {
		batch := make([]Message, perCall)
		for i := range batch {
			batch[i] = msg(k*perCall + i)
		}
		c.Observe(batch, 10*perCall)
		c.mu.Lock()
		require.LessOrEqual(t, len(c.cur), CalibrationMemory)
		require.LessOrEqual(t, len(c.old), CalibrationMemory)
		c.mu.Unlock()
	}
	assert.Equal(t, calls, c.Observations())
	known := func(m Message) bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, ok := c.lookup(c.messageKey(&m))
		return ok
	}
	for i := (calls - 1) * perCall; i < calls*perCall; i++ {
		require.True(t, known(msg(i)), "message %d of the latest call", i)
		m := msg(i)
		assert.Equal(t, 10, c.CountTokens(m.Content)+c.FramingTokens(&m))
	}
	assert.False(t, known(msg(0)), "the first message is forgotten")
}

// TestCalibratedCounterPrior: a base that counts as EstimateTokens (nil, a
// CachedTokenCounter around nil, or a nil *CachedTokenCounter, whose
// CountTokens is EstimateTokens) gets EstimateTokens' prior; any other
// base the base count alone.
func TestCalibratedCounterPrior(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		base TokenCounter
		want features
	}{
		{"nil", nil, priorEstimate},
		{"cached around nil", NewCachedTokenCounter(nil, 0), priorEstimate},
		{"nil cached", (*CachedTokenCounter)(nil), priorEstimate},
		{"cached around a custom counter", NewCachedTokenCounter(TokenCounterFunc(func(string) int { return 1 }), 0), priorBase},
		{"custom", TokenCounterFunc(func(string) int { return 1 }), priorBase},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, NewCalibratedCounter(tt.base).prior(), tt.name)
	}
}

// TestPieces checks the pre-tokenizer split that prices unseen text: one
// per piece, plus the weights of pieces that are often split.
func TestPieces(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want float64
	}{
		{"", 0},
		{"hello world", 2},   // "hello", " world"
		{"camelCaseName", 3}, // "camel", "Case", "Name"
		{"1234567", 3},       // "123", "456", "7"
		{`{"a":1}`, 5},       // `{"`, "a", `":`, "1", "}"
		{"  - README.md\n", 5 + 4*pieceCapsWeight},  // " ", " -", " README", ".md", "\n"
		{"\n      - cli.py", 5},                     // "\n", "     ", " -", " cli", ".py"
		{"====== x", 2 + 3*pieceLongSymWeight},      // "======", " x"
		{"/workspace/file", 2 + pieceSymWordWeight}, // "/workspace", "/file"
		{"naïve café", 2},                           // non-ASCII bytes are letters
		{"a\tb", 2},                                 // "a", "\tb": a tab joins a word as a space does
	}
	for _, tt := range tests {
		assert.InDelta(t, tt.want, pieces(tt.text), 1e-9, "%q", tt.text)
	}
}
