package main

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSessionParamsErrors: params the SDK cannot decode (a _meta that is
// not an object, a name or cursor that is not a string, a clientInfo.name
// that is a number, params nested too deep) get chitta's own -32602,
// naming the field and the JSON type it takes, in the words one-shot mode
// uses. The SDK's message went out as it was: "handling 'tools/call':
// invalid params: unmarshaling \"{…}\" into a *mcp.CallToolParamsRaw:
// json: cannot unmarshal … into Go struct field mcp.CallToolParamsRaw._meta
// of type map[string]interface {}", the whole params echoed (a tool's
// arguments too) and the SDK's Go types named, and for initialize with
// code 0.
func TestSessionParamsErrors(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	request := func(method, params string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":` + params + `}`
	}
	initialize := func(extra string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{` + extra + `"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}`
	}
	deep := strings.Repeat("[", 1001) + strings.Repeat("]", 1001)
	tests := []struct {
		name    string
		lines   []string // after the handshake, unless handshake is false
		bare    bool     // no handshake first
		msg     string
		oneShot bool // one-shot mode answers the same
	}{
		{name: "call _meta a number", lines: []string{request("tools/call", `{"name":"recall","arguments":{"text":"hunter2 secret"},"_meta":5}`)}, msg: "invalid params: params._meta: want an object", oneShot: true},
		{name: "call _meta an array", lines: []string{request("tools/call", `{"name":"recall","arguments":{"text":"hunter2 secret"},"_meta":[]}`)}, msg: "invalid params: params._meta: want an object", oneShot: true},
		{name: "list _meta a string", lines: []string{request("tools/list", `{"_meta":"x"}`)}, msg: "invalid params: params._meta: want an object", oneShot: true},
		{name: "ping _meta an array", lines: []string{request("ping", `{"_meta":[]}`)}, msg: "invalid params: params._meta: want an object"},
		{name: "call name a number", lines: []string{request("tools/call", `{"name":5,"arguments":{"text":"hunter2 secret"}}`)}, msg: "invalid params: params.name: want a string", oneShot: true},
		{name: "list cursor a number", lines: []string{request("tools/list", `{"cursor":5}`)}, msg: "invalid params: params.cursor: want a string", oneShot: true},
		{name: "params too deep", lines: []string{request("ping", `{"x":`+deep+`}`)}, msg: "invalid params: params: exceeded maximum nesting depth of 1000"},
		{name: "initialize _meta a number", bare: true, lines: []string{initialize(`"_meta":5,`)}, msg: "invalid params: params._meta: want an object"},
		{name: "initialize params empty", bare: true, lines: []string{`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{}}`}, msg: "invalid params: " + protocolVersionRequired},
		{name: "initialize protocolVersion empty", bare: true, lines: []string{`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}`}, msg: "invalid params: " + protocolVersionRequired},
		{name: "initialize protocolVersion null", bare: true, lines: []string{`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":null,"capabilities":{},"clientInfo":{"name":"test","version":"0"}}}`}, msg: "invalid params: " + protocolVersionRequired},
		{name: "initialize protocolVersion a number", bare: true, lines: []string{`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":5,"capabilities":{},"clientInfo":{"name":"test","version":"0"}}}`}, msg: "invalid params: params.protocolVersion: want a string"},
		{name: "initialize clientInfo.name a number", bare: true, lines: []string{`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":5,"version":"0"}}}`}, msg: "invalid params: params.clientInfo.name: want a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lines := tt.lines
			if !tt.bare {
				lines = append([]string{initializeLine, initializedLine}, lines...)
			}
			r := byID(t, runSession(t, a, 64<<10, lines...), "7")
			require.NotNil(t, r.Error, r.raw)
			assert.Equal(t, int64(jsonrpc.CodeInvalidParams), r.Error.Code, r.raw)
			assert.Equal(t, tt.msg, r.Error.Message)
			for _, leak := range []string{"mcp.", "Go struct", "unmarshal", "hunter2", "[[["} {
				assert.NotContains(t, r.raw, leak)
			}
			if tt.oneShot {
				resp := a.answer(t.Context(), []byte(tt.lines[0]))
				require.NotNil(t, resp.Error)
				assert.Equal(t, tt.msg, resp.Error.Message, "one-shot mode says the same")
			}
		})
	}
}

// modesCase is a request and the answer both modes give it: code 0 is a
// result, toolErr a tool result with isError, else the error's code; msg
// the error's message or the tool error's text ("": the same in both
// modes).
type modesCase struct {
	line string
	code int64
	msg  string
}

// toolErr is the modesCase code of a tool result with isError (not a
// JSON-RPC code: those are negative).
const toolErr int64 = 1

// checkBothModes runs each case in an MCP session and in one-shot mode and
// asserts that both give its answer.
func checkBothModes(t *testing.T, tests []modesCase) {
	t.Helper()
	a, _ := newTestApp(t)
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			t.Parallel()
			session := byID(t, runSession(t, a, 64<<10, initializeLine, initializedLine, tt.line), "7")
			resp := a.answer(t.Context(), []byte(tt.line))
			if tt.code == 0 {
				assert.Nil(t, session.Error, "the session answers")
				assert.Nil(t, resp.Error, "one-shot mode answers")
				return
			}
			if tt.code == toolErr {
				msg := wireArgError(t, session)
				if tt.msg != "" {
					assert.Equal(t, tt.msg, msg)
				}
				assert.Equal(t, msg, answerArgError(t, resp), "both modes say the same")
				return
			}
			require.NotNil(t, session.Error, "the session refuses: %s", session.raw)
			assert.Equal(t, tt.code, session.Error.Code, session.Error.Message)
			require.NotNil(t, resp.Error, "one-shot mode refuses")
			assert.Equal(t, tt.code, resp.Error.Code, resp.Error.Message)
			if tt.msg != "" {
				assert.Equal(t, tt.msg, session.Error.Message)
			}
			assert.Equal(t, session.Error.Message, resp.Error.Message, "both modes say the same")
		})
	}
}

func callLine(params string) string {
	return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":` + params + `}`
}

// TestCallWithoutNameSameInBothModes: a tools/call without params or
// without a tool name gets the same code and message in an MCP session as
// in one-shot mode. The session said `invalid request: missing required
// "params"` and `unknown tool ""` where one-shot mode named the field.
func TestCallWithoutNameSameInBothModes(t *testing.T) {
	t.Parallel()
	const noParams = "invalid request: params: required (an object with the name of the tool to call and its arguments)"
	const noName = "invalid params: params.name: required (the tool to call)"
	checkBothModes(t, []modesCase{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call"}`, jsonrpc.CodeInvalidRequest, noParams},
		{callLine(`null`), jsonrpc.CodeInvalidRequest, noParams},
		{callLine(`{}`), jsonrpc.CodeInvalidParams, noName},
		{callLine(`{"arguments":{"text":"x"}}`), jsonrpc.CodeInvalidParams, noName},
		{callLine(`{"name":null,"arguments":{"text":"x"}}`), jsonrpc.CodeInvalidParams, noName},
		{callLine(`{"name":"recall","arguments":{"text":"x"}}`), 0, ""},
	})
}

// TestProgressTokenStringOrInteger: a params._meta.progressToken that is
// neither a string nor an integer (MCP: it "MUST be a string or integer
// value") is -32602 naming the field, in both modes; both ran the call
// with a token of true, {} or 1.5. null counts as absent, as for _meta.
func TestProgressTokenStringOrInteger(t *testing.T) {
	t.Parallel()
	const bad = "invalid params: params._meta.progressToken: want a string or an integer of at most 2^53 in magnitude"
	withToken := func(tok string) string {
		return callLine(`{"name":"recall","arguments":{"text":"x"},"_meta":{"progressToken":` + tok + `}}`)
	}
	checkBothModes(t, []modesCase{
		{withToken(`true`), jsonrpc.CodeInvalidParams, bad},
		{withToken(`{}`), jsonrpc.CodeInvalidParams, bad},
		{withToken(`[1]`), jsonrpc.CodeInvalidParams, bad},
		{withToken(`1.5`), jsonrpc.CodeInvalidParams, bad},
		{withToken(`9007199254740993`), jsonrpc.CodeInvalidParams, bad},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"progressToken":false}}}`, jsonrpc.CodeInvalidParams, bad},
		{withToken(`"tok-1"`), 0, ""},
		{withToken(`-3`), 0, ""},
		{withToken(`1e3`), 0, ""},
		{withToken(`null`), 0, ""},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"progressToken":2}}}`, 0, ""},
	})
}

// TestErrorMessagesBounded: an error that names a value the request sent
// (a role, an unknown argument or tool name, a tokenizer) is cut to at
// most maxErrorMessage bytes, in both modes and on one-shot mode's stderr
// line, keeping the field it names. It echoed the value whole: a 100 000
// byte role came back as a 100 KB message and went to stderr, where a
// conversation pasted into the wrong field (or a secret) stays in logs.
func TestErrorMessagesBounded(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	long := strings.Repeat("SECRETTEXT ", 10_000)
	tests := []struct {
		name, line, prefix string
	}{
		{"role", call(7, "compact_context", `{"messages":[{"role":"`+long+`","content":"hi"}]}`), "messages[0].role: "},
		{"argument name", call(7, "recall", `{"text":"x","`+long+`":1}`), "arguments: unknown field"},
		{"tool name", call(7, long, `{}`), "unknown tool"},
		{"tokenizer", call(7, "compact_context", `{"messages":[{"role":"user","content":"hi"}],"tokenizer":"`+long+`"}`), "tokenizer: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			session := byID(t, runSession(t, a, 1<<20, initializeLine, initializedLine, tt.line), "7")
			resp := a.answer(t.Context(), []byte(tt.line))
			var sessionMsg, oneShotMsg string
			if tt.name == "tool name" {
				// An unknown tool is a protocol error; the others are
				// argument errors, tool results with isError.
				require.NotNil(t, session.Error, session.raw)
				require.NotNil(t, resp.Error)
				sessionMsg, oneShotMsg = session.Error.Message, resp.Error.Message
			} else {
				sessionMsg, oneShotMsg = wireArgError(t, session), answerArgError(t, resp)
			}
			for mode, msg := range map[string]string{"session": sessionMsg, "one-shot": oneShotMsg} {
				assert.True(t, len(msg) <= maxErrorMessage, "%s: %d bytes", mode, len(msg))
				assert.True(t, strings.HasPrefix(msg, tt.prefix), "%s: %.200s", mode, msg)
				assert.True(t, utf8.ValidString(msg), mode)
				assert.True(t, strings.HasSuffix(msg, " bytes cut)"), "%s: …%.100s", mode, msg[max(0, len(msg)-100):])
			}
		})
	}
	r := runChitta(t, t.TempDir(), tests[0].line)
	assert.Equal(t, 1, r.code)
	assert.True(t, len(r.stdout)+len(r.stderr) < 3*maxErrorMessage, "the response and the stderr line are bounded: %d bytes", len(r.stdout)+len(r.stderr))
}

// TestIntegerArgumentsAsSchemaSays: an integer argument written as a JSON
// number with a zero fractional part (10.0, 1e1, as a Python client's
// json.dumps writes a float) is the integer its schema accepts (JSON
// Schema: an integer is any number with a zero fractional part), in both
// modes; it was refused with "k: want an integer, got number 10.0". A
// number with a fraction, or beyond 2^53, is still refused, and the
// messages of compact_context still come back byte for byte.
func TestIntegerArgumentsAsSchemaSays(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	for _, tt := range []struct {
		name, line string
		ok         bool
	}{
		{"k 10.0", call(7, "recall", `{"text":"x","k":10.0}`), true},
		{"k 1e1", call(7, "recall", `{"text":"x","k":1e1}`), true},
		{"k 2.50e1", call(7, "recall", `{"text":"x","k":2.50e1}`), true},
		{"limit 5.0 offset 0.0", call(7, "list_memories", `{"limit":5.0,"offset":0.0}`), true},
		{"mask keep_recent 2.0", call(7, "compact_context", `{"messages":[{"role":"user","content":"hi"}],"max_tokens":100.0,"mask":{"keep_recent":2.0}}`), true},
		{"k 1.5", call(7, "recall", `{"text":"x","k":1.5}`), false},
		{"k 1e400", call(7, "recall", `{"text":"x","k":1e400}`), false},
		{"k 9007199254740993.0", call(7, "recall", `{"text":"x","k":9007199254740993.0}`), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			session := byID(t, runSession(t, a, 64<<10, initializeLine, initializedLine, tt.line), "7")
			resp := a.answer(t.Context(), []byte(tt.line))
			if tt.ok {
				assert.Nil(t, session.Error, "the session answers: %s", session.raw)
				assert.Nil(t, resp.Error, "one-shot mode answers")
				return
			}
			assert.Equal(t, wireArgError(t, session), answerArgError(t, resp))
		})
	}

	// The kept messages are the caller's (white space aside, as always).
	msgs := `[{"content": "a <b> & c", "role": "user", "n": 1.50}]`
	resp := a.answer(t.Context(), []byte(call(7, "compact_context", `{"max_tokens": 50.0, "messages": `+msgs+`}`)))
	require.Nil(t, resp.Error)
	data, err := marshal(resp.Result)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"messages":[{"content":"a <b> & c","role":"user","n":1.50}]`)
}

// TestArgumentErrorsSayWhatIsAllowed: an argument refused as out of
// range says the range even when it is beyond what a JSON number decodes
// to (target_ratio 1e999 said only "out of range"); a role compact_context
// does not know says which roles it takes (it told an MCP client to "set
// Options.RoleWeights", which it cannot); a NUL byte in remember's kind is
// an argument error naming the field (it was a tool error from the store).
func TestArgumentErrorsSayWhatIsAllowed(t *testing.T) {
	t.Parallel()
	a, saves := newTestApp(t)
	cs := connect(t, a)
	for _, tt := range []struct {
		tool, args, want string
		absent           []string
	}{
		{"compact_context", `{"messages":[],"target_ratio":1e999}`, "target_ratio: 1e999 out of range, want 0.05 to 1 (default 0.4)", nil},
		{"compact_context", `{"messages":[],"novel_threshold":-1e999}`, "novel_threshold: -1e999 out of range, want (0, 1]", nil},
		{"compact_context", `{"messages":[],"lexical":1e400}`, "lexical: 1e400 out of range, want 0 to 1", nil},
		{"compact_context", `{"messages":[],"max_tokens":99999999999999999999}`, "max_tokens: 99999999999999999999 out of range, want >= 0", nil},
		{"compact_context", `{"messages":[],"mask":{"keep_recent":99999999999999999999}}`, "mask.keep_recent: 99999999999999999999 out of range, want >= 0", nil},
		// Integers written with an exponent are out of range too, not
		// "want an integer" (they have no fractional part).
		{"compact_context", `{"messages":[],"max_tokens":1e30}`, "max_tokens: 1e30 out of range, want >= 0", nil},
		{"compact_context", `{"messages":[],"mask":{"keep_recent":1e400}}`, "mask.keep_recent: 1e400 out of range, want >= 0", nil},
		{"compact_context", `{"messages":[],"max_tokens":1e99999999999999999999}`, "max_tokens: 1e99999999999999999999 out of range, want >= 0", nil},
		{"recall", `{"text":"x","k":1E+20}`, "k: 1E+20 out of range, want 1 to", nil},
		{"list_memories", `{"limit":-1.5e25}`, "limit: -1.5e25 out of range, want 1 to 1000 (default 50)", nil},
		{"remember", `{"text":"x","confidence":1e999}`, "confidence: 1e999 out of range, want 0 to 1 (default 1)", nil},
		{"recall", `{"text":"x","k":99999999999999999999}`, "k: 99999999999999999999 out of range, want 1 to", nil},
		{"list_memories", `{"limit":-99999999999999999999}`, "limit: -99999999999999999999 out of range, want 1 to 1000 (default 50)", nil},
		{"compact_context", `{"messages":[{"role":"wizard","content":"hi"}]}`,
			`messages[0].role: want user, assistant or tool (function and tool_result count as tool), or system or developer (always kept), got "wizard"`,
			[]string{"RoleWeights", "Options"}},
		{"remember", `{"text":"x","kind":"fa\u0000ct"}`, "kind: holds a NUL byte (at byte 2), want none", []string{"store memory"}},
	} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tt.tool, Arguments: json.RawMessage(tt.args)})
		msg := argError(t, res, err, "%s %s", tt.tool, tt.args)
		assert.Contains(t, msg, tt.want)
		for _, s := range tt.absent {
			assert.NotContains(t, msg, s)
		}
	}
	assert.Zero(t, saves.Load())
}

// TestListCursorSameInBothModes: a tools/list cursor this server never
// gave (its list has one page) gets the same -32602 message in a session
// as in one-shot mode, naming the cursor; the session said only "invalid
// params".
func TestListCursorSameInBothModes(t *testing.T) {
	t.Parallel()
	list := func(params string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":` + params + `}`
	}
	checkBothModes(t, []modesCase{
		{list(`{"cursor":"garbage"}`), jsonrpc.CodeInvalidParams, `invalid params: params.cursor: "garbage" is not a cursor of this server (its tool list has one page)`},
		{list(`{"cursor":5}`), jsonrpc.CodeInvalidParams, "invalid params: params.cursor: want a string"},
		{list(`{"cursor":""}`), 0, ""},
		{list(`{"cursor":null}`), 0, ""},
	})
}

// TestIntegralLiteral: which JSON number literals have no fractional part.
func TestIntegralLiteral(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		lit  string
		want bool
	}{
		{"0", true}, {"-0.0", true}, {"7", true}, {"-7", true}, {"10.0", true},
		{"1e30", true}, {"1E+20", true}, {"2.50e1", true}, {"-1.5e25", true},
		{"1e400", true}, {"1e99999999999999999999", true}, {"1e9223372036854775807", true},
		{"100e-2", true}, {"1.5", false}, {"2.5e-1", false}, {"1e-3", false},
		{"1e-99999999999999999999", false}, {"0.5e1", true}, {"0.55e1", false},
		{"99999999999999999999", true},
	} {
		assert.Equal(t, tt.want, integralLiteral(tt.lit), tt.lit)
	}
}
