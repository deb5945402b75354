package chitta_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

func toolCall(content string, ids ...string) chitta.Message {
	return chitta.Message{Role: chitta.RoleAssistant, Content: content, ToolCallIDs: ids}
}

func toolResult(role chitta.Role, ids ...string) chitta.Message {
	return chitta.Message{Role: role, Content: "result", ToolResultIDs: ids}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	sys := msg(chitta.RoleSystem, "rules")
	user := msg(chitta.RoleUser, "question")
	asst := msg(chitta.RoleAssistant, "answer")
	cases := []struct {
		name  string
		msgs  []chitta.Message
		index int // -1: valid
		field string
	}{
		{"empty", nil, -1, ""},
		{"system only", []chitta.Message{sys}, -1, ""},
		{"user only", []chitta.Message{user}, -1, ""},
		{"chat", []chitta.Message{sys, user, asst, user, asst}, -1, ""},
		{"system in the middle", []chitta.Message{user, sys, asst}, -1, ""},
		{"openai tool group", []chitta.Message{user, toolCall("", "a", "b"), toolResult(chitta.RoleTool, "a"), toolResult(chitta.RoleTool, "b"), asst}, -1, ""},
		{"anthropic tool group", []chitta.Message{user, toolCall("", "a", "b"), toolResult(chitta.RoleUser, "a", "b"), asst}, -1, ""},
		{"swe-agent list", []chitta.Message{user, toolCall("", "a"), toolResult(chitta.RoleTool, "a")}, -1, ""},
		{"reused ID", []chitta.Message{user, toolCall("", "x"), toolResult(chitta.RoleTool, "x"), toolCall("", "x"), toolResult(chitta.RoleTool, "x")}, -1, ""},
		{"legacy function", []chitta.Message{user, toolCall("", "function_call@1"), toolResult("function", "function_call@1")}, -1, ""},
		{"server tool call and result in one message", []chitta.Message{user, {Role: chitta.RoleAssistant, Content: "search, results", ToolCallIDs: []string{"s"}, ToolResultIDs: []string{"s"}}, user}, -1, ""},
		{"custom role unchecked", []chitta.Message{{Role: "observer"}, user, asst}, -1, ""},
		{"after a compaction item", []chitta.Message{{Role: chitta.RoleSystem, Content: "[compaction]", Raw: json.RawMessage(`{"type":"compaction","encrypted_content":"x"}`)}, asst}, -1, ""},
		{"assistant after a system message typed compaction", []chitta.Message{{Role: chitta.RoleSystem, Content: "rules", Raw: json.RawMessage(`{"role":"system","type":"compaction","content":"rules"}`)}, asst}, 1, "role"},

		{"assistant first", []chitta.Message{sys, asst, user}, 1, "role"},
		{"assistant after tool-result user", []chitta.Message{toolResult(chitta.RoleUser, "a"), asst}, 0, "ToolResultIDs"},
		{"orphan result", []chitta.Message{user, asst, toolResult(chitta.RoleTool, "missing")}, 2, "ToolResultIDs"},
		{"result before its call", []chitta.Message{user, toolResult(chitta.RoleTool, "a"), toolCall("", "a"), toolResult(chitta.RoleTool, "a")}, 1, "ToolResultIDs"},
		{"tool message without ID", []chitta.Message{user, asst, msg(chitta.RoleTool, "out")}, 2, "role"},
		{"call without result", []chitta.Message{user, toolCall("", "a", "b"), toolResult(chitta.RoleTool, "a"), asst}, 1, "ToolCallIDs"},
		{"call at the end", []chitta.Message{user, asst, user, toolCall("", "a")}, 3, "ToolCallIDs"},
		{"reused ID, first call unanswered", []chitta.Message{user, toolCall("", "x"), toolCall("", "x"), toolResult(chitta.RoleTool, "x")}, 1, "ToolCallIDs"},
		{"tool message answering its own call", []chitta.Message{user, {Role: chitta.RoleTool, Content: "out", ToolCallIDs: []string{"a"}, ToolResultIDs: []string{"a"}}, asst}, 1, "ToolResultIDs"},
		{"user message answering its own call", []chitta.Message{user, {Role: chitta.RoleUser, Content: "out", ToolCallIDs: []string{"a"}, ToolResultIDs: []string{"a"}}, asst}, 1, "ToolResultIDs"},
		{"first problem wins", []chitta.Message{user, toolCall("", "a"), asst, toolResult(chitta.RoleTool, "b")}, 1, "ToolCallIDs"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := chitta.Validate(tc.msgs)
			if tc.index < 0 {
				require.NoError(t, err)
				return
			}
			requireFault(t, err, tc.index, tc.field)
		})
	}
}

// requireFault checks that err is Validate's error naming message index
// and field.
func requireFault(t *testing.T, err error, index int, field string) {
	t.Helper()
	require.ErrorIs(t, err, chitta.ErrInvalidConversation)
	var me *chitta.MessageError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, index, me.Index)
	assert.Equal(t, field, me.Field)
	assert.Contains(t, err.Error(), fmt.Sprintf("message %d", index))
}

// fuzzConversation decodes data, two bytes a message, into a conversation
// over a handful of call IDs, so that the fuzzer explores linkage rather
// than JSON syntax.
func fuzzConversation(data []byte) []chitta.Message {
	roles := []chitta.Role{chitta.RoleSystem, chitta.RoleUser, chitta.RoleAssistant, chitta.RoleTool, "function", "observer"}
	var msgs []chitta.Message
	for i := 0; i+1 < len(data); i += 2 {
		m := chitta.Message{Role: roles[int(data[i])%len(roles)]}
		ids := data[i+1]
		for b := range 3 { // bits 0–2: calls, 3–5: results of IDs 0–2
			if ids&(1<<b) != 0 {
				m.ToolCallIDs = append(m.ToolCallIDs, fmt.Sprint("id", b))
			}
			if ids&(1<<(b+3)) != 0 {
				m.ToolResultIDs = append(m.ToolResultIDs, fmt.Sprint("id", b))
			}
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// naiveValidate is a quadratic reading of Validate's rules, returning the
// index of the first message at fault or -1. (The messages have no Raw, so
// an assistant message's result for an ID it issues answers its own call,
// as an Anthropic server tool's does; their IDs have no Anthropic form.)
func naiveValidate(msgs []chitta.Message) int {
	// self reports whether message r's result for id answers r's own call.
	self := func(r int, id string) bool {
		return msgs[r].Role == chitta.RoleAssistant && slices.Contains(msgs[r].ToolCallIDs, id)
	}
	// callOf is the message whose call id a result in message r answers:
	// the nearest before r issuing id (r itself when self), or -1.
	callOf := func(r int, id string) int {
		from := r - 1
		if self(r, id) {
			from = r
		}
		for c := from; c >= 0; c-- {
			if slices.Contains(msgs[c].ToolCallIDs, id) {
				return c
			}
		}
		return -1
	}
	// again reports whether the k-th result of message i (not an
	// assistant's) answers a call that a result before it (in a message
	// other than an assistant's) answers.
	again := func(i, k int) bool {
		id := msgs[i].ToolResultIDs[k]
		c := callOf(i, id)
		if c < 0 || msgs[i].Role == chitta.RoleAssistant {
			return false
		}
		if slices.Contains(msgs[i].ToolResultIDs[:k], id) {
			return true
		}
		for r := c; r < i; r++ {
			if msgs[r].Role != chitta.RoleAssistant && slices.Contains(msgs[r].ToolResultIDs, id) && callOf(r, id) == c {
				return true
			}
		}
		return false
	}
	// answered: message i's call id is answered by a result (later, or
	// its own) whose nearest call with that ID up to it is i.
	answered := func(i int, id string) bool {
		for r := i; r < len(msgs); r++ {
			if slices.Contains(msgs[r].ToolResultIDs, id) && callOf(r, id) == i {
				return true
			}
		}
		return false
	}
	user := false
	for i, m := range msgs {
		tool := m.Role == chitta.RoleTool || m.Role == "function" || m.Role == "tool_result"
		if tool && len(m.ToolResultIDs) == 0 {
			return i
		}
		for _, id := range m.ToolResultIDs {
			found := self(i, id)
			for c := range i {
				for _, cid := range msgs[c].ToolCallIDs {
					found = found || cid == id
				}
			}
			if !found {
				return i
			}
		}
		for k := range m.ToolResultIDs {
			if again(i, k) {
				return i
			}
		}
		if m.Role == chitta.RoleUser && len(m.ToolResultIDs) == 0 {
			user = true
		}
		if m.Role == chitta.RoleAssistant && !user {
			return i
		}
		for _, id := range m.ToolCallIDs {
			if !answered(i, id) {
				return i
			}
		}
	}
	return -1
}

func FuzzValidate(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 0, 2, 0})                    // user, assistant
	f.Add([]byte{2, 0})                          // assistant first
	f.Add([]byte{1, 0, 2, 1, 3, 8})              // user, call id0, result id0
	f.Add([]byte{1, 0, 2, 3, 3, 8, 3, 16, 2, 0}) // parallel calls
	f.Add([]byte{1, 0, 2, 1, 2, 1, 3, 8})        // reused ID, first unanswered
	f.Add([]byte{1, 0, 3, 0})                    // tool without ID
	f.Add([]byte{0, 0, 1, 8})                    // tool-result user message first
	f.Add([]byte{1, 0, 2, 1, 3, 8, 3, 8})        // one call answered twice
	f.Add([]byte{1, 0, 2, 1, 1, 8, 3, 8})        // answered in a user message, then a tool message
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs := fuzzConversation(data)
		err := chitta.Validate(msgs)
		want := naiveValidate(msgs)
		if want < 0 {
			require.NoError(t, err)
			return
		}
		require.ErrorIs(t, err, chitta.ErrInvalidConversation)
		var me *chitta.MessageError
		require.True(t, errors.As(err, &me))
		require.Equal(t, want, me.Index)
		// Nothing after the fault changes it: the prefix up to and
		// including a bad result or a bad first assistant is invalid too.
		if len(msgs[me.Index].ToolCallIDs) == 0 {
			require.Error(t, chitta.Validate(msgs[:me.Index+1]))
		}
	})
}

// An Anthropic assistant message may carry a server tool's call and its
// result (server_tool_use, mcp_tool_use), never a client tool_use answered
// in the same message: the API wants that result in the next user message.
func TestValidateAnthropicSelfAnswer(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		data  string
		index int // -1: valid
	}{
		{"web search", `[{"role":"user","content":"find it"},
{"role":"assistant","content":[{"type":"server_tool_use","id":"s1","name":"web_search","input":{"query":"q"}},{"type":"web_search_tool_result","tool_use_id":"s1","content":[]},{"type":"text","text":"found"}]},
{"role":"user","content":"thanks"}]`, -1},
		{"mcp connector", `[{"role":"user","content":"list"},
{"role":"assistant","content":[{"type":"mcp_tool_use","id":"m1","name":"ls","server_name":"fs","input":{}},{"type":"mcp_tool_result","tool_use_id":"m1","content":[{"type":"text","text":"a b"}]}]},
{"role":"user","content":"ok"}]`, -1},
		{"client tool_use answered in its own message", `[{"role":"user","content":"read"},
{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read","input":{}},{"type":"tool_result","tool_use_id":"t1","content":"text"}]},
{"role":"user","content":"ok"}]`, 1},
		{"client tool_use answered in the next message", `[{"role":"user","content":"read"},
{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read","input":{}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"text"}]}]`, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			msgs, err := chitta.ParseMessages([]byte(tc.data))
			require.NoError(t, err)
			err = chitta.Validate(msgs)
			if tc.index < 0 {
				require.NoError(t, err)
				return
			}
			var me *chitta.MessageError
			require.ErrorAs(t, err, &me)
			assert.Equal(t, tc.index, me.Index)
			assert.Equal(t, "ToolResultIDs", me.Field)
		})
	}
}

// When Claude calls a client tool in the turn that calls a server tool,
// the server_tool_use block comes without its result, which a later
// response carries once the client results are returned: the request
// holding that turn and the client results is valid, and Compact keeps
// it valid. A server call left without a result otherwise is not.
func TestValidateServerCallPending(t *testing.T) {
	t.Parallel()
	const mixed = `{"role":"user","content":"weather and news"},
{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"news"}},{"type":"tool_use","id":"toolu_1","name":"weather","input":{"city":"Paris"}}]}`
	const results = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"18C"}]}`
	cases := []struct {
		name  string
		data  string
		index int // -1: valid
	}{
		{"mixed turn, client results returned", `[` + mixed + `,` + results + `]`, -1},
		{"mixed turn completed later", `[` + mixed + `,` + results + `,
{"role":"assistant","content":[{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]},{"type":"text","text":"18C, no news"}]},
{"role":"user","content":"thanks"}]`, -1},
		{"mixed turn, client call unanswered", `[` + mixed + `,{"role":"user","content":"hello?"}]`, 1},
		{"server call alone without result", `[{"role":"user","content":"news"},
{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"news"}}]},
{"role":"user","content":"go on"}]`, 1},
	}
	for _, tc := range cases {
		// Without Raw: the messages as the typed adapters build them
		// (adapt/anthropic), which Validate judged by their IDs alone and
		// failed the valid mixed turns ("srvtoolu_1" has no result).
		withAndWithoutRaw(t, tc.name, tc.data, func(t *testing.T, msgs []chitta.Message) {
			err := chitta.Validate(msgs)
			if tc.index >= 0 {
				var me *chitta.MessageError
				require.ErrorAs(t, err, &me)
				assert.Equal(t, tc.index, me.Index)
				assert.Equal(t, "ToolCallIDs", me.Field)
				return
			}
			require.NoError(t, err)
			for _, ratio := range []float64{0.05, 0.5, 1} {
				res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: ratio})
				require.NoError(t, err)
				assert.NoError(t, chitta.Validate(res.Messages), "ratio %v", ratio)
			}
		})
	}
}

// withAndWithoutRaw runs check in two parallel subtests, name/raw=true
// and name/raw=false, on data as ParseMessages reads it: with each
// message's Raw, and with Raw nil (the messages as the typed adapters
// build them, which Validate judges by their IDs).
func withAndWithoutRaw(t *testing.T, name, data string, check func(t *testing.T, msgs []chitta.Message)) {
	t.Helper()
	for _, raw := range []bool{true, false} {
		t.Run(fmt.Sprintf("%s/raw=%v", name, raw), func(t *testing.T) {
			t.Parallel()
			msgs, err := chitta.ParseMessages([]byte(data))
			require.NoError(t, err)
			if !raw {
				for i := range msgs {
					msgs[i].Raw = nil
				}
			}
			check(t, msgs)
		})
	}
}

// TestValidateManyServerCalls: Validate reads an assistant message's
// blocks once, not once per result it carries: an assistant message with
// 1 500 web searches and their results (a 220 KB request) took about 30 s
// (quadratic in its blocks), 4 000 more than three minutes.
func TestValidateManyServerCalls(t *testing.T) {
	t.Parallel()
	const n = 1500
	blocks := make([]string, 0, n)
	for i := range n {
		blocks = append(blocks, fmt.Sprintf(`{"type":"server_tool_use","id":"s%d","name":"web_search","input":{"query":"q"}},{"type":"web_search_tool_result","tool_use_id":"s%d","content":[]}`, i, i))
	}
	data := `[{"role":"user","content":"search"},{"role":"assistant","content":[` + strings.Join(blocks, ",") + `]}]`
	msgs, err := chitta.ParseMessages([]byte(data))
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- chitta.Validate(msgs) }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Validate took more than 5 s")
	}
}

// TestValidateServerToolSearchAlone: a Responses tool_search_call without
// call_id is a search the server ran. ParseMessages gives it a synthetic
// ID (tool_search@<index>) only so that Compact keeps it with the
// tool_search_output right after it; the API cannot link the two (call_id
// is null in both), so a call without that output is no call left
// unanswered, and Validate does not require results directly after their
// call. A client search (with call_id) still needs its output, and a
// message built in Go with such an ID (the adapters' messages have no Raw)
// reads as ParseMessages' does. On main Validate failed with: call
// "tool_search@1" has no result after it.
func TestValidateServerToolSearchAlone(t *testing.T) {
	t.Parallel()
	const user = `{"role":"user","content":"find the CRM tools"}`
	const server = `{"type":"tool_search_call","id":"tsc_1","execution":"server","status":"completed","arguments":{"paths":["crm"]}}`
	tests := []struct {
		name  string
		items string
		index int // the message Validate names, -1: valid
	}{
		{"server search, no output", user + `,` + server, -1},
		{"server search, call_id null", user + `,{"type":"tool_search_call","call_id":null,"execution":"server","arguments":{}}`, -1},
		{"server search, no output, then a turn", user + `,` + server + `,{"role":"assistant","content":"none found"},{"role":"user","content":"ok"}`, -1},
		{"server search with its output", user + `,` + server + `,{"type":"tool_search_output","call_id":null,"execution":"server","tools":[]}`, -1},
		{"client search, no output", user + `,{"type":"tool_search_call","call_id":"s1","execution":"client","arguments":{}}`, 1},
		{"function call, no output", user + `,` + server + `,{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"}`, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			msgs, err := chitta.ParseMessages([]byte(`[` + tt.items + `]`))
			require.NoError(t, err)
			built := slices.Clone(msgs)
			for i := range built {
				built[i].Raw = nil
			}
			for _, conv := range [][]chitta.Message{msgs, built} {
				err := chitta.Validate(conv)
				if tt.index < 0 {
					require.NoError(t, err)
					res, err := chitta.Compact(t.Context(), conv, &chitta.Options{TargetRatio: 0.3})
					require.NoError(t, err)
					assert.NoError(t, chitta.Validate(res.Messages))
					continue
				}
				var me *chitta.MessageError
				require.ErrorAs(t, err, &me)
				require.ErrorIs(t, err, chitta.ErrInvalidConversation)
				assert.Equal(t, tt.index, me.Index)
				assert.Equal(t, "ToolCallIDs", me.Field)
			}
		})
	}
}

// A Raw that is set but holds no JSON object cannot be sent (MarshalMessages
// refuses it), so Validate reports it, naming the message and the field;
// nil, empty and JSON null Raw mean "built in Go" and pass.
func TestValidateRaw(t *testing.T) {
	user := func(raw string) chitta.Message {
		m := chitta.Message{Role: chitta.RoleUser, Content: "hi"}
		if raw != "<nil>" {
			m.Raw = []byte(raw)
		}
		return m
	}
	for _, tc := range []struct {
		name, raw string
		ok        bool
	}{
		{"nil", "<nil>", true},
		{"empty", "", true},
		{"null", "null", true},
		{"null with space", " null\n", true},
		{"object", `{"role":"user","content":"hi"}`, true},
		{"object after space", ` {"role":"user","content":"hi"}`, true},
		{"spaces", "   ", false},
		{"truncated", `{"role":"user"`, false},
		{"array", `[1]`, false},
		{"string", `"hi"`, false},
		{"object then garbage", `{"role":"user"} x`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs := []chitta.Message{{Role: chitta.RoleSystem, Content: "s"}, user(tc.raw)}
			err := chitta.Validate(msgs)
			if tc.ok {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, chitta.ErrInvalidConversation)
			var me *chitta.MessageError
			require.ErrorAs(t, err, &me)
			assert.Equal(t, 1, me.Index)
			assert.Equal(t, "Raw", me.Field)
			_, merr := chitta.MarshalMessages(msgs)
			assert.Error(t, merr, "MarshalMessages refuses what Validate reports")
		})
	}
}

// A call answered twice, and (in Anthropic's format) a tool_use ID issued
// twice, are refused by the providers with a 400: Anthropic ("each
// tool_use must have a single result", "tool_use ids must be unique"),
// OpenAI Chat ("Duplicate value for 'tool_call_id'"). Validate names the
// message at fault and the ID, and nothing of the content. A reused ID
// whose every call has one result of its own stays valid outside
// Anthropic's format (trajectories reuse IDs), as do the grouping IDs
// ParseMessages makes up (a reasoning item's, answered by each item of
// its reply) and a Responses approval request, which its approval
// response answers and its mcp_call carries.
func TestValidateDuplicateIDs(t *testing.T) {
	t.Parallel()
	const (
		prompt = `{"role":"user","content":"read both"}`
		use1   = `{"type":"tool_use","id":"toolu_1","name":"read","input":{"secret":"s3cr3t"}}`
		use2   = `{"type":"tool_use","id":"toolu_2","name":"read","input":{}}`
		res1   = `{"type":"tool_result","tool_use_id":"toolu_1","content":"s3cr3t body"}`
		res2   = `{"type":"tool_result","tool_use_id":"toolu_2","content":"b"}`
	)
	asst := func(blocks ...string) string {
		return `{"role":"assistant","content":[` + strings.Join(blocks, ",") + `]}`
	}
	results := func(blocks ...string) string {
		return `{"role":"user","content":[` + strings.Join(blocks, ",") + `]}`
	}
	cases := []struct {
		name  string
		data  string
		index int    // -1: valid
		field string // the field named
		id    string // the ID the error names
	}{
		{"anthropic, one result each", `[` + prompt + `,` + asst(use1, use2) + `,` + results(res1, res2) + `]`, -1, "", ""},
		{"anthropic, two results in one message", `[` + prompt + `,` + asst(use1, use2) + `,` + results(res1, res2, res1) + `]`, 2, "ToolResultIDs", "toolu_1"},
		{"anthropic, two results in two messages", `[` + prompt + `,` + asst(use1) + `,` + results(res1) + `,` + results(res1) + `]`, 3, "ToolResultIDs", "toolu_1"},
		{"anthropic, one tool_use ID twice in a message", `[` + prompt + `,` + asst(use1, use1) + `,` + results(res1) + `]`, 1, "ToolCallIDs", "toolu_1"},
		{"anthropic, one tool_use ID in two messages", `[` + prompt + `,` + asst(use1) + `,` + results(res1) + `,` + asst(use1) + `,` + results(res1) + `]`, 3, "ToolCallIDs", "toolu_1"},
		{"openai chat, one result each", `[{"role":"user","content":"q"},
{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]},
{"role":"tool","tool_call_id":"call_1","content":"r"}]`, -1, "", ""},
		{"openai chat, two tool messages answering one call", `[{"role":"user","content":"q"},
{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]},
{"role":"tool","tool_call_id":"call_1","content":"r"},
{"role":"tool","tool_call_id":"call_1","content":"r again"}]`, 3, "ToolResultIDs", "call_1"},
		{"openai chat, reused ID, each call answered", `[{"role":"user","content":"q"},
{"role":"assistant","content":null,"tool_calls":[{"id":"call_0","type":"function","function":{"name":"f","arguments":"{}"}}]},
{"role":"tool","tool_call_id":"call_0","content":"r"},
{"role":"assistant","content":null,"tool_calls":[{"id":"call_0","type":"function","function":{"name":"f","arguments":"{}"}}]},
{"role":"tool","tool_call_id":"call_0","content":"r"}]`, -1, "", ""},
		{"openai chat, one ID twice in a message's calls", `[{"role":"user","content":"q"},
{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]},
{"role":"tool","tool_call_id":"call_1","content":"r"},
{"role":"tool","tool_call_id":"call_1","content":"r"}]`, 3, "ToolResultIDs", "call_1"},
		{"responses, two outputs for one call", `[{"role":"user","content":"q"},
{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},
{"type":"function_call_output","call_id":"c1","output":"a"},
{"type":"function_call_output","call_id":"c1","output":"a"}]`, 3, "ToolResultIDs", "c1"},
		{"anthropic, server_tool_use ID in two messages", `[` + prompt + `,
{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}},{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]}]},
{"role":"user","content":"again"},
{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}},{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]}]}]`, 3, "ToolCallIDs", "srvtoolu_1"},
		{"responses mcp approval with its call", `[{"role":"user","content":"delete it"},
{"type":"mcp_approval_request","id":"mcpr_1","server_label":"gh","name":"delete_repo","arguments":"{}"},
{"type":"mcp_approval_response","approval_request_id":"mcpr_1","approve":true},
{"type":"mcp_call","id":"mcp_1","server_label":"gh","name":"delete_repo","arguments":"{}","approval_request_id":"mcpr_1","output":"deleted"}]`, -1, "", ""},
		{"responses reasoning reply", `[{"role":"user","content":"q"},
{"type":"reasoning","id":"rs_1","summary":[]},
{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},
{"type":"function_call","call_id":"c2","name":"f","arguments":"{}"},
{"type":"function_call_output","call_id":"c1","output":"a"},
{"type":"function_call_output","call_id":"c2","output":"b"}]`, -1, "", ""},
	}
	for _, tc := range cases {
		withAndWithoutRaw(t, tc.name, tc.data, func(t *testing.T, msgs []chitta.Message) {
			err := chitta.Validate(msgs)
			if tc.index < 0 {
				require.NoError(t, err)
				return
			}
			requireFault(t, err, tc.index, tc.field)
			assert.Contains(t, err.Error(), fmt.Sprintf("%q", tc.id))
			assert.NotContains(t, err.Error(), "s3cr3t")
		})
	}
}

// Compact only drops messages, and keeps a call with its results, so it
// cannot make a call answered twice (a result whose own call it dropped
// answering an earlier call with the same ID) or a reused tool_use ID out
// of a valid conversation.
func TestCompactKeepsIDsSingle(t *testing.T) {
	t.Parallel()
	filler := strings.Repeat("words of a long answer ", 40)
	var msgs []chitta.Message
	for i := range 6 {
		msgs = append(msgs,
			msg(chitta.RoleUser, fmt.Sprint("question ", i, " ", filler)),
			toolCall(filler, "call_0"), // the same ID each turn, as some models give
			toolResult(chitta.RoleTool, "call_0"),
			msg(chitta.RoleAssistant, filler))
	}
	require.NoError(t, chitta.Validate(msgs))
	for _, ratio := range []float64{0.05, 0.2, 0.5, 0.8, 1} {
		for keep := range 4 {
			res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: ratio, KeepLast: keep})
			require.NoError(t, err)
			assert.NoError(t, chitta.Validate(res.Messages), "ratio %v, keep %d", ratio, keep)
		}
	}
}

// With Raw, Validate reads Anthropic's tool_use IDs from the call blocks
// whose input is an object, whatever the IDs' form; without Raw it goes by
// the form alone ("toolu_…"), and a block without an input object (the
// adapters' mask-mode Raw, for any provider) counts only with that form.
func TestValidateToolUseIDsFromBlocks(t *testing.T) {
	t.Parallel()
	turn := func(block string) string {
		return `{"role":"assistant","content":[` + block + `]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"r"}]}`
	}
	const (
		use     = `{"type":"tool_use","id":"t1","name":"read","input":{}}`
		noInput = `{"type":"tool_use","id":"t1","name":"read"}`
	)
	for _, tc := range []struct {
		name     string
		block    string
		raw, rej bool // with Raw; whether Validate refuses
	}{
		{"input object, with Raw", use, true, true},
		{"input object, without Raw", use, false, false},
		{"no input, with Raw", noInput, true, false},
		{"string input, with Raw", `{"type":"tool_use","id":"t1","name":"read","input":"{}"}`, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			msgs, err := chitta.ParseMessages([]byte(`[{"role":"user","content":"go"},` + turn(tc.block) + `,` + turn(tc.block) + `]`))
			require.NoError(t, err)
			if !tc.raw {
				for i := range msgs {
					msgs[i].Raw = nil
				}
			}
			err = chitta.Validate(msgs)
			if !tc.rej {
				require.NoError(t, err)
				return
			}
			requireFault(t, err, 3, "ToolCallIDs")
			assert.Contains(t, err.Error(), `"t1"`)
		})
	}
}
