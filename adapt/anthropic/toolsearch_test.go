package anthropic_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/anthropic"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
)

// A Claude Code run that loads the deferred tool TaskUpdate with its
// ToolSearch tool (message 2 holds the tool_reference), runs Bash, then
// calls TaskUpdate.
const (
	tsPrompt = `{"role":"user","content":"update the tracker once the tests pass"}`
	tsSearch = `{"role":"assistant","content":[{"type":"tool_use","id":"s1","name":"ToolSearch","input":{"query":"select:TaskUpdate"}}]}`
	tsLoad   = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"s1","content":[{"type":"tool_reference","tool_name":"TaskUpdate"}]}]}`
	tsLoad2  = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"s1","content":[{"type":"text","text":"Loaded:"},{"type":"tool_reference","tool_name":"TaskList"},{"type":"tool_reference","tool_name":"TaskUpdate"}]}]}`
	tsBash   = `{"role":"assistant","content":[{"type":"text","text":"Running the tests."},{"type":"tool_use","id":"b1","name":"Bash","input":{"command":"go test ./..."}}]}`
	tsTask   = `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"TaskUpdate","input":{"taskId":"3","status":"completed"}}]}`
	tsDone   = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"Updated task #3 status"}]}`
	tsOther  = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"s1","content":[{"type":"tool_reference","tool_name":"WebFetch"}]}]}`
)

func tsBashResult() string {
	return `{"role":"user","content":[{"type":"tool_result","tool_use_id":"b1","content":"` + strings.Repeat("ok ", 40) + `"}]}`
}

// TestToolSearchLoaderKept: the tool-search rule works on typed values. A
// kept call of a tool that a ToolSearch result loaded (a tool_reference
// block in a tool_result) keeps that result, through Compact and the
// Compactor, as chitta.Compact keeps it for the same conversation as JSON;
// the values returned are the caller's, and every kept tool_use keeps its
// tool_result. On main the adapter's messages had Raw nil, so the rule
// never saw the tool_reference and the result was dropped (kept [0 5 6]).
func TestToolSearchLoaderKept(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		msgs []string
		want []int
	}{
		{name: "the live step calls a loaded tool", msgs: []string{tsPrompt, tsSearch, tsLoad, tsBash, tsBashResult(), tsTask, tsDone}, want: []int{0, 1, 2, 5, 6}},
		{name: "text and several references in the result", msgs: []string{tsPrompt, tsSearch, tsLoad2, tsBash, tsBashResult(), tsTask, tsDone}, want: []int{0, 1, 2, 5, 6}},
		{name: "a result loading another tool is not needed", msgs: []string{tsPrompt, tsSearch, tsOther, tsBash, tsBashResult(), tsTask, tsDone}, want: []int{0, 5, 6}},
		{name: "a dropped call pins nothing", msgs: []string{tsPrompt, tsSearch, tsLoad, tsTask, tsDone, tsBash, tsBashResult()}, want: []int{0, 5, 6}},
	}
	for _, tt := range tests {
		for _, mask := range []*chitta.MaskOptions{nil, {}} {
			t.Run(fmt.Sprintf("%s/mask=%v", tt.name, mask != nil), func(t *testing.T) {
				t.Parallel()
				data := []byte("[" + strings.Join(tt.msgs, ",") + "]")
				var typed []sdk.MessageParam
				require.NoError(t, json.Unmarshal(data, &typed))
				// nothing but the pins fits
				opts := &chitta.Options{MaxTokens: 1, Tokens: chitta.TokenCounterFunc(chitta.CountWords), Mask: mask}

				parsed, err := chitta.ParseMessages(data)
				require.NoError(t, err)
				ref, err := chitta.Compact(t.Context(), parsed, opts)
				require.NoError(t, err)
				require.Equal(t, tt.want, ref.Kept, "chitta.Compact on the JSON")

				out, res, err := anthropic.Compact(t.Context(), typed, opts)
				require.NoError(t, err)
				assert.Equal(t, tt.want, res.Kept, "anthropic.Compact")
				adapttest.KeptValues(t, typed, res.Kept, out, anthropic.Messages)
				for j, m := range res.Messages {
					assert.Nil(t, m.Raw, "Result.Messages[%d] has Raw nil, as Messages gives it", j)
				}
				conv, err := anthropic.Messages(typed)
				require.NoError(t, err)
				for i, m := range conv {
					assert.Nil(t, m.Raw, "Messages: message %d has Raw nil", i)
				}

				c, err := anthropic.NewCompactor(&chitta.Options{Tokens: opts.Tokens, Mask: mask}, chitta.Policy{MaxTokens: 2, TargetTokens: 1})
				require.NoError(t, err)
				out, res, err = c.Compact(t.Context(), typed)
				require.NoError(t, err)
				assert.Equal(t, tt.want, res.Kept, "Compactor")
				adapttest.KeptValues(t, typed, res.Kept, out, anthropic.Messages)
			})
		}
	}
}

// TestToolSearchRawNotReused: the Raw written for the tool-search rule
// belongs to one conversion; a later conversion on the pooled Builder,
// of a conversation without tool_reference blocks, has Raw nil
// throughout (a stale Raw would name tools the conversation never
// loaded).
func TestToolSearchRawNotReused(t *testing.T) {
	opts := &chitta.Options{MaxTokens: 1, Tokens: chitta.TokenCounterFunc(chitta.CountWords)}
	var loading, plain []sdk.MessageParam
	require.NoError(t, json.Unmarshal([]byte("["+strings.Join([]string{tsPrompt, tsSearch, tsLoad, tsBash, tsBashResult(), tsTask, tsDone}, ",")+"]"), &loading))
	require.NoError(t, json.Unmarshal([]byte("["+strings.Join([]string{tsPrompt, tsSearch, tsOther, tsBash, tsBashResult(), tsTask, tsDone}, ",")+"]"), &plain))
	plain[2] = sdk.NewUserMessage(sdk.NewToolResultBlock("s1", "no tools found", false))
	for range 3 {
		_, res, err := anthropic.Compact(t.Context(), loading, opts)
		require.NoError(t, err)
		assert.Equal(t, []int{0, 1, 2, 5, 6}, res.Kept)
		_, res, err = anthropic.Compact(t.Context(), plain, opts)
		require.NoError(t, err)
		assert.Equal(t, []int{0, 5, 6}, res.Kept, "nothing loads TaskUpdate")
		for j, m := range res.Messages {
			assert.Nil(t, m.Raw, "Result.Messages[%d]", j)
		}
	}
}

// TestToolSearchMaskedLoader: in mask mode a tool search's result holding
// many references is left whole (a placeholder would unload the tools),
// while the other results are masked, as chitta masks the same
// conversation as JSON (same kept messages, same masked ones), and each
// rewritten value reads back as the text chitta counted.
func TestToolSearchMaskedLoader(t *testing.T) {
	t.Parallel()
	var refs []string
	for k := range 30 {
		refs = append(refs, fmt.Sprintf(`{"type":"tool_reference","tool_name":"Tool%d"}`, k))
	}
	load := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"s1","content":[` + strings.Join(refs, ",") + `,{"type":"tool_reference","tool_name":"TaskUpdate"}]}]}`
	msgs := []string{tsPrompt, tsSearch, load}
	for k := range 6 {
		msgs = append(msgs, fmt.Sprintf(`{"role":"assistant","content":[{"type":"tool_use","id":"b%d","name":"Bash","input":{"command":"go test ./..."}}]}`, k),
			fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"b%d","content":%q}]}`, k, strings.Repeat("ok fine ", 30)))
	}
	msgs = append(msgs, tsTask, tsDone)
	data := []byte("[" + strings.Join(msgs, ",") + "]")
	var typed []sdk.MessageParam
	require.NoError(t, json.Unmarshal(data, &typed))
	opts := &chitta.Options{TargetRatio: 0.9, Tokens: chitta.TokenCounterFunc(chitta.CountWords), Mask: &chitta.MaskOptions{MinTokens: 5}}

	parsed, err := chitta.ParseMessages(data)
	require.NoError(t, err)
	ref, err := chitta.Compact(t.Context(), parsed, opts)
	require.NoError(t, err)
	require.False(t, ref.Scores[2].Masked, "chitta leaves the search result whole")
	require.Positive(t, ref.Stats.Masked, "and masks the other results")

	out, res, err := anthropic.Compact(t.Context(), typed, opts)
	require.NoError(t, err)
	assert.Equal(t, ref.Kept, res.Kept)
	for i := range ref.Scores {
		assert.Equal(t, ref.Scores[i].Masked, res.Scores[i].Masked, "message %d", i)
	}
	conv, err := anthropic.Messages(out)
	require.NoError(t, err)
	for j := range conv {
		assert.Equal(t, res.Messages[j].Content, conv[j].Content, "kept message %d", j)
	}
	adapttest.Paired(t, conv)
}

// A run with the server tool search (tool_search_tool_regex): the
// assistant's message 1 holds its server_tool_use and the
// tool_search_tool_result whose tool_references load TaskUpdate, which
// message 4 calls.
const (
	tsServerSearch = `{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"tool_search_tool_regex","input":{"query":"task"}},{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"TaskUpdate"}]}},{"type":"text","text":"Found the tracker tool."}]}`
	tsServerOther  = `{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"tool_search_tool_regex","input":{"query":"web"}},{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"WebFetch"}]}}]}`
)

// TestServerToolSearchLoaderKept: the tool-search rule follows the server
// tool search too: a kept call of a tool that a tool_search_tool_result
// loaded keeps the assistant message holding that result, through Compact
// and the Compactor, with and without Mask, and the result reads as the
// names of the tools it loads. On main the adapter read only tool_result
// blocks of user messages, so the rule never saw the load (kept [0 4 5]),
// and the result read as its JSON.
func TestServerToolSearchLoaderKept(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		msgs []string
		want []int
	}{
		{name: "the live step calls a loaded tool", msgs: []string{tsPrompt, tsServerSearch, tsBash, tsBashResult(), tsTask, tsDone}, want: []int{0, 1, 4, 5}},
		{name: "a result loading another tool is not needed", msgs: []string{tsPrompt, tsServerOther, tsBash, tsBashResult(), tsTask, tsDone}, want: []int{0, 4, 5}},
	}
	for _, tt := range tests {
		for _, mask := range []*chitta.MaskOptions{nil, {}} {
			t.Run(fmt.Sprintf("%s/mask=%v", tt.name, mask != nil), func(t *testing.T) {
				t.Parallel()
				var typed []sdk.MessageParam
				require.NoError(t, json.Unmarshal([]byte("["+strings.Join(tt.msgs, ",")+"]"), &typed))
				require.NotNil(t, typed[1].OfAssistant.Content[1].OfToolSearchToolResult, "the SDK reads the block")
				conv, err := anthropic.Messages(typed)
				require.NoError(t, err)
				assert.NotContains(t, conv[1].Content, "tool_search_tool_search_result", "read as the names it loads")
				assert.Equal(t, []string{"srvtoolu_1"}, conv[1].ToolResultIDs)

				opts := &chitta.Options{MaxTokens: 1, Tokens: chitta.TokenCounterFunc(chitta.CountWords), Mask: mask}
				out, res, err := anthropic.Compact(t.Context(), typed, opts)
				require.NoError(t, err)
				assert.Equal(t, tt.want, res.Kept, "anthropic.Compact")
				adapttest.KeptValues(t, typed, res.Kept, out, anthropic.Messages)

				c, err := anthropic.NewCompactor(&chitta.Options{Tokens: opts.Tokens, Mask: mask}, chitta.Policy{MaxTokens: 2, TargetTokens: 1})
				require.NoError(t, err)
				out, res, err = c.Compact(t.Context(), typed)
				require.NoError(t, err)
				assert.Equal(t, tt.want, res.Kept, "Compactor")
				adapttest.KeptValues(t, typed, res.Kept, out, anthropic.Messages)
			})
		}
	}
}

// TestToolSearchParity: on conversations that load tools by tool search
// (a custom tool search's tool_result of tool_reference blocks, or the
// server tool search's tool_search_tool_result), Compact keeps (and
// masks) the same messages as chitta.Compact keeps of the messages' JSON,
// and Messages reads them as chitta.ParseMessages does. On main
// chitta.Compact on the JSON did not apply the tool-search rule to the
// server tool search (kept [0 4 5], the typed values [0 1 4 5]) and read
// its result as JSON.
func TestToolSearchParity(t *testing.T) {
	t.Parallel()
	var steps []string
	for k := range 6 {
		steps = append(steps, fmt.Sprintf(`{"role":"assistant","content":[{"type":"tool_use","id":"b%d","name":"Bash","input":{"command":"go test ./..."}}]}`, k),
			fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"b%d","content":%q}]}`, k, strings.Repeat("ok fine ", 30)))
	}
	for _, tt := range []struct {
		name string
		msgs []string
	}{
		{"a custom tool search", []string{tsPrompt, tsSearch, tsLoad, tsBash, tsBashResult(), tsTask, tsDone}},
		{"a custom tool search loading another tool", []string{tsPrompt, tsSearch, tsOther, tsBash, tsBashResult(), tsTask, tsDone}},
		{"the server tool search", []string{tsPrompt, tsServerSearch, tsBash, tsBashResult(), tsTask, tsDone}},
		{"the server tool search loading another tool", []string{tsPrompt, tsServerOther, tsBash, tsBashResult(), tsTask, tsDone}},
		{"the server tool search, many results", append(append([]string{tsPrompt, tsServerSearch}, steps...), tsTask, tsDone)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var typed []sdk.MessageParam
			require.NoError(t, json.Unmarshal([]byte("["+strings.Join(tt.msgs, ",")+"]"), &typed))
			adapttest.MatchesParse(t, typed, anthropic.Messages)
			adapttest.SameKept(t, typed, anthropic.Compact)
		})
	}
}
