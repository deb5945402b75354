package chitta_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// TestCompactReusedToolCallID checks that a result is grouped with the
// nearest call before it that has its ID, as in tau-bench trajectories
// where a later, different call reuses an earlier call's ID.
func TestCompactReusedToolCallID(t *testing.T) {
	t.Parallel()
	msgs := []chitta.Message{
		{Role: chitta.RoleAssistant, Content: "lookup", ToolCallIDs: []string{"x"}},
		{Role: chitta.RoleTool, Content: "first result", ToolResultIDs: []string{"x"}},
		{Role: chitta.RoleUser, Content: "and now"},
		{Role: chitta.RoleAssistant, Content: "calculate", ToolCallIDs: []string{"x"}},
		{Role: chitta.RoleTool, Content: "second result", ToolResultIDs: []string{"x"}},
	}
	res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: 1})
	require.NoError(t, err)
	units := make([]int, len(msgs))
	for i, s := range res.Scores {
		units[i] = s.Unit
	}
	assert.Equal(t, []int{0, 0, 2, 3, 3}, units)
}
