package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/chitta-go/chitta/examples/internal/clipmsg"
)

// envelope is the checked JSON-RPC 2.0 envelope of one message.
type envelope struct {
	id       json.RawMessage // as sent, trimmed; nil for a notification
	method   string          // "" for a response
	params   json.RawMessage // as sent, trimmed; nil when absent
	response bool            // a response to a call of ours (no method, a result or an error)
	ignored  bool            // a notification to drop unanswered (its params an array)
}

// utf8BOM is the byte order mark some Windows tools put before UTF-8 text.
var utf8BOM = []byte("\xef\xbb\xbf")

// readEnvelope checks data as one JSON-RPC 2.0 message and returns its
// envelope, or the error response to send: -32700 for text that is not
// JSON, -32600 for JSON that is not a request (a batch, a non-object, a bad
// id, version or method, params neither an object nor an array: JSON-RPC
// params are structured), -32602 for params that are an array (MCP's are
// objects).
//
// One-shot mode (session false) accepts only requests with an id. An MCP
// session (session true) also accepts notifications (no id) and responses;
// a notification whose params are an array is returned with ignored set,
// since JSON-RPC never answers a notification (-32602 is a method's
// error, and a notification has no response to carry it).
// An id must be a string or a number, and valid UTF-8 (it is echoed back
// as sent); null is not an id.
func readEnvelope(data []byte, session bool) (*envelope, *rpcResponse) {
	data = bytes.TrimSpace(data)
	if bytes.HasPrefix(data, utf8BOM) {
		return nil, rpcError(nullID, jsonrpc.CodeParseError, "parse error: the request starts with a byte order mark (send UTF-8 JSON without one)")
	}
	if !json.Valid(data) {
		return nil, rpcError(nullID, jsonrpc.CodeParseError, "%s", parseErrorMessage(json.Unmarshal(data, new(json.RawMessage))))
	}
	if data[0] != '{' {
		if data[0] == '[' {
			return nil, rpcError(nullID, jsonrpc.CodeInvalidRequest, "invalid request: batch requests are not supported, send one request object")
		}
		return nil, rpcError(nullID, jsonrpc.CodeInvalidRequest, "invalid request: want a JSON-RPC request object")
	}
	// A map, not a struct: keys match exactly, as JSON-RPC says (a struct
	// would take "ID" for "id").
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, rpcError(nullID, jsonrpc.CodeInvalidRequest, "invalid request: %v", err)
	}
	env := &envelope{}
	rawID, hasID := fields["id"]
	id := bytes.TrimSpace(rawID)
	switch {
	case !hasID && session:
		// A notification, or a response without an id (refused below).
	case !hasID || string(id) == "null":
		if session {
			return nil, rpcError(nullID, jsonrpc.CodeInvalidRequest, "invalid request: id: want a string or a number (leave it out for a notification)")
		}
		return nil, rpcError(nullID, jsonrpc.CodeInvalidRequest, "invalid request: id: required (one-shot mode answers requests, not notifications)")
	case id[0] != '"' && id[0] != '-' && (id[0] < '0' || id[0] > '9'):
		return nil, rpcError(nullID, jsonrpc.CodeInvalidRequest, "invalid request: id: want a string or a number")
	case !utf8.Valid(id): // echoed as is, it would make the response invalid JSON
		return nil, rpcError(nullID, jsonrpc.CodeInvalidRequest, "invalid request: id: not valid UTF-8")
	default:
		env.id = id
	}
	replyID := nullID
	if env.id != nil {
		replyID = env.id
	}
	var version string
	if json.Unmarshal(fields["jsonrpc"], &version) != nil || version != "2.0" {
		return nil, rpcError(replyID, jsonrpc.CodeInvalidRequest, `invalid request: jsonrpc: want "2.0"`)
	}
	rawMethod, hasMethod := fields["method"]
	_, hasResult := fields["result"]
	_, hasError := fields["error"]
	if session && !hasMethod && (hasResult || hasError) {
		if env.id == nil {
			return nil, rpcError(nullID, jsonrpc.CodeInvalidRequest, "invalid request: a response needs the id of its request")
		}
		env.response = true
		return env, nil
	}
	if json.Unmarshal(rawMethod, &env.method) != nil || env.method == "" {
		return nil, rpcError(replyID, jsonrpc.CodeInvalidRequest, "invalid request: method: want a non-empty string")
	}
	if raw, ok := fields["params"]; ok {
		env.params = bytes.TrimSpace(raw)
	}
	switch p := env.params; {
	case len(p) == 0, string(p) == "null", p[0] == '{':
	case p[0] != '[':
		return nil, rpcError(replyID, jsonrpc.CodeInvalidRequest, "invalid request: params: want an object")
	case env.id == nil:
		env.ignored = true
	default:
		return nil, rpcError(replyID, jsonrpc.CodeInvalidParams, "invalid params: params: want an object")
	}
	return env, nil
}

// callParamsRequired is the -32600 message for a tools/call without params.
const callParamsRequired = "invalid request: params: required (an object with the name of the tool to call and its arguments)"

// initializeParamsRequired is the -32600 message for an initialize without
// params.
const initializeParamsRequired = "invalid request: params: required (an object with the protocol version, the client's capabilities and its name and version)"

// protocolVersionRequired is the -32602 message (after "invalid params: ")
// for an initialize without a protocol version, or with "".
const protocolVersionRequired = "params.protocolVersion: required (the latest MCP version the client supports, such as 2025-11-25)"

// requestParams judges the params of a request (id set) as both modes do
// before the method runs, and returns its members by their exact names
// (slices of params: no copy), or the response refusing them:
//
//   - params._meta: null or an object, else -32602;
//   - params._meta.progressToken: null, a string or an integer (MCP: "MUST
//     be a string or integer value"; of at most 2^53 in magnitude, as ids,
//     which the SDK holds as float64), else -32602;
//   - tools/call: params required (-32600), params.name required and a
//     string (-32602);
//   - initialize: params required (-32600; with null params the SDK
//     answered -32603, its code-less error), params.protocolVersion
//     required and not "" (-32602: MCP's lifecycle has the client send
//     the version it supports; the SDK took {} and answered its own);
//   - logging/setLevel: params.level required and one of the levels MCP
//     names (MCP logging: an invalid level is -32602);
//   - tools/list: params.cursor null, absent, "" or else -32602 naming it
//     (the list has one page, so no cursor this server gave; the SDK said
//     only "invalid params").
//
// params has passed [readEnvelope]: absent, null or an object.
func requestParams(id json.RawMessage, method string, params json.RawMessage) (map[string]rawRef, *rpcResponse) {
	fields := map[string]rawRef{}
	if len(params) > 0 && string(params) != "null" {
		if err := json.Unmarshal(params, &fields); err != nil {
			return nil, rpcError(id, jsonrpc.CodeInvalidParams, "invalid params: %v", err)
		}
	} else if method == "tools/call" {
		return nil, rpcError(id, jsonrpc.CodeInvalidRequest, callParamsRequired)
	} else if method == "initialize" {
		return nil, rpcError(id, jsonrpc.CodeInvalidRequest, initializeParamsRequired)
	}
	if meta := bytes.TrimSpace(fields["_meta"]); len(meta) > 0 && string(meta) != "null" {
		if meta[0] != '{' {
			return nil, rpcError(id, jsonrpc.CodeInvalidParams, "invalid params: params._meta: want an object")
		}
		var m map[string]rawRef
		if err := json.Unmarshal(meta, &m); err != nil {
			return nil, rpcError(id, jsonrpc.CodeInvalidParams, "invalid params: params._meta: %v", err)
		}
		if tok := bytes.TrimSpace(m["progressToken"]); len(tok) > 0 && string(tok) != "null" && !progressToken(tok) {
			return nil, rpcError(id, jsonrpc.CodeInvalidParams, "invalid params: params._meta.progressToken: want a string or an integer of at most 2^53 in magnitude")
		}
	}
	if method == "logging/setLevel" {
		var level string
		if raw := bytes.TrimSpace(fields["level"]); len(raw) == 0 || string(raw) == "null" {
			return nil, rpcError(id, jsonrpc.CodeInvalidParams, "invalid params: params.level: required (%s)", logLevelNames)
		} else if json.Unmarshal(raw, &level) != nil || !slices.Contains(logLevels, level) {
			return nil, rpcError(id, jsonrpc.CodeInvalidParams, "invalid params: params.level: want %s", logLevelNames)
		}
	}
	if method == "initialize" {
		// Only absent, null and "" here: a version of another JSON type is
		// refused when the SDK decodes the params, in chitta's words too.
		if raw := bytes.TrimSpace(fields["protocolVersion"]); len(raw) == 0 || string(raw) == "null" || string(raw) == `""` {
			return nil, rpcError(id, jsonrpc.CodeInvalidParams, "invalid params: %s", protocolVersionRequired)
		}
	}
	if method == "tools/list" {
		if raw := bytes.TrimSpace(fields["cursor"]); len(raw) > 0 && string(raw) != "null" {
			var cursor string
			if json.Unmarshal(raw, &cursor) != nil {
				return nil, rpcError(id, jsonrpc.CodeInvalidParams, "invalid params: params.cursor: want a string")
			}
			if cursor != "" {
				return nil, rpcError(id, jsonrpc.CodeInvalidParams, "invalid params: params.cursor: %q is not a cursor of this server (its tool list has one page)", cursor)
			}
		}
	}
	if method == "tools/call" {
		var name string
		if raw := bytes.TrimSpace(fields["name"]); len(raw) == 0 || string(raw) == "null" {
			return nil, rpcError(id, jsonrpc.CodeInvalidParams, "invalid params: params.name: required (the tool to call)")
		} else if json.Unmarshal(raw, &name) != nil {
			return nil, rpcError(id, jsonrpc.CodeInvalidParams, "invalid params: params.name: want a string")
		}
	}
	return fields, nil
}

// logLevels are the levels of logging/setLevel (the syslog severities of
// RFC 5424 that MCP names), least severe first.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// logLevelNames lists logLevels for an error message.
const logLevelNames = "debug, info, notice, warning, error, critical, alert or emergency"

// progressToken reports whether the JSON value tok is a valid progress
// token: a string, or an integer of at most 2^53 in magnitude.
func progressToken(tok []byte) bool {
	if tok[0] == '"' {
		return true
	}
	if tok[0] != '-' && (tok[0] < '0' || tok[0] > '9') {
		return false
	}
	_, ok := integerLiteral(string(tok))
	return ok
}

// maxErrorMessage bounds the message of an error response, in bytes.
// Messages name the field first and may quote a value the request sent (a
// role, an argument name, a tool name): the quote is cut so that a huge
// value, a conversation pasted into the wrong field or a secret, is not
// sent back whole nor logged by one-shot mode.
const maxErrorMessage = clipmsg.Max

// clipMessage returns msg cut to at most maxErrorMessage bytes, at a
// character boundary, saying how many bytes it cut.
func clipMessage(msg string) string {
	return clipmsg.Cut(msg, maxErrorMessage)
}

// clipError returns e with its message cut by clipMessage (e itself when
// it is short enough).
func clipError(e *jsonrpc.Error) *jsonrpc.Error {
	if e == nil || len(e.Message) <= maxErrorMessage {
		return e
	}
	c := *e
	c.Message = clipMessage(e.Message)
	return &c
}

// clipResponse returns resp with its error message cut by clipMessage
// (resp itself when it is short enough).
func clipResponse(resp *rpcResponse) *rpcResponse {
	if resp.Error == nil || len(resp.Error.Message) <= maxErrorMessage {
		return resp
	}
	r := *resp
	r.Error = clipError(resp.Error)
	return &r
}
