package chitta_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

func TestParseMessagesFormats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		role    chitta.Role
		content string
		calls   []string
		results []string
	}{
		{"openai string", `{"role":"user","content":"hello there"}`, "user", "hello there", nil, nil},
		{"null content", `{"role":"assistant","content":null}`, "assistant", "", nil, nil},
		{"no content", `{"role":"assistant"}`, "assistant", "", nil, nil},
		{"openai parts", `{"role":"user","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"x"}}]}`, "user", "look\n[image]", nil, nil},
		{"openai tool calls", `{"role":"assistant","content":"checking","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_user","arguments":"{\"id\":\"u7\"}"}},{"id":"call_2","type":"function","function":{"name":"ls","arguments":"{}"}}]}`,
			"assistant", "checking\nget_user {\"id\":\"u7\"}\nls {}", []string{"call_1", "call_2"}, nil},
		{"openai custom tool call", `{"role":"assistant","content":null,"tool_calls":[{"id":"call_p","type":"custom","custom":{"name":"apply_patch","input":"*** Begin Patch\n+x"}},{"id":"call_2","type":"function","function":{"name":"ls","arguments":"{}"}}]}`,
			"assistant", "apply_patch *** Begin Patch\n+x\nls {}", []string{"call_p", "call_2"}, nil},
		{"openai tool result", `{"role":"tool","tool_call_id":"call_1","name":"get_user","content":"{\"name\":\"Ann\"}"}`, "tool", `{"name":"Ann"}`, nil, []string{"call_1"}},
		{"swe-agent results", `{"role":"tool","content":[{"type":"text","text":"out"}],"tool_call_ids":["a","b"]}`, "tool", "out", nil, []string{"a", "b"}},
		{"anthropic blocks", `{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"s"},{"type":"text","text":"Let me look."},{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/a/b.go"}}]}`,
			"assistant", "hmm\nLet me look.\nRead {\"file_path\":\"/a/b.go\"}", []string{"toolu_1"}, nil},
		{"anthropic tool result nested", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"package b"},{"type":"image","source":{}}]},{"type":"tool_result","tool_use_id":"toolu_2","content":"done","is_error":true}]}`,
			"user", "package b\n[image]\ndone", nil, []string{"toolu_1", "toolu_2"}},
		{"anthropic search result", `{"role":"user","content":[{"type":"search_result","source":"https://go.dev/doc","title":"Go 1.26 notes","content":[{"type":"text","text":"release notes"},{"type":"text","text":"new GC"}],"citations":{"enabled":true}},{"type":"text","text":"summarise"}]}`,
			"user", "Go 1.26 notes\nhttps://go.dev/doc\nrelease notes\nnew GC\nsummarise", nil, nil},
		{"anthropic search result in a tool result", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_s","content":[{"type":"search_result","source":"kb://runbook/7","title":"Runbook","content":[{"type":"text","text":"restart the pod"}]}]}]}`,
			"user", "Runbook\nkb://runbook/7\nrestart the pod", nil, []string{"toolu_s"}},
		{"anthropic web search results", `{"role":"assistant","content":[{"type":"server_tool_use","id":"srv_1","name":"web_search","input":{"query":"go"}},{"type":"web_search_tool_result","tool_use_id":"srv_1","content":[{"type":"web_search_result","title":"Go","url":"https://go.dev","encrypted_content":"EqgfCioIARgBIiQ3"}]}]}`,
			"assistant", "web_search {\"query\":\"go\"}\nGo\nhttps://go.dev", []string{"srv_1"}, []string{"srv_1"}},
		{"anthropic web search error", `{"role":"assistant","content":[{"type":"web_search_tool_result","tool_use_id":"srv_1","content":{"type":"web_search_tool_result_error","error_code":"unavailable"}}]}`,
			"assistant", "unavailable", nil, []string{"srv_1"}},
		{"eino reasoning and parts", `{"role":"assistant","content":"done","reasoning_content":"think","multi_content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"x"}}],"user_input_multi_content":[{"type":"file_url","file":{}},{"type":"audio_url"}],"assistant_output_multi_content":[{"type":"video_url"},{"type":"chart","text":"bars"},{"type":"text"}],"tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]}`,
			"assistant", "think\ndone\na\n[image]\n[document]\n[media]\n[media]\nchart {\"type\":\"chart\",\"text\":\"bars\"}\nf {}", []string{"c"}, nil},
		{"anthropic server tool result", `{"role":"assistant","content":[{"type":"server_tool_use","id":"s","name":"code_execution","input":{"code":"1"}},{"type":"code_execution_tool_result", "tool_use_id":"s","content":{"type":"code_execution_result","stdout":"1"}}]}`,
			"assistant", "code_execution {\"code\":\"1\"}\n{\"type\":\"code_execution_tool_result\",\"tool_use_id\":\"s\",\"content\":{\"type\":\"code_execution_result\",\"stdout\":\"1\"}}", []string{"s"}, []string{"s"}},
		{"anthropic mcp connector", `{"role":"assistant","content":[{"type":"mcp_tool_use","id":"mcptoolu_1","name":"echo","server_name":"ex","input":{"s":"hi"}},{"type":"mcp_tool_result","tool_use_id":"mcptoolu_1","is_error":false,"content":[{"type":"text","text":"hi"}]}]}`,
			"assistant", "echo {\"s\":\"hi\"}\n{\"type\":\"mcp_tool_result\",\"tool_use_id\":\"mcptoolu_1\",\"is_error\":false,\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}", []string{"mcptoolu_1"}, []string{"mcptoolu_1"}},
		{"redacted thinking and unknown block", `{"role":"assistant","content":[{"type":"redacted_thinking","data":"xx"},{"type":"mystery","text":"kept"},{"type":"mystery2"}]}`,
			"assistant", "[redacted thinking]\nkept\n{\"type\":\"mystery2\"}", nil, nil},
		{"unknown block without text scored by its JSON", `{"role":"user","content":[{"type":"container_upload","file_id":"file_9"}]}`,
			"user", `{"type":"container_upload","file_id":"file_9"}`, nil, nil},
		{"empty text block", `{"role":"user","content":[{"type":"text"},{"type":"text","text":null},{"type":"input_text","text":""}]}`, "user", "", nil, nil},
		{"anthropic tool search result", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_s","content":[{"type":"tool_reference","tool_name":"TaskCreate"},{"type":"tool_reference","tool_name":"mcp__github__list_prs"}]}]}`,
			"user", "TaskCreate\nmcp__github__list_prs", nil, []string{"toolu_s"}},
		{"openai refusal part", `{"role":"assistant","content":[{"type":"refusal","refusal":"I cannot help"}]}`, "assistant", "I cannot help", nil, nil},
		{"openai audio part", `{"role":"user","content":[{"type":"text","text":"listen"},{"type":"input_audio","input_audio":{"data":"UklGR","format":"wav"}}]}`, "user", "listen\n[audio]", nil, nil},
		{"eino null part skipped", `{"role":"user","content":"x","multi_content":[null,{"type":"text","text":"y"}],"user_input_multi_content":[null]}`, "user", "x\ny", nil, nil},
		{"developer role", `{"role":"developer","content":"rules"}`, "developer", "rules", nil, nil},
		{"custom role survives parsing", `{"role":"critic","content":"meh"}`, "critic", "meh", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			msgs, err := chitta.ParseMessages([]byte("[" + tt.in + "]"))
			require.NoError(t, err)
			require.Len(t, msgs, 1)
			m := msgs[0]
			assert.Equal(t, tt.role, m.Role)
			assert.Equal(t, tt.content, m.Content)
			assert.Equal(t, tt.calls, m.ToolCallIDs)
			assert.Equal(t, tt.results, m.ToolResultIDs)
			assert.Equal(t, tt.in, string(m.Raw))

			var single chitta.Message
			require.NoError(t, json.Unmarshal([]byte(tt.in), &single))
			assert.Equal(t, m, single)
		})
	}
}

func TestParseMessagesLegacyFunctionCall(t *testing.T) {
	t.Parallel()
	in := `[{"role":"user","content":"weather?"},
	{"role":"assistant","content":null,"function_call":{"name":"weather","arguments":"{\"city\":\"Oslo\"}"}},
	{"role":"function","name":"weather","content":"rain"},
	{"role":"function","name":"weather","content":"stray"}]`
	msgs, err := chitta.ParseMessages([]byte(in))
	require.NoError(t, err)
	require.Len(t, msgs[1].ToolCallIDs, 1)
	assert.Equal(t, msgs[1].ToolCallIDs, msgs[2].ToolResultIDs)
	assert.Empty(t, msgs[3].ToolResultIDs, "one call answers once")
	assert.Equal(t, `weather {"city":"Oslo"}`, msgs[1].Content)
}

func TestParseMessagesErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		index   int // -1: not a MessageError
		mention string
	}{
		{"empty", ``, -1, "empty input"},
		{"malformed", `[{"role":"user"`, 0, "message 0: unexpected end"},
		{"malformed later message", `[{"role":"user","content":"a"},{"role":"user","content":"b}]`, 1, "message 1: unexpected end"},
		{"missing comma", `[{"role":"user"} {"role":"user"}]`, 1, "message 1: invalid character '{'"},
		{"bad literal", `[{"role":"user"},{"role":"user"},{"role":tru}]`, 2, "message 2: invalid character '}'"},
		{"trailing garbage", `[{"role":"user"}] x`, -1, "after top-level value"},
		{"object not array", `{"role":"user","content":"x"}`, -1, "JSON array"},
		{"number element", `[{"role":"user","content":"ok"}, 5]`, 1, "message 1: want a JSON object"},
		{"missing role", `[{"content":"x"}]`, 0, "message 0: role: missing"},
		{"null role", `[{"role":null}]`, 0, "role: missing"},
		{"numeric role", `[{"role":1}]`, 0, "role: want a string"},
		{"empty role", `[{"role":""}]`, 0, "role: empty"},
		{"numeric content", `[{"role":"user","content":"a"},{"role":"user","content":42}]`, 1, "message 1: content: want a string"},
		{"object content", `[{"role":"user","content":{"text":"x"}}]`, 0, "content: want a string"},
		{"bad block", `[{"role":"user","content":[7]}]`, 0, "content[0]: want a block object"},
		{"bad text type", `[{"role":"user","content":[{"type":"text","text":3}]}]`, 0, "content[0].text: want a string"},
		{"bad nested result", `[{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":false}]}]`, 0, "content[0].content"},
		{"bad tool_calls", `[{"role":"assistant","tool_calls":{}}]`, 0, "tool_calls: want an array"},
		{"bad tool call id", `[{"role":"assistant","tool_calls":[{"id":5}]}]`, 0, "tool_calls[0].id"},
		{"bad tool_call_id", `[{"role":"tool","tool_call_id":[1]}]`, 0, "tool_call_id: want a string"},
		{"bad tool_call_ids", `[{"role":"tool","tool_call_ids":"a"}]`, 0, "tool_call_ids"},
		{"bad web search error code", `[{"role":"assistant","content":[{"type":"web_search_tool_result","tool_use_id":"s","content":{"error_code":5}}]}]`, 0, "content[0].content.error_code"},
		{"bad reasoning_content", `[{"role":"assistant","content":"","reasoning_content":1}]`, 0, "reasoning_content: want a string"},
		{"bad multi_content", `[{"role":"user","content":"","multi_content":{}}]`, 0, "multi_content: want an array"},
		{"bad eino part", `[{"role":"user","content":"","user_input_multi_content":[{"type":"text","text":2}]}]`, 0, "user_input_multi_content[0].text: want a string"},
		{"bad eino part type", `[{"role":"user","content":"","multi_content":[{"type":["text"],"text":"x"}]}]`, 0, "multi_content[0].type: want a string"},
		{"eino part not an object", `[{"role":"user","content":"","assistant_output_multi_content":["x"]}]`, 0, "assistant_output_multi_content[0]: want an object"},
		{"bad server tool result id", `[{"role":"user","content":[{"type":"web_fetch_tool_result","tool_use_id":5}]}]`, 0, "content[0].tool_use_id"},
		{"bad tool_use id", `[{"role":"assistant","content":[{"type":"tool_use","id":1}]}]`, 0, "content[0].id"},
		// Each nesting level re-read the rest of the message: 4000 levels
		// (212 KB) took 6 s to parse.
		{"tool results nested 17 deep", `[{"role":"user","content":"a"},` + nestedResult(17) + `]`, 1, "content[0]" + strings.Repeat(".content[0]", 16) + ".content: tool_result or search_result blocks nested more than 16 deep"},
		{"tool results nested 4000 deep", nestedResults(4000), 0, "nested more than 16 deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := chitta.ParseMessages([]byte(tt.in))
			require.ErrorIs(t, err, chitta.ErrInvalidMessages)
			assert.Contains(t, err.Error(), tt.mention)
			var me *chitta.MessageError
			if tt.index >= 0 {
				require.ErrorAs(t, err, &me)
				assert.Equal(t, tt.index, me.Index)
			} else {
				assert.NotErrorAs(t, err, &me)
			}
		})
	}
}

// nestedResult returns a user message whose content is depth tool_result
// blocks nested in one another around a text leaf; nestedResults returns
// the array of that one message.
func nestedResult(depth int) string {
	return `{"role":"user","content":` + strings.Repeat(`[{"type":"tool_result","tool_use_id":"x","content":`, depth) +
		`"leaf"` + strings.Repeat(`}]`, depth) + `}`
}

func nestedResults(depth int) string { return "[" + nestedResult(depth) + "]" }

func TestParseMessagesNestedResults(t *testing.T) {
	t.Parallel()
	msgs, err := chitta.ParseMessages([]byte(nestedResults(16)))
	require.NoError(t, err, "16 levels are allowed")
	require.Len(t, msgs, 1)
	assert.Equal(t, "leaf", msgs[0].Content)
	assert.Equal(t, []string{"x"}, msgs[0].ToolResultIDs[:1])
}

func TestParseMessagesEmptyArray(t *testing.T) {
	t.Parallel()
	msgs, err := chitta.ParseMessages([]byte(" [ ] "))
	require.NoError(t, err)
	assert.Empty(t, msgs)
}

func TestMessageMarshalRoundTrip(t *testing.T) {
	t.Parallel()
	msgs := []chitta.Message{
		{Role: chitta.RoleUser, Content: "hi"},
		{Role: chitta.RoleAssistant, Content: "calling", ToolCallIDs: []string{"a", "b"}},
		{Role: chitta.RoleTool, Content: "A", ToolResultIDs: []string{"a"}},
		{Role: chitta.RoleTool, Content: "B and C", ToolResultIDs: []string{"b", "c"}},
	}
	data, err := json.Marshal(msgs)
	require.NoError(t, err)
	back, err := chitta.ParseMessages(data)
	require.NoError(t, err)
	require.Len(t, back, len(msgs))
	for i := range msgs {
		assert.Equal(t, msgs[i].Role, back[i].Role)
		assert.Equal(t, msgs[i].ToolCallIDs, back[i].ToolCallIDs)
		assert.Equal(t, msgs[i].ToolResultIDs, back[i].ToolResultIDs)
		if len(msgs[i].ToolCallIDs) == 0 {
			assert.Equal(t, msgs[i].Content, back[i].Content)
		} else {
			assert.True(t, strings.HasPrefix(back[i].Content, msgs[i].Content))
		}
	}
}

func TestMessageUnmarshalErrorHasNoIndex(t *testing.T) {
	t.Parallel()
	var m chitta.Message
	err := json.Unmarshal([]byte(`{"content":"x"}`), &m)
	require.ErrorIs(t, err, chitta.ErrInvalidMessages)
	assert.Equal(t, "chitta: invalid messages: message: role: missing", err.Error())
}

func TestMarshalMessagesIsByteExact(t *testing.T) {
	t.Parallel()
	elems := []string{
		"{ \"role\" : \"user\",\n  \"content\": \"a < b && c > d\", \"n\": 1.0000000000000002e0 }",
		`{"content":"\u00e9t\u00e9","role":"assistant"}`,
	}
	in := "[" + elems[0] + " ,\n" + elems[1] + "]"
	msgs, err := chitta.ParseMessages([]byte(in))
	require.NoError(t, err)
	msgs = append(msgs, chitta.Message{Role: chitta.RoleTool, Content: "built in Go", ToolResultIDs: []string{"x"}})
	out, err := chitta.MarshalMessages(msgs)
	require.NoError(t, err)
	built, err := msgs[2].MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, "["+elems[0]+","+elems[1]+","+string(built)+"]", string(out))
	back, err := chitta.ParseMessages(out)
	require.NoError(t, err)
	assert.Equal(t, msgs[2].ToolResultIDs, back[2].ToolResultIDs)

	empty, err := chitta.MarshalMessages(nil)
	require.NoError(t, err)
	assert.Equal(t, "[]", string(empty))

	// json.Marshal gives the same values, compacted and HTML-escaped.
	std, err := json.Marshal(msgs[:1])
	require.NoError(t, err)
	assert.Contains(t, string(std), `\u003c`)
}

// TestMarshalMessagesInvalidRaw: a Raw that is not valid JSON (cut short,
// edited by hand), or is valid JSON but not an object (a string, a number,
// an array: no message a provider or ParseMessages reads), is an error
// naming the message, as json.Marshal's is, never an array the provider
// cannot read.
func TestMarshalMessagesInvalidRaw(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{`{"role":"user","content":"hi"`, `{"role":"user"} {"role":"user"}`, `{"role":"user","content":"hi"},{"role":"assistant"}`, ` `,
		// valid JSON but no message object (these were written as they were)
		`"hi"`, `42`, `[{"role":"user","content":"hi"}]`, `true`} {
		msgs := []chitta.Message{
			{Role: chitta.RoleUser, Content: "fine"},
			{Role: chitta.RoleUser, Content: "hi", Raw: json.RawMessage(raw)},
		}
		_, stdErr := json.Marshal(msgs)
		require.Error(t, stdErr, "json.Marshal refuses %q", raw)
		out, err := chitta.MarshalMessages(msgs)
		require.ErrorIs(t, err, chitta.ErrInvalidMessages, "%q gave %s", raw, out)
		var me *chitta.MessageError
		require.ErrorAs(t, err, &me)
		assert.Equal(t, 1, me.Index)
		assert.Equal(t, "Raw", me.Field)
		assert.Nil(t, out)
	}
}

// TestUnmarshalJSONReadsAlone: json.Unmarshal into a []Message reads each
// element alone, so linkage that spans messages is missing (and Validate
// says so), while ParseMessages links it; Message.UnmarshalJSON's doc
// says so.
func TestUnmarshalJSONReadsAlone(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, data string }{
		{"legacy function_call", `[{"role":"user","content":"hi"},{"role":"assistant","content":null,"function_call":{"name":"f","arguments":"{}"}},{"role":"function","name":"f","content":"ok"}]`},
		{"responses reasoning", `[{"role":"user","content":"hi"},{"type":"reasoning","id":"rs_1","summary":[]},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"ok"}]`},
		{"genai call without id", `[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			parsed, err := chitta.ParseMessages([]byte(tt.data))
			require.NoError(t, err)
			require.NoError(t, chitta.Validate(parsed), "ParseMessages links the messages")
			var alone []chitta.Message
			require.NoError(t, json.Unmarshal([]byte(tt.data), &alone))
			require.Len(t, alone, len(parsed))
			err = chitta.Validate(alone)
			require.ErrorIs(t, err, chitta.ErrInvalidConversation, "read alone, the call has no result")
			var synthetic []string
			for _, m := range alone {
				for _, id := range m.ToolCallIDs {
					if strings.Contains(id, "@-1") {
						synthetic = append(synthetic, id)
					}
				}
			}
			assert.Len(t, synthetic, 1, "the unanswered call's ID ends in @-1")
		})
	}
}

// TestMessageMarshalRoundTripExceptions pins what MarshalJSON's doc says
// does not read back equal: white-space-only Content, empty IDs, invalid
// UTF-8 and an empty role.
func TestMessageMarshalRoundTripExceptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   chitta.Message
		want chitta.Message // Raw aside
	}{
		{"blank content", chitta.Message{Role: chitta.RoleUser, Content: " \n\t"}, chitta.Message{Role: chitta.RoleUser}},
		{"padded content is kept", chitta.Message{Role: chitta.RoleUser, Content: " hi "}, chitta.Message{Role: chitta.RoleUser, Content: " hi "}},
		{"empty call ID", chitta.Message{Role: chitta.RoleAssistant, Content: "c", ToolCallIDs: []string{"", "a"}}, chitta.Message{Role: chitta.RoleAssistant, Content: "c", ToolCallIDs: []string{"a"}}},
		{"empty result ID", chitta.Message{Role: chitta.RoleTool, Content: "r", ToolResultIDs: []string{""}}, chitta.Message{Role: chitta.RoleTool, Content: "r"}},
		{"invalid UTF-8", chitta.Message{Role: chitta.RoleUser, Content: "a\xffb"}, chitta.Message{Role: chitta.RoleUser, Content: "a\uFFFDb"}},
		{"empty slices", chitta.Message{Role: chitta.RoleUser, Content: "x", ToolCallIDs: []string{}, ToolResultIDs: []string{}}, chitta.Message{Role: chitta.RoleUser, Content: "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data, err := json.Marshal([]chitta.Message{tt.in})
			require.NoError(t, err)
			back, err := chitta.ParseMessages(data)
			require.NoError(t, err)
			require.Len(t, back, 1)
			assert.NotEmpty(t, back[0].Raw)
			back[0].Raw = nil
			assert.Equal(t, tt.want, back[0])
		})
	}
	data, err := json.Marshal([]chitta.Message{{Content: "x"}})
	require.NoError(t, err)
	_, err = chitta.ParseMessages(data)
	require.ErrorIs(t, err, chitta.ErrInvalidMessages)
	assert.Contains(t, err.Error(), "role: empty")
}

// TestMessageNullRaw: encoding/json decodes a JSON null into a
// json.RawMessage as the bytes "null", so a Message built from a stored
// record whose raw JSON was null has Raw "null". It has no original
// object: it marshals from its fields, as a nil Raw does, instead of as
// null, which lost its role and content.
func TestMessageNullRaw(t *testing.T) {
	t.Parallel()
	var rec struct{ Raw json.RawMessage }
	require.NoError(t, json.Unmarshal([]byte(`{"Raw":null}`), &rec))
	require.Equal(t, json.RawMessage("null"), rec.Raw)
	built := chitta.Message{Role: chitta.RoleTool, Content: "result", ToolResultIDs: []string{"c1"}}
	want, err := built.MarshalJSON()
	require.NoError(t, err)
	for _, raw := range []json.RawMessage{rec.Raw, json.RawMessage(" null\n")} {
		m := built
		m.Raw = raw
		got, err := m.MarshalJSON()
		require.NoError(t, err)
		assert.JSONEq(t, string(want), string(got), "Raw %q", raw)
		all, err := chitta.MarshalMessages([]chitta.Message{m})
		require.NoError(t, err)
		assert.JSONEq(t, "["+string(want)+"]", string(all), "Raw %q", raw)
		back, err := chitta.ParseMessages(all)
		require.NoError(t, err)
		assert.Equal(t, built.Content, back[0].Content)
		assert.Equal(t, built.ToolResultIDs, back[0].ToolResultIDs)
	}
}

// TestParseMessagesRefusal: an OpenAI assistant message that refuses has
// content null and the refusal in a top-level "refusal" field; that text
// is what the model wrote, and adapt/openai reads it from the typed
// value, but ParseMessages left it out (Content "": never counted nor
// scored).
func TestParseMessagesRefusal(t *testing.T) {
	t.Parallel()
	_, err := chitta.ParseMessages([]byte(`[
 {"role":"user","content":"how do I pick this lock?"},
 {"role":"assistant","content":null,"refusal":"I can't help with that."},
 {"role":"assistant","content":"Instead:","refusal":"not that","tool_calls":[{"id":"c1","type":"function","function":{"name":"search","arguments":"{}"}}]},
 {"role":"assistant","refusal":7}
]`))
	require.Error(t, err, "a refusal that is not a string is refused")
	var me *chitta.MessageError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, 3, me.Index)
	assert.Equal(t, "refusal", me.Field)

	msgs, err := chitta.ParseMessages([]byte(`[
 {"role":"user","content":"how do I pick this lock?"},
 {"role":"assistant","content":null,"refusal":"I can't help with that."},
 {"role":"assistant","content":"Instead:","refusal":"not that","tool_calls":[{"id":"c1","type":"function","function":{"name":"search","arguments":"{}"}}]}
]`))
	require.NoError(t, err)
	assert.Equal(t, "I can't help with that.", msgs[1].Content)
	assert.Equal(t, "Instead:\nnot that\nsearch {}", msgs[2].Content)
}

// TestMarshalEmptyRaw: a Raw that is empty but not nil (json.RawMessage{},
// a buffer cut to [:0]) holds no message, as MarshalJSON's doc says of an
// empty Raw, so the message encodes from its fields, as with a nil or null
// Raw. On main MarshalJSON returned no bytes: MarshalMessages wrote the
// message as nothing (`[]` for one message, `[,{…}]` for two, not JSON)
// and json.Marshal failed with encoding/json's "unexpected end of JSON
// input".
func TestMarshalEmptyRaw(t *testing.T) {
	t.Parallel()
	const want = `[{"role":"user","content":"hi"},{"role":"assistant","content":"ok","tool_calls":[{"id":"c1","type":"function"}]}]`
	for _, raw := range []json.RawMessage{nil, {}, []byte("{}")[:0], json.RawMessage("null")} {
		msgs := []chitta.Message{
			{Role: chitta.RoleUser, Content: "hi", Raw: raw},
			{Role: chitta.RoleAssistant, Content: "ok", ToolCallIDs: []string{"c1"}, Raw: raw},
		}
		out, err := chitta.MarshalMessages(msgs)
		require.NoError(t, err, "Raw %q", raw)
		assert.JSONEq(t, want, string(out), "Raw %q", raw)
		std, err := json.Marshal(msgs)
		require.NoError(t, err, "Raw %q", raw)
		assert.JSONEq(t, want, string(std), "Raw %q", raw)
		one, err := msgs[0].MarshalJSON()
		require.NoError(t, err, "Raw %q", raw)
		assert.JSONEq(t, `{"role":"user","content":"hi"}`, string(one), "Raw %q", raw)
	}
}
