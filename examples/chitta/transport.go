package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkMaxDepth is the nesting depth beyond which the MCP SDK refuses to
// decode a request's params (its internal JSON decoder's limit).
const sdkMaxDepth = 1000

// lineTransport is the MCP session's transport: line-delimited JSON-RPC
// 2.0 over a reader and a writer, one message per line (the MCP stdio
// transport forbids newlines inside a message).
//
// Unlike the SDK's IOTransport it reads the lines itself, so that no input
// ends the session: a line that is not JSON is answered with -32700, one
// that is not a request (a batch, a bad id, version or method) with -32600,
// a line longer than maxLine with -32600 (its bytes are skipped, never
// held), and the session goes on with the next line. At the end of the
// input it waits, at most drain, for the requests it read to be answered
// (but a subscription stream, see listenMethod) before it reports EOF, so
// that a client that writes its requests and closes stdin gets every
// answer.
//
// A tools/call whose arguments nest deeper than the SDK accepts (a deep
// but legitimate tool input inside a message) reaches the tool through
// stash.
type lineTransport struct {
	r       io.Reader
	w       io.Writer
	maxLine int
	drain   time.Duration
	stash   *argStash
	log     *slog.Logger
	conn    *lineConn // set by Connect

	// stop, when closed (a signal), ends the session as the end of input
	// does, but waits at most stopDrain for the calls already read; a
	// request read after it is answered at once with -32603 and not
	// waited for. nil never stops it.
	stop      <-chan struct{}
	stopDrain time.Duration
}

// Connect implements [mcp.Transport]; it is called once.
func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{
		w:         t.w,
		drain:     t.drain,
		stop:      t.stop,
		stopDrain: t.stopDrain,
		stash:     t.stash,
		log:       t.log,
		incoming:  make(chan jsonrpc.Message),
		readDone:  make(chan struct{}),
		closed:    make(chan struct{}),
		pending:   map[jsonrpc.ID]bool{},
		cancelled: map[jsonrpc.ID]struct{}{},
	}
	t.conn = c
	go c.readLoop(t.r, t.maxLine)
	return c, nil
}

// listenMethod is MCP's subscription stream (2026-07-28): its call lasts
// until the client cancels it, answered only then, so the end of input
// does not wait for it (the session ends, and the stream with it).
const listenMethod = "subscriptions/listen"

// lineConn is the connection of a lineTransport.
type lineConn struct {
	w       io.Writer
	writeMu sync.Mutex
	drain   time.Duration
	stash   *argStash
	log     *slog.Logger

	stop      <-chan struct{} // see lineTransport.stop
	stopDrain time.Duration

	incoming chan jsonrpc.Message // from readLoop, unbuffered: no read-ahead
	readDone chan struct{}        // closed when readLoop stops; readErr is then set
	readErr  error
	closed   chan struct{}
	close    sync.Once

	mu        sync.Mutex
	pending   map[jsonrpc.ID]bool     // calls read and not yet answered; true for a stream (see listenMethod)
	awaited   int                     // the calls of pending that are not streams: the end of input waits for them
	cancelled map[jsonrpc.ID]struct{} // pending calls the client cancelled: their responses are not sent
	idle      chan struct{}           // closed when awaited falls to 0; nil if nobody waits
	unhandled int                     // calls still awaited when the drain timed out
}

// readLoop reads the lines of r until its end or an error, answering bad
// ones and handing the others to Read.
func (c *lineConn) readLoop(r io.Reader, maxLine int) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br, maxLine)
		if tooLong {
			c.reply(rpcError(nullID, jsonrpc.CodeInvalidRequest, "invalid request: line longer than %d bytes (the limit of one message)", maxLine))
		} else if len(bytes.TrimSpace(line)) > 0 {
			if msg := c.parse(line); msg != nil {
				select {
				case c.incoming <- msg:
				case <-c.stop:
					c.refuse(msg) // Read takes no new message once stopped
				case <-c.closed:
					return
				}
			}
		}
		if err != nil {
			c.readErr = err
			close(c.readDone)
			return
		}
	}
}

// readLine reads one line of at most max bytes, without its line ending. A
// longer line is read to its end without being kept, and reported with
// tooLong. err is the reader's error (io.EOF at the end): the bytes before
// it are returned as a last line.
//
// The line is gathered in reader-sized pieces and joined once, so that a
// long line costs its size twice at most, not the series of copies that
// growing one slice makes (which outran the garbage collector on a busy
// machine).
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	var pieces [][]byte
	size := 0
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if size+len(chunk) > max+2 { // + "\r\n"
				tooLong, pieces = true, nil
			} else if len(chunk) > 0 {
				pieces = append(pieces, bytes.Clone(chunk))
				size += len(chunk)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(pieces) == 1 {
			line = pieces[0]
		} else {
			line = bytes.Join(pieces, nil)
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if len(line) > max {
			return nil, true, err
		}
		return line, tooLong, err
	}
}

// parse checks one line and returns the message to hand to the SDK, or nil
// when the line was answered here (or, for a stray response, dropped).
func (c *lineConn) parse(line []byte) jsonrpc.Message {
	env, bad := readEnvelope(line, true)
	if bad != nil {
		c.reply(bad)
		return nil
	}
	if env.ignored {
		c.log.Info("dropped a notification whose params are not an object", "method", clipMessage(env.method))
		return nil
	}
	if env.response {
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			c.log.Warn("dropped a malformed response from the client", "err", err)
			return nil
		}
		return msg
	}
	var id jsonrpc.ID
	if env.id != nil {
		var msg string
		if id, msg = sessionID(env.id); msg != "" {
			c.reply(rpcError(nullID, jsonrpc.CodeInvalidRequest, "invalid request: id: %s", msg))
			return nil
		}
		if c.stopped() {
			c.reply(stoppingError(env.id))
			return nil
		}
		if env.method == "notifications/cancelled" {
			// The SDK acts on a cancel before it looks at the id: as a
			// request it would cancel the call that params name and then
			// refuse it, or answer -32603 "EOF" when params are absent.
			c.reply(rpcError(env.id, jsonrpc.CodeInvalidRequest, `invalid request: unexpected id for "notifications/cancelled" (send it as a notification, without an id)`))
			return nil
		}
		if slices.Contains(undeclaredMethods, env.method) {
			c.reply(rpcError(env.id, jsonrpc.CodeMethodNotFound, "method not found: %q (chitta declares the tools and logging capabilities only: no resources, prompts or completions)", env.method))
			return nil
		}
		// Judged as one-shot mode judges them, in its words (the SDK
		// accepts any progressToken and words a call without params or a
		// name its own way).
		if _, bad := requestParams(env.id, env.method, env.params); bad != nil {
			c.reply(bad)
			return nil
		}
		c.mu.Lock()
		_, dup := c.pending[id]
		if !dup {
			stream := env.method == listenMethod
			c.pending[id] = stream
			if !stream {
				c.awaited++
			}
		}
		c.mu.Unlock()
		if dup {
			c.reply(rpcError(env.id, jsonrpc.CodeInvalidRequest, "invalid request: id: %s is already used by a request in progress", env.id))
			return nil
		}
	}
	if env.id == nil && env.method == "notifications/cancelled" {
		c.cancel(env.params)
	}
	params := env.params
	// A notification's tool never runs (nothing would take its arguments
	// back), so only a request's arguments are stashed.
	if env.method == "tools/call" && id.IsValid() && c.stash != nil && deeperThanSDK(params) {
		params = c.stash.put(id, params)
	}
	return &jsonrpc.Request{ID: id, Method: env.method, Params: params}
}

// cancel marks the call that a notifications/cancelled's params name, if
// it is in progress, so that its response is not sent: MCP's cancellation
// says that the receiver SHOULD NOT answer a cancelled request (the
// client has stopped waiting, and the SDK would answer "context
// canceled"). The notification goes on to the SDK, which cancels the
// call's context.
func (c *lineConn) cancel(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.RequestID) == 0 {
		return
	}
	raw := bytes.TrimSpace(p.RequestID)
	if raw[0] != '"' && raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
		return
	}
	id, msg := sessionID(raw)
	if msg != "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pending[id]; ok {
		c.cancelled[id] = struct{}{}
	}
}

// stopped reports whether stop is closed.
func (c *lineConn) stopped() bool {
	select {
	case <-c.stop:
		return true
	default:
		return false
	}
}

// stoppingError is the answer to a request read once the session is
// stopping: it is never handled, and a client waiting for it learns so.
func stoppingError(id json.RawMessage) *rpcResponse {
	return rpcError(id, jsonrpc.CodeInternalError, "internal error: chitta is stopping (SIGTERM or SIGINT): request not handled")
}

// refuse answers the request msg, read but never handed to the SDK (the
// session stopped first), with [stoppingError] and retires it, so that
// the drain does not wait for it. A notification is dropped.
func (c *lineConn) refuse(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.ID.IsValid() {
		return
	}
	if id, err := json.Marshal(req.ID.Raw()); err == nil {
		c.reply(stoppingError(id))
	}
	c.retire(req.ID)
}

// deeperThanSDK reports whether params nest deeper than the SDK decodes.
func deeperThanSDK(params []byte) bool {
	depth, _ := jsonShape(params)
	return depth > sdkMaxDepth
}

// maxExactID is the largest integer id the SDK keeps exactly (it holds
// numeric ids as float64, then int64).
const maxExactID = 1 << 53

// sessionID converts a checked id to the SDK's, or explains why the SDK
// could not answer with the same id: a number that is not an integer or
// beyond 2^53, or a string with an escape that does not decode to UTF-8
// (a lone surrogate). One-shot mode refuses the same ids with the same
// message (see [app.answer]).
func sessionID(raw json.RawMessage) (jsonrpc.ID, string) {
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return jsonrpc.ID{}, err.Error()
		}
		if strings.ContainsRune(s, utf8.RuneError) && !bytes.Contains(raw, []byte("\uFFFD")) && !bytes.Contains(bytes.ToLower(raw), []byte(`\ufffd`)) {
			return jsonrpc.ID{}, "an escape that is not valid UTF-16 (a lone surrogate)"
		}
		id, err := jsonrpc.MakeID(s)
		if err != nil {
			return jsonrpc.ID{}, err.Error()
		}
		return id, ""
	}
	n, ok := integerLiteral(string(raw))
	if !ok {
		return jsonrpc.ID{}, fmt.Sprintf("%s: want a string or an integer of at most 2^53 in magnitude", raw)
	}
	id, err := jsonrpc.MakeID(float64(n))
	if err != nil {
		return jsonrpc.ID{}, err.Error()
	}
	return id, ""
}

// integerLiteral returns the value of the JSON number lit when it is an
// integer of at most 2^53 in magnitude (1.0, 1e3 and -0 included). It reads
// the decimal digits, not a float64, which rounds 9007199254740993 and
// 4503599627370496.5 to integers the request did not send.
func integerLiteral(lit string) (int64, bool) {
	neg := strings.HasPrefix(lit, "-")
	mant, exp, _ := strings.Cut(strings.ToLower(strings.TrimPrefix(lit, "-")), "e")
	e := 0
	if exp != "" {
		var err error
		if e, err = strconv.Atoi(exp); err != nil {
			return 0, false
		}
	}
	whole, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(whole+frac, "0")
	if digits == "" {
		return 0, true
	}
	e -= len(frac)     // the value is digits × 10^e
	for ; e < 0; e++ { // ends at the first digit, which is not 0
		if digits[len(digits)-1] != '0' {
			return 0, false
		}
		digits = digits[:len(digits)-1]
	}
	if len(digits)+e > 16 { // at least 10^16 > 2^53
		return 0, false
	}
	n, err := strconv.ParseInt(digits+strings.Repeat("0", e), 10, 64)
	if err != nil || n > maxExactID {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// reply writes a response of the transport's own. Once the connection is
// closed (the session over, chitta about to exit) it writes nothing and
// says nothing.
func (c *lineConn) reply(resp *rpcResponse) {
	data, err := marshal(clipResponse(resp))
	if err == nil {
		err = c.writeLine(data)
	}
	if err != nil && !errors.Is(err, mcp.ErrConnectionClosed) {
		c.log.Warn("write error response", "err", err)
	}
}

func (c *lineConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	select {
	case <-c.closed:
		return mcp.ErrConnectionClosed
	default:
	}
	_, err := c.w.Write(append(data, '\n'))
	return err
}

// Read implements [mcp.Connection]. At the end of the input, or once stop
// is closed, it returns once every call it returned has been answered
// (subscription streams aside, see listenMethod), or
// after the drain time (stopDrain, when stopped).
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	stop := c.stop // nil when it never fires, or once it has (the drain is short then)
	readEnded := false
	drain := c.drain
	select {
	case msg := <-c.incoming:
		return msg, nil
	case <-c.readDone:
		readEnded = true
	case <-stop:
		stop, drain = nil, min(drain, c.stopDrain)
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	// readErr is readLoop's to write until readDone is closed.
	end := func() error {
		if readEnded {
			return c.readErr
		}
		return io.EOF
	}
	timer := time.NewTimer(drain)
	defer timer.Stop()
	for {
		c.mu.Lock()
		n := c.awaited
		if n > 0 && c.idle == nil {
			c.idle = make(chan struct{})
		}
		idle := c.idle
		c.mu.Unlock()
		if n == 0 {
			return nil, end()
		}
		select {
		case <-idle:
		case <-stop: // a signal during the drain at the end of input
			stop = nil
			timer.Reset(min(c.drain, c.stopDrain))
		case <-timer.C:
			c.mu.Lock()
			c.unhandled = c.awaited
			c.mu.Unlock()
			return nil, end()
		case <-c.closed:
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Write implements [mcp.Connection]. A response retires its call once
// written; the response to a call the client cancelled is not written
// (see [lineConn.cancel]). The SDK's refusal of params it cannot decode is worded as
// chitta's own (see [sdkParamsError]), an error it sends without a code
// gets one (see [codedError]), and a message longer than maxErrorMessage
// is cut (see [clipMessage]).
func (c *lineConn) Write(_ context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok && c.wasCancelled(resp.ID) {
		c.log.Debug("dropped the response to a cancelled request")
		c.retire(resp.ID)
		return nil
	}
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.Error != nil {
		e := sdkParamsError(resp.Error)
		if e == nil {
			e = codedError(resp.Error)
		}
		if e == nil {
			e = resp.Error
		}
		var wire *jsonrpc.Error
		if text := e.Error(); len(text) > maxErrorMessage && errors.As(e, &wire) { // codedError left none without
			e = &jsonrpc.Error{Code: wire.Code, Message: clipMessage(text), Data: wire.Data}
		}
		if e != resp.Error {
			r := *resp
			r.Error = e
			msg = &r
		}
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	err = c.writeLine(data)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.retire(resp.ID)
	}
	return err
}

// wasCancelled reports whether the client cancelled the call id.
func (c *lineConn) wasCancelled(id jsonrpc.ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.cancelled[id]
	return ok
}

// retire forgets the call id, answered (or cancelled).
func (c *lineConn) retire(id jsonrpc.ID) {
	c.stash.drop(id)
	c.mu.Lock()
	if stream, ok := c.pending[id]; ok && !stream {
		c.awaited--
	}
	delete(c.pending, id)
	delete(c.cancelled, id)
	if c.awaited == 0 && c.idle != nil {
		close(c.idle)
		c.idle = nil
	}
	c.mu.Unlock()
}

// Close implements [mcp.Connection]. It does not close the reader or the
// writer (stdin and stdout).
func (c *lineConn) Close() error {
	c.close.Do(func() { close(c.closed) })
	return nil
}

// SessionID implements [mcp.Connection]: stdio sessions have none.
func (c *lineConn) SessionID() string { return "" }

// Unanswered returns the number of calls still unanswered when the drain
// time ran out at the end of the input.
func (c *lineConn) Unanswered() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.unhandled
}

// argStash holds the arguments of tools/call requests too deeply nested
// for the SDK's decoder. The transport swaps them for a small placeholder
// object that the tool handler trades back with take. It is safe for
// concurrent use; a nil *argStash holds nothing.
type argStash struct {
	key string // the placeholder's only key, random per process

	mu    sync.Mutex
	next  uint64
	args  map[string]json.RawMessage
	token map[jsonrpc.ID]string
}

func newArgStash() *argStash {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return &argStash{key: "chitta.deferred-arguments." + hex.EncodeToString(b[:]), args: map[string]json.RawMessage{}, token: map[jsonrpc.ID]string{}}
}

// put takes the arguments out of the params of the call id and returns
// the params with a placeholder instead. Params it cannot read go on
// unchanged (the SDK reports them).
func (s *argStash) put(id jsonrpc.ID, params json.RawMessage) json.RawMessage {
	var fields map[string]json.RawMessage
	if json.Unmarshal(params, &fields) != nil || fields["arguments"] == nil {
		return params
	}
	s.mu.Lock()
	s.next++
	tok := strconv.FormatUint(s.next, 10)
	s.args[tok] = fields["arguments"]
	if id.IsValid() {
		s.token[id] = tok
	}
	s.mu.Unlock()
	placeholder, _ := json.Marshal(map[string]string{s.key: tok})
	fields["arguments"] = placeholder
	out, err := json.Marshal(fields)
	if err != nil {
		return params
	}
	return out
}

// take returns the stashed arguments that args stands for, or args itself.
func (s *argStash) take(args json.RawMessage) json.RawMessage {
	if s == nil || !bytes.Contains(args, []byte(s.key)) {
		return args
	}
	var p map[string]string
	if json.Unmarshal(args, &p) != nil || len(p) != 1 {
		return args
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	real, ok := s.args[p[s.key]]
	if !ok {
		return args
	}
	delete(s.args, p[s.key])
	return real
}

// drop forgets the arguments of the call id, once answered.
func (s *argStash) drop(id jsonrpc.ID) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if tok, ok := s.token[id]; ok {
		delete(s.args, tok)
		delete(s.token, id)
	}
}

// sdkParamsError returns chitta's own error for err when err is the SDK's
// refusal of request params it cannot decode, else nil. The SDK's message
// ("handling 'tools/call': invalid params: unmarshaling \"{…}\" into a
// *mcp.CallToolParamsRaw: json: cannot unmarshal … into Go struct field
// mcp.CallToolParamsRaw._meta of type map[string]interface {}") echoes the
// whole params, a tool's arguments too, and names the SDK's Go types, and
// for initialize its code is 0; chitta's is -32602 naming the field and
// the JSON type it takes, as one-shot mode words it ("invalid params:
// params._meta: want an object").
func sdkParamsError(err error) error {
	if !strings.Contains(err.Error(), "unmarshaling \"") {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" && te.Type != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("invalid params: params.%s: want %s", te.Field, jsonType(te.Type))}
	}
	// Another decoding error (params nested too deep): its own words when
	// they name no Go type and echo nothing.
	msg := "params do not match the method's MCP schema"
	if inner := innermost(err).Error(); !strings.ContainsAny(inner, `"*`) && !strings.Contains(inner, "Go ") && !strings.Contains(inner, "mcp.") {
		msg = "params: " + strings.TrimPrefix(inner, "json: ")
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: " + msg}
}

// codedError returns the error to send for err when err carries no
// JSON-RPC code (the SDK would send it with code 0, which names no error
// a client can act on), else nil: the SDK's refusals of a request for its
// place in the session (a call before initialize, a second initialize)
// are -32600, anything else -32603.
func codedError(err error) error {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) && wire.Code != 0 {
		return nil
	}
	msg := err.Error()
	if method, ok := strings.CutSuffix(msg, " is invalid during session initialization"); ok {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: " + method + " before initialize (send initialize first)"}
	}
	if msg == `duplicate "initialize" received` {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: initialize: the session is already initialized"}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error: " + msg}
}

// innermost returns the error err wraps last, at the end of its chain.
func innermost(err error) error {
	for {
		switch u := err.(type) {
		case interface{ Unwrap() []error }:
			errs := u.Unwrap()
			if len(errs) == 0 {
				return err
			}
			err = errs[len(errs)-1]
		case interface{ Unwrap() error }:
			next := u.Unwrap()
			if next == nil {
				return err
			}
			err = next
		default:
			return err
		}
	}
}
