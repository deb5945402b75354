package chitta

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMaskCacheHoldsLastTwoCallsStrings pins the memory bound the MaskCache
// doc states for the long Contents it holds by their identity: those of
// the messages of the last two calls, or, while it holds no more than
// twice the last call's, older ones too; so a big call's strings are
// released two calls after it, however small those calls are.
func TestMaskCacheHoldsLastTwoCallsStrings(t *testing.T) {
	t.Parallel()
	conv := func(tag string, n int) []Message {
		msgs := []Message{{Role: RoleUser, Content: "start"}}
		for i := range n {
			id := fmt.Sprintf("%s%d", tag, i)
			msgs = append(msgs,
				Message{Role: RoleAssistant, Content: "call", ToolCallIDs: []string{id}},
				Message{Role: RoleTool, Content: strings.Repeat(id+" output line ", 60), ToolResultIDs: []string{id}})
		}
		return append(msgs, Message{Role: RoleUser, Content: "next"})
	}
	cache := NewMaskCache()
	run := func(msgs []Message) int {
		_, err := Compact(t.Context(), msgs, &Options{TargetRatio: 1, Mask: &MaskOptions{Cache: cache, KeepRecent: 1, MinTokens: 10}})
		require.NoError(t, err)
		cache.mu.Lock()
		defer cache.mu.Unlock()
		return len(cache.idents)
	}
	big := run(conv("big", 200))
	require.GreaterOrEqual(t, big, 150, "the big call's long results are held")
	small := conv("small", 3)
	after1 := run(small)
	assert.GreaterOrEqual(t, after1, big, "the previous call's strings are kept one call more")
	after2 := run(small)
	assert.LessOrEqual(t, after2, 2*len(small), "two calls later the big call's strings are released")
	after3 := run(conv("other", 3))
	assert.LessOrEqual(t, after3, 4*len(small))
}
