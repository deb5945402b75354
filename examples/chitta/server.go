package main

import (
	"context"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// version is the chitta command's version, reported in the MCP handshake.
const version = "0.1.0"

// maxLineLength bounds one JSON-RPC message in an MCP session; a
// compact_context call carries a whole conversation.
const maxLineLength = 256 << 20

// newServer returns an MCP server exposing a's tools. The tools are added
// with the low-level Server.AddTool so that compact_context sees its
// arguments exactly as the client sent them (the typed mcp.AddTool
// re-encodes arguments through a map, which reorders keys and rounds big
// numbers in the caller's messages) and so that both modes validate
// arguments with the same code and messages.
func newServer(a *app) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "chitta", Version: version}, &mcp.ServerOptions{Logger: a.log})
	for _, t := range a.toolset {
		s.AddTool(t.def, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return a.callTool(ctx, req.Params.Name, req.Params.Arguments)
		})
	}
	return s
}

// serve runs an MCP session over r and w until the client disconnects or
// ctx is done.
func (a *app) serve(ctx context.Context, r io.Reader, w io.Writer) error {
	t := &mcp.IOTransport{Reader: io.NopCloser(r), Writer: nopWriteCloser{w}, MaxLineLength: maxLineLength}
	return newServer(a).Run(ctx, t)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
