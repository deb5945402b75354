package chitta_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// thinkingLoop is an Anthropic tool loop under one prompt with extended
// thinking on, not interleaved: only the turn's first step opens with a
// thinking block; later steps are bare tool_use blocks. The API refuses
// the turn unless its first kept assistant message opens with thinking
// ("a final assistant message must start with a thinking block").
func thinkingLoop(first string) string {
	long := strings.Repeat("lots of file content here ", 60)
	return `[{"role":"user","content":"an earlier question"},
{"role":"assistant","content":[{"type":"thinking","thinking":"an old thought","signature":"s0"},{"type":"text","text":"an old answer"}]},
{"role":"user","content":"fix the bug"},
{"role":"assistant","content":[` + first + `,{"type":"tool_use","id":"toolu_1","name":"read","input":{"p":"a"}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"` + long + `"}]},
{"role":"assistant","content":[{"type":"tool_use","id":"toolu_2","name":"read","input":{"p":"b"}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"` + long + `"}]},
{"role":"assistant","content":[{"type":"text","text":"now c"},{"type":"tool_use","id":"toolu_3","name":"read","input":{"p":"c"}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_3","content":"short"}]}]`
}

func TestParseMessagesOpensWithThinking(t *testing.T) {
	t.Parallel()
	msgs, err := chitta.ParseMessages([]byte(thinkingLoop(`{"type":"redacted_thinking","data":"opaque"}`)))
	require.NoError(t, err)
	var marked []int
	for i, m := range msgs {
		if m.OpensWithThinking {
			marked = append(marked, i)
		}
	}
	assert.Equal(t, []int{1, 3}, marked, "assistant messages whose first block is thinking or redacted_thinking")

	// A thinking block after the first, a user's, or one inside a
	// tool_result does not open the message.
	msgs, err = chitta.ParseMessages([]byte(`[{"role":"user","content":[{"type":"thinking","thinking":"x"}]},
{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"thinking","thinking":"x","signature":"s"}]}]`))
	require.NoError(t, err)
	assert.False(t, msgs[0].OpensWithThinking)
	assert.False(t, msgs[1].OpensWithThinking)
}

// TestCompactKeepsTheTurnsThinking: at every budget the kept live turn
// opens with the thinking step, which the seed formula alone drops for
// the newer steps; an earlier turn's thinking is not kept for it, and
// without thinking nothing changes.
func TestCompactKeepsTheTurnsThinking(t *testing.T) {
	t.Parallel()
	for _, first := range []string{
		`{"type":"thinking","thinking":"read a.go first","signature":"sig"}`,
		`{"type":"redacted_thinking","data":"opaque"}`,
	} {
		msgs, err := chitta.ParseMessages([]byte(thinkingLoop(first)))
		require.NoError(t, err)
		dropped := false
		for _, budget := range []int{1, 30, 50, 100, 200, 400, 100000} {
			res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{MaxTokens: budget})
			require.NoError(t, err)
			require.NoError(t, chitta.Validate(res.Messages))
			firstAssistant := -1
			for _, i := range res.Kept {
				if i > 2 && msgs[i].Role == chitta.RoleAssistant {
					firstAssistant = i
					break
				}
			}
			assert.Equal(t, 3, firstAssistant, "budget %d: the live turn opens with its thinking step (kept %v)", budget, res.Kept)

			free, err := chitta.Compact(t.Context(), msgs, &chitta.Options{MaxTokens: budget, FreeSelection: true})
			require.NoError(t, err)
			dropped = dropped || !slices.Contains(free.Kept, 3)
		}
		assert.True(t, dropped, "the case needs the rule: some budget drops the thinking step without it")
	}

	// Without thinking blocks the rule pins nothing.
	plain := strings.Replace(thinkingLoop(`{"type":"text","text":"let me look"}`), `{"type":"thinking","thinking":"an old thought","signature":"s0"},`, "", 1)
	msgs, err := chitta.ParseMessages([]byte(plain))
	require.NoError(t, err)
	res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{MaxTokens: 50})
	require.NoError(t, err)
	assert.NotContains(t, res.Kept, 3, "no thinking: the first step competes for the budget")
}
