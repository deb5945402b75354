package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
	adapter "github.com/chitta-go/chitta/adapt/openai"
	"github.com/chitta-go/chitta/internal/testkit/wiregen"
)

func chat() []openai.ChatCompletionMessageParamUnion {
	call := func(id, name, args string) openai.ChatCompletionMessageToolCallUnionParam {
		return openai.ChatCompletionMessageToolCallUnionParam{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
			ID: id, Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: name, Arguments: args},
		}}
	}
	asst := openai.AssistantMessage("")
	asst.OfAssistant.ToolCalls = []openai.ChatCompletionMessageToolCallUnionParam{
		call("c1", "read_file", `{"path":"a.go"}`), call("c2", "read_file", `{"path":"b.go"}`),
	}
	return []openai.ChatCompletionMessageParamUnion{
		openai.SystemMessage("You are a coding agent."),
		openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
			openai.TextContentPart("Compare these files"),
			openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: "https://x/a.png"}),
		}),
		asst,
		openai.ToolMessage("package a "+strings.Repeat("x ", 40), "c1"),
		openai.ToolMessage("package b", "c2"),
		openai.AssistantMessage("Both are packages."),
		openai.DeveloperMessage("Be brief."),
		openai.UserMessage("Which is bigger?"),
	}
}

func TestMessages(t *testing.T) {
	t.Parallel()
	msgs, err := adapter.Messages(chat())
	require.NoError(t, err)
	require.Len(t, msgs, 8)
	assert.Equal(t, chitta.RoleSystem, msgs[0].Role)
	assert.Equal(t, "Compare these files\n[image]", msgs[1].Content)
	assert.Equal(t, []string{"c1", "c2"}, msgs[2].ToolCallIDs)
	assert.Equal(t, "read_file {\"path\":\"a.go\"}\nread_file {\"path\":\"b.go\"}", msgs[2].Content)
	assert.Equal(t, []string{"c1"}, msgs[3].ToolResultIDs)
	assert.Equal(t, chitta.RoleTool, msgs[4].Role)
	assert.Equal(t, chitta.RoleDeveloper, msgs[6].Role)

	_, err = adapter.Messages([]openai.ChatCompletionMessageParamUnion{{}})
	require.ErrorIs(t, err, chitta.ErrInvalidMessages)
	assert.Contains(t, err.Error(), "message 0")
}

func TestCompactKeepsPairsAndValues(t *testing.T) {
	t.Parallel()
	adapttest.KeepsPairsAndValues(t, chat, adapter.Compact, []int{2, 3, 4})
}

func output(callID, text string) responses.ResponseInputItemUnionParam {
	o := responses.ResponseInputItemParamOfFunctionCallOutput(text)
	o.OfFunctionCallOutput.CallID = openai.String(callID)
	return o
}

func items() []responses.ResponseInputItemUnionParam {
	return []responses.ResponseInputItemUnionParam{
		responses.ResponseInputItemParamOfCompaction("opaque-summary"),
		responses.ResponseInputItemParamOfMessage(responses.ResponseInputMessageContentListParam{
			{OfInputText: &responses.ResponseInputTextParam{Text: "Weather in Paris and Rome? " + strings.Repeat("please ", 30)}},
			{OfInputImage: &responses.ResponseInputImageParam{ImageURL: openai.String("https://x/map.png")}},
		}, responses.EasyInputMessageRoleUser),
		responses.ResponseInputItemParamOfReasoning("rs_1", []responses.ResponseReasoningItemSummaryParam{{Text: "Two lookups."}}),
		responses.ResponseInputItemParamOfFunctionCall(`{"city":"Paris"}`, "call_a", "get_weather"),
		responses.ResponseInputItemParamOfFunctionCall(`{"city":"Rome"}`, "call_b", "get_weather"),
		output("call_a", "18C"),
		output("call_b", "21C"),
		responses.ResponseInputItemParamOfCustomToolCall("call_p", "*** patch", "apply_patch"),
		responses.ResponseInputItemParamOfCustomToolCallOutput("call_p", "applied"),
		responses.ResponseInputItemParamOfItemReference("msg_9"),
		responses.ResponseInputItemParamOfMessage("And tomorrow?", responses.EasyInputMessageRoleUser),
	}
}

func TestResponsesMessages(t *testing.T) {
	t.Parallel()
	msgs, err := adapter.ResponsesMessages(items())
	require.NoError(t, err)
	require.Len(t, msgs, 11)
	assert.Equal(t, chitta.RoleSystem, msgs[0].Role, "compaction is pinned")
	assert.Contains(t, msgs[1].Content, "[image]")
	assert.Equal(t, []string{"reasoning@2"}, msgs[2].ToolCallIDs)
	assert.Equal(t, "Two lookups.", msgs[2].Content)
	assert.Equal(t, []string{"call_a"}, msgs[3].ToolCallIDs)
	assert.Equal(t, []string{"reasoning@2"}, msgs[3].ToolResultIDs, "reasoning grouped with the call after it")
	assert.Equal(t, []string{"call_b"}, msgs[6].ToolResultIDs)
	assert.Equal(t, chitta.RoleTool, msgs[5].Role)
	assert.Equal(t, []string{"call_p"}, msgs[7].ToolCallIDs, "custom_tool_call read from JSON")
	assert.Equal(t, []string{"call_p"}, msgs[8].ToolResultIDs)
	assert.Contains(t, msgs[9].Content, "msg_9")

	// An item with no variant set is named as such (on main: "item 0:
	// chitta: invalid messages: message: want a JSON object").
	_, err = adapter.ResponsesMessages([]responses.ResponseInputItemUnionParam{items()[0], {}})
	require.ErrorIs(t, err, chitta.ErrInvalidMessages)
	assert.EqualError(t, err, "chitta: invalid messages: item 1: no item variant set")
}

func TestCompactResponsesKeepsUnits(t *testing.T) {
	t.Parallel()
	in := items()
	for _, ratio := range []float64{0.05, 0.3, 0.6, 1} {
		out, res, err := adapter.CompactResponses(t.Context(), in, &chitta.Options{TargetRatio: ratio})
		require.NoError(t, err)
		kept := map[int]bool{}
		for j, i := range res.Kept {
			kept[i] = true
			assert.True(t, reflect.DeepEqual(in[i], out[j]), "ratio %v: kept value %d is the input's", ratio, i)
		}
		assert.True(t, kept[0], "ratio %v: compaction item kept", ratio)
		for _, k := range []int{3, 4, 5, 6} {
			assert.Equal(t, kept[2], kept[k], "ratio %v: reasoning, calls and outputs together (%d)", ratio, k)
		}
		assert.Equal(t, kept[7], kept[8], "ratio %v: custom call with its output", ratio)
	}
}

func Example() {
	asst := openai.AssistantMessage("")
	asst.OfAssistant.ToolCalls = []openai.ChatCompletionMessageToolCallUnionParam{{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
		ID: "c1", Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: "read_file", Arguments: `{"path":"config.yaml"}`},
	}}}
	msgs := []openai.ChatCompletionMessageParamUnion{
		openai.UserMessage("What port does config.yaml set?"),
		asst,
		openai.ToolMessage("port: 8080", "c1"),
		openai.AssistantMessage("It sets port 8080."),
		openai.UserMessage("Thanks. Now open the README."),
	}
	out, res, err := adapter.Compact(context.Background(), msgs, &chitta.Options{TargetRatio: 0.8})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(out), res.Kept)
	// Output: 4 [0 1 2 4]
}

func TestMessagesLegacyFunctionCall(t *testing.T) {
	t.Parallel()
	asst := openai.AssistantMessage("")
	//lint:ignore SA1019 the legacy shape is what this test reads
	asst.OfAssistant.FunctionCall = openai.ChatCompletionAssistantMessageParamFunctionCall{Name: "lookup", Arguments: `{"k":1}`}
	//lint:ignore SA1019 the legacy shape is what this test reads
	fn := openai.ChatCompletionMessageParamUnion{OfFunction: &openai.ChatCompletionFunctionMessageParam{Name: "lookup", Content: openai.String("v")}}
	msgs, err := adapter.Messages([]openai.ChatCompletionMessageParamUnion{openai.UserMessage("q"), asst, fn})
	require.NoError(t, err)
	assert.Equal(t, []string{"function_call@1"}, msgs[1].ToolCallIDs)
	assert.Equal(t, []string{"function_call@1"}, msgs[2].ToolResultIDs)
	assert.Equal(t, chitta.Role("function"), msgs[2].Role)
	assert.Equal(t, "lookup {\"k\":1}", msgs[1].Content)
}

// TestMessagesRefusalAudioAsParsed: a refusal part and an audio part read
// as chitta.ParseMessages reads their JSON (the refusal's text, "[audio]"),
// which dropped both before.
func TestMessagesRefusalAudioAsParsed(t *testing.T) {
	t.Parallel()
	msgs := []openai.ChatCompletionMessageParamUnion{
		openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
			openai.TextContentPart("transcribe this"),
			openai.InputAudioContentPart(openai.ChatCompletionContentPartInputAudioInputAudioParam{Data: "UklGRg==", Format: "wav"}),
		}),
		{OfAssistant: &openai.ChatCompletionAssistantMessageParam{Content: openai.ChatCompletionAssistantMessageParamContentUnion{
			OfArrayOfContentParts: []openai.ChatCompletionAssistantMessageParamContentArrayOfContentPartUnion{
				{OfRefusal: &openai.ChatCompletionContentPartRefusalParam{Refusal: "I cannot transcribe audio"}},
			},
		}}},
	}
	cm := adapttest.MatchesParse(t, msgs, adapter.Messages)
	assert.Equal(t, "transcribe this\n[audio]", cm[0].Content)
	assert.Equal(t, "I cannot transcribe audio", cm[1].Content)
}

// TestResponsesParallelCallsReasoning: the calls a reasoning item is
// followed by (a reasoning model's parallel calls) all belong with it, as
// ParseMessages reads them: the API wants the reasoning item before each.
func TestResponsesParallelCallsReasoning(t *testing.T) {
	t.Parallel()
	in := items()
	msgs, err := adapter.ResponsesMessages(in)
	require.NoError(t, err)
	for _, i := range []int{3, 4} {
		assert.Equal(t, []string{"reasoning@2"}, msgs[i].ToolResultIDs, "call %d", i)
	}
	assert.Equal(t, []string{"call_a"}, msgs[5].ToolResultIDs, "an output after the run carries its call only")
	linksAsParsed(t, in, msgs)
}

// Random valid chat conversations (parallel calls, legacy function calls,
// reused IDs) and Responses items (reasoning, parallel and custom calls,
// computer, shell and MCP approval items, compaction items) stay valid
// through Compact and the Compactors.
func TestWireProperties(t *testing.T) {
	t.Parallel()
	adapttest.Wire(t, "openai", wiregen.Options{}, 150, adapter.Compact, adapter.NewCompactor, adapter.Messages)
	adapttest.Wire(t, "responses", wiregen.Options{Typed: true}, 150, adapter.CompactResponses, adapter.NewResponsesCompactor, adapter.ResponsesMessages)
}

// TestResponsesToolSchemasAsParsed: an additional_tools item (developer,
// always kept) and an mcp_list_tools item read as the tool definitions they
// carry, and a compaction_trigger as a system message, as
// chitta.ParseMessages reads their JSON.
func TestResponsesToolSchemasAsParsed(t *testing.T) {
	t.Parallel()
	schema := map[string]any{"type": "object", "properties": map[string]any{"query": map[string]any{"type": "string", "description": "what to look for in the ledger"}}}
	refund := responses.ToolParamOfFunction("refund", schema, true)
	refund.OfFunction.Description = openai.String("Issues a refund")
	in := []responses.ResponseInputItemUnionParam{
		responses.ResponseInputItemParamOfMessage("go", responses.EasyInputMessageRoleUser),
		responses.ResponseInputItemParamOfAdditionalTools([]responses.ToolUnionParam{refund}),
		{OfMcpListTools: &responses.ResponseInputItemMcpListToolsParam{ID: "mcpl_1", ServerLabel: "ledger", Tools: []responses.ResponseInputItemMcpListToolsToolParam{
			{Name: "search_ledger", Description: openai.String("Searches the ledger"), InputSchema: schema},
		}}},
		{OfCompactionTrigger: &responses.ResponseInputItemCompactionTriggerParam{}},
	}
	msgs := adapttest.MatchesParse(t, in, adapter.ResponsesMessages)
	assert.Equal(t, chitta.RoleDeveloper, msgs[1].Role)
	for _, w := range []string{`"name":"refund"`, "Issues a refund", "what to look for in the ledger"} {
		assert.Contains(t, msgs[1].Content, w)
	}
	assert.Equal(t, chitta.RoleAssistant, msgs[2].Role)
	for _, w := range []string{"ledger", "search_ledger", "Searches the ledger", "what to look for in the ledger"} {
		assert.Contains(t, msgs[2].Content, w)
	}
	assert.Equal(t, chitta.RoleSystem, msgs[3].Role)
	assert.Equal(t, "[compaction_trigger]", msgs[3].Content)
}

// TestPartWithoutVariantRefused: a content part, tool call or output part
// with no variant set (the zero union, as make leaves it) is an error
// naming the message and the part, as chitta.ParseMessages refuses the
// `null` the SDK sends for it. The adapter scored it as the text "null"
// and returned it, for the API to refuse.
func TestPartWithoutVariantRefused(t *testing.T) {
	t.Parallel()
	user := openai.UserMessage("hi")
	zeroCall := openai.AssistantMessage("")
	zeroCall.OfAssistant.ToolCalls = []openai.ChatCompletionMessageToolCallUnionParam{{}}
	zeroText := openai.ChatCompletionMessageParamUnion{OfAssistant: &openai.ChatCompletionAssistantMessageParam{Content: openai.ChatCompletionAssistantMessageParamContentUnion{
		OfArrayOfContentParts: []openai.ChatCompletionAssistantMessageParamContentArrayOfContentPartUnion{{}},
	}}}
	chatTests := []struct {
		name string
		msgs []openai.ChatCompletionMessageParamUnion
		msg  string
	}{
		{name: "user part", msgs: []openai.ChatCompletionMessageParamUnion{openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{openai.TextContentPart("see"), {}})},
			msg: "chitta: invalid messages: message 0: content[1]: no part variant set"},
		{name: "assistant part", msgs: []openai.ChatCompletionMessageParamUnion{user, zeroText}, msg: "chitta: invalid messages: message 1: content[0]: no part variant set"},
		{name: "tool call", msgs: []openai.ChatCompletionMessageParamUnion{user, zeroCall}, msg: "chitta: invalid messages: message 1: tool_calls[0]: no tool call variant set"},
	}
	for _, tt := range chatTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			requireRefused(t, tt.msgs, tt.msg, adapter.Messages, adapter.Compact)
		})
	}

	call := responses.ResponseInputItemParamOfFunctionCall(`{"path":"a.go"}`, "call_a", "read_file")
	output := responses.ResponseInputItemParamOfFunctionCallOutput(responses.ResponseFunctionCallOutputItemListParam{{}})
	output.OfFunctionCallOutput.CallID = openai.String("call_a")
	responsesTests := []struct {
		name  string
		items []responses.ResponseInputItemUnionParam
		msg   string
	}{
		{name: "message part", items: []responses.ResponseInputItemUnionParam{responses.ResponseInputItemParamOfMessage(responses.ResponseInputMessageContentListParam{{}}, responses.EasyInputMessageRoleUser)},
			msg: "chitta: invalid messages: item 0: content[0]: no part variant set"},
		{name: "input message part", items: []responses.ResponseInputItemUnionParam{{OfInputMessage: &responses.ResponseInputItemMessageParam{Role: "user", Content: responses.ResponseInputMessageContentListParam{responses.ResponseInputContentParamOfInputText("hi"), {}}}}},
			msg: "chitta: invalid messages: item 0: content[1]: no part variant set"},
		{name: "output message part", items: []responses.ResponseInputItemUnionParam{responses.ResponseInputItemParamOfMessage("hi", responses.EasyInputMessageRoleUser),
			{OfOutputMessage: &responses.ResponseOutputMessageParam{ID: "msg_1", Content: []responses.ResponseOutputMessageContentUnionParam{{}}}}},
			msg: "chitta: invalid messages: item 1: content[0]: no part variant set"},
		{name: "function_call_output part", items: []responses.ResponseInputItemUnionParam{responses.ResponseInputItemParamOfMessage("hi", responses.EasyInputMessageRoleUser), call, output},
			msg: "chitta: invalid messages: item 2: output[0]: no part variant set"},
	}
	for _, tt := range responsesTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			requireRefused(t, tt.items, tt.msg, adapter.ResponsesMessages, adapter.CompactResponses)
		})
	}
}

// requireRefused checks that chitta.ParseMessages refuses the SDK's JSON
// of vals and that messages and compact (with and without Mask) refuse
// vals with the error msg, wrapping chitta.ErrInvalidMessages.
func requireRefused[T any](t *testing.T, vals []T, msg string, messages adapttest.MessagesFunc[T], compact adapttest.CompactFunc[T]) {
	t.Helper()
	data, err := json.Marshal(vals)
	require.NoError(t, err)
	_, err = chitta.ParseMessages(data)
	require.ErrorIs(t, err, chitta.ErrInvalidMessages, "chitta refuses the SDK's JSON: %s", data)

	_, err = messages(vals)
	require.ErrorIs(t, err, chitta.ErrInvalidMessages)
	assert.EqualError(t, err, msg)
	for _, opts := range []*chitta.Options{{TargetRatio: 0.5}, {TargetRatio: 0.5, Mask: &chitta.MaskOptions{}}} {
		out, _, err := compact(t.Context(), vals, opts)
		require.ErrorIs(t, err, chitta.ErrInvalidMessages)
		assert.Nil(t, out)
	}
}

// TestResponsesReasoningReply: a reasoning model's reply with a preamble
// before its calls ([reasoning, message, function_call, web_search_call])
// is one group with the calls' outputs, as chitta.ParseMessages reads its
// JSON, and CompactResponses keeps or drops it whole at every budget: the
// API refuses "function_call … provided without its required 'reasoning'
// item". The message after the outputs is not part of the reply.
func TestResponsesReasoningReply(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("file content line ", 60)
	in := []responses.ResponseInputItemUnionParam{
		responses.ResponseInputItemParamOfMessage("read a.go", responses.EasyInputMessageRoleUser),
		responses.ResponseInputItemParamOfReasoning("rs_1", []responses.ResponseReasoningItemSummaryParam{{Text: long}}),
		responses.ResponseInputItemParamOfMessage("I'll read the file first.", responses.EasyInputMessageRoleAssistant),
		responses.ResponseInputItemParamOfFunctionCall(`{"path":"a.go"}`, "call_1", "read_file"),
		responses.ResponseInputItemParamOfWebSearchCall(responses.ResponseFunctionWebSearchActionSearchParam{Queries: []string{"package a"}}, "ws_1", "completed"),
		output("call_1", long),
		responses.ResponseInputItemParamOfMessage("a.go is package a", responses.EasyInputMessageRoleAssistant),
		responses.ResponseInputItemParamOfMessage("thanks, now b.go", responses.EasyInputMessageRoleUser),
	}
	msgs, err := adapter.ResponsesMessages(in)
	require.NoError(t, err)
	for _, i := range []int{2, 3, 4} {
		assert.Equal(t, []string{"reasoning@1"}, msgs[i].ToolResultIDs, "item %d belongs with the reasoning item", i)
	}
	assert.Empty(t, msgs[6].ToolResultIDs, "a message after an output is not part of the reply")
	linksAsParsed(t, in, msgs)
	for _, budget := range []int{1, 20, 40, 80, 200, 400, 10000} {
		out, res, err := adapter.CompactResponses(t.Context(), in, &chitta.Options{MaxTokens: budget})
		require.NoError(t, err)
		kept := map[int]bool{}
		for _, i := range res.Kept {
			kept[i] = true
		}
		for _, i := range []int{2, 3, 4, 5} {
			assert.Equal(t, kept[1], kept[i], "budget %d: item %d with the reasoning item (kept %v)", budget, i, res.Kept)
		}
		for j, i := range res.Kept {
			assert.True(t, reflect.DeepEqual(in[i], out[j]), "budget %d: kept value %d is the input's", budget, i)
		}
	}
}

// linksAsParsed asserts that msgs, the adapter's messages for in, have the
// tool linkage chitta.ParseMessages reads from in's JSON.
func linksAsParsed(t *testing.T, in []responses.ResponseInputItemUnionParam, msgs []chitta.Message) {
	t.Helper()
	data, err := json.Marshal(in)
	require.NoError(t, err)
	parsed, err := chitta.ParseMessages(data)
	require.NoError(t, err)
	require.Len(t, parsed, len(msgs))
	for i := range msgs {
		assert.Equal(t, parsed[i].ToolCallIDs, msgs[i].ToolCallIDs, "item %d", i)
		assert.Equal(t, parsed[i].ToolResultIDs, msgs[i].ToolResultIDs, "item %d", i)
	}
}

// TestResponsesConfigurationUpdateKept: a configuration_update item holds
// the settings of the later responses; CompactResponses keeps it at every
// budget, as chitta.Compact keeps it in the items' JSON.
func TestResponsesConfigurationUpdateKept(t *testing.T) {
	t.Parallel()
	in := []responses.ResponseInputItemUnionParam{
		responses.ResponseInputItemParamOfMessage(strings.Repeat("a long first question ", 20), responses.EasyInputMessageRoleUser),
		{OfConfigurationUpdate: &responses.ResponseConfigurationUpdateItemParam{ID: openai.String("cu_1")}},
		responses.ResponseInputItemParamOfMessage(strings.Repeat("a long answer ", 20), responses.EasyInputMessageRoleAssistant),
		responses.ResponseInputItemParamOfMessage("next", responses.EasyInputMessageRoleUser),
	}
	msgs, err := adapter.ResponsesMessages(in)
	require.NoError(t, err)
	assert.Equal(t, chitta.RoleSystem, msgs[1].Role)
	for _, budget := range []int{1, 10, 30, 100000} {
		_, res, err := adapter.CompactResponses(t.Context(), in, &chitta.Options{MaxTokens: budget})
		require.NoError(t, err)
		assert.Contains(t, res.Kept, 1, "budget %d", budget)
	}
}

// TestResponsesMCPApprovalWithCall: the approval request, the response
// approving it and the mcp_call that carries its approval_request_id are
// kept or dropped together, as chitta.ParseMessages links them.
func TestResponsesMCPApprovalWithCall(t *testing.T) {
	t.Parallel()
	var in []responses.ResponseInputItemUnionParam
	require.NoError(t, json.Unmarshal([]byte(`[
 {"type":"message","role":"user","content":"`+strings.Repeat("list repos then delete the old one ", 6)+`"},
 {"type":"mcp_approval_request","id":"mcpr_1","server_label":"gh","name":"delete_repo","arguments":"{\"repo\":\"old\"}"},
 {"type":"mcp_approval_response","approval_request_id":"mcpr_1","approve":true},
 {"type":"mcp_call","id":"mcp_1","server_label":"gh","name":"delete_repo","arguments":"{\"repo\":\"old\"}","approval_request_id":"mcpr_1","output":"`+strings.Repeat("deleted ", 30)+`"},
 {"type":"message","role":"assistant","content":"Deleted."},
 {"type":"message","role":"user","content":"thanks, now what next?"}
]`), &in))
	msgs, err := adapter.ResponsesMessages(in)
	require.NoError(t, err)
	assert.Equal(t, []string{"mcpr_1"}, msgs[3].ToolResultIDs)
	linksAsParsed(t, in, msgs)
	for budget := 1; budget <= 200; budget += 3 {
		_, res, err := adapter.CompactResponses(t.Context(), in, &chitta.Options{MaxTokens: budget})
		require.NoError(t, err)
		kept := map[int]bool{}
		for _, i := range res.Kept {
			kept[i] = true
		}
		require.True(t, kept[1] == kept[2] && kept[2] == kept[3], "budget %d: request, response and call together (kept %v)", budget, res.Kept)
	}
}

// TestResponsesItemReferenceMirrorTies: item_reference items tie, as
// chitta.ParseMessages ties them, to a function_call (or custom tool
// call) before them that no later item answers (the references give its
// stored output), to a reference right before them (a stored call, then
// its stored output), and a reference to a stored reasoning item (rs_)
// to the model's reply after it. On main each was a unit of its own:
// CompactResponses kept the call without the reference, or the reasoning
// reference without the call after it.
func TestResponsesItemReferenceMirrorTies(t *testing.T) {
	t.Parallel()
	ref := responses.ResponseInputItemParamOfItemReference
	user := func(s string) responses.ResponseInputItemUnionParam {
		return responses.ResponseInputItemParamOfMessage(s, responses.EasyInputMessageRoleUser)
	}
	answer := responses.ResponseInputItemParamOfMessage("It is sunny and lovely there today with many words", responses.EasyInputMessageRoleAssistant)
	call := func(id string) responses.ResponseInputItemUnionParam {
		return responses.ResponseInputItemParamOfFunctionCall(`{"city":"paris with many words in args args args"}`, id, "w")
	}
	ask, thanks := user("check weather please and report back with detail"), user("ok thanks")
	out := output("call_1", "sunny and lovely there today with many many words words words")
	for _, tc := range []struct {
		name    string
		in      []responses.ResponseInputItemUnionParam
		groups  [][]int
		results map[int][]string
	}{
		{"a call, a reference to its stored output", []responses.ResponseInputItemUnionParam{ask, call("call_1"), ref("fco_1"), answer, thanks}, [][]int{{1, 2}}, map[int][]string{2: {"call_1"}}},
		{"parallel calls, their stored outputs", []responses.ResponseInputItemUnionParam{ask, call("call_1"), call("call_2"), ref("fco_1"), ref("fco_2"), answer, thanks}, [][]int{{1, 2, 3, 4}}, map[int][]string{3: {"call_1", "call_2"}, 4: {"item_reference@3"}}},
		{"parallel calls, one output inline", []responses.ResponseInputItemUnionParam{ask, call("call_1"), call("call_2"), output("call_2", "rainy and cold there today with many many words"), ref("fco_1"), thanks}, [][]int{{1, 4}, {2, 3}}, map[int][]string{4: {"call_1"}}},
		{"a custom tool call, its stored output", []responses.ResponseInputItemUnionParam{ask, responses.ResponseInputItemParamOfCustomToolCall("call_c", "*** patch with many words in it", "apply_patch"), ref("ctco_1"), answer, thanks}, [][]int{{1, 2}}, map[int][]string{2: {"call_c"}}},
		{"the call and its output both references", []responses.ResponseInputItemUnionParam{ask, ref("fc_stored_call"), ref("fco_stored_output"), answer, thanks}, [][]int{{1, 2}}, map[int][]string{2: {"item_reference@1"}}},
		{"stored reasoning, the call after it", []responses.ResponseInputItemUnionParam{ask, ref("rs_stored"), call("call_1"), out, answer, thanks}, [][]int{{1, 2, 3}}, map[int][]string{2: {"reasoning@1"}}},
		{"stored reasoning, the model's reply after it", []responses.ResponseInputItemUnionParam{ask, ref("rs_stored"), answer, call("call_1"), out, thanks}, [][]int{{1, 2, 3, 4}}, map[int][]string{2: {"reasoning@1"}, 3: {"reasoning@1"}}},
		{"inline reasoning, references, their output", []responses.ResponseInputItemUnionParam{ask, responses.ResponseInputItemParamOfReasoning("rs_1", nil), ref("fc_1"), ref("fc_2"), out, thanks}, [][]int{{1, 2, 3, 4}}, map[int][]string{3: {"reasoning@1", "item_reference@2"}, 4: {"item_reference@3"}}},
		{"a reference, a server's tool search", append([]responses.ResponseInputItemUnionParam{ask, ref("msg_1")}, searched()...), [][]int{{2, 3}}, map[int][]string{3: {"tool_search@2"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			msgs, err := adapter.ResponsesMessages(tc.in)
			require.NoError(t, err)
			linksAsParsed(t, tc.in, msgs)
			for i, want := range tc.results {
				assert.Equal(t, want, msgs[i].ToolResultIDs, "ToolResultIDs of %d", i)
			}
			require.NoError(t, chitta.Validate(msgs))
			adapttest.SameKept(t, tc.in, adapter.CompactResponses)
			for _, mask := range []*chitta.MaskOptions{nil, {KeepRecent: 1, MinTokens: 10}} {
				for budget := 1; budget <= 400; budget++ {
					kept, res, err := adapter.CompactResponses(t.Context(), tc.in, &chitta.Options{MaxTokens: budget, Mask: mask})
					require.NoError(t, err)
					conv, err := adapter.ResponsesMessages(kept)
					require.NoError(t, err)
					require.NoError(t, chitta.Validate(conv), "budget %d", budget)
					keptTogether(t, res.Kept, tc.groups, fmt.Sprintf("budget %d, mask %v", budget, mask != nil))
				}
			}
		})
	}
}

// keptTogether checks that kept (a Result's Kept) holds each group of
// indices whole or not at all.
func keptTogether(t *testing.T, kept []int, groups [][]int, what string) {
	t.Helper()
	in := map[int]bool{}
	for _, i := range kept {
		in[i] = true
	}
	for _, g := range groups {
		for _, i := range g[1:] {
			require.Equal(t, in[g[0]], in[i], "%s: %d and %d", what, g[0], i)
		}
	}
}

// searched is a tool search the server ran: a tool_search_call and its
// tool_search_output, neither with a call_id (the output with an item
// ID), then the user's next turn.
func searched() []responses.ResponseInputItemUnionParam {
	return []responses.ResponseInputItemUnionParam{
		{OfToolSearchCall: &responses.ResponseInputItemToolSearchCallParam{Arguments: map[string]any{"query": "weather tools"}, Execution: "server"}},
		{OfToolSearchOutput: &responses.ResponseToolSearchOutputItemParam{ID: openai.String("tso_1"), Execution: "server",
			Tools: []responses.ResponseToolSearchOutputItemParamToolUnion{functionTool("w")}}},
		responses.ResponseInputItemParamOfMessage("ok thanks", responses.EasyInputMessageRoleUser),
	}
}
