package chitta_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// TestParseResponsesItemReference: a Responses input may refer to a stored
// function_call by its item ID (an item_reference) and send only its
// output, whose call_id then matches no call of the input. Compact kept
// the output and dropped the reference (or the other way round), which
// the API refuses ("No tool call found for function call output"); the
// output now answers the references right before it, as one group.
func TestParseResponsesItemReference(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("flight detail row ", 80)
	for _, tc := range []struct {
		name   string
		input  string
		groups [][]int // the indices kept or dropped together
		calls  map[int][]string
		result map[int][]string
	}{{
		name: "one reference, its output",
		input: `[{"role":"user","content":"book it"},
 {"type":"item_reference","id":"fc_1"},
 {"type":"function_call_output","call_id":"call_1","output":"` + big + `"},
 {"role":"user","content":"thanks"}]`,
		groups: [][]int{{1, 2}},
		calls:  map[int][]string{1: {"item_reference@1"}},
		result: map[int][]string{2: {"item_reference@1"}},
	}, {
		name: "parallel references, bare type",
		input: `[{"role":"user","content":"both cities"},
 {"type":"item_reference","id":"rs_1"},
 {"id":"fc_1"},
 {"type":"item_reference","id":"fc_2"},
 {"type":"function_call_output","call_id":"call_1","output":"` + big + `"},
 {"type":"function_call_output","call_id":"call_2","output":"21C"},
 {"role":"user","content":"thanks"}]`,
		groups: [][]int{{1, 2, 3, 4, 5}},
		// rs_1, a stored reasoning item, holds the reply after it too
		calls:  map[int][]string{1: {"reasoning@1", "item_reference@1"}, 2: {"item_reference@2"}, 3: {"item_reference@3"}},
		result: map[int][]string{2: {"reasoning@1", "item_reference@1"}, 3: {"reasoning@1", "item_reference@2"}, 4: {"item_reference@3"}, 5: {"item_reference@3"}},
	}, {
		name: "two references, each with its output",
		input: `[{"role":"user","content":"go"},
 {"type":"item_reference","id":"fc_1"},
 {"type":"function_call_output","call_id":"call_1","output":"` + big + `"},
 {"type":"item_reference","id":"fc_2"},
 {"type":"function_call_output","call_id":"call_2","output":"` + big + `"},
 {"role":"user","content":"thanks"}]`,
		groups: [][]int{{1, 2}, {3, 4}},
		calls:  map[int][]string{1: {"item_reference@1"}, 3: {"item_reference@3"}},
		result: map[int][]string{2: {"item_reference@1"}, 4: {"item_reference@3"}},
	}, {
		name: "a reference to a message, an inline call after it",
		input: `[{"role":"user","content":"go"},
 {"type":"item_reference","id":"msg_1"},
 {"type":"function_call","call_id":"call_1","name":"search","arguments":"{}"},
 {"type":"function_call_output","call_id":"call_1","output":"` + big + `"},
 {"role":"user","content":"thanks"}]`,
		groups: [][]int{{2, 3}},
		calls:  map[int][]string{1: nil, 2: {"call_1"}},
		result: map[int][]string{1: nil, 3: {"call_1"}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var budgets []chitta.Options
			for ratio := 0.05; ratio <= 1; ratio += 0.05 {
				budgets = append(budgets, chitta.Options{TargetRatio: ratio})
			}
			msgs := checkTies(t, tc.input, tc.groups, tc.calls, tc.result, budgets)
			out, err := chitta.MarshalMessages(msgs)
			require.NoError(t, err)
			assert.JSONEq(t, tc.input, string(out), "the items are written as given")
		})
	}
}

// checkTies parses input and checks the call and result IDs of the
// messages calls and results name, that it passes Validate, and that
// Compact at each of budgets, with and without Mask, returns messages
// that pass Validate and keeps each group of indices whole or not at all.
func checkTies(t *testing.T, input string, groups [][]int, calls, results map[int][]string, budgets []chitta.Options) []chitta.Message {
	t.Helper()
	msgs, err := chitta.ParseMessages([]byte(input))
	require.NoError(t, err)
	for i, want := range calls {
		assert.Equal(t, want, msgs[i].ToolCallIDs, "ToolCallIDs of %d", i)
	}
	for i, want := range results {
		assert.Equal(t, want, msgs[i].ToolResultIDs, "ToolResultIDs of %d", i)
	}
	require.NoError(t, chitta.Validate(msgs))
	for _, mask := range []*chitta.MaskOptions{nil, {KeepRecent: 1, MinTokens: 10}} {
		for _, opts := range budgets {
			opts.Mask = mask
			res, err := chitta.Compact(t.Context(), msgs, &opts)
			require.NoError(t, err)
			require.NoError(t, chitta.Validate(res.Messages), "%+v", opts)
			kept := map[int]bool{}
			for _, i := range res.Kept {
				kept[i] = true
			}
			for _, g := range groups {
				for _, i := range g[1:] {
					require.Equal(t, kept[g[0]], kept[i], "budget %d, ratio %.2f, mask %v: %d and %d", opts.MaxTokens, opts.TargetRatio, mask != nil, g[0], i)
				}
			}
		}
	}
	return msgs
}
