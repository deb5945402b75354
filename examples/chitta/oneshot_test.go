package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAnswer(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	tests := []struct {
		name   string
		req    string
		code   int64 // 0: a result
		isErr  bool  // a tool result with isError (bad arguments)
		id     string
		substr string // in the error message, or in the encoded result
	}{
		{name: "compact", req: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"compact_context","arguments":{"messages":[{"role":"user","content":"hello there"}]}}}`, id: "1", substr: `"before_tokens":2`},
		{name: "string id", req: `{"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"name":"recall","arguments":{"text":"x"}}}`, id: `"abc"`, substr: `"memories":[]`},
		{name: "tools/list", req: `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, id: "2", substr: `"name":"compact_context"`},
		{name: "malformed JSON", req: `{"jsonrpc":"2.0",`, code: jsonrpc.CodeParseError, id: "null", substr: "parse error"},
		{name: "not JSON at all", req: `hello`, code: jsonrpc.CodeParseError, id: "null"},
		{name: "batch", req: `[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`, code: jsonrpc.CodeInvalidRequest, id: "null", substr: "batch"},
		{name: "a string", req: `"tools/call"`, code: jsonrpc.CodeInvalidRequest, id: "null"},
		{name: "notification", req: `{"jsonrpc":"2.0","method":"tools/list"}`, code: jsonrpc.CodeInvalidRequest, id: "null", substr: "id: required"},
		{name: "object id", req: `{"jsonrpc":"2.0","id":{},"method":"tools/list"}`, code: jsonrpc.CodeInvalidRequest, id: "null", substr: "id: want"},
		{name: "id not UTF-8", req: "{\"jsonrpc\":\"2.0\",\"id\":\"\xe5\",\"method\":\"tools/list\"}", code: jsonrpc.CodeInvalidRequest, id: "null", substr: "id: not valid UTF-8"},
		{name: "wrong version", req: `{"jsonrpc":"1.0","id":3,"method":"tools/list"}`, code: jsonrpc.CodeInvalidRequest, id: "3", substr: "jsonrpc"},
		{name: "no method", req: `{"jsonrpc":"2.0","id":3}`, code: jsonrpc.CodeInvalidRequest, id: "3", substr: "method"},
		{name: "method a number", req: `{"jsonrpc":"2.0","id":3,"method":5}`, code: jsonrpc.CodeInvalidRequest, id: "3", substr: "method"},
		{name: "a response", req: `{"jsonrpc":"2.0","id":3,"result":{}}`, code: jsonrpc.CodeInvalidRequest, id: "3", substr: "method"},
		{name: "unknown method", req: `{"jsonrpc":"2.0","id":4,"method":"prompts/list"}`, code: jsonrpc.CodeMethodNotFound, id: "4", substr: `"prompts/list"`},
		{name: "params not an object", req: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":[1]}`, code: jsonrpc.CodeInvalidParams, id: "5", substr: "params"},
		{name: "no tool name", req: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{}}`, code: jsonrpc.CodeInvalidParams, id: "5", substr: "params.name"},
		{name: "tool name a number", req: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":1}}`, code: jsonrpc.CodeInvalidParams, id: "5", substr: "params.name"},
		{name: "unknown tool", req: `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"nope"}}`, code: jsonrpc.CodeInvalidParams, id: "6", substr: `unknown tool "nope"`},
		{name: "missing messages", req: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"compact_context","arguments":{}}}`, isErr: true, id: "7", substr: "messages"},
		{name: "ratio out of range", req: `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"compact_context","arguments":{"messages":[],"target_ratio":2}}}`, isErr: true, id: "8", substr: "target_ratio"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp := a.answer(t.Context(), []byte(tt.req))
			data, err := marshal(resp)
			require.NoError(t, err)
			checkResponse(t, data)
			assert.Equal(t, tt.id, string(resp.ID))
			if tt.isErr {
				assert.Contains(t, answerArgError(t, resp), tt.substr)
				return
			}
			if tt.code == 0 {
				require.Nil(t, resp.Error, "%s", data)
				assert.Contains(t, string(data), tt.substr)
				return
			}
			require.NotNil(t, resp.Error, "%s", data)
			assert.Equal(t, tt.code, resp.Error.Code)
			assert.Contains(t, resp.Error.Message, tt.substr)
		})
	}
}

// checkResponse asserts that data is one JSON-RPC 2.0 response: a version,
// an id, and exactly one of result and error, with a known error code.
func checkResponse(t *testing.T, data []byte) {
	t.Helper()
	var r struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&r), "%s", data)
	require.Equal(t, "2.0", r.JSONRPC)
	require.NotEmpty(t, r.ID)
	require.NotEqual(t, r.Result == nil, r.Error == nil, "exactly one of result and error: %s", data)
	if r.Error != nil {
		require.Contains(t, []int64{jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeMethodNotFound, jsonrpc.CodeInvalidParams, jsonrpc.CodeInternalError}, r.Error.Code)
		require.NotEmpty(t, r.Error.Message)
		require.NotContains(t, r.Error.Message, "goroutine", "no stack traces")
	}
}

func TestReadFirst(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in   string
		first      string
		err        error
		initialize bool
	}{
		{name: "empty", in: "", err: io.EOF},
		{name: "white space", in: " \n\t", err: io.EOF},
		{name: "one request", in: `{"id":1}` + "\n", first: `{"id":1}`},
		{name: "initialize then more", in: `{"jsonrpc":"2.0","id":0,"method":"initialize"}` + "\n" + `{"next":1}` + "\n", first: `{"jsonrpc":"2.0","id":0,"method":"initialize"}`, initialize: true},
		{name: "stateless discover", in: `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`, first: `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`, initialize: true},
		{name: "stateless call", in: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"recall"}}`, first: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"recall"}}`, initialize: true},
		{name: "plain call", in: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":1},"name":"recall"}}`, first: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":1},"name":"recall"}}`},
		{name: "syntax error", in: `{"a":`, err: errParse},
		{name: "garbage", in: `]`, err: errParse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			first, replay, err := readFirst(strings.NewReader(tt.in))
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.first, string(first))
			assert.Equal(t, tt.initialize, opensSession(first))
			assert.Equal(t, jsonValues(t, strings.NewReader(tt.in)), jsonValues(t, replay), "the replay yields the whole input again")
		})
	}
}

// jsonValues decodes every JSON value of r.
func jsonValues(t *testing.T, r io.Reader) []string {
	t.Helper()
	var out []string
	dec := json.NewDecoder(r)
	for {
		var v json.RawMessage
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err)
		out = append(out, string(v))
	}
}

func FuzzOneShotRequest(f *testing.F) {
	seeds := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"compact_context","arguments":{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}],"target_ratio":0.5}}}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"compact_context","arguments":{"messages":[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":"r"}],"keep_last":1,"max_tokens":3}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"recall","arguments":{"text":"x","k":3}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"compact_context","arguments":{"messages":"nope"}}}`,
		`{"jsonrpc":"2.0","id":-1e3,"method":"x"}`,
		`[]`, `{`, `null`, `{"id":null}`, "\xff",
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"compact_context","arguments":{"messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":"{\"id\":\"AB12\"}"}],"query":"hi","relevance_reserve":0.5,"lexical":0.3,"mask":{"keep_recent":1,"min_tokens":1,"exclude_tools":["g"],"max_result_tokens":2,"list_values":-1,"actions":"score","restore":true}}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"compact_context","arguments":{"messages":[],"mask":[],"lexical":1e400,"relevance_reserve":-0}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"compact_context","arguments":{"messages":[],"mask":{"exclude_tools":{}},"keep_last":99999999999999999999}}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"compact_context\",\"arguments\":{\"messages\":[{\"role\":\"user\",\"content\":\"\xff\"}],\"target_ratio\":1}}}",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	a, _ := newTestApp(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		resp := a.answer(t.Context(), data)
		out, err := marshal(resp)
		require.NoError(t, err)
		checkResponse(t, out)
		require.True(t, utf8.Valid(out), "a response is UTF-8 JSON: %q", out)
		if resp.Error != nil && resp.Error.Code == jsonrpc.CodeInvalidParams {
			require.NotRegexp(t, `: want (main\.|\[\]|map\[|\*)`, resp.Error.Message, "JSON types, not Go ones")
		}
		if res, ok := resp.Result.(*toolResult); ok && res.IsError {
			require.NotRegexp(t, `: want (main\.|\[\]|map\[|\*)`, res.text, "JSON types, not Go ones")
		}
		if resp.Error != nil && resp.Error.Code == jsonrpc.CodeParseError {
			require.False(t, json.Valid(bytes.TrimSpace(data)))
		}
	})
}

// sessionResult sends one request to an MCP session over a (after the
// handshake) and returns the raw result the server wrote.
func sessionResult(t *testing.T, a *app, method string, params any) json.RawMessage {
	t.Helper()
	ctx := t.Context()
	conn, err := serverTransport(t, a).Connect(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	exchange := func(id int64, method string, params any) json.RawMessage {
		rid, err := jsonrpc.MakeID(float64(id))
		require.NoError(t, err)
		data, err := json.Marshal(params)
		require.NoError(t, err)
		require.NoError(t, conn.Write(ctx, &jsonrpc.Request{ID: rid, Method: method, Params: data}))
		msg, err := conn.Read(ctx)
		require.NoError(t, err)
		resp, ok := msg.(*jsonrpc.Response)
		require.True(t, ok, "%T", msg)
		require.NoError(t, resp.Error)
		return resp.Result
	}
	exchange(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "0"}})
	require.NoError(t, conn.Write(ctx, &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage("{}")}))
	return exchange(2, method, params)
}

// TestOneShotToolsListMatchesSession: one-shot mode lists the tools exactly
// as an MCP session does (the SDK fills in the cache fields the protocol
// requires, such as cacheScope "public", and sorts the tools by name).
func TestOneShotToolsListMatchesSession(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	var session, oneShot any
	require.NoError(t, json.Unmarshal(sessionResult(t, a, "tools/list", map[string]any{}), &session))

	resp := a.answer(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	require.Nil(t, resp.Error)
	data, err := marshal(resp.Result)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &oneShot))
	assert.Equal(t, session, oneShot)
}

// TestOneShotJudgesIDsAsSession: one-shot mode accepts and refuses request
// ids exactly as an MCP session does (by the number's decimal digits: a
// string, or an integer of at most 2^53 in magnitude), with the same
// -32600 message and a null id; it used to echo 1.5, 1e400 or 2^53+1,
// which a session refuses, so a request's answer depended on the mode.
func TestOneShotJudgesIDsAsSession(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	ids := []string{
		`7`, `-12`, `10.00`, `1.0`, `1e3`, `9007199254740992`, `"abc"`, `"\u00e9"`,
		`1.5`, `-1.5`, `1e400`, `-1e400`, `1e300`, `1e-1`, `9007199254740993`, `-9007199254740993`,
		`4503599627370496.5`, `123456789012345678901234567890`, `"\ud800"`,
	}
	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			line := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`
			rs := runSession(t, a, 64<<10, initializeLine, initializedLine, line)
			var session *wireResponse
			for i := range rs {
				if string(rs[i].ID) != "0" { // the initialize request's
					session = &rs[i]
				}
			}
			require.NotNil(t, session, "the session answers")

			resp := a.answer(t.Context(), []byte(line))
			data, err := marshal(resp)
			require.NoError(t, err)
			checkResponse(t, data)
			if session.Error != nil {
				require.NotNil(t, resp.Error, "the session refuses id %s, one-shot answers %s", id, resp.ID)
				assert.Equal(t, session.Error.Code, resp.Error.Code)
				assert.Equal(t, session.Error.Message, resp.Error.Message)
				assert.Equal(t, "null", string(resp.ID))
				return
			}
			require.Nil(t, resp.Error, "the session accepts id %s, one-shot refuses it: %s", id, resp.Error)
			var sessionID, oneShotID any
			require.NoError(t, json.Unmarshal(session.ID, &sessionID))
			require.NoError(t, json.Unmarshal(resp.ID, &oneShotID))
			assert.Equal(t, sessionID, oneShotID, "the same id")
		})
	}
}

// TestOneShotListParamsAsSession: tools/list params are judged as an MCP
// session judges them: a cursor that is not a string, or one this server
// never gave (its list has one page), is -32602 in both modes; one-shot
// mode ignored them and listed the tools.
func TestOneShotListParamsAsSession(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	for _, params := range []string{`{"cursor":5}`, `{"cursor":"abc"}`, `{"cursor":""}`, `{"_meta":{}}`, `{"x":1}`, `null`, `{"cursor":null}`} {
		t.Run(params, func(t *testing.T) {
			t.Parallel()
			line := `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":` + params + `}`
			session := byID(t, runSession(t, a, 64<<10, initializeLine, initializedLine, line), "7")
			resp := a.answer(t.Context(), []byte(line))
			if session.Error != nil {
				require.NotNil(t, resp.Error, "the session refuses %s, one-shot lists the tools", params)
				assert.Equal(t, session.Error.Code, resp.Error.Code)
				assert.Contains(t, resp.Error.Message, "cursor")
				return
			}
			assert.Nil(t, resp.Error, "the session lists the tools for %s, one-shot refuses: %v", params, resp.Error)
		})
	}
}

// TestOneShotParamsAsSession: tools/call and tools/list params are judged
// as an MCP session judges them, with the same error code and message: no params or
// null params for tools/call are -32600 (one-shot mode said -32602), a
// params._meta that is neither null nor an object is -32602 (one-shot mode
// ignored it and ran the call), and member names match exactly ("NAME" is
// not "name"; one-shot mode matched them case-insensitively).
func TestOneShotParamsAsSession(t *testing.T) {
	t.Parallel()
	call := func(params string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":` + params + `}`
	}
	list := func(params string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":` + params + `}`
	}
	checkBothModes(t, []modesCase{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call"}`, jsonrpc.CodeInvalidRequest, ""},
		{call(`null`), jsonrpc.CodeInvalidRequest, ""},
		{call(`[]`), jsonrpc.CodeInvalidParams, ""},
		{call(`5`), jsonrpc.CodeInvalidRequest, ""},
		{list(`"x"`), jsonrpc.CodeInvalidRequest, ""},
		{call(`{}`), jsonrpc.CodeInvalidParams, ""},
		{call(`{"name":5}`), jsonrpc.CodeInvalidParams, ""},
		{call(`{"NAME":"recall","arguments":{"text":"x"}}`), jsonrpc.CodeInvalidParams, ""},
		{call(`{"name":"recall","ARGUMENTS":{"text":"x"}}`), toolErr, "text: required (a non-empty string)"},
		{call(`{"name":"recall","arguments":{"text":"x"},"_meta":5}`), jsonrpc.CodeInvalidParams, ""},
		{call(`{"name":"recall","arguments":{"text":"x"},"_meta":"x"}`), jsonrpc.CodeInvalidParams, ""},
		{call(`{"name":"recall","arguments":{"text":"x"},"_meta":[]}`), jsonrpc.CodeInvalidParams, ""},
		{call(`{"name":"recall","arguments":{"text":"x"},"_META":5}`), 0, ""},
		{call(`{"name":"recall","arguments":{"text":"x"},"_meta":null}`), 0, ""},
		{call(`{"name":"recall","arguments":{"text":"x"},"_meta":{"progressToken":1}}`), 0, ""},
		{list(`{"_meta":5}`), jsonrpc.CodeInvalidParams, ""},
		{list(`{"_meta":[]}`), jsonrpc.CodeInvalidParams, ""},
		{list(`{"_meta":null}`), 0, ""},
		{list(`{"CURSOR":5}`), 0, ""},
	})
}

// TestOneShotHandshakeHint: a handshake that reaches one-shot mode can only
// come with --mode oneshot (auto mode opens a session for it), so its
// -32601 says to change the mode; it said "send initialize first", which
// the client had just done.
func TestOneShotHandshakeHint(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	for _, line := range []string{initializeLine, `{"jsonrpc":"2.0","id":1,"method":"server/discover"}`} {
		resp := a.answer(t.Context(), []byte(line))
		require.NotNil(t, resp.Error)
		assert.Equal(t, int64(jsonrpc.CodeMethodNotFound), resp.Error.Code)
		assert.Contains(t, resp.Error.Message, "--mode")
		assert.NotContains(t, resp.Error.Message, "send initialize first")
	}
	resp := a.answer(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"resources/list"}`))
	require.NotNil(t, resp.Error)
	assert.Contains(t, resp.Error.Message, "send initialize first", "another method still gets the hint to open a session")
}
