package anthropic

import "errors"

// ErrNoContent reports a user or assistant message with no content blocks.
// The Anthropic API refuses one (but for a final assistant message), and
// it is what anthropic-sdk-go's MessageParam makes of JSON whose content
// holds a block type it does not know, such as the MCP connector's
// mcp_tool_use and mcp_tool_result (beta blocks, which only
// BetaMessageParam reads): json.Unmarshal drops the whole content array,
// text blocks and all, without an error. Compacting such a message would
// pass that loss on as if nothing were missing, so [Messages], [Compact]
// and the Compactor refuse it; the JSON itself can be compacted with
// chitta.ParseMessages and chitta.Compact, which read every block.
var ErrNoContent = errors.New("anthropic: message with no content blocks")

// ErrNoResultContent reports a tool_result block whose Content is nil. It
// is what anthropic-sdk-go's MessageParam makes of JSON whose tool_result
// content holds a block type it does not know (a newer or beta one):
// json.Unmarshal drops the whole content array, text blocks and all,
// without an error, so [Messages], [Compact] and the Compactor refuse it
// rather than score and return the result as if it had been empty. The
// SDK's NewToolResultBlock always sets Content; a result with no output
// has an empty, non-nil Content (JSON "content":[]). The JSON itself can be
// compacted with chitta.ParseMessages and chitta.Compact.
var ErrNoResultContent = errors.New("anthropic: tool_result with no content")
