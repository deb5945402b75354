package anthropic_test

import (
	"encoding/json"
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

// requireRefused checks that Messages, Compact and a Compactor all refuse
// msgs with an error wrapping sentinel and chitta.ErrInvalidMessages, whose
// text (Messages') holds each of texts.
func requireRefused(t *testing.T, msgs []sdk.MessageParam, sentinel error, texts ...string) {
	t.Helper()
	_, err := anthropic.Messages(msgs)
	require.ErrorIs(t, err, sentinel)
	require.ErrorIs(t, err, chitta.ErrInvalidMessages)
	for _, s := range texts {
		assert.ErrorContains(t, err, s)
	}

	out, _, err := anthropic.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: 0.5})
	require.ErrorIs(t, err, sentinel)
	assert.Nil(t, out)

	c, err := anthropic.NewCompactor(nil, chitta.Policy{MaxTokens: 1000})
	require.NoError(t, err)
	_, _, err = c.Compact(t.Context(), msgs)
	require.ErrorIs(t, err, sentinel)
}

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
			requireRefused(t, tt.msgs, anthropic.ErrNoContent, tt.msg, "mcp_tool_use")
		})
	}

	// The JSON itself compacts with chitta, every block read.
	msgs, err := chitta.ParseMessages([]byte(mcpJSON))
	require.NoError(t, err)
	assert.Contains(t, msgs[1].Content, "Three files")
	assert.Equal(t, []string{"mcptoolu_1"}, msgs[1].ToolCallIDs)
}

// TestNoResultContentRefused: a tool_result block with nil Content is an
// error naming the message, the block and the tool_use, never compacted as
// if the result had been empty. It is what anthropic-sdk-go's MessageParam
// reads from JSON whose tool_result content holds a block type it does not
// know: the whole content goes, the text blocks beside it too, without an
// error. A result with no output ("content":[]) is compacted.
func TestNoResultContentRefused(t *testing.T) {
	t.Parallel()
	const js = `[
{"role":"user","content":"Read the config."},
{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"read","input":{"path":"config.yaml"}}]},
{"role":"user","content":[{"type":"text","text":"Here it is."},{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"port: 8080"},{"type":"future_block","data":"the rest of the file"}]}]},
{"role":"user","content":"Change the port."}]`
	var fromJSON []sdk.MessageParam
	require.NoError(t, json.Unmarshal([]byte(js), &fromJSON))
	require.Len(t, fromJSON[2].OfUser.Content, 2)
	require.Nil(t, fromJSON[2].OfUser.Content[1].OfToolResult.Content, "the SDK dropped the content (if it reads unknown blocks now, this test needs another case)")

	built := []sdk.MessageParam{
		sdk.NewAssistantMessage(sdk.NewToolUseBlock("toolu_2", map[string]any{}, "noop")),
		sdk.NewUserMessage(sdk.ContentBlockParamUnion{OfToolResult: &sdk.ToolResultBlockParam{ToolUseID: "toolu_2"}}),
	}
	tests := []struct {
		name string
		msgs []sdk.MessageParam
		msg  string
	}{
		{"unknown block read by the SDK", fromJSON, `message 2, block 1: tool_result for "toolu_1" with no content`},
		{"built without Content", built, `message 1, block 0: tool_result for "toolu_2" with no content`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			requireRefused(t, tt.msgs, anthropic.ErrNoResultContent, tt.msg, "empty slice")
		})
	}

	t.Run("no output is no loss", func(t *testing.T) {
		t.Parallel()
		var msgs []sdk.MessageParam
		require.NoError(t, json.Unmarshal([]byte(`[{"role":"assistant","content":[{"type":"tool_use","id":"toolu_3","name":"touch","input":{}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_3","content":[]}]}]`), &msgs))
		got, err := anthropic.Messages(msgs)
		require.NoError(t, err)
		assert.Equal(t, []string{"toolu_3"}, got[1].ToolResultIDs)
	})

	// The JSON itself compacts with chitta, every block read.
	msgs, err := chitta.ParseMessages([]byte(js))
	require.NoError(t, err)
	assert.Contains(t, msgs[2].Content, "port: 8080")
}
