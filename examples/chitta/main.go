// Command chitta serves chitta's memory-aware context compaction to AI
// agents, as an MCP server over stdio or as a one-shot JSON-RPC filter.
//
// Usage:
//
//	chitta [--store PATH|postgres://URL] [--embedder hash|hash:DIMS|llamacpp[+PRESET]:PATH|openai[+PRESET]:URL#MODEL]
//	       [--mode auto|serve|oneshot] [--tokenizer estimate|o200k_base|cl100k_base]
//	       [--timeout 60s] [--store-timeout 20s] [--verbose]
//
// With --mode auto (the default) chitta reads the first JSON value on stdin
// to choose its mode:
//
//   - an "initialize" or "server/discover" request, or any request whose
//     params._meta carries an MCP protocol version, opens an MCP session
//     (what MCP clients such as Claude Code, Claude Desktop or an SDK client
//     send first); chitta serves it until stdin closes, then answers the
//     requests already read (waiting at most --timeout; a subscriptions/listen
//     stream ends with the session) and exits. The
//     session reads one JSON-RPC message per line: a line that is not JSON
//     gets -32700, one that is not a request (a batch, an id that is not a
//     string or an integer, a version other than "2.0", params neither an
//     object nor an array) -32600, a line over
//     64 MiB -32600, and the session goes on; params are judged as
//     one-shot mode judges them, in its words (a tools/call without params
//     -32600, without a name -32602, a params._meta.progressToken that is
//     not a string or an integer, a logging/setLevel level that is not
//     one of MCP's eight -32602), and a request out of order (a
//     call before initialize, a second initialize) -32600; the methods
//     of capabilities the session does not declare (it declares tools
//     and logging: resources/*, prompts/*, completion/complete) -32601,
//     and the SDK's log records of a client's mistake are at INFO, not
//     ERROR; a call the client cancels (notifications/cancelled) gets no
//     response, as MCP asks, nor does a notification whose params are an
//     array (dropped: JSON-RPC never answers a notification);
//   - anything else is a one-shot request: chitta answers that single
//     request on stdout and exits, without a handshake. It answers
//     tools/call and tools/list; malformed JSON gets -32700, a non-request
//     (an id as a session refuses it included) -32600, another method
//     -32601, an unknown tool -32602, bad arguments a tool result with
//     isError (as in a session: MCP 2025-11-25, SEP-1303). The exit status
//     is 0 for a successful result and 1 for an error response or a
//     result with isError. Input after
//     the first value is not read.
//
// An error message names the field first and quotes at most about 1 KiB
// of what the request sent (a role, an argument or tool name): the rest is
// cut, in both modes and on one-shot mode's stderr line.
//
// --mode serve and --mode oneshot skip the detection.
//
// SIGTERM or SIGINT stops chitta cleanly, with exit status 0 and nothing on
// stderr: an MCP session handles no new request (one read after the
// signal gets -32603 at once), waits at most 5 s (or
// --timeout, when shorter) for the calls in progress (a call still
// unanswered then is logged as a warning) and exits; a chitta still waiting
// for its first message (or for its postgres:// store to open) exits at
// once, as does one still waiting for its embedder's probe. A one-shot request in progress
// ends as its call does (its context is cancelled). A second signal kills
// at once. Whatever ends it, chitta saves before it exits the memories
// whose save failed (the call that stored them reported the failure, but
// the session kept serving them), so that none is lost for want of a later
// write; if that save fails too, the exit status is 1 and stderr says how
// many changes were lost. A save waits for another process's store lock
// at most 10 s, or --timeout when shorter (in both modes), and the final
// save right after one that found the store locked (a one-shot remember's)
// at most 1 s more, not the whole wait again. After a signal, a
// save waits for another process's store lock only until the 5 s (or
// --timeout) are over.
//
// Tools: compact_context (messages, query, target_ratio, distill_novel,
// novel_threshold, max_tokens, keep_last, relevance_reserve, lexical, mask,
// tokenizer),
// remember (text, kind, confidence), recall (text, k, min_similarity), list_memories (kinds,
// exclude_kinds, limit, offset; newest first) and forget (id). The memory
// store (default: the working directory's project's, see --store) is
// loaded from --store at start (a missing or empty file is an empty store, a corrupt one stops
// chitta with an error and is never overwritten) and saved atomically after
// every write. With --store postgres://… the memories live in PostgreSQL
// with pgvector instead (package pgstore; chitta_table, chitta_namespace
// and chitta_index query parameters choose the table, namespace and index
// kind), shared by every process and machine that opens the same URL; the
// password is never printed. A --store that looks like a URL but is not a
// postgres:// or postgresql:// one (it holds "://", starts with postgres:,
// pg: or postgres//, or has a user:password@ part), or a keyword/value
// connection string, stops chitta with exit status 1 and an error that
// does not repeat it. A table that holds memories without its index
// is searched without it, not indexed at start (a warning gives the
// statement that builds it). Opening it at start waits at most --store-timeout (default 20
// s) for the server to answer (a URL's connect_timeout, when shorter,
// bounds each connection attempt); a server that does not answer by then
// stops chitta before it reads stdin, with exit status 1 and an error
// naming the store. --store-timeout bounds an openai: embedder's probe
// (one text embedded at start to learn the dimension) as well, the probe
// and the store's open together, with an error naming the embedder
// (without its secrets). The default is under the wait of an MCP client that
// starts chitta (Claude Code gives a server 30 s to answer initialize
// unless MCP_TIMEOUT says otherwise), so that the client is still
// listening when chitta says why it stopped. Logs go to stderr; stdout carries only JSON-RPC.
//
// compact_context counts its budget and stats with the tokenizer a call
// names, else --tokenizer: estimate (the default, chitta.EstimateTokens:
// words × 1.3), or o200k_base or cl100k_base (exact OpenAI encodings from
// package github.com/chitta-go/chitta/tiktoken, compiled in; their counts
// are cached for the process).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/chitta-go/chitta/examples/internal/embedspec"
	"github.com/chitta-go/chitta/examples/internal/flagsafe"
	"github.com/chitta-go/chitta/examples/internal/storepath"
	"github.com/chitta-go/chitta/pgstore"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop) // after the first signal, a second one kills at once
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "chitta:", err)
		os.Exit(1)
	}
}

// config is the command line.
type config struct {
	store    string
	embedder string
	mode     string
	verbose  bool
	timeout  time.Duration // the drain at the end of input (--timeout)

	storeTimeout time.Duration // the wait for a postgres:// store at start (--store-timeout)

	tokenizer string
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("chitta", flag.ContinueOnError)
	// The flag package would print a parse error quoting the value, and the
	// usage after it: errors are reported on one line by main, without the
	// value (flagsafe); the usage is printed only for -h.
	fs.SetOutput(io.Discard)
	c := &config{}
	fs.StringVar(&c.store, "store", "", storepath.FlagUsage)
	fs.StringVar(&c.embedder, "embedder", "hash", "embedder: hash, hash:DIMS, llamacpp[+PRESET]:PATH (needs -tags llamacpp) or openai[+PRESET]:URL#MODEL; PRESET nomic, e5 or bge gives an asymmetric model its query/document prefixes")
	fs.StringVar(&c.mode, "mode", "auto", "auto (choose by the first message), serve (MCP session) or oneshot (answer one request)")
	fs.BoolVar(&c.verbose, "verbose", false, "log debug messages (and the MCP SDK's) to stderr")
	fs.StringVar(&c.tokenizer, "tokenizer", tokenizerEstimate, "how compact_context counts tokens when a call names no tokenizer: "+strings.Join(tokenizerNames, ", ")+" (exact OpenAI encodings; estimate is words × 1.3)")
	fs.DurationVar(&c.timeout, "timeout", defaultDrain, "in an MCP session, how long to wait once stdin closes for the requests already read to be answered; in both modes, the most a save waits for another process's store lock (10s at most)")
	fs.DurationVar(&c.storeTimeout, "store-timeout", defaultStoreWait, "how long to wait at start for a postgres:// --store and an openai: --embedder's probe to answer (the two together); keep it under the MCP client's start-up wait (Claude Code's MCP_TIMEOUT, 30s by default)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: chitta [flags] < requests\n\n"+
			"Serves compact_context, remember, recall, list_memories and forget as an MCP server\n"+
			"over stdio when the first message on stdin opens an MCP session (initialize); otherwise\n"+
			"answers that one JSON-RPC request (tools/call or tools/list) on stdout and exits.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fs.Usage()
			return nil, err
		}
		return nil, flagsafe.WithoutValue(fs, err)
	}
	if fs.NArg() > 0 {
		return nil, flagsafe.Unexpected(fs.NArg(), "requests are read from stdin")
	}
	switch c.mode {
	case "auto", "serve", "oneshot":
	default:
		return nil, fmt.Errorf("--mode: want auto, serve or oneshot (the value is %s)", flagsafe.NotRepeated)
	}
	if err := checkTokenizer("--tokenizer", c.tokenizer); err != nil {
		return nil, err
	}
	if c.timeout <= 0 {
		return nil, fmt.Errorf("--timeout %v: want > 0", c.timeout)
	}
	if c.storeTimeout <= 0 {
		return nil, fmt.Errorf("--store-timeout %v: want > 0", c.storeTimeout)
	}
	store, err := storepath.Resolve(c.store)
	if err != nil {
		return nil, err
	}
	c.store = store
	return c, nil
}

// run is the whole command; main only maps its error to the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	level := slog.LevelWarn
	if cfg.verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	// --store-timeout bounds what chitta waits for at start, together: an
	// openai: embedder's probe and a postgres:// store's open.
	startBy := time.Now().Add(cfg.storeTimeout)
	emb, err := openEmbedder(ctx, cfg, startBy)
	if err != nil {
		if ctx.Err() != nil {
			return nil // a signal before the first message: nothing was asked
		}
		return err
	}
	defer emb.Close()
	var a *app
	if storepath.IsDSN(cfg.store) {
		store, err := openPG(ctx, cfg.store, emb.Dims, startBy, cfg.storeTimeout, log)
		if err != nil {
			if ctx.Err() != nil {
				return nil // a signal before the first message: nothing was asked
			}
			return err
		}
		defer store.Close()
		logReady(ctx, log, pgstore.Redact(cfg.store), store.Len, emb.Name)
		a = newApp(store, emb, nil, log) // every write is already in the database
	} else {
		store, err := storepath.OpenShared(cfg.store, emb.Dims)
		if err != nil {
			return fmt.Errorf("refusing to start: %w", err)
		}
		logReady(ctx, log, cfg.store, store.Len, emb.Name)
		// Once a signal has come, a save waits for another process's lock
		// only until the stop's grace ends, as the calls in progress do.
		// A save waits for it storepath.LockWait at most, or --timeout when
		// shorter; the final save right after one that found the store
		// locked waits flushLockWait at most, not all that again.
		grace := graceAfter(ctx, min(cfg.timeout, stopGrace))
		a = newApp(store, emb, func() error { return store.SaveWithin(grace, cfg.timeout) }, log)
		a.retry = func() error { return store.SaveWithin(grace, min(cfg.timeout, flushLockWait)) }
		a.refresh = store.Refresh
		a.unsaved = store.Unsaved
	}

	a.tokenizer = cfg.tokenizer
	a.queries = emb.Queries
	err = a.start(ctx, cfg, stdin, stdout, stderr)
	return errors.Join(err, a.flush())
}

// openEmbedder opens --embedder; an openai: embedder's probe gives up at
// startBy (see [run]), with an error naming --store-timeout.
func openEmbedder(ctx context.Context, cfg *config, startBy time.Time) (*embedspec.Embedder, error) {
	pctx, cancel := context.WithDeadline(ctx, startBy)
	defer cancel()
	emb, err := embedspec.Open(pctx, cfg.embedder)
	if err != nil && ctx.Err() == nil && errors.Is(pctx.Err(), context.DeadlineExceeded) {
		return nil, fmt.Errorf("%w: no answer within %v (--store-timeout)", err, cfg.storeTimeout)
	}
	return emb, err
}

// logReady logs, at debug level only, that chitta is ready, with the
// store's memory count: memories is called only when the line is logged,
// since with a postgres:// store it asks the server (which may be slow to
// answer) and without --verbose nobody reads it.
func logReady(ctx context.Context, log *slog.Logger, store string, memories func() int, embedder string) {
	if log.Enabled(ctx, slog.LevelDebug) {
		log.Debug("ready", "store", store, "memories", memories(), "embedder", embedder)
	}
}

// graceAfter returns a context that is done d after ctx is (never, if ctx
// never is); run calls it once, for the life of the process.
func graceAfter(ctx context.Context, d time.Duration) context.Context {
	grace, cancel := context.WithCancel(context.WithoutCancel(ctx))
	context.AfterFunc(ctx, func() { time.AfterFunc(d, cancel) })
	return grace
}

// start answers stdin in the mode cfg asks for. A signal (ctx done) while
// it waits for the first message ends it at once, with nil: nothing was
// asked.
func (a *app) start(ctx context.Context, cfg *config, stdin io.Reader, stdout, stderr io.Writer) error {
	if cfg.mode == "serve" {
		return a.serve(ctx, stdin, stdout, cfg.timeout)
	}
	if f, ok := stdin.(*os.File); ok {
		if info, err := f.Stat(); err == nil && info.Mode()&os.ModeCharDevice != 0 {
			fmt.Fprintln(stderr, "chitta: reading an MCP session or one JSON-RPC request from stdin (see chitta -h)")
		}
	}
	capped := &cappedReader{r: stdin, left: maxLineLength}
	type firstValue struct {
		first  json.RawMessage
		replay io.Reader
		err    error
	}
	got := make(chan firstValue, 1)
	go func() {
		var v firstValue
		v.first, v.replay, v.err = readFirst(capped)
		got <- v
	}()
	var v firstValue
	select {
	case v = <-got:
	case <-ctx.Done():
		return nil // the read goes on until the process exits
	}
	first, replay, err := v.first, v.replay, v.err
	capped.left = -1 // a session bounds each line itself
	switch {
	case errors.Is(err, io.EOF):
		return nil // nothing asked
	case errors.Is(err, errParse):
		return a.writeParseError(stdout, err)
	case errors.Is(err, errTooLarge):
		return writeResponse(stdout, rpcError(nullID, jsonrpc.CodeInvalidRequest, "invalid request: longer than %d bytes (the limit of one message)", maxLineLength))
	case err != nil:
		return err
	}
	if cfg.mode == "auto" && opensSession(first) {
		a.log.Debug("MCP session")
		return a.serve(ctx, replay, stdout, cfg.timeout)
	}
	return a.oneShot(ctx, first, stdout)
}
