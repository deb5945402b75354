package chitta_test

import (
	"testing"

	"github.com/chitta-go/chitta"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A message whose MediaTokens changed is not the message the previous call
// saw: its count must be taken again, not reused.
func TestCompactorMediaTokensChanged(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	c, err := chitta.NewCompactor(nil, chitta.Policy{MaxTokens: 100000})
	require.NoError(t, err)
	msgs := []chitta.Message{{Role: chitta.RoleUser, Content: "look at this"}}
	first, err := c.Compact(ctx, msgs)
	require.NoError(t, err)
	msgs[0].MediaTokens = 1000
	second, err := c.Compact(ctx, msgs)
	require.NoError(t, err)
	assert.Equal(t, first.Stats.BeforeTokens+1000, second.Stats.BeforeTokens)
}
