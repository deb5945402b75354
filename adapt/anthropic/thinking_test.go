package anthropic_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/anthropic"
)

// thinkingLoop is a tool loop under one prompt with extended thinking on,
// not interleaved: only the turn's first step opens with a thinking block.
func thinkingLoop(first sdk.ContentBlockParamUnion) []sdk.MessageParam {
	long := strings.Repeat("lots of file content here ", 60)
	return []sdk.MessageParam{
		sdk.NewUserMessage(sdk.NewTextBlock("fix the bug in a.go")),
		sdk.NewAssistantMessage(first, sdk.NewToolUseBlock("toolu_1", map[string]any{"path": "a.go"}, "read")),
		sdk.NewUserMessage(sdk.NewToolResultBlock("toolu_1", long, false)),
		sdk.NewAssistantMessage(sdk.NewToolUseBlock("toolu_2", map[string]any{"path": "b.go"}, "read")),
		sdk.NewUserMessage(sdk.NewToolResultBlock("toolu_2", long, false)),
		sdk.NewAssistantMessage(sdk.NewToolUseBlock("toolu_3", map[string]any{"path": "c.go"}, "read")),
		sdk.NewUserMessage(sdk.NewToolResultBlock("toolu_3", "short", false)),
	}
}

// TestThinkingOpensTheTurn: Messages marks an assistant message whose first
// block is thinking or redacted_thinking, and Compact and the Compactor
// keep the step that opens the live turn with it at every budget (the API:
// "a final assistant message must start with a thinking block"), returning
// the caller's values.
func TestThinkingOpensTheTurn(t *testing.T) {
	t.Parallel()
	for name, first := range map[string]sdk.ContentBlockParamUnion{
		"thinking":          sdk.NewThinkingBlock("sig1", "I should read a.go"),
		"redacted_thinking": sdk.NewRedactedThinkingBlock("opaque"),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			in := thinkingLoop(first)
			msgs, err := anthropic.Messages(in)
			require.NoError(t, err)
			for i, m := range msgs {
				assert.Equal(t, i == 1, m.OpensWithThinking, "message %d", i)
			}
			opens := func(out []sdk.MessageParam, what string) {
				for _, m := range out[1:] {
					if m.OfAssistant != nil {
						assert.True(t, reflect.DeepEqual(in[1], m), "%s: the turn opens with the thinking step", what)
						return
					}
				}
				t.Errorf("%s: no assistant message kept", what)
			}
			for _, budget := range []int{1, 50, 100, 200, 100000} {
				out, res, err := anthropic.Compact(t.Context(), in, &chitta.Options{MaxTokens: budget})
				require.NoError(t, err)
				opens(out, fmt.Sprintf("Compact, budget %d (kept %v)", budget, res.Kept))
			}
			c, err := anthropic.NewCompactor(nil, chitta.Policy{MaxTokens: 150, TargetTokens: 50})
			require.NoError(t, err)
			for n := 3; n <= len(in); n += 2 {
				out, _, err := c.Compact(t.Context(), in[:n])
				require.NoError(t, err)
				opens(out, "Compactor")
			}
		})
	}
}
