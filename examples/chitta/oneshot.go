package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rpcResponse is a JSON-RPC 2.0 response: exactly one of Result and Error
// is set.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *jsonrpc.Error  `json:"error,omitempty"`
}

// toolResult is a CallToolResult as one-shot mode writes it. The SDK's
// own encoding escapes <, > and & inside the structured content; this one
// writes the kept messages exactly as the caller sent them (white space
// aside).
type toolResult struct {
	Content           []json.RawMessage `json:"content"`
	StructuredContent json.RawMessage   `json:"structuredContent,omitempty"`
	IsError           bool              `json:"isError,omitempty"`

	text string // the first text content, for the exit message
}

func wireResult(res *mcp.CallToolResult) *toolResult {
	out := &toolResult{Content: []json.RawMessage{}, IsError: res.IsError}
	for _, c := range res.Content {
		var data []byte
		var err error
		if tc, ok := c.(*mcp.TextContent); ok {
			data, err = marshal(struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}{"text", tc.Text})
			if out.text == "" {
				out.text = tc.Text
			}
		} else {
			data, err = json.Marshal(c)
		}
		if err == nil {
			out.Content = append(out.Content, data)
		}
	}
	if raw, ok := res.StructuredContent.(json.RawMessage); ok {
		out.StructuredContent = raw
	} else if res.StructuredContent != nil {
		if data, err := marshal(res.StructuredContent); err == nil {
			out.StructuredContent = data
		}
	}
	return out
}

// nullID is the id of a response to a request whose id cannot be read.
var nullID = json.RawMessage("null")

func rpcError(id json.RawMessage, code int64, format string, args ...any) *rpcResponse {
	return &rpcResponse{JSONRPC: "2.0", ID: id, Error: &jsonrpc.Error{Code: code, Message: fmt.Sprintf(format, args...)}}
}

// opensSession reports whether the first JSON value read from stdin starts
// an MCP session rather than a one-shot request: a request whose method is
// "initialize" (the classic handshake) or "server/discover" (the stateless
// handshake of MCP 2026-07-28, which the SDK's client tries first), or any
// request that carries an MCP protocol version in params._meta (a stateless
// MCP client may skip the handshake). Anything else, including malformed
// JSON, is a one-shot request.
func opensSession(first json.RawMessage) bool {
	var probe struct {
		Method string `json:"method"`
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(first, &probe) != nil {
		return false
	}
	if probe.Method == "initialize" || probe.Method == "server/discover" {
		return true
	}
	_, ok := probe.Params.Meta[mcp.MetaKeyProtocolVersion]
	return ok
}

// readFirst reads the first JSON value of r. It returns the value's bytes
// and a reader that yields the value again (on one line) followed by the
// rest of r, for the MCP session. It returns io.EOF when r holds only white space, and
// errParse (wrapping the decoder's error) when the first value is not JSON.
func readFirst(r io.Reader) (json.RawMessage, io.Reader, error) {
	dec := json.NewDecoder(r)
	var first json.RawMessage
	if err := dec.Decode(&first); err != nil {
		var syntax *json.SyntaxError
		switch {
		case errors.Is(err, io.EOF):
			return nil, nil, io.EOF
		case errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF):
			return nil, nil, fmt.Errorf("%w: %v", errParse, err)
		default:
			return nil, nil, fmt.Errorf("read stdin: %w", err)
		}
	}
	// The session reads one message per line: the first goes back on one.
	var line bytes.Buffer
	if err := json.Compact(&line, first); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errParse, err)
	}
	line.WriteByte('\n')
	replay := io.MultiReader(&line, dec.Buffered(), r)
	return first, replay, nil
}

// errParse reports a first value on stdin that is not JSON.
var errParse = errors.New("parse error")

// answer handles one one-shot request and returns its response. It never
// fails: every problem becomes a JSON-RPC error or a tool error.
//
// Its ids are judged as an MCP session judges them (see [sessionID]): a
// string, or a number whose decimal digits make an integer of at most 2^53
// in magnitude, echoed as sent; any other number (1.5, 1e400, 2^53+1) or a
// string with a lone surrogate gets -32600 with a null id, the id "that
// could not be detected" of JSON-RPC 2.0. That spec says ids SHOULD NOT
// have fractional parts, and most clients read numbers as float64, which
// cannot match such an id exactly; above all, the same request gets the
// same answer in both modes (--mode auto picks the mode by the first
// message, so a client may meet either). Its params are judged as a
// session judges them too (see [requestParams]): a tools/call without params
// is -32600.
func (a *app) answer(ctx context.Context, data []byte) *rpcResponse {
	return clipResponse(a.respond(ctx, data))
}

// respond is answer without the cut of long error messages.
func (a *app) respond(ctx context.Context, data []byte) *rpcResponse {
	env, bad := readEnvelope(data, false)
	if bad != nil {
		return bad
	}
	if _, msg := sessionID(env.id); msg != "" {
		return rpcError(nullID, jsonrpc.CodeInvalidRequest, "invalid request: id: %s", msg)
	}
	id, method, params := env.id, env.method, env.params
	switch method {
	case "tools/call":
		fields, bad := requestParams(id, method, params)
		if bad != nil {
			return bad
		}
		var name string
		_ = json.Unmarshal(fields["name"], &name) // a string: requestParams checked it
		res, err := a.callTool(ctx, name, json.RawMessage(fields["arguments"]))
		if err != nil {
			var wire *jsonrpc.Error
			if errors.As(err, &wire) {
				return &rpcResponse{JSONRPC: "2.0", ID: id, Error: wire}
			}
			return rpcError(id, jsonrpc.CodeInternalError, "internal error: %v", err)
		}
		return &rpcResponse{JSONRPC: "2.0", ID: id, Result: wireResult(res)}
	case "tools/list":
		// The cursor is judged as a session judges it (requestParams).
		if _, bad := requestParams(id, method, params); bad != nil {
			return bad
		}
		// As an MCP session lists them: sorted by name, with the cache
		// scope the protocol requires on the wire (the SDK's default).
		defs := make([]*mcp.Tool, len(a.toolset))
		for i, t := range a.toolset {
			defs[i] = t.def
		}
		slices.SortFunc(defs, func(x, y *mcp.Tool) int { return strings.Compare(x.Name, y.Name) })
		return &rpcResponse{JSONRPC: "2.0", ID: id, Result: &mcp.ListToolsResult{Tools: defs, Cacheable: mcp.Cacheable{CacheScope: "public"}}}
	case "initialize", "server/discover":
		// --mode auto opens a session for a handshake: this is --mode oneshot.
		return rpcError(id, jsonrpc.CodeMethodNotFound,
			"method not found: %q (--mode oneshot answers one tools/call or tools/list; run chitta with --mode auto or serve for an MCP session)", method)
	default:
		return rpcError(id, jsonrpc.CodeMethodNotFound,
			"method not found: %q (one-shot mode answers tools/call and tools/list; send initialize first for an MCP session)", method)
	}
}

// errRequestFailed is returned by run when one-shot mode answered with an
// error, so that the process exits 1 after writing the response.
var errRequestFailed = errors.New("request failed")

// oneShot answers the single request first on w.
func (a *app) oneShot(ctx context.Context, first json.RawMessage, w io.Writer) error {
	return writeResponse(w, a.answer(ctx, first))
}

// writeParseError answers a first value on stdin that is not JSON.
func (a *app) writeParseError(w io.Writer, err error) error {
	a.log.Debug("one-shot", "err", err)
	return writeResponse(w, rpcError(nullID, jsonrpc.CodeParseError, "%s", parseErrorMessage(err)))
}

// maxJSONDepth is encoding/json's nesting limit, beyond which it rejects
// any JSON text.
const maxJSONDepth = 10000

// parseErrorMessage is the -32700 message for a request that is not
// JSON, err the decoder's error: JSON nested beyond the decoder's limit
// says so, since it is valid JSON that cannot be read.
func parseErrorMessage(err error) string {
	if err != nil && strings.Contains(err.Error(), "exceeded max depth") {
		return fmt.Sprintf("parse error: the request nests deeper than %d levels, the JSON decoder's limit", maxJSONDepth)
	}
	return "parse error: the request is not valid JSON"
}

// writeResponse writes resp as one line and returns errRequestFailed
// (wrapping the error message) when it reports a failure.
func writeResponse(w io.Writer, resp *rpcResponse) error {
	resp = clipResponse(resp)
	data, err := marshal(resp)
	if err != nil {
		// Only a result that cannot be encoded gets here.
		resp = rpcError(resp.ID, jsonrpc.CodeInternalError, "internal error: encode response: %v", err)
		data, _ = marshal(resp)
	}
	if _, err := w.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("write response: %w", err)
	}
	if resp.Error != nil {
		return fmt.Errorf("%w: %s", errRequestFailed, resp.Error.Message)
	}
	if res, ok := resp.Result.(*toolResult); ok && res.IsError {
		return fmt.Errorf("%w: %s", errRequestFailed, res.text)
	}
	return nil
}
