package openai_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
	adapter "github.com/chitta-go/chitta/adapt/openai"
)

// searchRun is an agent run on the Responses API that loads a deferred
// tool with a client tool search (items 1 and 2: tool_search_call and the
// tool_search_output holding the loaded definitions), runs Bash, then
// calls the loaded tool (item 5) with call.
func searchRun(loaded responses.ResponseToolSearchOutputItemParamToolUnion, call responses.ResponseInputItemUnionParam) []responses.ResponseInputItemUnionParam {
	search := &responses.ResponseInputItemToolSearchCallParam{CallID: openai.String("s1"), Arguments: map[string]any{"query": "tracker"}, Execution: "client"}
	result := &responses.ResponseToolSearchOutputItemParam{CallID: openai.String("s1"), Execution: "client",
		Tools: []responses.ResponseToolSearchOutputItemParamToolUnion{loaded}}
	return []responses.ResponseInputItemUnionParam{
		responses.ResponseInputItemParamOfMessage("update the tracker once the tests pass", responses.EasyInputMessageRoleUser),
		{OfToolSearchCall: search},
		{OfToolSearchOutput: result},
		responses.ResponseInputItemParamOfFunctionCall(`{"command":"go test ./..."}`, "b1", "Bash"),
		output("b1", strings.Repeat("ok ", 40)),
		call,
		output("t1", "Updated task #3 status"),
	}
}

// noIDs clears the call_id of the tool_search_call and tool_search_output
// items of in, which the API's input types allow (a server-executed
// search), and returns in.
func noIDs(in []responses.ResponseInputItemUnionParam) []responses.ResponseInputItemUnionParam {
	for i := range in {
		if c := in[i].OfToolSearchCall; c != nil {
			c.CallID = param.Opt[string]{}
		}
		if o := in[i].OfToolSearchOutput; o != nil {
			o.CallID = param.Opt[string]{}
		}
	}
	return in
}

func functionTool(name string) responses.ResponseToolSearchOutputItemParamToolUnion {
	return responses.ResponseToolSearchOutputItemParamToolUnion{OfFunction: &responses.FunctionToolParam{Name: name, Parameters: map[string]any{"type": "object"}}}
}

// TestResponsesToolSearchLoaderKept: chitta's tool-search rule works on
// Responses items. A kept function_call (or custom_tool_call) of a tool
// that a tool_search_output loaded keeps that output, and with it its
// tool_search_call, through CompactResponses and the Compactor, with and
// without Mask; the values returned are the caller's; an output loading
// another tool is not kept for it. The tool_search_output's text is the
// names of the tools it loads, then their definitions (on main, nothing:
// the definitions the model is sent counted 0 tokens). On main the rule never saw the loads and
// the output was dropped (kept [0 5 6]): the model would call a tool
// whose definition it no longer has.
func TestResponsesToolSearchLoaderKept(t *testing.T) {
	t.Parallel()
	taskCall := responses.ResponseInputItemParamOfFunctionCall(`{"taskId":"3"}`, "t1", "TaskUpdate")
	nsCall := responses.ResponseInputItemParamOfFunctionCall(`{"taskId":"3"}`, "t1", "TaskUpdate")
	nsCall.OfFunctionCall.Namespace = openai.String("crm")
	custom := responses.ResponseInputItemParamOfCustomToolCall("t1", "*** patch", "apply_patch")
	namespace := responses.ResponseToolSearchOutputItemParamToolUnion{OfNamespace: &responses.ToolSearchOutputNamespaceToolParam{Name: "crm", Description: "CRM",
		Tools: []responses.ToolSearchOutputNamespaceToolToolUnionParam{{OfFunction: &responses.ToolSearchOutputNamespaceToolToolFunctionParam{Name: "TaskUpdate"}}}}}
	customTool := responses.ResponseToolSearchOutputItemParamToolUnion{OfCustom: &responses.CustomToolParam{Name: "apply_patch"}}
	tests := []struct {
		name string
		in   []responses.ResponseInputItemUnionParam
		text string // the tool_search_output's text starts with it
		want []int
	}{
		{"a function", searchRun(functionTool("TaskUpdate"), taskCall), "TaskUpdate", []int{0, 1, 2, 5, 6}},
		{"a function in a namespace", searchRun(namespace, nsCall), "TaskUpdate", []int{0, 1, 2, 5, 6}},
		{"a custom tool", searchRun(customTool, custom), "apply_patch", []int{0, 1, 2, 5, 6}},
		{"another tool loaded", searchRun(functionTool("WebFetch"), taskCall), "WebFetch", []int{0, 5, 6}},
	}
	for _, tt := range tests {
		for _, mask := range []*chitta.MaskOptions{nil, {}} {
			t.Run(fmt.Sprintf("%s/mask=%v", tt.name, mask != nil), func(t *testing.T) {
				t.Parallel()
				conv, err := adapter.ResponsesMessages(tt.in)
				require.NoError(t, err)
				assert.True(t, strings.HasPrefix(conv[2].Content, tt.text+"\n{"), "the names, then the definitions: %q", conv[2].Content)
				assert.Equal(t, []string{"s1"}, conv[2].ToolResultIDs)

				// nothing but the pins fits
				opts := &chitta.Options{MaxTokens: 1, Tokens: chitta.TokenCounterFunc(chitta.CountWords), Mask: mask}
				out, res, err := adapter.CompactResponses(t.Context(), tt.in, opts)
				require.NoError(t, err)
				assert.Equal(t, tt.want, res.Kept, "CompactResponses")
				adapttest.KeptValues(t, tt.in, res.Kept, out, adapter.ResponsesMessages)

				c, err := adapter.NewResponsesCompactor(&chitta.Options{Tokens: opts.Tokens, Mask: mask}, chitta.Policy{MaxTokens: 2, TargetTokens: 1})
				require.NoError(t, err)
				out, res, err = c.Compact(t.Context(), tt.in)
				require.NoError(t, err)
				assert.Equal(t, tt.want, res.Kept, "Compactor")
				adapttest.KeptValues(t, tt.in, res.Kept, out, adapter.ResponsesMessages)
			})
		}
	}
}

// TestResponsesToolSearchMaskedLoader: in mask mode a tool_search_output
// is never masked (a placeholder would unload its tools) while the
// function outputs around it are, and every rewritten value reads back as
// the text chitta counted.
func TestResponsesToolSearchMaskedLoader(t *testing.T) {
	t.Parallel()
	tools := []responses.ResponseToolSearchOutputItemParamToolUnion{functionTool("TaskUpdate")}
	for k := range 30 {
		tools = append(tools, functionTool(fmt.Sprintf("Tool%d", k)))
	}
	in := searchRun(tools[0], responses.ResponseInputItemParamOfFunctionCall(`{"taskId":"3"}`, "t1", "TaskUpdate"))
	in[2].OfToolSearchOutput.Tools = tools
	steps := []responses.ResponseInputItemUnionParam{}
	for k := range 6 {
		id := fmt.Sprintf("b%d", k)
		steps = append(steps, responses.ResponseInputItemParamOfFunctionCall(`{"command":"go test ./..."}`, id, "Bash"), output(id, strings.Repeat("ok fine ", 30)))
	}
	in = append(in[:3], append(steps, in[5:]...)...)
	opts := &chitta.Options{TargetRatio: 0.9, Tokens: chitta.TokenCounterFunc(chitta.CountWords), Mask: &chitta.MaskOptions{MinTokens: 5}}
	out, res, err := adapter.CompactResponses(t.Context(), in, opts)
	require.NoError(t, err)
	require.Contains(t, res.Kept, 2)
	assert.False(t, res.Scores[2].Masked, "the tool search's output is left whole")
	assert.Positive(t, res.Stats.Masked, "the other outputs are masked")
	conv, err := adapter.ResponsesMessages(out)
	require.NoError(t, err)
	for j := range conv {
		assert.Equal(t, res.Messages[j].Content, conv[j].Content, "kept item %d", j)
	}
	adapttest.Paired(t, conv)
}

// TestResponsesToolSearchParity: on Responses items that load tools by
// tool search, CompactResponses keeps (and masks) the same items as
// chitta.Compact keeps of the items' JSON, and ResponsesMessages reads
// them as chitta.ParseMessages does. On main chitta.Compact on the JSON
// did not apply the tool-search rule to them and read a
// tool_search_output as empty text.
func TestResponsesToolSearchParity(t *testing.T) {
	t.Parallel()
	taskCall := responses.ResponseInputItemParamOfFunctionCall(`{"taskId":"3"}`, "t1", "TaskUpdate")
	nsCall := responses.ResponseInputItemParamOfFunctionCall(`{"taskId":"3"}`, "t1", "TaskUpdate")
	nsCall.OfFunctionCall.Namespace = openai.String("crm")
	namespace := responses.ResponseToolSearchOutputItemParamToolUnion{OfNamespace: &responses.ToolSearchOutputNamespaceToolParam{Name: "crm", Description: "CRM",
		Tools: []responses.ToolSearchOutputNamespaceToolToolUnionParam{{OfFunction: &responses.ToolSearchOutputNamespaceToolToolFunctionParam{Name: "TaskUpdate"}}}}}
	long := func() []responses.ResponseInputItemUnionParam {
		tools := []responses.ResponseToolSearchOutputItemParamToolUnion{functionTool("TaskUpdate")}
		for k := range 30 {
			tools = append(tools, functionTool(fmt.Sprintf("Tool%d", k)))
		}
		in := searchRun(tools[0], taskCall)
		in[2].OfToolSearchOutput.Tools = tools
		var steps []responses.ResponseInputItemUnionParam
		for k := range 6 {
			id := fmt.Sprintf("b%d", k)
			steps = append(steps, responses.ResponseInputItemParamOfFunctionCall(`{"command":"go test ./..."}`, id, "Bash"), output(id, strings.Repeat("ok fine ", 30)))
		}
		return append(in[:3], append(steps, in[5:]...)...)
	}
	for name, in := range map[string][]responses.ResponseInputItemUnionParam{
		"a function":                searchRun(functionTool("TaskUpdate"), taskCall),
		"a function in a namespace": searchRun(namespace, nsCall),
		"a custom tool": searchRun(responses.ResponseToolSearchOutputItemParamToolUnion{OfCustom: &responses.CustomToolParam{Name: "apply_patch"}},
			responses.ResponseInputItemParamOfCustomToolCall("t1", "*** patch", "apply_patch")),
		"another tool loaded":      searchRun(functionTool("WebFetch"), taskCall),
		"many tools, many results": long(),
		"no call_id nor id":        noIDs(searchRun(functionTool("TaskUpdate"), taskCall)),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			adapttest.MatchesParse(t, in, adapter.ResponsesMessages)
			adapttest.SameKept(t, in, adapter.CompactResponses)
		})
	}
}

// TestResponsesServerToolSearchPaired: a tool_search_call and the
// tool_search_output right after it, neither with a call_id (a search the
// server ran), are paired as chitta.ParseMessages pairs them, so a kept
// call of the tool it loaded keeps both. On main the call issued no ID
// and the output carried none: the output was kept without its call.
func TestResponsesServerToolSearchPaired(t *testing.T) {
	t.Parallel()
	in := noIDs(searchRun(functionTool("TaskUpdate"), responses.ResponseInputItemParamOfFunctionCall(`{"taskId":"3"}`, "t1", "TaskUpdate")))
	conv := adapttest.MatchesParse(t, in, adapter.ResponsesMessages)
	assert.Equal(t, []string{"tool_search@1"}, conv[1].ToolCallIDs)
	assert.Equal(t, []string{"tool_search@1"}, conv[2].ToolResultIDs)
	require.NoError(t, chitta.Validate(conv))
	for _, mask := range []*chitta.MaskOptions{nil, {}} {
		_, res, err := adapter.CompactResponses(t.Context(), in, &chitta.Options{MaxTokens: 1, Tokens: chitta.TokenCounterFunc(chitta.CountWords), Mask: mask})
		require.NoError(t, err)
		assert.Equal(t, []int{0, 1, 2, 5, 6}, res.Kept, "mask %v", mask != nil)
	}
}
