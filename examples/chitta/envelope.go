package main

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// envelope is the checked JSON-RPC 2.0 envelope of one message.
type envelope struct {
	id       json.RawMessage // as sent, trimmed; nil for a notification
	method   string          // "" for a response
	params   json.RawMessage // as sent, trimmed; nil when absent
	response bool            // a response to a call of ours (no method, a result or an error)
}

// utf8BOM is the byte order mark some Windows tools put before UTF-8 text.
var utf8BOM = []byte("\xef\xbb\xbf")

// readEnvelope checks data as one JSON-RPC 2.0 message and returns its
// envelope, or the error response to send: -32700 for text that is not
// JSON, -32600 for JSON that is not a request (a batch, a non-object, a bad
// id, version or method), -32602 for params that are not an object.
//
// One-shot mode (session false) accepts only requests with an id. An MCP
// session (session true) also accepts notifications (no id) and responses.
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
	if p := env.params; len(p) > 0 && string(p) != "null" && p[0] != '{' {
		return nil, rpcError(replyID, jsonrpc.CodeInvalidParams, "invalid params: params: want an object")
	}
	return env, nil
}
