package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maskConversation has two read_file calls whose results are 150 words
// each; the older one is outside keep_recent 1.
func maskConversation() string {
	out := func(tag string) string {
		w := make([]string, 150)
		for i := range w {
			w[i] = fmt.Sprintf("%s%d", tag, i)
		}
		return strings.Join(w, " ")
	}
	return `[
  {"role": "system", "content": "You are a careful coding agent."},
  {"role": "user", "content": "Read parser.go and lexer.go."},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"parser.go\"}"}}]},
  {"role": "tool", "tool_call_id": "c1", "content": "` + out("p") + `"},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"lexer.go\"}"}}]},
  {"role": "tool", "tool_call_id": "c2", "content": "` + out("l") + `"}
]`
}

func TestMCPCompactMask(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	cs := connect(t, a)
	args := `{"messages": ` + maskConversation() + `, "target_ratio": 1, "mask": {"keep_recent": 1, "min_tokens": 50}}`
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "compact_context", Arguments: json.RawMessage(args)})
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content)
	checkOutputSchema(t, a, "compact_context", res)
	var out struct {
		Messages []map[string]any `json:"messages"`
		Stats    map[string]any   `json:"stats"`
	}
	require.NoError(t, json.Unmarshal(structuredJSON(t, res), &out))
	require.Len(t, out.Messages, 6)
	masked := out.Messages[3]
	assert.Equal(t, "tool", masked["role"])
	assert.Equal(t, "c1", masked["tool_call_id"])
	assert.Equal(t, "[chitta: read_file output elided (195 tokens)]", masked["content"])
	assert.Contains(t, out.Messages[5]["content"], "l149", "the newest result is kept")
	assert.EqualValues(t, 1, out.Stats["masked"])
	assert.Contains(t, textOf(t, res), "1 tool results masked")

	// One-shot mode answers the same, with the caller's other objects
	// byte for byte.
	resp := a.answer(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"compact_context","arguments":`+args+`}}`))
	require.Nil(t, resp.Error)
	data, err := marshal(resp)
	require.NoError(t, err)
	assert.Contains(t, string(data), `{"role":"tool","tool_call_id":"c1","content":"[chitta: read_file output elided (195 tokens)]"}`)
	for i, m := range rawMessages(t, maskConversation()) {
		if i != 3 {
			assert.Contains(t, string(data), m)
		}
	}
}

// The mask's selection and placeholder options reach chitta.MaskOptions.
func TestMCPCompactMaskValues(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	cs := connect(t, a)
	conversation := `[
  {"role": "user", "content": "Change my booking."},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_reservation", "arguments": "{}"}}]},
  {"role": "tool", "tool_call_id": "c1", "content": "{\"reservation_id\": \"JG7FMM\", \"flight\": \"HAT028\", \"note\": \"the customer asked about the baggage allowance for this trip twice\"}"},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "get_user", "arguments": "{}"}}]},
  {"role": "tool", "tool_call_id": "c2", "content": "done"}
]`
	tests := []struct {
		mask, want string
	}{
		{`{"keep_recent": 1, "min_tokens": 5}`, "[chitta: get_reservation output elided (20 tokens); values: JG7FMM, HAT028]"},
		{`{"keep_recent": 1, "min_tokens": 5, "list_values": -1, "actions": "off"}`, "[chitta: get_reservation output elided (20 tokens)]"},
		{`{"keep_recent": 1, "min_tokens": 5, "restore": true}`, `{"reservation_id": "JG7FMM", "flight": "HAT028", "note": "the customer asked about the baggage allowance for this trip twice"}`},
	}
	for _, tt := range tests {
		args := `{"messages": ` + conversation + `, "target_ratio": 1, "mask": ` + tt.mask + `}`
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "compact_context", Arguments: json.RawMessage(args)})
		require.NoError(t, err)
		require.False(t, res.IsError, "%v", res.Content)
		var out struct {
			Messages []map[string]any `json:"messages"`
		}
		require.NoError(t, json.Unmarshal(structuredJSON(t, res), &out))
		require.Len(t, out.Messages, 5)
		assert.Equal(t, tt.want, out.Messages[2]["content"], tt.mask)
	}
}

func TestMCPMaskInvalid(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	cs := connect(t, a)
	for _, tt := range []struct{ args, field string }{
		{`{"messages": [], "mask": {"keep_recent": -1}}`, "mask.keep_recent: -1 out of range"},
		{`{"messages": [], "mask": {"min_tokens": -5}}`, "mask.min_tokens: -5 out of range"},
		{`{"messages": [], "mask": {"max_result_tokens": -1}}`, "mask.max_result_tokens"},
		// An unknown field of mask is named under mask, not arguments
		// (the case-folded match of encoding/json, and the exact one).
		{`{"messages": [], "mask": {"keep": 2}}`, `mask: unknown field "keep"`},
		{`{"messages": [], "mask": {"Keep_Recent": 1}}`, `mask: unknown field "Keep_Recent"`},
		{`{"messages": [], "keep": 2}`, `arguments: unknown field "keep"`},
		{`{"messages": [], "mask": {"actions": "random"}}`, `mask.actions: "random"`},
		{`{"messages": [], "mask": 3}`, "mask: want"},
		{`{"messages": [], "mask": {"exclude_tools": "bash"}}`, "mask.exclude_tools: want"},
		// The JSON types, never the Go ones (main.maskInput, []string).
		{`{"messages": [], "mask": []}`, "mask: want an object, got array"},
		{`{"messages": [], "mask": "on"}`, "mask: want an object, got string"},
		{`{"messages": [], "mask": {"exclude_tools": {"a": 1}}}`, "mask.exclude_tools: want an array of strings, got object"},
		{`{"messages": [], "mask": {"exclude_tools": [1]}}`, "mask.exclude_tools: want a string, got number"},
		{`{"messages": [], "mask": {"list_values": -99999999999999999999}}`, "mask.list_values: -99999999999999999999 out of range"},
		{`{"messages": [], "keep_last": 1e30}`, "keep_last: 1e30 out of range, want >= 0"},
		{`{"messages": [], "keep_last": 2.5e-1}`, "keep_last: want an integer, got number 2.5e-1"},
		{`{"messages": [], "keep_last": 1e-99999999999999999999}`, "keep_last: want an integer, got number 1e-99999999999999999999"},
	} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "compact_context", Arguments: json.RawMessage(tt.args)})
		assert.Contains(t, argError(t, res, err, tt.args), tt.field)
	}
}
