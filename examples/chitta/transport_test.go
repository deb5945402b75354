package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

const (
	initializeLine  = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// wireResponse is one response line as a client reads it.
type wireResponse struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc.Error  `json:"error"`
	raw    string
}

// responses parses every line of out as a JSON-RPC response.
func responses(t *testing.T, out string) []wireResponse {
	t.Helper()
	var rs []wireResponse
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		checkResponse(t, sc.Bytes())
		var r wireResponse
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r), "%s", sc.Text())
		r.raw = sc.Text()
		rs = append(rs, r)
	}
	require.NoError(t, sc.Err())
	return rs
}

// byID returns the response with the given id, failing if there is none.
func byID(t *testing.T, rs []wireResponse, id string) wireResponse {
	t.Helper()
	for _, r := range rs {
		if string(r.ID) == id {
			return r
		}
	}
	t.Fatalf("no response with id %s among %d", id, len(rs))
	return wireResponse{}
}

// runSession serves input (lines, one message each) to an MCP session over
// a with the given line limit, until the input ends and every request read
// is answered, and returns the responses.
func runSession(t *testing.T, a *app, maxLine int, lines ...string) []wireResponse {
	t.Helper()
	var out bytes.Buffer
	stash := newArgStash()
	tr := &lineTransport{r: strings.NewReader(strings.Join(lines, "\n") + "\n"), w: &out, maxLine: maxLine, drain: 30 * time.Second, stash: stash, log: a.log}
	require.NoError(t, newSessionServer(a, stash).Run(t.Context(), tr))
	require.Zero(t, tr.conn.Unanswered())
	return responses(t, out.String())
}

// deepInput nests depth arrays inside a tool_use block's input.
func deepInput(depth int) string {
	return `[{"role":"user","content":"read the tree"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"tree","input":{"v":` +
		strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}]`
}

// TestSessionMalformedFrames sends each malformed line between the
// handshake and a valid request: the line gets its JSON-RPC error, and the
// request after it is still answered.
func TestSessionMalformedFrames(t *testing.T) {
	t.Parallel()
	const next = `{"jsonrpc":"2.0","id":99,"method":"tools/list"}`
	tests := []struct {
		name string
		line string
		code int64  // 0: no error response expected for the line itself
		id   string // of the error response
		msg  string
	}{
		{name: "not JSON", line: `this is not json`, code: jsonrpc.CodeParseError, id: "null", msg: "parse error"},
		{name: "NaN", line: `NaN`, code: jsonrpc.CodeParseError, id: "null", msg: "not valid JSON"},
		{name: "nested beyond the decoder's limit", line: strings.Repeat("[", 10001) + strings.Repeat("]", 10001), code: jsonrpc.CodeParseError, id: "null", msg: "nests deeper than 10000 levels"},
		{name: "byte order mark", line: "\xef\xbb\xbf" + `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, code: jsonrpc.CodeParseError, id: "null", msg: "byte order mark"},
		{name: "unterminated string", line: `{"jsonrpc":"2.0","id":1,"method":"tools/li`, code: jsonrpc.CodeParseError, id: "null"},
		{name: "unterminated object", line: `{"jsonrpc":"2.0","id":1,`, code: jsonrpc.CodeParseError, id: "null"},
		{name: "batch", line: `[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`, code: jsonrpc.CodeInvalidRequest, id: "null", msg: "batch"},
		{name: "empty batch", line: `[]`, code: jsonrpc.CodeInvalidRequest, id: "null", msg: "batch"},
		{name: "a number", line: `42`, code: jsonrpc.CodeInvalidRequest, id: "null"},
		{name: "id true", line: `{"jsonrpc":"2.0","id":true,"method":"tools/list"}`, code: jsonrpc.CodeInvalidRequest, id: "null", msg: "id"},
		{name: "id null", line: `{"jsonrpc":"2.0","id":null,"method":"tools/list"}`, code: jsonrpc.CodeInvalidRequest, id: "null", msg: "id"},
		{name: "id object", line: `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, code: jsonrpc.CodeInvalidRequest, id: "null", msg: "id"},
		{name: "id fraction", line: `{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}`, code: jsonrpc.CodeInvalidRequest, id: "null", msg: "integer"},
		{name: "id beyond 2^53", line: `{"jsonrpc":"2.0","id":1e300,"method":"tools/list"}`, code: jsonrpc.CodeInvalidRequest, id: "null", msg: "integer"},
		// Beyond 2^53 but rounded to it (or to an integer below it) by
		// float64: the SDK would answer with another id.
		{name: "id 2^53+1", line: `{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/list"}`, code: jsonrpc.CodeInvalidRequest, id: "null", msg: "integer"},
		{name: "id -(2^53+1)", line: `{"jsonrpc":"2.0","id":-9007199254740993,"method":"tools/list"}`, code: jsonrpc.CodeInvalidRequest, id: "null", msg: "integer"},
		{name: "id fraction rounded to an integer", line: `{"jsonrpc":"2.0","id":4503599627370496.5,"method":"tools/list"}`, code: jsonrpc.CodeInvalidRequest, id: "null", msg: "integer"},
		{name: "id not UTF-8", line: "{\"jsonrpc\":\"2.0\",\"id\":\"\xe5\",\"method\":\"tools/list\"}", code: jsonrpc.CodeInvalidRequest, id: "null", msg: "UTF-8"},
		{name: "id lone surrogate", line: `{"jsonrpc":"2.0","id":"\ud800","method":"tools/list"}`, code: jsonrpc.CodeInvalidRequest, id: "null", msg: "surrogate"},
		{name: "jsonrpc 1.0", line: `{"jsonrpc":"1.0","id":7,"method":"tools/list"}`, code: jsonrpc.CodeInvalidRequest, id: "7", msg: "jsonrpc"},
		{name: "no jsonrpc", line: `{"id":7,"method":"tools/list"}`, code: jsonrpc.CodeInvalidRequest, id: "7", msg: "jsonrpc"},
		{name: "method a number", line: `{"jsonrpc":"2.0","id":7,"method":5}`, code: jsonrpc.CodeInvalidRequest, id: "7", msg: "method"},
		{name: "params an array", line: `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":[1]}`, code: jsonrpc.CodeInvalidParams, id: "7", msg: "params"},
		// JSON-RPC params are structured (an object or an array): a
		// scalar makes the message no request at all.
		{name: "params a string", line: `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":"x"}`, code: jsonrpc.CodeInvalidRequest, id: "7", msg: "params"},
		{name: "notification params a number", line: `{"jsonrpc":"2.0","method":"notifications/whatever","params":5}`, code: jsonrpc.CodeInvalidRequest, id: "null", msg: "params"},
		// A notification is never answered, though MCP wants an object.
		{name: "notification params an array", line: `{"jsonrpc":"2.0","method":"notifications/initialized","params":[1]}`},
		// The SDK reads a cancel's params before it looks at the id: it
		// answered -32603 "internal error: EOF".
		{name: "cancelled sent as a request", line: `{"jsonrpc":"2.0","id":7,"method":"notifications/cancelled"}`, code: jsonrpc.CodeInvalidRequest, id: "7", msg: `unexpected id for "notifications/cancelled"`},
		{name: "response without id", line: `{"jsonrpc":"2.0","result":{}}`, code: jsonrpc.CodeInvalidRequest, id: "null", msg: "response"},
		{name: "nesting beyond the JSON decoder", line: `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"x":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}}`, code: jsonrpc.CodeParseError, id: "null"},
		{name: "line too long", line: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"recall","arguments":{"text":"` + strings.Repeat("x", 70000) + `"}}}`, code: jsonrpc.CodeInvalidRequest, id: "null", msg: "longer than 65536 bytes"},
		{name: "blank line", line: "  \t"},
		{name: "stray response", line: `{"jsonrpc":"2.0","id":12345,"result":{}}`},
		{name: "unknown notification", line: `{"jsonrpc":"2.0","method":"notifications/whatever"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, _ := newTestApp(t)
			rs := runSession(t, a, 64<<10, initializeLine, initializedLine, tt.line, next)
			require.Nil(t, byID(t, rs, "0").Error, "initialize answered")
			last := byID(t, rs, "99")
			require.Nil(t, last.Error, "the request after the bad line is answered: %s", last.raw)
			assert.Contains(t, string(last.Result), `"compact_context"`)
			if tt.code == 0 {
				assert.Len(t, rs, 2, "nothing else answered")
				return
			}
			require.Len(t, rs, 3)
			var bad wireResponse // the transport's answers may come before the SDK's
			for _, r := range rs {
				if string(r.ID) != "0" && string(r.ID) != "99" {
					bad = r
				}
			}
			require.NotNil(t, bad.Error, bad.raw)
			assert.Equal(t, tt.code, bad.Error.Code)
			assert.Equal(t, tt.id, string(bad.ID))
			assert.Contains(t, bad.Error.Message, tt.msg)
		})
	}
}

// TestSessionDeepToolInput: a tool input nested deeper than the SDK's
// decoder accepts is a legitimate message; compact_context keeps it
// verbatim.
func TestSessionDeepToolInput(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	msgs := deepInput(1500)
	req := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"compact_context","arguments":{"messages":%s,"target_ratio":1}}}`, msgs)
	rs := runSession(t, a, 1<<20, initializeLine, initializedLine, req)
	r := byID(t, rs, "1")
	require.Nil(t, r.Error, r.raw)
	var res struct {
		IsError           bool `json:"isError"`
		StructuredContent struct {
			Messages []json.RawMessage `json:"messages"`
		} `json:"structuredContent"`
	}
	require.NoError(t, json.Unmarshal(r.Result, &res))
	require.False(t, res.IsError, r.raw[:min(len(r.raw), 500)])
	require.Len(t, res.StructuredContent.Messages, 3)
	assert.Equal(t, rawMessages(t, msgs), rawMessages(t, string(mustJSON(t, res.StructuredContent.Messages))))
}

// TestSessionDuplicateID: a second call with the id of a call in progress
// is refused with -32600 (its answer could not be told from the first's).
func TestSessionDuplicateID(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	var out bytes.Buffer
	pr, pw := io.Pipe()
	tr := &lineTransport{r: pr, w: &out, maxLine: 1 << 20, drain: 30 * time.Second, stash: newArgStash(), log: a.log}
	conn, err := tr.Connect(t.Context())
	require.NoError(t, err)
	go func() {
		_, _ = io.WriteString(pw, `{"jsonrpc":"2.0","id":"x","method":"tools/list"}`+"\n"+`{"jsonrpc":"2.0","id":"x","method":"tools/list"}`+"\n")
		_ = pw.Close()
	}()
	msg, err := conn.Read(t.Context())
	require.NoError(t, err)
	req, ok := msg.(*jsonrpc.Request)
	require.True(t, ok)
	assert.Equal(t, "x", req.ID.Raw())
	// The first call is unanswered: the end of input waits for it.
	done := make(chan error, 1)
	go func() { _, err := conn.Read(t.Context()); done <- err }()
	select {
	case err := <-done:
		t.Fatalf("Read returned %v with a call unanswered", err)
	case <-time.After(100 * time.Millisecond):
	}
	resp, err := jsonrpc.DecodeMessage([]byte(`{"jsonrpc":"2.0","id":"x","result":{}}`))
	require.NoError(t, err)
	require.NoError(t, conn.Write(t.Context(), resp))
	require.ErrorIs(t, <-done, io.EOF)
	rs := responses(t, out.String())
	require.Len(t, rs, 2)
	require.NotNil(t, rs[0].Error)
	assert.Equal(t, int64(jsonrpc.CodeInvalidRequest), rs[0].Error.Code)
	assert.Equal(t, `"x"`, string(rs[0].ID))
	assert.Contains(t, rs[0].Error.Message, "already used")
}

// TestSessionDrainTimeout: a call still unanswered when --timeout runs out
// after the end of input is reported, and Read does not wait longer.
func TestSessionDrainTimeout(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	tr := &lineTransport{r: strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n"), w: &out, maxLine: 1 << 20, drain: 50 * time.Millisecond, log: slog.New(slog.DiscardHandler)}
	conn, err := tr.Connect(t.Context())
	require.NoError(t, err)
	_, err = conn.Read(t.Context())
	require.NoError(t, err)
	_, err = conn.Read(t.Context())
	require.ErrorIs(t, err, io.EOF)
	assert.Equal(t, 1, tr.conn.Unanswered())
}

// TestSessionStop: once stop is closed (a signal), Read ends the session
// after at most stopDrain, though the input goes on and --timeout is long.
func TestSessionStop(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	defer pw.Close()
	stop := make(chan struct{})
	tr := &lineTransport{r: pr, w: io.Discard, maxLine: 1 << 20, drain: time.Hour, stop: stop, stopDrain: 50 * time.Millisecond, log: slog.New(slog.DiscardHandler)}
	conn, err := tr.Connect(t.Context())
	require.NoError(t, err)
	go func() { _, _ = io.WriteString(pw, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`+"\n") }()
	_, err = conn.Read(t.Context())
	require.NoError(t, err)
	close(stop)
	start := time.Now()
	_, err = conn.Read(t.Context())
	require.ErrorIs(t, err, io.EOF)
	assert.Less(t, time.Since(start), 10*time.Second)
	assert.Equal(t, 1, tr.conn.Unanswered(), "call 1 was never answered")
}

// TestServeAnswersAtEOF pipes a handshake and a remember into the binary
// and closes stdin at once: the remember is answered and stored, every
// time (before the fix the SDK returned at EOF and dropped it).
func TestServeAnswersAtEOF(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i := range 5 {
		store := filepath.Join(dir, fmt.Sprintf("m%d.chitta", i))
		in := strings.Join([]string{initializeLine, initializedLine,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"remember","arguments":{"text":"The deploy key rotates every 90 days."}}}`}, "\n") + "\n"
		r := runChitta(t, dir, in, "--store", store, "--mode", "serve")
		require.Equal(t, 0, r.code, r.stderr)
		rs := responses(t, r.stdout)
		res := byID(t, rs, "1")
		require.Nil(t, res.Error, res.raw)
		assert.Contains(t, string(res.Result), "remembered")
		s, err := chitta.LoadHNSWStore(store)
		require.NoError(t, err, "run %d", i)
		assert.Equal(t, 1, s.Len())
	}
}

func TestReadLine(t *testing.T) {
	t.Parallel()
	const max = 8
	type line struct {
		text    string
		tooLong bool
	}
	tests := []struct {
		name, in string
		want     []line
	}{
		{name: "lines", in: "ab\ncd\n", want: []line{{"ab", false}, {"cd", false}, {"", false}}},
		{name: "CRLF", in: "ab\r\ncd\r\n", want: []line{{"ab", false}, {"cd", false}, {"", false}}},
		{name: "last line unterminated", in: "ab\ncd", want: []line{{"ab", false}, {"cd", false}}},
		{name: "exactly the limit", in: "12345678\r\nx\n", want: []line{{"12345678", false}, {"x", false}, {"", false}}},
		{name: "over the limit", in: "123456789\nx\n", want: []line{{"", true}, {"x", false}, {"", false}}},
		{name: "far over the limit, unterminated", in: strings.Repeat("y", 100), want: []line{{"", true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			br := bufio.NewReaderSize(strings.NewReader(tt.in), 16) // pieces smaller than some lines
			var got []line
			for {
				l, tooLong, err := readLine(br, max)
				got = append(got, line{string(l), tooLong})
				if err != nil {
					require.ErrorIs(t, err, io.EOF)
					break
				}
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// concurrencyEmbedder is the hash embedder, slowed down, recording the
// most calls it saw at once.
type concurrencyEmbedder struct {
	chitta.Embedder
	mu        sync.Mutex
	now, most int
}

func (e *concurrencyEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	e.now++
	e.most = max(e.most, e.now)
	e.mu.Unlock()
	time.Sleep(200 * time.Millisecond)
	defer func() { e.mu.Lock(); e.now--; e.mu.Unlock() }()
	return e.Embedder.Embed(ctx, texts)
}

// TestSessionBigCallsOneAtATime: compact_context calls over bigArgs run
// one at a time in a session (each holds memory per message); small calls
// run alongside.
func TestSessionBigCallsOneAtATime(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name       string
		n          int
		concurrent bool
	}{
		{name: "big", n: 20_000},
		{name: "small", n: 50, concurrent: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			store, err := chitta.NewHNSWStore(testDims, nil)
			require.NoError(t, err)
			emb := &concurrencyEmbedder{Embedder: chitta.NewHashEmbedder(testDims)}
			a := newApp(store, emb, nil, nil)
			msgs := manyMessages(tt.n)
			lines := []string{initializeLine, initializedLine}
			for id := 1; id <= 3; id++ {
				lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"compact_context","arguments":{"messages":%s}}}`, id, msgs))
			}
			require.Equal(t, tt.n > 15_000, len(msgs) > bigArgs)
			rs := runSession(t, a, maxLineLength, lines...)
			for id := 1; id <= 3; id++ {
				assert.Nil(t, byID(t, rs, fmt.Sprint(id)).Error)
			}
			if tt.concurrent {
				assert.Greater(t, emb.most, 1, "small calls run alongside")
			} else {
				assert.Equal(t, 1, emb.most, "big calls run one at a time")
			}
		})
	}
}

// TestIntegerLiteral: a session id is an integer of at most 2^53 in
// magnitude however it is written, judged by its decimal digits.
func TestIntegerLiteral(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		lit  string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"-0", 0, true}, {"0.000", 0, true}, {"0e5", 0, true},
		{"7", 7, true}, {"-12", -12, true}, {"1.0", 1, true}, {"1e3", 1000, true}, {"1E+3", 1000, true},
		{"100e-2", 1, true}, {"0.0001e4", 1, true}, {"12.50e1", 125, true},
		{"9007199254740992", 1 << 53, true}, {"-9007199254740992", -1 << 53, true},
		{"9007199254740993", 0, false}, {"-9007199254740993", 0, false}, {"4503599627370496.5", 0, false},
		{"1.5", 0, false}, {"1e-1", 0, false}, {"1e-1000000000", 0, false}, {"1e16", 0, false},
		{"1e300", 0, false}, {"1e99999999999999999999", 0, false}, {"123456789012345678901234567890", 0, false},
	} {
		got, ok := integerLiteral(tt.lit)
		assert.Equal(t, tt.ok, ok, tt.lit)
		assert.Equal(t, tt.want, got, tt.lit)
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader in
// different goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestSessionStopRefusesLaterRequests: a request read once stop is closed
// (a signal), while a call read before it is still running, is answered at
// once with an error and is not waited for: the session ends as soon as
// the earlier call is answered. (It was held as pending without ever
// reaching the SDK, so the stop waited the whole stopDrain for it and
// warned that a call went unanswered.)
func TestSessionStopRefusesLaterRequests(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	defer pw.Close()
	var out syncBuffer
	stop := make(chan struct{})
	tr := &lineTransport{r: pr, w: &out, maxLine: 1 << 20, drain: time.Hour, stop: stop, stopDrain: time.Hour, log: slog.New(slog.DiscardHandler)}
	conn, err := tr.Connect(t.Context())
	require.NoError(t, err)
	go func() { _, _ = io.WriteString(pw, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`+"\n") }()
	msg, err := conn.Read(t.Context())
	require.NoError(t, err)
	one, err := jsonrpc.MakeID(float64(1))
	require.NoError(t, err)
	require.Equal(t, one, msg.(*jsonrpc.Request).ID)

	close(stop)
	ended := make(chan error, 1)
	go func() {
		_, err := conn.Read(t.Context())
		ended <- err
	}()
	_, err = io.WriteString(pw, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return strings.Contains(out.String(), `"id":2`) }, 10*time.Second, 5*time.Millisecond,
		"request 2, read after the stop, gets no answer")
	rs := responses(t, out.String())
	r := byID(t, rs, "2")
	require.NotNil(t, r.Error, r.raw)
	assert.Equal(t, int64(jsonrpc.CodeInternalError), r.Error.Code)
	assert.Contains(t, r.Error.Message, "stopping")

	require.NoError(t, conn.Write(t.Context(), &jsonrpc.Response{ID: one, Result: json.RawMessage(`{}`)}))
	select {
	case err := <-ended:
		require.ErrorIs(t, err, io.EOF)
	case <-time.After(10 * time.Second):
		t.Fatal("the session did not end once the call read before the stop was answered")
	}
	assert.Zero(t, tr.conn.Unanswered())
}

// TestSessionDeepToolCallNotification: a tools/call sent as a notification
// (no id) with arguments nested deeper than the SDK decodes is not held:
// the SDK never runs a notification's tool, so nothing would take the
// stashed arguments back. Each one stayed in memory until the process
// exited (150 of 2 MB took the session from 15 MB to 500 MB).
func TestSessionDeepToolCallNotification(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	note := fmt.Sprintf(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"compact_context","arguments":{"messages":%s}}}`, deepInput(1500))
	var out bytes.Buffer
	stash := newArgStash()
	lines := strings.Join([]string{initializeLine, initializedLine, note, note, `{"jsonrpc":"2.0","id":2,"method":"ping"}`}, "\n") + "\n"
	tr := &lineTransport{r: strings.NewReader(lines), w: &out, maxLine: 1 << 20, drain: 30 * time.Second, stash: stash, log: a.log}
	require.NoError(t, newSessionServer(a, stash).Run(t.Context(), tr))
	byID(t, responses(t, out.String()), "2")
	stash.mu.Lock()
	defer stash.mu.Unlock()
	assert.Zero(t, len(stash.args), "no arguments held for a notification")
}

// TestClosedSessionRepliesQuietly: a line read after the session has
// closed (a client writing on while a stopped chitta saves before it
// exits) gets no answer and no warning on stderr, which a signal's stop
// leaves empty; it logged 'write error response: connection closed'.
func TestClosedSessionRepliesQuietly(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	defer pw.Close()
	var logs syncBuffer
	tr := &lineTransport{r: pr, w: io.Discard, maxLine: 1 << 20, drain: time.Hour, log: slog.New(slog.NewTextHandler(&logs, nil))}
	conn, err := tr.Connect(t.Context())
	require.NoError(t, err)
	require.NoError(t, conn.Close())
	_, err = io.WriteString(pw, "not json\n")
	require.NoError(t, err)
	_, err = io.WriteString(pw, "[]\n") // read once the line before it is handled
	require.NoError(t, err)
	assert.Empty(t, logs.String())
}

// TestSessionOrderErrorsHaveCodes: a request the SDK refuses for its place
// in the session (a call before initialize, a second initialize) gets
// -32600 with chitta's "invalid request:" wording. The SDK answered with
// code 0, which is no JSON-RPC error code a client can act on.
func TestSessionOrderErrorsHaveCodes(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	secondInit := strings.Replace(initializeLine, `"id":0`, `"id":7`, 1)
	tests := []struct {
		name  string
		lines []string
		msg   string
	}{
		{name: "call before initialize", lines: []string{`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, initializeLine}, msg: `invalid request: method "tools/list" before initialize (send initialize first)`},
		{name: "second initialize", lines: []string{initializeLine, initializedLine, secondInit}, msg: "invalid request: initialize: the session is already initialized"},
		// The SDK answered -32603 "internal error: handling 'initialize':
		// missing required \"params\"": the client's mistake, not chitta's.
		{name: "initialize without params", lines: []string{`{"jsonrpc":"2.0","id":7,"method":"initialize"}`}, msg: initializeParamsRequired},
		{name: "initialize with null params", lines: []string{`{"jsonrpc":"2.0","id":7,"method":"initialize","params":null}`, initializeLine}, msg: initializeParamsRequired},
		{name: "second initialize without params", lines: []string{initializeLine, initializedLine, `{"jsonrpc":"2.0","id":7,"method":"initialize"}`}, msg: initializeParamsRequired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := byID(t, runSession(t, a, 64<<10, tt.lines...), "7")
			require.NotNil(t, r.Error, r.raw)
			assert.Equal(t, int64(jsonrpc.CodeInvalidRequest), r.Error.Code)
			assert.Equal(t, tt.msg, r.Error.Message)
		})
	}
}

// TestSessionSetLevelChecksLevel: logging/setLevel with a level that is
// not one of the eight syslog levels MCP names, or none, is -32602 naming
// the field and the levels (MCP logging: "Invalid log level: -32602");
// the session answered {} and went on. A valid level is still accepted.
func TestSessionSetLevelChecksLevel(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	const levels = "debug, info, notice, warning, error, critical, alert or emergency"
	tests := []struct {
		params string
		msg    string // "": a result
	}{
		{`{"level":"nope"}`, "invalid params: params.level: want " + levels},
		{`{"level":"INFO"}`, "invalid params: params.level: want " + levels},
		{`{"level":5}`, "invalid params: params.level: want " + levels},
		{`{}`, "invalid params: params.level: required (" + levels + ")"},
		{`{"level":null}`, "invalid params: params.level: required (" + levels + ")"},
		{`{"level":"warning"}`, ""},
		{`{"level":"emergency"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.params, func(t *testing.T) {
			t.Parallel()
			line := `{"jsonrpc":"2.0","id":7,"method":"logging/setLevel","params":` + tt.params + `}`
			r := byID(t, runSession(t, a, 64<<10, initializeLine, initializedLine, line), "7")
			if tt.msg == "" {
				assert.Nil(t, r.Error, r.raw)
				return
			}
			require.NotNil(t, r.Error, r.raw)
			assert.Equal(t, int64(jsonrpc.CodeInvalidParams), r.Error.Code)
			assert.Equal(t, tt.msg, r.Error.Message)
		})
	}
}

// blockingEmbedder blocks every call until its ctx is done, after saying
// on started that it began.
type blockingEmbedder struct {
	chitta.Embedder
	started chan struct{}
}

func (e *blockingEmbedder) Embed(ctx context.Context, _ []string) ([][]float32, error) {
	e.started <- struct{}{}
	<-ctx.Done()
	return nil, ctx.Err()
}

// blockedSession is an MCP session, after the handshake, whose tools embed
// with a blockingEmbedder, read from pw; done gets Run's error.
type blockedSession struct {
	emb  *blockingEmbedder
	tr   *lineTransport
	out  *syncBuffer
	pw   *io.PipeWriter
	done chan error
}

// startBlockedSession starts a blockedSession that waits at most drain at
// the end of its input.
func startBlockedSession(t *testing.T, drain time.Duration) *blockedSession {
	t.Helper()
	store, err := chitta.NewHNSWStore(testDims, nil)
	require.NoError(t, err)
	s := &blockedSession{emb: &blockingEmbedder{Embedder: chitta.NewHashEmbedder(testDims), started: make(chan struct{}, 1)}, out: &syncBuffer{}, done: make(chan error, 1)}
	a := newApp(store, s.emb, nil, nil)
	pr, pw := io.Pipe()
	s.pw = pw
	stash := newArgStash()
	s.tr = &lineTransport{r: pr, w: s.out, maxLine: 1 << 20, drain: drain, stash: stash, log: a.log}
	go func() { s.done <- newSessionServer(a, stash).Run(t.Context(), s.tr) }()
	s.write(t, initializeLine)
	s.write(t, initializedLine)
	return s
}

// write sends one line of input.
func (s *blockedSession) write(t *testing.T, line string) {
	t.Helper()
	_, err := io.WriteString(s.pw, line+"\n")
	require.NoError(t, err)
}

// TestSessionCancelledCallGetsNoResponse: a call the client cancels
// (notifications/cancelled) gets no response, as MCP's cancellation says
// ("receivers … SHOULD NOT send a response for the cancelled request"),
// and is not waited for at the end of input; the session sent one (an
// error of code 0, "context canceled", or the tool's error result).
// Another call is still answered, and a cancel for an id that is not in
// progress changes nothing.
func TestSessionCancelledCallGetsNoResponse(t *testing.T) {
	t.Parallel()
	s := startBlockedSession(t, 30*time.Second)
	s.write(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"nothing"}}`)
	s.write(t, `{"jsonrpc":"2.0","id":"r-9","method":"tools/call","params":{"name":"remember","arguments":{"text":"cancel me"}}}`)
	<-s.emb.started
	s.write(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r-9","reason":"the user pressed Esc"}}`)
	s.write(t, `{"jsonrpc":"2.0","id":10,"method":"ping"}`)
	require.NoError(t, s.pw.Close())
	select {
	case err := <-s.done:
		require.NoError(t, err)
	case <-time.After(20 * time.Second):
		t.Fatal("the session waited for the cancelled call")
	}
	assert.Zero(t, s.tr.conn.Unanswered())
	rs := responses(t, s.out.String())
	byID(t, rs, "10")
	for _, r := range rs {
		assert.NotEqual(t, `"r-9"`, string(r.ID), "a response to the cancelled call: %s", r.raw)
	}
}

// TestSessionCancelRequestCancelsNothing: notifications/cancelled sent as a
// request (with an id) is refused with -32600 and cancels nothing; the
// SDK acted on it before refusing it, cancelling the call it named, whose
// response then went out (-32603 "context canceled") although the client
// never cancelled it. The call is still running when the input ends.
func TestSessionCancelRequestCancelsNothing(t *testing.T) {
	t.Parallel()
	s := startBlockedSession(t, 200*time.Millisecond) // the drain only bounds the wait for the call, which never ends
	s.write(t, `{"jsonrpc":"2.0","id":"r-9","method":"tools/call","params":{"name":"remember","arguments":{"text":"keep me"}}}`)
	<-s.emb.started
	s.write(t, `{"jsonrpc":"2.0","id":"c","method":"notifications/cancelled","params":{"requestId":"r-9"}}`)
	require.NoError(t, s.pw.Close())
	require.NoError(t, <-s.done)
	assert.Equal(t, 1, s.tr.conn.Unanswered(), "the call was still running")
	rs := responses(t, s.out.String())
	c := byID(t, rs, `"c"`)
	require.NotNil(t, c.Error, c.raw)
	assert.Equal(t, int64(jsonrpc.CodeInvalidRequest), c.Error.Code)
	for _, r := range rs {
		assert.NotEqual(t, `"r-9"`, string(r.ID), "a response to a call nobody cancelled: %s", r.raw)
	}
}

// TestSessionListenStreamNotAwaited: a subscriptions/listen call (MCP
// 2026-07-28) is a stream that lasts until the client cancels it, so the
// end of input does not wait for its response: the session ends at once,
// with every other call answered. It waited the whole --timeout and then
// failed with "1 requests still unanswered".
func TestSessionListenStreamNotAwaited(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	lines := []string{
		initializeLine, initializedLine,
		`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
	}
	var out syncBuffer
	require.NoError(t, a.serve(t.Context(), strings.NewReader(strings.Join(lines, "\n")+"\n"), &out, 30*time.Second))
	assert.Contains(t, out.String(), `{"jsonrpc":"2.0","id":2,"result":{}}`)
	assert.Contains(t, out.String(), `"notifications/subscriptions/acknowledged"`, "the stream was opened")
}

// TestSessionUndeclaredCapabilities: the initialize result declares no
// resources, prompts or completions, and their methods are -32601 naming
// the method (MCP: a server offering resources or prompts declares them);
// the session answered resources/list and prompts/list with empty lists.
// tools/list still answers.
func TestSessionUndeclaredCapabilities(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	lines := []string{initializeLine, initializedLine}
	for i, m := range undeclaredMethods {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{}}`, i+1, m))
	}
	lines = append(lines, `{"jsonrpc":"2.0","id":100,"method":"tools/list"}`)
	rs := runSession(t, a, 64<<10, lines...)

	var init struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	require.NoError(t, json.Unmarshal(byID(t, rs, "0").Result, &init))
	assert.Contains(t, init.Capabilities, "tools")
	for _, c := range []string{"resources", "prompts", "completions"} {
		assert.NotContains(t, init.Capabilities, c)
	}
	require.Contains(t, undeclaredMethods, "resources/list")
	require.Contains(t, undeclaredMethods, "prompts/list")
	for i, m := range undeclaredMethods {
		r := byID(t, rs, fmt.Sprint(i+1))
		require.NotNil(t, r.Error, "%s: %s", m, r.raw)
		assert.Equal(t, int64(jsonrpc.CodeMethodNotFound), r.Error.Code, m)
		assert.Contains(t, r.Error.Message, fmt.Sprintf("method not found: %q", m))
	}
	tools := byID(t, rs, "100")
	require.Nil(t, tools.Error, tools.raw)
	assert.Contains(t, string(tools.Result), `"compact_context"`)
}

// TestSessionClientMistakeLoggedAtInfo: a second initialize is the
// client's mistake: the client gets -32600, and the SDK's record of it is
// logged at INFO, not ERROR (so not at all at the default level, WARN).
func TestSessionClientMistakeLoggedAtInfo(t *testing.T) {
	t.Parallel()
	secondInit := strings.Replace(initializeLine, `"id":0`, `"id":7`, 1)
	for _, level := range []slog.Level{slog.LevelDebug, slog.LevelWarn} {
		t.Run(level.String(), func(t *testing.T) {
			t.Parallel()
			var logs syncBuffer
			store, err := chitta.NewHNSWStore(testDims, nil)
			require.NoError(t, err)
			log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: level}))
			a := newApp(store, chitta.NewHashEmbedder(testDims), func() error { return nil }, log.With("k", "v"))
			r := byID(t, runSession(t, a, 64<<10, initializeLine, initializedLine, secondInit), "7")
			require.NotNil(t, r.Error, r.raw)
			assert.Equal(t, int64(jsonrpc.CodeInvalidRequest), r.Error.Code)
			assert.NotContains(t, logs.String(), "level=ERROR")
			if level == slog.LevelDebug {
				assert.Contains(t, logs.String(), `level=INFO msg="duplicate initialize request" k=v`)
			} else {
				assert.NotContains(t, logs.String(), "duplicate initialize")
			}
		})
	}
}

// TestInitializeNot20250326: a client asking for MCP 2025-03-26 gets
// another version, as MCP's lifecycle has a server answer a version it
// does not support: 2025-03-26 required a server to accept JSON-RPC
// batches ("MUST support receiving JSON-RPC batches"), which chitta
// refuses, as 2025-06-18 and later have it do. The versions it speaks are
// answered as they are.
func TestInitializeNot20250326(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	for _, tt := range []struct{ asked, answered string }{
		{"2025-03-26", "2025-11-25"},
		{"2024-11-05", "2024-11-05"},
		{"2025-06-18", "2025-06-18"},
		{"2025-11-25", "2025-11-25"},
	} {
		t.Run(tt.asked, func(t *testing.T) {
			t.Parallel()
			line := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + tt.asked + `","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}`
			r := byID(t, runSession(t, a, 64<<10, line, initializedLine), "0")
			require.Nil(t, r.Error, r.raw)
			var res struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			require.NoError(t, json.Unmarshal(r.Result, &res), r.raw)
			assert.Equal(t, tt.answered, res.ProtocolVersion)
		})
	}
}
