package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzSessionLines feeds arbitrary stdin to an MCP session (after the
// handshake when handshake is set) and checks every line it writes back
// against what JSON-RPC 2.0 asks of each input line, judged by
// [lineExpectation] from the line alone: one response for a request, with
// its id (null only when the id cannot be read back), none for a
// notification or a stray response, and the JSON-RPC code that the fault
// calls for (-32700 not JSON, -32600 not a request, params not structured
// included, -32601 unknown method, -32602 params an array). Every line
// written is one valid UTF-8 JSON-RPC 2.0 message (a response, or a
// notification of the server's) within the limits the server documents
// (maxLineLength, maxErrorMessage), none is -32603 (nothing fails on
// chitta's side), and the session ends at the end of input with nothing
// left unanswered.
func FuzzSessionLines(f *testing.F) {
	compact := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"compact_context","arguments":{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hello there"},{"role":"assistant","content":"hi"}],"target_ratio":0.5}}}`
	seeds := []struct {
		handshake bool
		lines     []string
	}{
		{false, []string{initializeLine, initializedLine, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`}},
		{true, []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`}},
		{true, []string{compact}},
		{true, []string{`{"jsonrpc":"2.0","id":"r","method":"tools/call","params":{"name":"remember","arguments":{"text":"the build uses make"}}}`, `{"jsonrpc":"2.0","id":"q","method":"tools/call","params":{"name":"recall","arguments":{"text":"build","k":2}}}`}},
		{true, []string{`[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`, `[]`}},
		{true, []string{`{"jsonrpc":"2.0","id":1,"method":"tools/li`, `not json`, "\xef\xbb\xbf{}", `NaN`, `{"a":`}},
		{true, []string{`{"jsonrpc":"1.0","id":2,"method":"tools/list"}`, `{"id":3,"method":"tools/list"}`, `{"jsonrpc":2,"method":"x"}`}},
		{true, []string{`{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":1e300,"method":"ping"}`, `{"jsonrpc":"2.0","id":-9007199254740992,"method":"ping"}`, `{"jsonrpc":"2.0","id":1.0e3,"method":"ping"}`, `{"jsonrpc":"2.0","id":"\ud800","method":"ping"}`}},
		{true, []string{`{"jsonrpc":"2.0","method":"notifications/whatever"}`, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"remember","arguments":{"text":"x"}}}`}},
		{true, []string{`{"jsonrpc":"2.0","method":"notifications/initialized","params":[1]}`, `{"jsonrpc":"2.0","method":"x","params":5}`}},
		{true, []string{`{"jsonrpc":"2.0","id":4,"method":"prompts/list"}`, `{"jsonrpc":"2.0","id":5,"method":"no/such"}`, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":[1]}`, `{"jsonrpc":"2.0","id":7,"method":"ping","params":"x"}`}},
		{true, []string{`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"nope"}}`, `{"jsonrpc":"2.0","id":9,"method":"logging/setLevel","params":{"level":"loud"}}`, `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"_meta":{"progressToken":1.5},"name":"recall"}}`}},
		{true, []string{`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"compact_context","arguments":{"messages":[{"role":"user","content":"hi"}]}}}`, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":11}}`}},
		{true, []string{`{"jsonrpc":"2.0","id":12,"result":{}}`, `{"jsonrpc":"2.0","result":{}}`, `{"jsonrpc":"2.0","id":null,"method":"ping"}`, `{"jsonrpc":"2.0","id":true,"method":"ping"}`}},
		{false, []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, initializeLine, initializeLine}},
		{true, []string{`{"jsonrpc":"2.0","id":13,"method":"notifications/cancelled","params":{"requestId":13}}`, `{"jsonrpc":"2.0","id":14,"method":"notifications/initialized"}`}},
		{false, []string{`{"jsonrpc":"2.0","id":0,"method":"initialize","params":null}`, `{"jsonrpc":"2.0","id":1,"method":"initialize"}`, initializeLine, `{"jsonrpc":"2.0","id":2,"method":"initialize","params":null}`}},
		{true, []string{`{"jsonrpc":"2.0","id":15,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}`, `{"jsonrpc":"2.0","id":16,"method":"ping"}`}},
		{false, []string{`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"recall","arguments":{"text":"x"}}}`}},
	}
	// The stateless protocol (MCP 2026-07-28): every request carries its
	// version, capabilities and client in params._meta.
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"}}`
	seeds = append(seeds, struct {
		handshake bool
		lines     []string
	}{false, []string{
		`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{` + meta + `,"name":"remember","arguments":{"text":"x"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"subscriptions/listen","params":{` + meta + `,"notifications":{"toolsListChanged":true}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`,
	}})
	for _, s := range seeds {
		f.Add(s.handshake, []byte(strings.Join(s.lines, "\n")))
	}
	f.Fuzz(func(t *testing.T, handshake bool, data []byte) {
		input := data
		if handshake {
			input = slices.Concat([]byte(initializeLine+"\n"+initializedLine+"\n"), data)
		}
		a, _ := newTestApp(t)
		var out bytes.Buffer
		require.NoError(t, a.serve(t.Context(), bytes.NewReader(input), &out, time.Minute))
		checkSession(t, input, out.Bytes())
	})
}

// checkSession checks the output of a session over input: each line a
// response or a notification of the server's, and the responses exactly
// those the lines of input call for.
func checkSession(t *testing.T, input, output []byte) {
	t.Helper()
	require.True(t, len(output) == 0 || bytes.HasSuffix(output, []byte("\n")), "the output ends with a line end: %q", output)
	var got []wireResponse
	for line := range bytes.Lines(output) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		require.NotContains(t, string(line), "\n")
		require.LessOrEqual(t, len(line), maxLineLength)
		require.True(t, utf8.Valid(line), "a response is UTF-8: %q", line)
		if isNotification(t, line) {
			continue // the server's own (a subscription stream's acknowledgement)
		}
		var r wireResponse
		require.NoError(t, json.Unmarshal(line, &r))
		r.raw = string(line)
		if r.Error != nil && slices.Contains(statelessCodes, r.Error.Code) {
			var v struct {
				JSONRPC string `json:"jsonrpc"`
			}
			require.NoError(t, json.Unmarshal(line, &v))
			require.Equal(t, "2.0", v.JSONRPC, "%s", line)
			require.NotEmpty(t, r.ID, "%s", line)
		} else {
			checkResponse(t, line) // the codes JSON-RPC defines, without data
		}
		if r.Error != nil {
			require.LessOrEqual(t, len(r.Error.Message), maxErrorMessage, "%s", line)
			// Nothing fails on chitta's side here (no signal, a store in
			// memory, the hash embedder): -32603 would be a client's
			// mistake under the wrong code.
			require.NotEqual(t, int64(jsonrpc.CodeInternalError), r.Error.Code, "%s", line)
		}
		got = append(got, r)
	}
	cancels := bytes.Contains(input, []byte("notifications/cancelled"))
	var want []expectation
	var lines []string
	for line := range bytes.Lines(input) {
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		e := lineExpectation(line)
		if e.request && cancels {
			e.optional = true // the client may have cancelled it: then it gets no response
		}
		if e.answered {
			want = append(want, e)
			lines = append(lines, string(line))
		}
	}
	matchResponses(t, got, want, lines)
}

// statelessCodes are the errors MCP 2026-07-28 defines for a request of
// the stateless protocol whose params._meta the server cannot serve (an
// unsupported version, missing client capabilities), with data naming
// what it supports.
var statelessCodes = []int64{mcp.CodeHeaderMismatch, mcp.CodeMissingRequiredClientCapabilities, mcp.CodeUnsupportedProtocolVersion}

// isNotification reports whether the output line is a notification of the
// server's, failing unless it is a valid one.
func isNotification(t *testing.T, line []byte) bool {
	t.Helper()
	var m struct {
		JSONRPC string           `json:"jsonrpc"`
		ID      *json.RawMessage `json:"id"`
		Method  *string          `json:"method"`
		Params  json.RawMessage  `json:"params"`
	}
	require.NoError(t, json.Unmarshal(line, &m), "%s", line)
	if m.Method == nil {
		return false
	}
	require.Nil(t, m.ID, "the server sends no requests: %s", line)
	require.Equal(t, "2.0", m.JSONRPC, "%s", line)
	require.NotEmpty(t, *m.Method, "%s", line)
	require.True(t, len(m.Params) == 0 || m.Params[0] == '{', "%s", line)
	return true
}

// expectation is the response one input line calls for.
type expectation struct {
	answered bool     // the line gets a response (else none)
	optional bool     // it may get none (a request the client may have cancelled, a stream)
	request  bool     // the line is a request that the session runs
	ids      []string // the ids the response may carry, as canonicalID gives them
	codes    []int64  // the error codes it may carry; nil: any, or a result
}

// lineExpectation judges one input line as JSON-RPC 2.0 does, from the
// line alone.
func lineExpectation(line []byte) expectation {
	line = bytes.TrimSpace(line)
	refused := func(code int64, ids ...string) expectation {
		return expectation{answered: true, ids: ids, codes: []int64{code}}
	}
	switch {
	case len(line) == 0:
		return expectation{}
	case !json.Valid(line) || bytes.HasPrefix(line, utf8BOM):
		return refused(jsonrpc.CodeParseError, "null")
	case line[0] != '{':
		return refused(jsonrpc.CodeInvalidRequest, "null")
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(line, &fields) != nil {
		return refused(jsonrpc.CodeInvalidRequest, "null")
	}
	var version, method string
	versionOK := json.Unmarshal(fields["jsonrpc"], &version) == nil && version == "2.0"
	methodOK := json.Unmarshal(fields["method"], &method) == nil && method != ""
	_, hasMethod := fields["method"]
	_, hasResult := fields["result"]
	_, hasError := fields["error"]
	response := !hasMethod && (hasResult || hasError)
	params := bytes.TrimSpace(fields["params"])
	structured := len(params) == 0 || string(params) == "null" || params[0] == '{' || params[0] == '['

	rawID, hasID := fields["id"]
	rawID = bytes.TrimSpace(rawID)
	if !hasID {
		switch {
		case !versionOK, response, !methodOK, !structured:
			return refused(jsonrpc.CodeInvalidRequest, "null")
		}
		return expectation{} // a notification: never answered
	}
	if (rawID[0] != '"' && rawID[0] != '-' && (rawID[0] < '0' || rawID[0] > '9')) || !utf8.Valid(rawID) {
		return refused(jsonrpc.CodeInvalidRequest, "null") // null, a boolean, an object, an array, or bytes that are not text
	}
	id := canonicalID(rawID)
	switch {
	case versionOK && response:
		return expectation{} // a stray response: dropped
	case !versionOK, !methodOK, !structured:
		return refused(jsonrpc.CodeInvalidRequest, id)
	case len(params) > 0 && params[0] == '[':
		return refused(jsonrpc.CodeInvalidParams, id)
	case !exactID(rawID):
		// The SDK would answer with another id (a rounded number, a lone
		// surrogate replaced): refused with null, as for an id unread.
		return refused(jsonrpc.CodeInvalidRequest, "null", id)
	}
	e := expectation{answered: true, request: true, ids: []string{id}}
	// A stream, answered only when the client cancels it, ends unanswered
	// with the session.
	e.optional = method == listenMethod
	if !slices.Contains(servedMethods, method) {
		// -32600 before initialize, or when the id is already in use;
		// -32602 for params every request shares that are wrong (a
		// params._meta that is not an object).
		e.codes = []int64{jsonrpc.CodeMethodNotFound, jsonrpc.CodeInvalidRequest}
		if len(params) > 0 && params[0] == '{' {
			e.codes = append(e.codes, jsonrpc.CodeInvalidParams)
		}
	}
	return e
}

// servedMethods are the requests the SDK's server handles (the others are
// -32601, or -32600 before initialize).
var servedMethods = []string{"initialize", "ping", "tools/list", "tools/call", "logging/setLevel", "server/discover", "subscriptions/listen"}

// canonicalID returns the JSON id raw (a string, a number or null) in a
// form equal for equal ids: a string decoded, a number as its significant
// digits and exponent (1e3 and 1000 are one id; the SDK re-encodes them).
func canonicalID(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return "null"
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "bad string " + string(raw)
		}
		return "string " + s
	}
	digits, exp, ok := decimal(string(raw))
	if !ok {
		return "number " + string(raw)
	}
	return "number " + digits + "e" + strconv.Itoa(exp)
}

// decimal returns the JSON number lit as sign and significant digits
// (no leading or trailing zeros) times 10^exp; ok is false when the
// exponent does not fit an int. Zero is "0e0".
func decimal(lit string) (digits string, exp int, ok bool) {
	sign, rest := "", lit
	if strings.HasPrefix(rest, "-") {
		sign, rest = "-", rest[1:]
	}
	mant, e, _ := strings.Cut(strings.ToLower(rest), "e")
	if e != "" {
		var err error
		if exp, err = strconv.Atoi(e); err != nil || exp > 1<<40 || exp < -(1<<40) {
			return "", 0, false
		}
	}
	whole, frac, _ := strings.Cut(mant, ".")
	d := strings.TrimLeft(whole+frac, "0")
	exp -= len(frac)
	trimmed := strings.TrimRight(d, "0")
	exp += len(d) - len(trimmed)
	if trimmed == "" {
		return "0", 0, true
	}
	return sign + trimmed, exp, true
}

// exactID reports whether the SDK answers the id raw (a string or a
// number, valid UTF-8) with the same id: an integer of at most 2^53 in
// magnitude, or a string without a lone surrogate escape.
func exactID(raw []byte) bool {
	if raw[0] == '"' {
		return !loneSurrogate(raw)
	}
	digits, exp, ok := decimal(string(raw))
	if !ok || exp < 0 {
		return false
	}
	digits = strings.TrimPrefix(digits, "-")
	if len(digits)+exp > 16 {
		return false
	}
	n, err := strconv.ParseInt(digits+strings.Repeat("0", exp), 10, 64)
	return err == nil && n <= 1<<53
}

// loneSurrogate reports whether the JSON string raw holds a \u escape of a
// UTF-16 surrogate that is not one half of a pair.
func loneSurrogate(raw []byte) bool {
	s := string(raw)
	high := false // the previous escape was a high surrogate
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			if high {
				return true
			}
			continue
		}
		i++
		if s[i] != 'u' {
			if high {
				return true
			}
			continue
		}
		v, _ := strconv.ParseUint(s[i+1:i+5], 16, 16)
		i += 4
		switch {
		case v >= 0xD800 && v < 0xDC00:
			if high {
				return true
			}
			high = true
		case v >= 0xDC00 && v < 0xE000:
			if !high {
				return true
			}
			high = false
		default:
			if high {
				return true
			}
		}
	}
	return high
}

// matchResponses checks that the responses got are exactly those want
// calls for, in any order (the session answers calls concurrently): every
// response answers a line of its own, and every line that must be
// answered is. One matching covers both when each has a matching of its
// own (Mendelsohn–Dulmage), so each is looked for on its own.
func matchResponses(t *testing.T, got []wireResponse, want []expectation, lines []string) {
	t.Helper()
	fits := func(r wireResponse, e expectation) bool {
		if !slices.Contains(e.ids, canonicalID(r.ID)) {
			return false
		}
		if e.codes == nil || e.request && r.Error != nil && slices.Contains(statelessCodes, r.Error.Code) {
			return true
		}
		return r.Error != nil && slices.Contains(e.codes, r.Error.Code)
	}
	for i := range unmatched(len(got), len(want), func(i, j int) bool { return fits(got[i], want[j]) }) {
		assert.Failf(t, "a response answers no line of the input", "%s (among %d responses for %d lines)", got[i].raw, len(got), len(want))
	}
	var required []int // indexes in want
	for j, e := range want {
		if !e.optional {
			required = append(required, j)
		}
	}
	for k := range unmatched(len(required), len(got), func(k, i int) bool { return fits(got[i], want[required[k]]) }) {
		e := want[required[k]]
		assert.Failf(t, "a line got no response", "line %q wants one with an id of %v and a code of %v", lines[required[k]], e.ids, e.codes)
	}
}

// unmatched returns the left vertices that a maximum matching of the
// bipartite graph with edges edge(left, right) leaves out (Kuhn's
// augmenting paths).
func unmatched(left, right int, edge func(l, r int) bool) map[int]bool {
	owner := make([]int, right)
	for r := range owner {
		owner[r] = -1
	}
	var augment func(l int, seen []bool) bool
	augment = func(l int, seen []bool) bool {
		for r := range right {
			if seen[r] || !edge(l, r) {
				continue
			}
			seen[r] = true
			if owner[r] < 0 || augment(owner[r], seen) {
				owner[r] = l
				return true
			}
		}
		return false
	}
	out := map[int]bool{}
	for l := range left {
		if !augment(l, make([]bool, right)) {
			out[l] = true
		}
	}
	return out
}
