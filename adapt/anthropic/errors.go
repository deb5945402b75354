package anthropic

import "errors"

// ErrNoContent reports a user or assistant message with no content blocks
// (but for a final assistant message whose Content is empty and not nil,
// which the Anthropic API accepts as an empty prefill and the adapter
// compacts). The API refuses any other, and a nil Content is what
// anthropic-sdk-go's MessageParam makes of JSON whose content
// holds a block type it does not know, such as the MCP connector's
// mcp_tool_use and mcp_tool_result (beta blocks, which only
// BetaMessageParam reads): json.Unmarshal drops the whole content array,
// text blocks and all, without an error. Compacting such a message would
// pass that loss on as if nothing were missing, so [Messages], [Compact]
// and the Compactor refuse it; the JSON itself can be compacted with
// chitta.ParseMessages and chitta.Compact, which read every block.
var ErrNoContent = errors.New("anthropic: message with no content blocks")
