package main

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// testDims is the embedding size of the test apps.
const testDims = 128

// newTestApp returns an app over an empty in-memory store with the hash
// embedder, and a counter of the times it persisted the store.
func newTestApp(t testing.TB) (*app, *atomic.Int32) {
	t.Helper()
	store, err := chitta.NewHNSWStore(testDims, nil)
	require.NoError(t, err)
	var saves atomic.Int32
	a := newApp(store, chitta.NewHashEmbedder(testDims), func() error { saves.Add(1); return nil }, nil)
	return a, &saves
}

// conversation is an OpenAI-format conversation with a tool pair, written
// with unusual key order, spacing, a big integer and HTML characters so that
// any re-encoding of the kept messages shows.
const conversation = `[
  {"role": "system", "content": "You are a careful coding agent."},
  {"content": "The build fails with <nil> pointer & panics in parser.go; fix it.", "role": "user", "meta": {"n": 12345678901234567890}},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"parser.go\"}"}}]},
  {"role": "tool", "tool_call_id": "call_1", "content": "func Parse(b []byte) *Node { var n *Node; return n.child }"},
  {"role": "assistant", "content": "The panic comes from dereferencing a nil *Node in Parse."},
  {"role": "user", "content": "What is the weather like in Lisbon today? Just curious, unrelated to the bug."},
  {"role": "assistant", "content": "I cannot check the weather, but I can keep working on the parser."},
  {"role": "user", "content": "Fine. Now fix the nil pointer in Parse and add a test for empty input."}
]`

// rawMessages splits a JSON array into its elements, compacted.
func rawMessages(t *testing.T, data string) []string {
	t.Helper()
	var raws []json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(data), &raws))
	out := make([]string, len(raws))
	for i, r := range raws {
		out[i] = compactJSON(t, r)
	}
	return out
}

func compactJSON(t *testing.T, data []byte) string {
	t.Helper()
	var m any
	require.NoError(t, json.Unmarshal(data, &m), "%s", data)
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(json.RawMessage(data)))
	return strings.TrimSpace(b.String())
}

// connect starts an MCP server over a and returns a connected client
// session (the server is connected first).
func connect(t *testing.T, a *app) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	cs, err := client.Connect(t.Context(), serverTransport(t, a), nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// serverTransport starts an MCP server over a, connected first, and returns
// the client's end of the connection.
func serverTransport(t *testing.T, a *app) *mcp.InMemoryTransport {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := newServer(a).Connect(t.Context(), st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	return ct
}

// structuredJSON re-encodes a client-side result's structured content.
func structuredJSON(t *testing.T, res *mcp.CallToolResult) []byte {
	t.Helper()
	require.NotNil(t, res.StructuredContent)
	data, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	return data
}

// checkOutputSchema validates a tool's structured result against the
// output schema the server advertises, as a strict client would.
func checkOutputSchema(t *testing.T, a *app, tool string, res *mcp.CallToolResult) {
	t.Helper()
	for _, tl := range a.toolset {
		if tl.def.Name != tool {
			continue
		}
		schema, ok := tl.def.OutputSchema.(*jsonschema.Schema)
		require.True(t, ok)
		resolved, err := schema.Resolve(nil)
		require.NoError(t, err)
		var v any
		require.NoError(t, json.Unmarshal(structuredJSON(t, res), &v))
		require.NoError(t, resolved.Validate(v), "%s output against its schema", tool)
		return
	}
	t.Fatalf("no tool %q", tool)
}

func textOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	require.Len(t, res.Content, 1)
	tc, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok, "content is %T", res.Content[0])
	return tc.Text
}

func TestMCPListTools(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	cs := connect(t, a)
	res, err := cs.ListTools(t.Context(), nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		assert.NotEmpty(t, tool.Description)
		assert.NotNil(t, tool.OutputSchema)
	}
	assert.Equal(t, []string{"compact_context", "forget", "list_memories", "recall", "remember"}, names)

	schema, err := json.Marshal(res.Tools[0].InputSchema)
	require.NoError(t, err)
	var s struct {
		Required   []string `json:"required"`
		Properties map[string]struct {
			Type    any      `json:"type"`
			Minimum *float64 `json:"minimum"`
			Maximum *float64 `json:"maximum"`
			Default any      `json:"default"`
		} `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(schema, &s))
	assert.Equal(t, []string{"messages"}, s.Required)
	assert.Equal(t, "array", s.Properties["messages"].Type)
	ratio := s.Properties["target_ratio"]
	require.NotNil(t, ratio.Minimum)
	require.NotNil(t, ratio.Maximum)
	assert.InDelta(t, 0.05, *ratio.Minimum, 1e-12)
	assert.InDelta(t, 1.0, *ratio.Maximum, 1e-12)
	assert.Equal(t, 0.4, ratio.Default)
	assert.Equal(t, "number", ratio.Type)
	assert.Equal(t, false, s.Properties["distill_novel"].Default)
}

func TestMCPCompactContext(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	a, saves := newTestApp(t)
	cs := connect(t, a)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{
		Name:      "compact_context",
		Arguments: json.RawMessage(`{"messages": ` + conversation + `, "query": "fix the nil pointer panic in Parse", "target_ratio": 0.5, "keep_last": 1}`),
	})
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content)

	checkOutputSchema(t, a, "compact_context", res)
	var out struct {
		Messages []json.RawMessage `json:"messages"`
		Stats    map[string]any    `json:"stats"`
	}
	require.NoError(t, json.Unmarshal(structuredJSON(t, res), &out))
	for _, key := range []string{"before_tokens", "after_tokens", "dropped", "dropped_pct", "embedding", "kept", "target_tokens", "over_budget", "covered_dropped_pct", "distilled"} {
		assert.Contains(t, out.Stats, key)
	}
	assert.Equal(t, true, out.Stats["embedding"])
	assert.Positive(t, out.Stats["dropped"])
	assert.Less(t, out.Stats["after_tokens"], out.Stats["before_tokens"])

	// Kept messages are input objects, in input order; the system message,
	// the last message and the tool pair's integrity hold. (The SDK client
	// decodes structured content into maps, so compare decoded values;
	// TestKeptMessagesVerbatim checks the bytes.)
	in := decodedMessages(t, []byte(conversation))
	var kept []int
	for _, m := range out.Messages {
		var v any
		require.NoError(t, json.Unmarshal(m, &v))
		i := slices.IndexFunc(in, func(x any) bool { return assert.ObjectsAreEqual(x, v) })
		require.GreaterOrEqual(t, i, 0, "kept message %s is not an input message", m)
		kept = append(kept, i)
	}
	require.NotEmpty(t, kept)
	assert.True(t, slices.IsSorted(kept), "original order: %v", kept)
	assert.Equal(t, 0, kept[0], "system message kept")
	assert.Equal(t, len(in)-1, kept[len(kept)-1], "keep_last")
	assert.Equal(t, slices.Contains(kept, 2), slices.Contains(kept, 3), "tool call and result kept together")
	assert.Contains(t, textOf(t, res), "dropped")
	assert.Zero(t, saves.Load(), "no distill, no write")
}

func decodedMessages(t *testing.T, data []byte) []any {
	t.Helper()
	var msgs []any
	require.NoError(t, json.Unmarshal(data, &msgs))
	return msgs
}

// TestKeptMessagesVerbatim checks through the shared handler that a kept
// message is the caller's object byte for byte (up to white space): key
// order, a big integer and HTML characters survive.
func TestKeptMessagesVerbatim(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	resp := a.answer(t.Context(), []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"compact_context","arguments":{"messages":`+conversation+`,"target_ratio":1}}}`))
	require.Nil(t, resp.Error)
	data, err := marshal(resp)
	require.NoError(t, err)
	for _, m := range rawMessages(t, conversation) {
		assert.Contains(t, string(data), m)
	}
	assert.Contains(t, string(data), `"meta":{"n":12345678901234567890}`)
	assert.Contains(t, string(data), `"The build fails with <nil> pointer & panics in parser.go; fix it."`)
}

func TestMCPDistillSaves(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	a, saves := newTestApp(t)
	cs := connect(t, a)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{
		Name:      "compact_context",
		Arguments: json.RawMessage(`{"messages": ` + conversation + `, "target_ratio": 0.05, "distill_novel": true}`),
	})
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content)
	checkOutputSchema(t, a, "compact_context", res)
	var out struct {
		Stats     chitta.Stats       `json:"stats"`
		Distilled []chitta.Distilled `json:"distilled"`
	}
	require.NoError(t, json.Unmarshal(structuredJSON(t, res), &out))
	require.Positive(t, out.Stats.Distilled)
	assert.Len(t, out.Distilled, out.Stats.Distilled)
	assert.Equal(t, int32(1), saves.Load())
	assert.Equal(t, out.Stats.Distilled, a.store.Len())
	assert.Contains(t, textOf(t, res), "distilled")
}

func TestMCPRememberRecall(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	a, saves := newTestApp(t)
	cs := connect(t, a)
	facts := []struct {
		text, kind string
		confidence float64
	}{
		{"The user prefers tabs over spaces in Go code.", chitta.KindPreference, 0.9},
		{"The CI runs go test -race on two cores.", chitta.KindFact, 1},
		{"Never force-push to main; open a pull request.", chitta.KindCorrection, 0.8},
	}
	var ids []string
	for i, f := range facts {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "remember", Arguments: map[string]any{"text": f.text, "kind": f.kind, "confidence": f.confidence}})
		require.NoError(t, err)
		require.False(t, res.IsError, "%v", res.Content)
		checkOutputSchema(t, a, "remember", res)
		var out rememberOutput
		require.NoError(t, json.Unmarshal(structuredJSON(t, res), &out))
		assert.Equal(t, chitta.MemoryID(f.kind, f.text), out.ID)
		assert.Equal(t, f.kind, out.Kind)
		assert.Equal(t, i+1, out.Memories)
		ids = append(ids, out.ID)
	}
	assert.Equal(t, int32(len(facts)), saves.Load(), "one save per remember")

	// Remembering the same text again replaces it; kind defaults to fact.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "remember", Arguments: map[string]any{"text": facts[1].text}})
	require.NoError(t, err)
	var again rememberOutput
	require.NoError(t, json.Unmarshal(structuredJSON(t, res), &again))
	assert.Equal(t, ids[1], again.ID)
	assert.Equal(t, chitta.KindFact, again.Kind)
	assert.Equal(t, len(facts), again.Memories)

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "recall", Arguments: map[string]any{"text": "does the user like tabs or spaces?", "k": 2}})
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content)
	checkOutputSchema(t, a, "recall", res)
	var out recallOutput
	require.NoError(t, json.Unmarshal(structuredJSON(t, res), &out))
	require.Len(t, out.Memories, 2)
	assert.Equal(t, ids[0], out.Memories[0].ID)
	assert.Equal(t, chitta.KindPreference, out.Memories[0].Kind)
	assert.InDelta(t, 0.9, out.Memories[0].Confidence, 1e-9)
	assert.GreaterOrEqual(t, out.Memories[0].Similarity, out.Memories[1].Similarity)
	assert.Positive(t, out.Memories[0].Similarity)
	assert.Contains(t, textOf(t, res), "tabs")

	// Default k is 5 (only 3 stored).
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "recall", Arguments: map[string]any{"text": "CI"}})
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(structuredJSON(t, res), &out))
	assert.Len(t, out.Memories, 3)
}

// TestMCPInvalidArguments checks that both the MCP session and one-shot
// mode report bad arguments as a tool result with isError, its text
// naming the field (MCP 2025-11-25, SEP-1303: input validation errors are
// tool execution errors, so that the model sees them and can correct the
// call), and an unknown tool as -32602 (a protocol error).
func TestMCPInvalidArguments(t *testing.T) {
	t.Parallel()
	a, saves := newTestApp(t)
	cs := connect(t, a)
	tests := []struct {
		name, tool, args, field string
	}{
		{"missing messages", "compact_context", `{}`, "messages: required"},
		{"null messages", "compact_context", `{"messages": null}`, "messages: required"},
		{"messages not an array", "compact_context", `{"messages": {"role": "user"}}`, "messages: want an array"},
		{"message not an object", "compact_context", `{"messages": ["hi"]}`, "messages[0]"},
		{"message without role", "compact_context", `{"messages": [{"content": "hi"}]}`, "messages[0].role"},
		{"content of wrong type", "compact_context", `{"messages": [{"role": "user", "content": 3}]}`, "messages[0].content"},
		{"unknown role", "compact_context", `{"messages": [{"role": "critic", "content": "x"}]}`, "messages[0].role"},
		{"message not UTF-8", "compact_context", "{\"messages\": [{\"role\": \"user\", \"content\": \"ok\"}, {\"role\": \"user\", \"content\": \"bad \xff\xfe byte\"}]}", "messages[1]: not valid UTF-8"},
		{"ratio too high", "compact_context", `{"messages": [], "target_ratio": 1.5}`, "target_ratio"},
		{"ratio too low", "compact_context", `{"messages": [], "target_ratio": 0.01}`, "target_ratio"},
		{"ratio zero", "compact_context", `{"messages": [], "target_ratio": 0}`, "target_ratio"},
		{"ratio overflows", "compact_context", `{"messages": [], "target_ratio": 1e400}`, "target_ratio: 1e400 out of range"},
		{"ratio a string", "compact_context", `{"messages": [], "target_ratio": "half"}`, "target_ratio: want a number"},
		{"query a number", "compact_context", `{"messages": [], "query": 4}`, "query: want a string"},
		{"distill a string", "compact_context", `{"messages": [], "distill_novel": "yes"}`, "distill_novel: want a boolean"},
		{"threshold out of range", "compact_context", `{"messages": [], "novel_threshold": 0}`, "novel_threshold"},
		{"negative max_tokens", "compact_context", `{"messages": [], "max_tokens": -1}`, "max_tokens"},
		{"fractional keep_last", "compact_context", `{"messages": [], "keep_last": 1.5}`, "keep_last: want an integer"},
		{"negative keep_last", "compact_context", `{"messages": [], "keep_last": -2}`, "keep_last"},
		{"reserve above 1", "compact_context", `{"messages": [], "relevance_reserve": 1.5}`, "relevance_reserve: 1.5 out of range, want 0 to 1"},
		{"negative lexical", "compact_context", `{"messages": [], "lexical": -0.1}`, "lexical: -0.1 out of range, want 0 to 1"},
		{"unknown argument", "compact_context", `{"messages": [], "ratio": 0.3}`, `unknown field "ratio"`},
		{"arguments not an object", "compact_context", `[1]`, "arguments: want an object"},
		{"remember without text", "remember", `{"kind": "fact"}`, "text: required"},
		{"remember blank text", "remember", `{"text": "  "}`, "text: required"},
		{"confidence out of range", "remember", `{"text": "x", "confidence": 2}`, "confidence"},
		{"recall without text", "recall", `{}`, "text: required"},
		{"k zero", "recall", `{"text": "x", "k": 0}`, "k: 0 out of range"},
		{"k too big", "recall", `{"text": "x", "k": 1000}`, "k: 1000 out of range"},
		{"remember text without words", "remember", `{"text": "!!! 😀"}`, "text: nothing to embed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			var args any = json.RawMessage(tt.args)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tt.tool, Arguments: args})
			require.NoError(t, err, "an argument error is a tool result, not a protocol error")
			require.True(t, res.IsError)
			msg := textOf(t, res)
			assert.Contains(t, msg, tt.field)

			resp := a.answer(ctx, []byte(`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"`+tt.tool+`","arguments":`+tt.args+`}}`))
			require.Nil(t, resp.Error)
			res1, ok := resp.Result.(*toolResult)
			require.True(t, ok, "%T", resp.Result)
			assert.True(t, res1.IsError)
			assert.Equal(t, msg, res1.text, "both modes report the same")
		})
	}
	assert.Zero(t, saves.Load(), "no invalid call writes the store")
}

// TestMCPUnknownTool: a tool chitta does not have is a protocol error,
// -32602, in both modes (MCP: "Unknown tools" are protocol errors).
func TestMCPUnknownTool(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	cs := connect(t, a)
	ctx := t.Context()
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "summarise", Arguments: map[string]any{}})
	var wire *jsonrpc.Error
	require.ErrorAs(t, err, &wire)
	assert.Equal(t, int64(jsonrpc.CodeInvalidParams), wire.Code)
	assert.Contains(t, wire.Message, `unknown tool "summarise"`)

	resp := a.answer(ctx, []byte(`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"summarise","arguments":{}}}`))
	require.NotNil(t, resp.Error)
	assert.Equal(t, int64(jsonrpc.CodeInvalidParams), resp.Error.Code)
	assert.Equal(t, wire.Message, resp.Error.Message, "both modes report the same")
}

// failingEmbedder fails every call.
type failingEmbedder struct{}

func (failingEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, errors.New("model offline")
}

func TestToolErrors(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, err := chitta.NewHNSWStore(testDims, nil)
	require.NoError(t, err)
	a := newApp(store, failingEmbedder{}, func() error { return errors.New("disk full") }, nil)
	res, err := a.callTool(ctx, "remember", json.RawMessage(`{"text":"x"}`))
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, textOf(t, res), "model offline")

	res, err = a.callTool(ctx, "recall", json.RawMessage(`{"text":"x"}`))
	require.NoError(t, err)
	assert.True(t, res.IsError)

	// Compact degrades to recency + structural scoring when embedding fails.
	res, err = a.callTool(ctx, "compact_context", json.RawMessage(`{"messages":`+conversation+`}`))
	require.NoError(t, err)
	assert.False(t, res.IsError)

	// A store that cannot be saved is a tool error.
	a2, _ := newTestApp(t)
	a2.persist = func() error { return errors.New("disk full") }
	res, err = a2.callTool(ctx, "remember", json.RawMessage(`{"text":"x"}`))
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, textOf(t, res), "disk full")
}

// panickyEmbedder panics on every call, as a bug in an embedder or in
// chitta would.
type panickyEmbedder struct{}

func (panickyEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	panic("embedder bug")
}

// A panic while a tool runs is answered as an internal error (-32603), in
// one-shot mode and in a session, which goes on serving. It used to crash
// the process: the session with every request in flight, one-shot mode
// with exit status 2 and a stack trace.
func TestToolPanicIsAnError(t *testing.T) {
	t.Parallel()
	store, err := chitta.NewHNSWStore(testDims, nil)
	require.NoError(t, err)
	a := newApp(store, panickyEmbedder{}, func() error { return nil }, nil)
	for _, call := range []struct{ tool, args string }{
		{"remember", `{"text":"x"}`},
		{"recall", `{"text":"x"}`},
		{"compact_context", `{"messages":` + conversation + `,"query":"parser"}`},
	} {
		resp := a.answer(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+call.tool+`","arguments":`+call.args+`}}`))
		require.NotNil(t, resp.Error, call.tool)
		assert.Equal(t, int64(jsonrpc.CodeInternalError), resp.Error.Code, call.tool)
		assert.Equal(t, "internal error: "+call.tool+" failed unexpectedly (see the server's log)", resp.Error.Message)
	}

	cs := connect(t, a)
	for range 2 {
		_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "recall", Arguments: json.RawMessage(`{"text":"x"}`)})
		var wire *jsonrpc.Error
		require.ErrorAs(t, err, &wire)
		assert.Equal(t, int64(jsonrpc.CodeInternalError), wire.Code)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_memories", Arguments: json.RawMessage(`{}`)})
	require.NoError(t, err, "the session goes on")
	assert.False(t, res.IsError)
}

// TestRecallTextWithoutWords: a recall whose text the embedder maps to a
// zero vector (the hash embedder reads only letters and digits: "?", an
// emoji) finds no memory, as a text similar to none; it was a tool error
// ("invalid vector: query vector is a zero vector").
func TestRecallTextWithoutWords(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	a, _ := newTestApp(t)
	res, err := a.callTool(ctx, "remember", json.RawMessage(`{"text":"The CI runs on two cores."}`))
	require.NoError(t, err)
	require.False(t, res.IsError, textOf(t, res))
	for _, text := range []string{"?", "😀 !!!"} {
		res, err := a.callTool(ctx, "recall", json.RawMessage(`{"text":"`+text+`"}`))
		require.NoError(t, err)
		require.False(t, res.IsError, textOf(t, res))
		var out recallOutput
		require.NoError(t, json.Unmarshal(res.StructuredContent.(json.RawMessage), &out))
		assert.Empty(t, out.Memories, text)
		assert.Equal(t, "0 memories", textOf(t, res))
	}
}

// TestRecallSummaryWholeRunes: the recall summary quotes the best memory's
// first 80 bytes without cutting a character in two (a memory in Japanese
// ended its summary with half a character, which JSON shows as U+FFFD).
func TestRecallSummaryWholeRunes(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	a, _ := newTestApp(t)
	text := strings.Repeat("日本語", 20) + " CI"
	res, err := a.callTool(ctx, "remember", json.RawMessage(`{"text":"`+text+`"}`))
	require.NoError(t, err)
	require.False(t, res.IsError, textOf(t, res))
	res, err = a.callTool(ctx, "recall", json.RawMessage(`{"text":"`+text+`"}`))
	require.NoError(t, err)
	summary := textOf(t, res)
	assert.True(t, utf8.ValidString(summary), "%q", summary)
	assert.Contains(t, summary, "日本語日本語")
}

// TestArgumentKeysMatchExactly: argument names match the schema's exactly,
// as JSON does: a key that differs only in case is an unknown field. Go's
// decoder matched them case-insensitively, so {"text":"a","TEXT":"b"}
// recalled "b", and {"Text":"a"} passed for text.
func TestArgumentKeysMatchExactly(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	for _, tt := range []struct{ tool, args, field string }{
		{"recall", `{"text":"a","TEXT":"b"}`, `unknown field "TEXT"`},
		{"remember", `{"Text":"a"}`, `unknown field "Text"`},
		{"list_memories", `{"Limit":3}`, `unknown field "Limit"`},
		{"forget", `{"ID":"x"}`, `unknown field "ID"`},
		{"compact_context", `{"messages":[],"Query":"q"}`, `unknown field "Query"`},
		{"compact_context", `{"messages":[],"mask":{"Keep_Recent":1}}`, `unknown field "Keep_Recent"`},
	} {
		res, err := a.callTool(t.Context(), tt.tool, json.RawMessage(tt.args))
		assert.Contains(t, argError(t, res, err, "%s %s", tt.tool, tt.args), tt.field)
	}
}

// argError returns the text of the result by which a tool refused a
// call's arguments (isError, MCP 2025-11-25's SEP-1303), failing t if the
// call got anything else.
func argError(t *testing.T, res *mcp.CallToolResult, err error, msgAndArgs ...any) string {
	t.Helper()
	require.NoError(t, err, msgAndArgs...)
	require.NotNil(t, res, msgAndArgs...)
	require.True(t, res.IsError, msgAndArgs...)
	return textOf(t, res)
}

// answerArgError is argError for a one-shot answer.
func answerArgError(t *testing.T, resp *rpcResponse, msgAndArgs ...any) string {
	t.Helper()
	require.Nil(t, resp.Error, msgAndArgs...)
	res, ok := resp.Result.(*toolResult)
	require.True(t, ok, "result is %T", resp.Result)
	require.True(t, res.IsError, msgAndArgs...)
	return res.text
}

// wireArgError is argError for a session's response line.
func wireArgError(t *testing.T, r wireResponse) string {
	t.Helper()
	require.Nil(t, r.Error, r.raw)
	var res struct {
		Content []struct {
			Type, Text string
		}
		IsError bool
	}
	require.NoError(t, json.Unmarshal(r.Result, &res), r.raw)
	require.True(t, res.IsError, r.raw)
	require.Len(t, res.Content, 1, r.raw)
	assert.Equal(t, "text", res.Content[0].Type)
	return res.Content[0].Text
}
