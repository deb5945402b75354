package chitta

import (
	"testing"

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
