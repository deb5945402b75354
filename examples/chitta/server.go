package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// version is the chitta command's version, reported in the MCP handshake.
const version = "0.1.0"

// maxLineLength bounds one JSON-RPC message in an MCP session; a
// compact_context call carries a whole conversation (maxMessages of them
// at 600 bytes each fit). A longer line is answered with -32600 and
// skipped; a line is held whole while it is read, so the limit also bounds
// the memory one request takes before it is parsed.
const maxLineLength = 64 << 20

// defaultDrain is how long an MCP session waits, once stdin has closed,
// for the requests it read to be answered (the --timeout flag).
const defaultDrain = 60 * time.Second

// defaultStoreWait is how long chitta waits at start for a postgres://
// store to answer (the --store-timeout flag): less than the 30 s Claude
// Code waits for an MCP server's answer to initialize by default
// (MCP_TIMEOUT), so that a server that never answers is reported on
// stderr while the client is still listening, rather than chitta being
// stopped by the client with nothing said.
const defaultStoreWait = 20 * time.Second

// newServer returns an MCP server exposing a's tools. The tools are added
// with the low-level Server.AddTool so that compact_context sees its
// arguments exactly as the client sent them (the typed mcp.AddTool
// re-encodes arguments through a map, which reorders keys and rounds big
// numbers in the caller's messages) and so that both modes validate
// arguments with the same code and messages.
func newServer(a *app) *mcp.Server { return newSessionServer(a, nil) }

// newSessionServer is newServer with the stash through which the session's
// transport passes arguments too deep for the SDK (nil for none).
func newSessionServer(a *app, stash *argStash) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "chitta", Version: version}, &mcp.ServerOptions{
		Logger:                    slog.New(clientMistakes{a.log.Handler()}),
		SupportedProtocolVersions: protocolVersions(),
	})
	big := make(chan struct{}, 1)
	for _, t := range a.toolset {
		s.AddTool(t.def, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args := stash.take(req.Params.Arguments)
			if len(args) > bigArgs {
				select {
				case big <- struct{}{}:
					defer func() { <-big }()
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return a.callTool(ctx, req.Params.Name, args)
		})
	}
	return s
}

// protocolVersions are the MCP versions a session speaks: the SDK's but
// 2025-03-26, which required a server to accept JSON-RPC batches ("MUST
// support receiving JSON-RPC batches"; 2025-06-18 removed them), and
// chitta refuses a batch. A client asking for it is answered with the
// newest version initialize negotiates (MCP's lifecycle: a server that
// does not support the requested version answers another it supports).
func protocolVersions() []string {
	return slices.DeleteFunc(mcp.SupportedProtocolVersions(), func(v string) bool { return v == "2025-03-26" })
}

// undeclaredMethods are the methods of the capabilities a session does not
// declare (its initialize result lists tools and logging): the SDK would
// answer resources/list and prompts/list with empty lists and the others
// with its own errors, but MCP has a server that offers resources or
// prompts declare them, so a session answers these -32601, as one-shot
// mode answers every method but tools/list and tools/call.
var undeclaredMethods = []string{
	"resources/list", "resources/templates/list", "resources/read", "resources/subscribe", "resources/unsubscribe",
	"prompts/list", "prompts/get", "completion/complete",
}

// clientMistakeMessages are the SDK's ERROR records that report what a
// client did wrong (the client gets an error response for each): a
// client's mistake is not chitta's error, so they are logged at INFO.
var clientMistakeMessages = []string{
	"duplicate initialize request",
	"duplicate initialized notification",
	"initialized before initialize",
	"method invalid during initialization",
	"method removed in the new protocol",
}

// clientMistakes is the SDK's log handler: it passes every record to the
// handler it wraps, with those of clientMistakeMessages lowered from ERROR
// to INFO. It is safe for concurrent use when the wrapped handler is.
type clientMistakes struct{ slog.Handler }

// Handle passes r to the wrapped handler, lowered to INFO when it reports a
// client's mistake (and dropped when the wrapped handler does not take INFO).
func (h clientMistakes) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == slog.LevelError && slices.Contains(clientMistakeMessages, r.Message) {
		r.Level = slog.LevelInfo
		if !h.Handler.Enabled(ctx, r.Level) {
			return nil
		}
	}
	return h.Handler.Handle(ctx, r)
}

// WithAttrs returns the wrapped handler with attrs, still lowering.
func (h clientMistakes) WithAttrs(attrs []slog.Attr) slog.Handler {
	return clientMistakes{h.Handler.WithAttrs(attrs)}
}

// WithGroup returns the wrapped handler with the group, still lowering.
func (h clientMistakes) WithGroup(name string) slog.Handler {
	return clientMistakes{h.Handler.WithGroup(name)}
}

// bigArgs is the size of tool arguments beyond which a session runs the
// calls one at a time: the SDK runs tool calls concurrently, and a
// compaction holds a few KB per message, so a client pipelining several
// conversations near maxMessages would otherwise need their memory at
// once. Small calls (recall, remember, short conversations) never wait.
const bigArgs = 1 << 20

// stopGrace bounds how long a session stopped by a signal waits for the
// calls in progress (--timeout, when shorter).
const stopGrace = 5 * time.Second

// serve runs an MCP session over r and w until r ends (and the requests
// read from it are answered, waiting at most drain) or ctx is done.
//
// ctx done is a signal (SIGTERM, SIGINT) asking the server to stop, which
// is a clean shutdown, not an error: the session reads no new request and
// ends as at the end of input, waiting at most stopGrace (or drain, when
// shorter) for the calls in progress, whose writes are saved; serve then
// returns nil, with a warning in the log for any call still unanswered.
// (Cancelling the SDK's own context instead would drop the calls in
// progress at once, and the SDK would log the stop as an error.)
func (a *app) serve(ctx context.Context, r io.Reader, w io.Writer, drain time.Duration) error {
	stash := newArgStash()
	stop := make(chan struct{})
	t := &lineTransport{r: r, w: w, maxLine: maxLineLength, drain: drain, stash: stash, log: a.log, stop: stop, stopDrain: min(drain, stopGrace)}
	session, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel() // the calls still running once the session has ended give up
	defer context.AfterFunc(ctx, func() { close(stop) })()
	err := newSessionServer(a, stash).Run(session, t)
	n := 0
	if t.conn != nil {
		n = t.conn.Unanswered()
	}
	if ctx.Err() != nil {
		if n > 0 {
			a.log.Warn("stopped by a signal before every request was answered", "unanswered", n)
		}
		return nil
	}
	if n > 0 {
		return fmt.Errorf("%d requests still unanswered %v after the end of input (--timeout)", n, drain)
	}
	return err
}
