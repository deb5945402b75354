package anthropic_test

import (
	"encoding/json"
	"slices"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/anthropic"
)

// mcpJSON is a conversation through the MCP connector: the assistant's
// text, mcp_tool_use and mcp_tool_result blocks in one message (message 1).
const mcpJSON = `[
{"role":"user","content":"List the files in the repository root."},
{"role":"assistant","content":[{"type":"text","text":"Listing them."},{"type":"mcp_tool_use","id":"mcptoolu_1","name":"ls","server_name":"fs","input":{"path":"/"}},{"type":"mcp_tool_result","tool_use_id":"mcptoolu_1","is_error":false,"content":[{"type":"text","text":"go.mod main.go README.md"}]},{"type":"text","text":"Three files: go.mod, main.go, README.md."}]},
{"role":"user","content":"Open main.go."}]`

// TestNoContentRefused: a user or assistant message with no content blocks
// is an error naming it, never compacted as if nothing were missing. It is
// what anthropic-sdk-go's MessageParam reads from JSON with an MCP
// connector block (the whole content array goes, the text blocks beside
// the MCP ones too, without an error): Compact returned the conversation
// with that message empty, and Messages read it as an empty message.
func TestNoContentRefused(t *testing.T) {
	t.Parallel()
	var fromJSON []sdk.MessageParam
	require.NoError(t, json.Unmarshal([]byte(mcpJSON), &fromJSON))
	require.NotNil(t, fromJSON[1].OfAssistant)
	require.Empty(t, fromJSON[1].OfAssistant.Content, "the SDK dropped the content (if it reads MCP blocks now, this test needs another case)")

	tests := []struct {
		name string
		msgs []sdk.MessageParam
		msg  string
	}{
		{name: "MCP blocks read by the SDK", msgs: fromJSON, msg: "message 1: assistant message with no content blocks"},
		{name: "empty user message", msgs: []sdk.MessageParam{sdk.NewUserMessage()}, msg: "message 0: user message with no content blocks"},
		{name: "empty final assistant message", msgs: []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("hi")), sdk.NewAssistantMessage()}, msg: "message 1: assistant message with no content blocks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := anthropic.Messages(tt.msgs)
			require.ErrorIs(t, err, anthropic.ErrNoContent)
			require.ErrorIs(t, err, chitta.ErrInvalidMessages)
			assert.ErrorContains(t, err, tt.msg)
			assert.ErrorContains(t, err, "mcp_tool_use")

			requireRefused(t, tt.msgs, anthropic.ErrNoContent, &chitta.Options{TargetRatio: 0.5})
		})
	}

	// The JSON itself compacts with chitta, every block read.
	msgs, err := chitta.ParseMessages([]byte(mcpJSON))
	require.NoError(t, err)
	assert.Contains(t, msgs[1].Content, "Three files")
	assert.Equal(t, []string{"mcptoolu_1"}, msgs[1].ToolCallIDs)
}

// TestToolResultWithoutContentAccepted: a tool_result without content is
// valid for the Anthropic API (content is optional), whether built as a
// typed value with no Content or read from JSON that omits it; the adapter
// compacts it like any result and returns the caller's value.
func TestToolResultWithoutContentAccepted(t *testing.T) {
	t.Parallel()
	var fromJSON []sdk.MessageParam
	require.NoError(t, json.Unmarshal([]byte(`[
{"role":"user","content":"touch the marker file"},
{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"touch","input":{"path":"/tmp/m"}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1"}]},
{"role":"assistant","content":"Done."}]`), &fromJSON))
	typed := []sdk.MessageParam{
		sdk.NewUserMessage(sdk.NewTextBlock("touch the marker file")),
		sdk.NewAssistantMessage(sdk.NewToolUseBlock("toolu_1", map[string]any{"path": "/tmp/m"}, "touch")),
		sdk.NewUserMessage(sdk.ContentBlockParamUnion{OfToolResult: &sdk.ToolResultBlockParam{ToolUseID: "toolu_1"}}),
		sdk.NewAssistantMessage(sdk.NewTextBlock("Done.")),
	}
	for name, msgs := range map[string][]sdk.MessageParam{"json": fromJSON, "typed": typed} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			require.Nil(t, msgs[2].OfUser.Content[0].OfToolResult.Content)
			conv, err := anthropic.Messages(msgs)
			require.NoError(t, err)
			require.Len(t, conv, 4)
			assert.Equal(t, []string{"toolu_1"}, conv[1].ToolCallIDs)
			out, res, err := anthropic.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: 1})
			require.NoError(t, err)
			require.Len(t, out, 4)
			assert.Equal(t, 4, res.Stats.Kept)
			assert.Same(t, msgs[2].OfUser.Content[0].OfToolResult, out[2].OfUser.Content[0].OfToolResult, "the caller's own value comes back")
		})
	}
}

// TestEmptyFinalAssistantAccepted: the Messages API accepts an empty
// final assistant message ("all messages must have non-empty content
// except for the optional final assistant message"), an empty prefill:
// `"content": []`, which the SDK reads as an empty, non-nil Content. The
// adapter compacts it and returns the caller's value; an empty assistant
// message anywhere else is still ErrNoContent, and so is a final one with
// a nil Content (what the SDK makes of unknown blocks, and sends without
// the required content field). On main every case was refused.
func TestEmptyFinalAssistantAccepted(t *testing.T) {
	t.Parallel()
	var fromJSON []sdk.MessageParam
	require.NoError(t, json.Unmarshal([]byte(`[
{"role":"user","content":"Name three primes."},
{"role":"assistant","content":"2, 3 and 5."},
{"role":"user","content":"Three more."},
{"role":"assistant","content":[]}]`), &fromJSON))
	typed := []sdk.MessageParam{
		sdk.NewUserMessage(sdk.NewTextBlock("Name three primes.")),
		sdk.NewAssistantMessage(sdk.NewTextBlock("2, 3 and 5.")),
		sdk.NewUserMessage(sdk.NewTextBlock("Three more.")),
		{OfAssistant: &sdk.AssistantMessageParam{Content: []sdk.ContentBlockParamUnion{}}},
	}
	for name, msgs := range map[string][]sdk.MessageParam{"json": fromJSON, "typed": typed} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			require.NotNil(t, msgs[3].OfAssistant.Content)
			require.Empty(t, msgs[3].OfAssistant.Content)
			conv, err := anthropic.Messages(msgs)
			require.NoError(t, err)
			require.Len(t, conv, 4)
			assert.Equal(t, chitta.RoleAssistant, conv[3].Role)
			assert.Empty(t, conv[3].Content)

			out, res, err := anthropic.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: 1})
			require.NoError(t, err)
			require.Len(t, out, 4)
			assert.Equal(t, 4, res.Stats.Kept)
			assert.Same(t, msgs[3].OfAssistant, out[3].OfAssistant, "the caller's own value comes back")

			c, err := anthropic.NewCompactor(nil, chitta.Policy{MaxTokens: 1000})
			require.NoError(t, err)
			out, _, err = c.Compact(t.Context(), msgs)
			require.NoError(t, err)
			require.Len(t, out, 4)

			// Once a user message follows, the empty message is not final: refused.
			next := append(slices.Clone(msgs), sdk.NewUserMessage(sdk.NewTextBlock("Go on.")))
			_, _, err = c.Compact(t.Context(), next)
			require.ErrorIs(t, err, anthropic.ErrNoContent)
			assert.ErrorContains(t, err, "message 3: assistant message with no content blocks")
		})
	}
}

// TestBlockWithoutVariantRefused: a content block, or a tool_result's
// content block, with no variant set (the zero union, as
// make([]sdk.ContentBlockParamUnion, n) leaves it) is an error naming the
// message and the block, as chitta.ParseMessages refuses the `null` the
// SDK sends for it. The adapter scored it as the text "null" and returned
// it, for the API to refuse.
func TestBlockWithoutVariantRefused(t *testing.T) {
	t.Parallel()
	hi := sdk.NewUserMessage(sdk.NewTextBlock("hi"))
	call := sdk.NewAssistantMessage(sdk.NewToolUseBlock("tu_1", map[string]any{"path": "a.go"}, "read_file"))
	tests := []struct {
		name string
		msgs []sdk.MessageParam
		msg  string
	}{
		{name: "user block", msgs: []sdk.MessageParam{sdk.NewUserMessage(sdk.ContentBlockParamUnion{})},
			msg: "chitta: invalid messages: message 0: content[0]: no block variant set"},
		{name: "assistant block beside text", msgs: []sdk.MessageParam{hi, sdk.NewAssistantMessage(sdk.NewTextBlock("reading"), sdk.ContentBlockParamUnion{})},
			msg: "chitta: invalid messages: message 1: content[1]: no block variant set"},
		{name: "tool_result content", msgs: []sdk.MessageParam{hi, call, sdk.NewUserMessage(sdk.ContentBlockParamUnion{OfToolResult: &sdk.ToolResultBlockParam{
			ToolUseID: "tu_1", Content: []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: "package a"}}, {}},
		}})}, msg: "chitta: invalid messages: message 2: content[0].content[1]: no block variant set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data, err := json.Marshal(tt.msgs)
			require.NoError(t, err)
			_, err = chitta.ParseMessages(data)
			require.ErrorIs(t, err, chitta.ErrInvalidMessages, "chitta refuses the SDK's JSON: %s", data)

			_, err = anthropic.Messages(tt.msgs)
			require.ErrorIs(t, err, chitta.ErrInvalidMessages)
			assert.EqualError(t, err, tt.msg)

			requireRefused(t, tt.msgs, chitta.ErrInvalidMessages, &chitta.Options{TargetRatio: 0.5}, &chitta.Options{TargetRatio: 0.5, Mask: &chitta.MaskOptions{}})
		})
	}
}

// requireRefused checks that Compact, and a Compactor's Compact, refuse
// msgs with an error wrapping target and return no values, under each of
// opts.
func requireRefused(t *testing.T, msgs []sdk.MessageParam, target error, opts ...*chitta.Options) {
	t.Helper()
	for _, o := range opts {
		out, _, err := anthropic.Compact(t.Context(), msgs, o)
		require.ErrorIs(t, err, target)
		assert.Nil(t, out)

		c, err := anthropic.NewCompactor(o, chitta.Policy{MaxTokens: 1000})
		require.NoError(t, err)
		out, _, err = c.Compact(t.Context(), msgs)
		require.ErrorIs(t, err, target)
		assert.Nil(t, out)
	}
}
