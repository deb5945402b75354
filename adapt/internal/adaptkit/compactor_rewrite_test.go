package adaptkit_test

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/internal/adaptkit"
)

// TestCompactorRewriteErrors: masking without a RewriteFunc is refused
// when the Compactor is made, before any call is recorded; and a call
// whose masked values cannot be rewritten (an adapter whose RewriteFunc
// disagrees with its BuildFunc) returns an error and leaves no trace: the
// next call is what a new Compactor's first call gives, not a call
// between compactions that builds on a result never returned.
func TestCompactorRewriteErrors(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	opts := &chitta.Options{Mask: &chitta.MaskOptions{}}
	p := chitta.Policy{MaxTokens: 1000}
	_, err := adaptkit.NewCompactor(opts, p, buildTurns, nil)
	require.ErrorIs(t, err, chitta.ErrInvalidOption)

	var broken atomic.Bool
	broken.Store(true)
	rewrite := func(m turn, texts []string) (turn, bool) {
		if broken.Load() {
			return m, false
		}
		return rewriteTurn(m, texts)
	}
	c, err := adaptkit.NewCompactor(opts, p, buildTurns, rewrite)
	require.NoError(t, err)
	msgs := session(40, 1)
	_, _, err = c.Compact(ctx, msgs)
	require.ErrorContains(t, err, "masked message cannot be rewritten")

	broken.Store(false)
	out, res, err := c.Compact(ctx, msgs)
	require.NoError(t, err)
	fresh, err := adaptkit.NewCompactor(opts, p, buildTurns, rewriteTurn)
	require.NoError(t, err)
	wantOut, want, err := fresh.Compact(ctx, msgs)
	require.NoError(t, err)
	require.True(t, want.Stats.Compacted && want.Stats.Masked > 0, "the session compacts and masks")
	assert.Equal(t, want.Stats, res.Stats)
	assert.Equal(t, want.Kept, res.Kept)
	assert.Equal(t, wantOut, out)
}
