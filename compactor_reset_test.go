package chitta_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// TestCompactorReset: after Reset, a call gives what a new Compactor's
// first call gives (no survivors built on, no cache hit counted), at any
// point of a session; Reset on a nil or zero Compactor does nothing.
func TestCompactorReset(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	opts := &chitta.Options{Tokens: words, Mask: &chitta.MaskOptions{KeepRecent: 1, MinTokens: 5}}
	p := chitta.Policy{MaxTokens: 400}
	c, err := chitta.NewCompactor(opts, p)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(5, 5))
	msgs := []chitta.Message{msg(chitta.RoleSystem, "you are a coding agent")}
	resets := 0
	for step := range 120 {
		msgs = append(msgs, agentStep(r, step)...)
		if step%7 != 3 {
			_, err := c.Compact(ctx, msgs)
			require.NoError(t, err)
			continue
		}
		c.Reset()
		got, err := c.Compact(ctx, msgs)
		require.NoError(t, err)
		fresh, err := chitta.NewCompactor(opts, p)
		require.NoError(t, err)
		want, err := fresh.Compact(ctx, msgs)
		require.NoError(t, err)
		assert.Equal(t, want.Stats, got.Stats, "step %d", step)
		assert.Equal(t, want.Kept, got.Kept, "step %d", step)
		assert.Equal(t, want.Messages, got.Messages, "step %d", step)
		resets++
	}
	require.Greater(t, resets, 10)
	var zero chitta.Compactor
	zero.Reset()
	var none *chitta.Compactor
	none.Reset()
}
