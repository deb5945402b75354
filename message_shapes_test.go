package chitta_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

func TestParseMessagesShapes(t *testing.T) {
	t.Parallel()
	type want struct {
		role           chitta.Role
		content        string
		calls, results []string
	}
	tests := []struct {
		name string
		in   string
		want []want
	}{
		{
			name: "Responses items",
			in: `[
 {"role":"user","content":[{"type":"input_text","text":"weather in Paris and Rome?"},{"type":"input_image","image_url":"https://x/y.png"}]},
 {"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Two lookups."}],"encrypted_content":"gAAA"},
 {"type":"function_call","id":"fc_1","call_id":"call_a","name":"get_weather","arguments":"{\"city\":\"Paris\"}"},
 {"type":"function_call","id":"fc_2","call_id":"call_b","name":"get_weather","arguments":"{\"city\":\"Rome\"}"},
 {"type":"function_call_output","call_id":"call_a","output":"18C"},
 {"type":"function_call_output","call_id":"call_b","output":[{"type":"input_text","text":"21C"}]},
 {"type":"message","role":"assistant","content":[{"type":"output_text","text":"Paris 18C, Rome 21C."}]},
 {"type":"compaction","id":"cmp_1","encrypted_content":"opaque"},
 {"type":"computer_call","call_id":"call_c","action":{"type":"click","x":1,"y":2}},
 {"type":"computer_call_output","call_id":"call_c","output":{"type":"computer_screenshot","image_url":"data:..."}},
 {"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"rome"}},
 {"type":"brand_new_item","payload":{"k":"v"}}
]`,
			want: []want{
				{chitta.RoleUser, "weather in Paris and Rome?\n[image]", nil, nil},
				{chitta.RoleAssistant, "Two lookups.", []string{"reasoning@1"}, nil},
				{chitta.RoleAssistant, `get_weather {"city":"Paris"}`, []string{"call_a"}, []string{"reasoning@1"}},
				{chitta.RoleAssistant, `get_weather {"city":"Rome"}`, []string{"call_b"}, []string{"reasoning@1"}},
				{chitta.RoleTool, "18C", nil, []string{"call_a"}},
				{chitta.RoleTool, "21C", nil, []string{"call_b"}},
				{chitta.RoleAssistant, "Paris 18C, Rome 21C.", nil, nil},
				{chitta.RoleSystem, "[compaction]", nil, nil},
				{chitta.RoleAssistant, `computer_call {"type":"click","x":1,"y":2}`, []string{"call_c"}, nil},
				{chitta.RoleTool, "[image]", nil, []string{"call_c"}},
				{chitta.RoleAssistant, `web_search_call {"type":"search","query":"rome"}`, nil, nil},
				{chitta.RoleAssistant, `{"type":"brand_new_item","payload":{"k":"v"}}`, nil, nil},
			},
		},
		{
			name: "item references, with and without the optional type: a run is one group",
			in:   `[{"role":"user","content":"go on"},{"id":"msg_1"},{"type":"item_reference","id":"fc_2"}]`,
			want: []want{
				{chitta.RoleUser, "go on", nil, nil},
				{chitta.RoleAssistant, "[item_reference msg_1]", []string{"item_reference@1"}, nil},
				{chitta.RoleAssistant, "[item_reference fc_2]", nil, []string{"item_reference@1"}},
			},
		},
		{
			name: "consecutive reasoning items form one group with the call",
			in:   `[{"type":"reasoning","summary":[]},{"type":"reasoning","summary":[{"type":"summary_text","text":"b"}]},{"type":"function_call","call_id":"c","name":"f","arguments":""}]`,
			want: []want{
				{chitta.RoleAssistant, "[reasoning]", []string{"reasoning@0"}, nil},
				{chitta.RoleAssistant, "b", []string{"reasoning@1"}, []string{"reasoning@0"}},
				{chitta.RoleAssistant, "f ", []string{"c"}, []string{"reasoning@1"}},
			},
		},
		{
			// A reasoning model's reply [reasoning, preamble, calls] is one
			// response: the API wants each of its items behind the reasoning
			// item ("Item 'fc_1' of type 'function_call' was provided without
			// its required 'reasoning' item"), until the next input item.
			name: "a reasoning item holds its reply: preamble, calls, later reasoning",
			in:   `[{"role":"user","content":"go"},{"type":"reasoning","summary":[]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"I will look."}]},{"type":"function_call","call_id":"c","name":"f","arguments":""},{"type":"reasoning","summary":[]},{"type":"web_search_call","id":"ws","status":"completed"},{"type":"message","role":"assistant","content":"found"},{"type":"function_call_output","call_id":"c","output":"x"},{"type":"message","role":"assistant","content":"after the output"}]`,
			want: []want{
				{chitta.RoleUser, "go", nil, nil},
				{chitta.RoleAssistant, "[reasoning]", []string{"reasoning@1"}, nil},
				{chitta.RoleAssistant, "I will look.", nil, []string{"reasoning@1"}},
				{chitta.RoleAssistant, "f ", []string{"c"}, []string{"reasoning@1"}},
				{chitta.RoleAssistant, "[reasoning]", []string{"reasoning@4"}, []string{"reasoning@1"}},
				{chitta.RoleAssistant, "web_search_call ", nil, []string{"reasoning@4"}},
				{chitta.RoleAssistant, "found", nil, []string{"reasoning@4"}},
				{chitta.RoleTool, "x", nil, []string{"c"}},
				{chitta.RoleAssistant, "after the output", nil, nil},
			},
		},
		{
			name: "langchaingo",
			in: `[
 {"role":"system","text":"be brief"},
 {"role":"human","parts":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"https://x/y.png"}},{"type":"binary","binary":{"mime_type":"application/pdf","data":"AA=="}}]},
 {"role":"ai","parts":[{"type":"text","text":"calling"},{"type":"tool_call","tool_call":{"id":"t1","type":"function","function":{"name":"search","arguments":"{\"q\":\"go\"}"}}},{"type":"tool_call","tool_call":{"id":"t2","type":"function","function":{"name":"read","arguments":"{}"}}}]},
 {"role":"tool","parts":[{"type":"tool_response","tool_response":{"tool_call_id":"t1","name":"search","content":"found"}},{"type":"tool_response","tool_response":{"tool_call_id":"t2","name":"read","content":"text"}}]},
 {"role":"generic","text":"note"},
 {"role":"function","text":"legacy"},
 {"role":"ai","parts":[{"ContentPart":{"type":"tool_call","tool_call":{"id":"t3","type":"function","function":{"name":"ls","arguments":"{}"}}},"cache_control":{"type":"ephemeral"}}]},
 {"role":"tool","parts":[{"ContentPart":{"ContentPart":{"type":"tool_response","tool_response":{"tool_call_id":"t3","name":"ls","content":"a.go"}}}},{"ContentPart":{"type":"image_url","image_url":{"url":"https://x/y.png"}}}]}
]`,
			want: []want{
				{chitta.RoleSystem, "be brief", nil, nil},
				{chitta.RoleUser, "look\n[image]\n[document]", nil, nil},
				{chitta.RoleAssistant, "calling\nsearch {\"q\":\"go\"}\nread {}", []string{"t1", "t2"}, nil},
				{chitta.RoleTool, "found\ntext", nil, []string{"t1", "t2"}},
				{chitta.RoleUser, "note", nil, nil},
				{"function", "legacy", nil, nil},
				{chitta.RoleAssistant, "ls {}", []string{"t3"}, nil},
				{chitta.RoleTool, "a.go\n[image]", nil, []string{"t3"}},
			},
		},
		{
			name: "langchaingo, pairing by position when IDs are absent (googleai, vertex)",
			in: `[
 {"role":"human","text":"weather in two cities"},
 {"role":"ai","parts":[{"type":"tool_call","tool_call":{"id":"","type":"function","function":{"name":"weather","arguments":"{\"c\":\"a\"}"}}},{"type":"tool_call","tool_call":{"id":"","type":"","function":null}},{"ContentPart":{"type":"tool_call","tool_call":{"id":"","type":"function","function":{"name":"weather","arguments":"{\"c\":\"b\"}"}}}}]},
 {"role":"tool","parts":[{"type":"tool_response","tool_response":{"tool_call_id":"","name":"weather","content":"sun"}}]},
 {"role":"tool","parts":[{"type":"tool_response","tool_response":{"tool_call_id":"","name":"weather","content":"rain"}},{"type":"tool_response","tool_response":{"tool_call_id":"","name":"weather","content":"stray"}}]},
 {"role":"ai","parts":[{"type":"tool_call","tool_call":{"id":"x","type":"function","function":{"name":"ls","arguments":"{}"}}},{"type":"tool_call","tool_call":{"id":"","type":"function","function":{"name":"pwd","arguments":"{}"}}}]},
 {"role":"function","parts":[{"type":"tool_response","tool_response":{"tool_call_id":"x","name":"ls","content":"a.go"}},{"type":"tool_response","tool_response":{"tool_call_id":"","name":"pwd","content":"/"}}]}
]`,
			want: []want{
				{chitta.RoleUser, "weather in two cities", nil, nil},
				{chitta.RoleAssistant, "weather {\"c\":\"a\"}\nweather {\"c\":\"b\"}", []string{"tool_call@1.0", "tool_call@1.2"}, nil},
				{chitta.RoleTool, "sun", nil, []string{"tool_call@1.0"}},
				{chitta.RoleTool, "rain\nstray", nil, []string{"tool_call@1.2"}},
				{chitta.RoleAssistant, "ls {}\npwd {}", []string{"x", "tool_call@4.1"}, nil},
				{"function", "a.go\n/", nil, []string{"x", "tool_call@4.1"}},
			},
		},
		{
			name: "genai, pairing by position when IDs are absent",
			in: `[
 {"parts":[{"text":"plan a trip"}]},
 {"role":"model","parts":[{"text":"thinking","thought":true},{"functionCall":{"name":"flights","args":{"to":"NRT"}}},{"functionCall":{"name":"hotels","args":{"city":"Tokyo"}}}]},
 {"role":"user","parts":[{"functionResponse":{"name":"flights","response":{"n":3}}},{"functionResponse":{"name":"hotels","response":{"n":5}}}]},
 {"role":"model","parts":[{"functionCall":{"id":"x1","name":"book","args":{}}},{"inlineData":{"mimeType":"image/png","data":"AA=="}},{"executableCode":{"language":"PYTHON","code":"print(1)"}}]},
 {"role":"user","parts":[{"functionResponse":{"id":"x1","name":"book","response":{"ok":true}}},{"fileData":{"mimeType":"application/pdf","fileUri":"gs://b/f"}}]}
]`,
			want: []want{
				{chitta.RoleUser, "plan a trip", nil, nil},
				{chitta.RoleAssistant, "thinking\nflights {\"to\":\"NRT\"}\nhotels {\"city\":\"Tokyo\"}", []string{"functionCall@1.1", "functionCall@1.2"}, nil},
				{chitta.RoleUser, "{\"n\":3}\n{\"n\":5}", nil, []string{"functionCall@1.1", "functionCall@1.2"}},
				{chitta.RoleAssistant, "book {}\n[image]\n{\"executableCode\":{\"language\":\"PYTHON\",\"code\":\"print(1)\"}}", []string{"x1"}, nil},
				{chitta.RoleUser, "{\"ok\":true}\n[document]", nil, []string{"x1"}},
			},
		},
		{
			name: "genai, a response that is only its output or error reads as that text",
			in: `[
 {"parts":[{"text":"look up ann"}]},
 {"role":"model","parts":[{"functionCall":{"id":"a","name":"user","args":{"id":"ann_2"}}},{"functionCall":{"id":"b","name":"pay","args":{}}},{"functionCall":{"id":"c","name":"log","args":{}}},{"functionCall":{"id":"d","name":"ping","args":{}}}]},
 {"role":"user","parts":[{"functionResponse":{"id":"a","name":"user","response":{"output":"{\"name\": \"Ann\"}"}}},{"functionResponse":{"id":"b","name":"pay","response":{"error":"card declined"}}},{"functionResponse":{"id":"c","name":"log","response":{"output":"x","n":1}}},{"functionResponse":{"id":"d","name":"ping","response":{"output":7}}}]}
]`,
			want: []want{
				{chitta.RoleUser, "look up ann", nil, nil},
				{chitta.RoleAssistant, "user {\"id\":\"ann_2\"}\npay {}\nlog {}\nping {}", []string{"a", "b", "c", "d"}, nil},
				{chitta.RoleUser, "{\"name\": \"Ann\"}\ncard declined\n{\"output\":\"x\",\"n\":1}\n{\"output\":7}", nil, []string{"a", "b", "c", "d"}},
			},
		},
		{
			name: "genai, a multimodal function response reads its parts after its output",
			in: `[
 {"role":"model","parts":[{"functionCall":{"id":"a","name":"shot","args":{}}},{"functionCall":{"name":"fetch","args":{}}}]},
 {"role":"user","parts":[{"functionResponse":{"id":"a","name":"shot","response":{"output":"ok"},"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBO"}},null,{"mediaProcessing":"x"}]}},{"functionResponse":{"name":"fetch","response":{},"parts":[{"fileData":{"mimeType":"application/pdf","fileUri":"gs://b/f"}}]}}]}
]`,
			want: []want{
				{chitta.RoleAssistant, "shot {}\nfetch {}", []string{"a", "functionCall@0.1"}, nil},
				{chitta.RoleUser, "ok\n[image]\n{\"mediaProcessing\":\"x\"}\n{}\n[document]", nil, []string{"a", "functionCall@0.1"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			msgs, err := chitta.ParseMessages([]byte(tt.in))
			require.NoError(t, err)
			require.Len(t, msgs, len(tt.want))
			for i, w := range tt.want {
				assert.Equal(t, w.role, msgs[i].Role, "message %d role", i)
				assert.Equal(t, w.content, msgs[i].Content, "message %d content", i)
				assert.Equal(t, w.calls, msgs[i].ToolCallIDs, "message %d calls", i)
				assert.Equal(t, w.results, msgs[i].ToolResultIDs, "message %d results", i)
				assert.NotEmpty(t, msgs[i].Raw)
			}
			out, err := chitta.MarshalMessages(msgs)
			require.NoError(t, err)
			assert.JSONEq(t, tt.in, string(out), "survivors marshal back to the input")
		})
	}
}

// TestCompactResponsesItems checks the Responses rules end to end: a
// reasoning item stays with its call and the call with its output, and a
// compaction item is always kept.
func TestCompactResponsesItems(t *testing.T) {
	t.Parallel()
	msgs, err := chitta.ParseMessages([]byte(`[
 {"type":"compaction","encrypted_content":"opaque"},
 {"role":"user","content":"first question with many words to make it expensive to keep around"},
 {"type":"reasoning","summary":[{"type":"summary_text","text":"need a lookup"}]},
 {"type":"function_call","call_id":"c1","name":"lookup","arguments":"{\"k\":1}"},
 {"type":"function_call_output","call_id":"c1","output":"value one"},
 {"role":"user","content":"second question"},
 {"type":"reasoning","summary":[{"type":"summary_text","text":"again"}]},
 {"type":"function_call","call_id":"c2","name":"lookup","arguments":"{\"k\":2}"},
 {"type":"function_call_output","call_id":"c2","output":"value two"}
]`))
	require.NoError(t, err)
	for _, ratio := range []float64{0.05, 0.3, 0.6, 1} {
		res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: ratio})
		require.NoError(t, err)
		kept := map[int]bool{}
		for _, i := range res.Kept {
			kept[i] = true
		}
		assert.True(t, kept[0], "ratio %v: compaction item kept", ratio)
		for _, g := range [][]int{{2, 3, 4}, {6, 7, 8}} {
			assert.Equal(t, kept[g[0]], kept[g[1]], "ratio %v: reasoning with its call", ratio)
			assert.Equal(t, kept[g[1]], kept[g[2]], "ratio %v: call with its output", ratio)
		}
	}
}

// TestCompactKeepsConfigurationUpdate: a configuration_update item sets
// the reasoning and text settings of every later response; dropping it
// would change them silently, so it is read as a system message and kept
// at every budget.
func TestCompactKeepsConfigurationUpdate(t *testing.T) {
	t.Parallel()
	msgs, err := chitta.ParseMessages([]byte(`[
 {"role":"user","content":"` + strings.Repeat("a long first question ", 20) + `"},
 {"type":"configuration_update","id":"cu_1","reasoning":{"effort":"low"},"text":{"verbosity":"low"}},
 {"role":"assistant","content":"` + strings.Repeat("a long answer ", 20) + `"},
 {"role":"user","content":"next"}
]`))
	require.NoError(t, err)
	assert.Equal(t, chitta.RoleSystem, msgs[1].Role)
	for _, budget := range []int{1, 10, 30, 100000} {
		res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{MaxTokens: budget})
		require.NoError(t, err)
		assert.Contains(t, res.Kept, 1, "budget %d", budget)
	}
}

// TestCompactWindowAfterCompaction: the API lets a caller drop every item
// before the latest compaction item, which may leave a window without a
// user message ([compaction, reasoning, call, output]); Validate accepts
// it, and so every Compact result of it.
func TestCompactWindowAfterCompaction(t *testing.T) {
	t.Parallel()
	msgs, err := chitta.ParseMessages([]byte(`[
 {"type":"compaction","encrypted_content":"opaque"},
 {"type":"reasoning","summary":[{"type":"summary_text","text":"` + strings.Repeat("look again ", 30) + `"}]},
 {"type":"function_call","call_id":"c1","name":"lookup","arguments":"{}"},
 {"type":"function_call_output","call_id":"c1","output":"` + strings.Repeat("value ", 40) + `"},
 {"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}
]`))
	require.NoError(t, err)
	require.NoError(t, chitta.Validate(msgs))
	for _, budget := range []int{1, 20, 60, 100000} {
		res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{MaxTokens: budget})
		require.NoError(t, err)
		assert.NoError(t, chitta.Validate(res.Messages), "budget %d", budget)
	}
}

// TestCompactKeepsMCPApprovalWithCall: an mcp_call the user approved
// carries its approval_request_id, so the approval request, the response
// approving it and the call are kept or dropped together: a kept approval
// without its call may have the API run the tool again, and a call without
// its approval is refused.
func TestCompactKeepsMCPApprovalWithCall(t *testing.T) {
	t.Parallel()
	msgs, err := chitta.ParseMessages([]byte(`[
 {"role":"user","content":"` + strings.Repeat("list repos then delete the old one ", 6) + `"},
 {"type":"mcp_approval_request","id":"mcpr_1","server_label":"gh","name":"delete_repo","arguments":"{\"repo\":\"old\"}"},
 {"type":"mcp_approval_response","approval_request_id":"mcpr_1","approve":true},
 {"type":"mcp_call","id":"mcp_1","server_label":"gh","name":"delete_repo","arguments":"{\"repo\":\"old\"}","approval_request_id":"mcpr_1","output":"` + strings.Repeat("deleted ", 30) + `"},
 {"role":"assistant","content":"Deleted."},
 {"role":"user","content":"thanks, now what next?"}
]`))
	require.NoError(t, err)
	assert.Equal(t, []string{"mcpr_1"}, msgs[3].ToolResultIDs)
	require.NoError(t, chitta.Validate(msgs))
	for budget := 1; budget <= 200; budget++ {
		res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{MaxTokens: budget})
		require.NoError(t, err)
		kept := map[int]bool{}
		for _, i := range res.Kept {
			kept[i] = true
		}
		require.True(t, kept[1] == kept[2] && kept[2] == kept[3], "budget %d: request, response and call together (kept %v)", budget, res.Kept)
		require.NoError(t, chitta.Validate(res.Messages), "budget %d", budget)
	}
}

// TestCompactResponsesReasoningReply: a reasoning model's reply with a
// preamble before its calls ([reasoning, message, function_call,
// function_call]) is kept or dropped whole with the calls' outputs, at
// every budget: the API refuses a call or message of the reply without
// its reasoning item. A reply after the outputs is not part of it.
func TestCompactResponsesReasoningReply(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("file content line ", 60)
	msgs, err := chitta.ParseMessages([]byte(`[
 {"role":"user","content":"read a.go and b.go"},
 {"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"` + long + `"}]},
 {"type":"message","role":"assistant","id":"msg_1","content":[{"type":"output_text","text":"I will read both files."}]},
 {"type":"function_call","id":"fc_1","call_id":"c1","name":"read","arguments":"{\"p\":\"a.go\"}"},
 {"type":"function_call","id":"fc_2","call_id":"c2","name":"read","arguments":"{\"p\":\"b.go\"}"},
 {"type":"function_call_output","call_id":"c1","output":"` + long + `"},
 {"type":"function_call_output","call_id":"c2","output":"package b"},
 {"type":"message","role":"assistant","content":[{"type":"output_text","text":"both read"}]},
 {"role":"user","content":"now fix b.go"},
 {"type":"message","role":"assistant","content":[{"type":"output_text","text":"on it"}]}
]`))
	require.NoError(t, err)
	require.NoError(t, chitta.Validate(msgs))
	for _, budget := range []int{1, 10, 30, 60, 100, 200, 400, 10000} {
		res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{MaxTokens: budget})
		require.NoError(t, err)
		kept := map[int]bool{}
		for _, i := range res.Kept {
			kept[i] = true
		}
		for _, i := range []int{2, 3, 4, 5, 6} {
			assert.Equal(t, kept[1], kept[i], "budget %d: item %d with the reasoning item (kept %v)", budget, i, res.Kept)
		}
		assert.NoError(t, chitta.Validate(res.Messages), "budget %d", budget)
	}
}

func TestParseMessagesShapeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in           string
		index        int
		field, inMsg string
	}{
		{`[{"role":"user","content":"x"},{"type":"function_call","call_id":5}]`, 1, "call_id", `"function_call"`},
		{`[{"type":7}]`, 0, "type", "non-empty string"},
		{`[{"type":"message","content":"x"}]`, 0, "role", "missing"},
		{`[{"type":"function_call_output","call_id":"c","output":5}]`, 0, "output", "want a string"},
		{`[{"role":"model","parts":{"text":"x"}}]`, 0, "parts", "array"},
		{`[{"role":"model","parts":[1]}]`, 0, "parts[0]", "object"},
		{`[{"role":"model","parts":[{"functionCall":"f"}]}]`, 0, "parts[0].functionCall", "object"},
		{`[{"role":"ai","parts":[{"type":"tool_call","tool_call":{"id":3}}]}]`, 0, "parts[0].tool_call", "string"},
		{`[{"role":"human","text":5}]`, 0, "text", "string"},
		{`[{"role":"user","parts":[{"functionResponse":{"name":"f","parts":{}}}]}]`, 0, "parts[0].functionResponse.parts", "want an array"},
		{`[{"role":"user","parts":[{"functionResponse":{"name":"f","parts":[1]}}]}]`, 0, "parts[0].functionResponse.parts[0]", "want an object"},
		{`[{"role":"human","parts":[{"ContentPart":"x"}]}]`, 0, "parts[0].ContentPart", "object"},
		{`[{"role":"human","parts":[{"ContentPart":{"type":3}}]}]`, 0, "parts[0].ContentPart.type", "string"},
		{`[{"role":"human","parts":[` + strings.Repeat(`{"ContentPart":`, 18) + `{"type":"text","text":"x"}` + strings.Repeat(`}`, 18) + `]}]`, 0, "parts[0]" + strings.Repeat(".ContentPart", 17), "nested more than 16 deep"},
		{`[{"role":7,"parts":[]}]`, 0, "role", "string"},
	}
	for _, tt := range tests {
		_, err := chitta.ParseMessages([]byte(tt.in))
		require.ErrorIs(t, err, chitta.ErrInvalidMessages, tt.in)
		var me *chitta.MessageError
		require.ErrorAs(t, err, &me, tt.in)
		assert.Equal(t, tt.index, me.Index, tt.in)
		assert.Equal(t, tt.field, me.Field, tt.in)
		assert.Contains(t, me.Msg, tt.inMsg, tt.in)
	}
}

// TestCompactResponsesParallelCalls: a reasoning model's parallel calls
// follow one reasoning item, which the Responses API wants before each of
// them ("function_call was provided without its required reasoning
// item"): the reasoning item, every call of the run and their outputs are
// kept or dropped together.
func TestCompactResponsesParallelCalls(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("paris weather detail ", 60)
	msgs, err := chitta.ParseMessages([]byte(`[
 {"role":"user","content":"weather in Paris and Rome?"},
 {"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"two lookups"}]},
 {"type":"function_call","id":"fc_1","call_id":"call_a","name":"get_weather","arguments":"{\"city\":\"Paris\"}"},
 {"type":"function_call","id":"fc_2","call_id":"call_b","name":"get_weather","arguments":"{\"city\":\"Rome\"}"},
 {"type":"function_call_output","call_id":"call_a","output":"` + big + `"},
 {"type":"function_call_output","call_id":"call_b","output":"21C"},
 {"type":"message","role":"assistant","content":[{"type":"output_text","text":"Paris is mild, Rome 21C."}]},
 {"role":"user","content":"and tomorrow?"}
]`))
	require.NoError(t, err)
	assert.Equal(t, []string{"reasoning@1"}, msgs[2].ToolResultIDs)
	assert.Equal(t, []string{"reasoning@1"}, msgs[3].ToolResultIDs, "the second call of the run belongs with the reasoning item too")
	assert.Nil(t, msgs[6].ToolResultIDs, "the message after the run does not")
	for ratio := 0.05; ratio <= 1; ratio += 0.05 {
		res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: ratio})
		require.NoError(t, err)
		kept := map[int]bool{}
		for _, i := range res.Kept {
			kept[i] = true
		}
		for _, i := range []int{2, 3, 4, 5} {
			assert.Equal(t, kept[1], kept[i], "ratio %.2f: reasoning item with call or output %d", ratio, i)
		}
	}
}

// TestParseMessagesEmptyParts: a genai Content without parts marshals as
// {"role":"model"} (Parts is omitempty) and a langchaingo MessageContent
// without parts as {"role":"ai","parts":null}; such a turn (an empty
// model reply, a blocked candidate) read with its raw role ("model", "ai",
// "generic", "human"), which has no structural weight, so Compact refused
// the whole conversation with ErrUnknownRole. Its role now maps as the
// role of a Content with parts does.
func TestParseMessagesEmptyParts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want chitta.Role
	}{
		{`{"role":"model"}`, chitta.RoleAssistant},
		{`{"role":"model","parts":null}`, chitta.RoleAssistant},
		{`{"role":"ai","parts":null}`, chitta.RoleAssistant},
		{`{"role":"generic","parts":null}`, chitta.RoleUser},
		{`{"role":"human","parts":null}`, chitta.RoleUser},
		{`{"role":"human","content":null}`, chitta.RoleUser},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			data := `[{"role":"user","parts":[{"text":"hi"}]},` + tt.in + `,{"role":"user","parts":[{"text":"again"}]}]`
			msgs, err := chitta.ParseMessages([]byte(data))
			require.NoError(t, err)
			assert.Equal(t, tt.want, msgs[1].Role)
			assert.Empty(t, msgs[1].Content)
			assert.JSONEq(t, tt.in, string(msgs[1].Raw))
			res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: 1})
			require.NoError(t, err)
			assert.Len(t, res.Messages, 3)
		})
	}
}

// TestParseResponsesCallPayloads: the text a Responses *_call item holds
// is what the model reads, so Content (what Compact counts and scores)
// must hold it: an apply_patch_call's operation (the path and the whole
// diff), a code_interpreter_call's outputs (its logs), a file_search_call's
// results (their text) and an mcp_call's error were left out,
// so such an item was counted as a token or two however large its patch
// or logs, and a kept one overran the budget unseen.
func TestParseResponsesCallPayloads(t *testing.T) {
	t.Parallel()
	diff := strings.Repeat("+added line of the patch\n", 200)
	tests := []struct {
		name, item, output string // output: the item answering it, if any
		calls              []string
		want               []string
	}{
		{"apply_patch_call", `{"type":"apply_patch_call","call_id":"p1","status":"completed","operation":{"type":"update_file","path":"pkg/file.go","diff":` + quote(diff) + `}}`,
			`,{"type":"apply_patch_call_output","call_id":"p1","status":"completed","output":"done"}`, []string{"p1"},
			[]string{"apply_patch_call", "update_file", "pkg/file.go", "added line of the patch"}},
		{"code_interpreter_call", `{"type":"code_interpreter_call","id":"ci_1","container_id":"c","code":"print(sum(range(10)))","outputs":[{"type":"logs","logs":"45 and a long log line"},{"type":"image","url":"https://x/y.png"}]}`,
			"", nil, []string{"print(sum(range(10)))", "45 and a long log line", "[image]"}},
		{"file_search_call", `{"type":"file_search_call","id":"fs_1","status":"completed","queries":["refund policy"],"results":[{"file_id":"f1","filename":"policy.md","score":0.9,"text":"Refunds are issued within 14 days"}]}`,
			"", nil, []string{"refund policy", "policy.md", "Refunds are issued within 14 days"}},
		{"mcp_call error", `{"type":"mcp_call","id":"mcp_1","server_label":"s","name":"fetch","arguments":"{}","error":{"type":"http_error","code":503,"message":"upstream unavailable"}}`,
			"", nil, []string{"fetch {}", "upstream unavailable"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data := `[{"role":"user","content":"go"},` + tt.item + tt.output + `]`
			msgs, err := chitta.ParseMessages([]byte(data))
			require.NoError(t, err)
			m := msgs[1]
			assert.Equal(t, tt.calls, m.ToolCallIDs)
			for _, w := range tt.want {
				assert.Contains(t, m.Content, w)
			}
			require.NoError(t, chitta.Validate(msgs))
		})
	}
	msgs, err := chitta.ParseMessages([]byte(`[{"role":"user","content":"go"},` + tests[0].item + `]`))
	require.NoError(t, err)
	assert.Greater(t, chitta.EstimateTokens(msgs[1].Content), 800, "the patch's 1 000 words count")
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestParseResponsesProgramItems: a Responses program item (programmatic
// tool calling: the JavaScript the model ran) issues its call_id and its
// program_output item answers it with its result. The program issued
// nothing, so a valid conversation failed Validate, Compact could keep
// the output without its program (which the API refuses), and the
// output's result was not read (counted as 0 tokens).
func TestParseResponsesProgramItems(t *testing.T) {
	t.Parallel()
	data := `[{"role":"user","content":"go"},` +
		`{"type":"program","id":"pg_1","call_id":"call_9","code":"await tools.search({q: 'refunds'})","fingerprint":"fp"},` +
		`{"type":"program_output","id":"po_1","call_id":"call_9","result":"` + strings.Repeat("refund rule ", 50) + `","status":"completed"},` +
		`{"role":"user","content":"and now?"}]`
	msgs, err := chitta.ParseMessages([]byte(data))
	require.NoError(t, err)
	assert.Equal(t, []string{"call_9"}, msgs[1].ToolCallIDs)
	assert.Contains(t, msgs[1].Content, "tools.search")
	assert.Equal(t, []string{"call_9"}, msgs[2].ToolResultIDs)
	assert.Contains(t, msgs[2].Content, "refund rule")
	require.NoError(t, chitta.Validate(msgs))
	for _, ratio := range []float64{0.05, 0.3, 0.6, 1} {
		res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: ratio})
		require.NoError(t, err)
		assert.NoError(t, chitta.Validate(res.Messages), "ratio %v kept %v", ratio, res.Kept)
		assert.Equal(t, res.Scores[1].Unit, res.Scores[2].Unit, "the program and its output are one group")
	}
}

// TestParseResponsesToolSchemas: an mcp_list_tools item (its server's
// tools: names, descriptions, input schemas) and an additional_tools item
// (role developer, tool definitions) were read as their whole JSON and as
// nothing, so a budget missed what the model is sent of an always-kept
// additional_tools item; each now reads as the definitions it carries.
func TestParseResponsesToolSchemas(t *testing.T) {
	t.Parallel()
	schema := `{"type":"object","properties":{"query":{"type":"string","description":"what to look for in the ledger"}},"required":["query"]}`
	tests := []struct {
		name, item string
		role       chitta.Role
		want       []string
		not        []string
	}{
		{"mcp_list_tools", `{"type":"mcp_list_tools","id":"mcpl_1","server_label":"ledger","tools":[{"name":"search_ledger","description":"Searches the ledger","input_schema":` + schema + `,"annotations":{"readOnlyHint":true}}]}`,
			chitta.RoleAssistant, []string{"ledger", "search_ledger", "Searches the ledger", `"what to look for in the ledger"`}, []string{"mcpl_1", "readOnlyHint"}},
		{"mcp_list_tools error", `{"type":"mcp_list_tools","id":"mcpl_2","server_label":"ledger","tools":[],"error":"server unreachable"}`,
			chitta.RoleAssistant, []string{"ledger", "server unreachable"}, []string{"mcpl_2"}},
		{"additional_tools", `{"type":"additional_tools","role":"developer","tools":[{"type":"function","name":"refund","description":"Issues a refund","parameters":` + schema + `},{"type":"namespace","name":"crm","description":"CRM tools","tools":[{"type":"function","name":"find_customer","parameters":{}}]}]}`,
			chitta.RoleDeveloper, []string{`"name":"refund"`, "Issues a refund", `"what to look for in the ledger"`, `"name":"crm"`, `"name":"find_customer"`}, nil},
		{"additional_tools without role", `{"type":"additional_tools","tools":[{"type":"web_search"}]}`,
			chitta.RoleDeveloper, []string{`{"type":"web_search"}`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			msgs, err := chitta.ParseMessages([]byte(`[{"role":"user","content":"go"},` + tt.item + `]`))
			require.NoError(t, err)
			m := msgs[1]
			assert.Equal(t, tt.role, m.Role)
			assert.Empty(t, m.ToolCallIDs)
			assert.Empty(t, m.ToolResultIDs)
			for _, w := range tt.want {
				assert.Contains(t, m.Content, w)
			}
			for _, w := range tt.not {
				assert.NotContains(t, m.Content, w)
			}
			out, err := chitta.MarshalMessages(msgs)
			require.NoError(t, err)
			assert.JSONEq(t, `[{"role":"user","content":"go"},`+tt.item+`]`, string(out))
		})
	}
	for _, tt := range []struct{ item, field string }{
		{`{"type":"additional_tools","role":"developer","tools":{"type":"function"}}`, "tools"},
		{`{"type":"additional_tools","role":7,"tools":[]}`, "role"},
		{`{"type":"mcp_list_tools","server_label":"s","tools":"search"}`, "tools"},
		{`{"type":"mcp_list_tools","server_label":"s","tools":[7]}`, "tools[0]"},
		{`{"type":"mcp_list_tools","server_label":"s","tools":[{"name":1}]}`, "tools[0].name"},
		{`{"type":"mcp_list_tools","server_label":false,"tools":[]}`, "server_label"},
	} {
		_, err := chitta.ParseMessages([]byte(`[` + tt.item + `]`))
		require.ErrorIs(t, err, chitta.ErrInvalidMessages, tt.item)
		var me *chitta.MessageError
		require.ErrorAs(t, err, &me, tt.item)
		assert.Equal(t, tt.field, me.Field, tt.item)
		assert.Equal(t, 0, me.Index, tt.item)
	}
}

// TestCompactResponsesCompactionTrigger: a compaction_trigger item (the
// request that the API compact what precedes it, the last input item) was
// an assistant message scored by its JSON, kept only for coming after the
// last user message; it is now a system message, always kept as a
// compaction item is (issue #11).
func TestCompactResponsesCompactionTrigger(t *testing.T) {
	t.Parallel()
	msgs, err := chitta.ParseMessages([]byte(`[
 {"role":"user","content":"first question with many words to make it expensive to keep around"},
 {"role":"assistant","content":"a long answer with many words that a tight budget cannot keep either"},
 {"role":"user","content":"second question"},
 {"type":"compaction_trigger","id":"ct_1"}
]`))
	require.NoError(t, err)
	assert.Equal(t, chitta.RoleSystem, msgs[3].Role)
	assert.Equal(t, "[compaction_trigger]", msgs[3].Content)
	for _, ratio := range []float64{0.05, 0.3, 1} {
		res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: ratio})
		require.NoError(t, err)
		assert.Contains(t, res.Kept, 3, "ratio %v: the trigger is kept", ratio)
	}
}

// TestParseItemReferenceMirrorTies: the item_reference cases the output
// rule (TestParseResponsesItemReference) left untied. A function_call no
// later item answers, whose stored output a reference right after it
// gives, was a unit of its own: Validate refused the input ("call has no
// result") and Compact kept the call without the reference. A reference
// to the stored call right before a reference to its stored output was
// kept apart from it. A reference to a stored reasoning item (rs_) was
// kept apart from the call after it, which the API refuses without it.
func TestParseItemReferenceMirrorTies(t *testing.T) {
	t.Parallel()
	args := `"arguments":"{\"city\":\"paris with many words in args args args\"}"`
	for _, tc := range []struct {
		name    string
		input   string
		groups  [][]int // indices kept or dropped together
		calls   map[int][]string
		results map[int][]string
	}{{
		name: "a call, a reference to its stored output",
		input: `[{"role":"user","content":"check weather please and report back with detail"},
 {"type":"function_call","call_id":"call_1","name":"w",` + args + `},
 {"type":"item_reference","id":"fco_stored_output_1"},
 {"role":"assistant","content":"It is sunny and lovely there today with many words"},
 {"role":"user","content":"ok thanks"}]`,
		groups:  [][]int{{1, 2}},
		calls:   map[int][]string{1: {"call_1"}, 2: nil},
		results: map[int][]string{2: {"call_1"}},
	}, {
		name: "parallel calls, their stored outputs",
		input: `[{"role":"user","content":"check weather in two cities please"},
 {"type":"function_call","call_id":"call_1","name":"w",` + args + `},
 {"type":"function_call","call_id":"call_2","name":"w",` + args + `},
 {"type":"item_reference","id":"fco_1"},
 {"id":"fco_2"},
 {"role":"assistant","content":"It is sunny and lovely there today with many words"},
 {"role":"user","content":"ok thanks"}]`,
		groups:  [][]int{{1, 2, 3, 4}},
		calls:   map[int][]string{3: {"item_reference@3"}, 4: nil},
		results: map[int][]string{3: {"call_1", "call_2"}, 4: {"item_reference@3"}},
	}, {
		name: "parallel calls, one output inline",
		input: `[{"role":"user","content":"check weather in two cities please"},
 {"type":"function_call","call_id":"call_1","name":"w",` + args + `},
 {"type":"function_call","call_id":"call_2","name":"w",` + args + `},
 {"type":"function_call_output","call_id":"call_2","output":"rainy and cold there today with many many words words"},
 {"type":"item_reference","id":"fco_1"},
 {"role":"user","content":"ok thanks"}]`,
		groups:  [][]int{{1, 4}, {2, 3}},
		results: map[int][]string{3: {"call_2"}, 4: {"call_1"}},
	}, {
		name: "the call and its output both references",
		input: `[{"role":"user","content":"check weather please and report back with detail"},
 {"id":"fc_stored_call"},
 {"id":"fco_stored_output"},
 {"role":"assistant","content":"It is sunny and lovely there today with many words"},
 {"role":"user","content":"ok thanks"}]`,
		groups:  [][]int{{1, 2}},
		calls:   map[int][]string{1: {"item_reference@1"}, 2: nil},
		results: map[int][]string{1: nil, 2: {"item_reference@1"}},
	}, {
		name: "a reference to stored reasoning, the call after it",
		input: `[{"role":"user","content":"check weather please and report back with detail"},
 {"type":"item_reference","id":"rs_stored_reasoning"},
 {"type":"function_call","id":"fc_1","call_id":"call_1","name":"w",` + args + `},
 {"type":"function_call_output","call_id":"call_1","output":"sunny and lovely there today with many many words words words"},
 {"role":"assistant","content":"It is sunny and lovely there today with many words"},
 {"role":"user","content":"ok thanks"}]`,
		groups:  [][]int{{1, 2, 3}},
		calls:   map[int][]string{1: {"reasoning@1"}, 2: {"call_1"}},
		results: map[int][]string{2: {"reasoning@1"}, 3: {"call_1"}},
	}, {
		name: "a reference to stored reasoning, the model's reply after it",
		input: `[{"role":"user","content":"check weather please and report back with detail"},
 {"id":"rs_stored_reasoning"},
 {"role":"assistant","content":"Let me look that up for you with many words"},
 {"type":"function_call","call_id":"call_1","name":"w",` + args + `},
 {"type":"function_call_output","call_id":"call_1","output":"sunny and lovely there today with many many words words words"},
 {"role":"user","content":"ok thanks"}]`,
		groups:  [][]int{{1, 2, 3, 4}},
		calls:   map[int][]string{1: {"reasoning@1"}},
		results: map[int][]string{2: {"reasoning@1"}, 3: {"reasoning@1"}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			budgets := make([]chitta.Options, 400)
			for k := range budgets {
				budgets[k].MaxTokens = k + 1
			}
			checkTies(t, tc.input, tc.groups, tc.calls, tc.results, budgets)
		})
	}
}

// TestParseItemReferenceCallNotTiedAcrossInput: a call is tied only to the
// references before the next user, system or developer message: one a
// user message follows has no output, as before, and Validate says so.
func TestParseItemReferenceCallNotTiedAcrossInput(t *testing.T) {
	t.Parallel()
	msgs, err := chitta.ParseMessages([]byte(`[{"role":"user","content":"go"},
 {"type":"function_call","call_id":"call_1","name":"w","arguments":"{}"},
 {"role":"user","content":"never mind"},
 {"type":"item_reference","id":"msg_1"},
 {"role":"user","content":"ok"}]`))
	require.NoError(t, err)
	assert.Empty(t, msgs[3].ToolResultIDs)
	assert.ErrorContains(t, chitta.Validate(msgs), `call "call_1" has no result`)
}
