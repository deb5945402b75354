// Package anthropic compacts anthropic-sdk-go v2 conversations
// ([]anthropic.MessageParam) with chitta, returning the caller's own
// values. Text for scoring comes from text, thinking, tool_use and
// server_tool_use (name and input) and tool_result blocks; images and
// documents count as "[image]" and "[document]"; any other block (server
// tool results, search results, block types newer than this adapter) is
// scored by its JSON. A tool_use block and the tool_result blocks answering
// it (by ID), and a server_tool_use block and its result, are kept or
// dropped together.
package anthropic

import (
	"context"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/internal/adaptkit"
)

// Messages converts msgs to chitta messages, index for index, with Content
// and tool linkage set and Raw nil. A message that is none of user,
// assistant or system is an error naming its index.
func Messages(msgs []anthropic.MessageParam) ([]chitta.Message, error) {
	out := make([]chitta.Message, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		var b adaptkit.Text
		switch {
		case m.OfUser != nil:
			out[i].Role = chitta.RoleUser
			addBlocks(&b, &out[i], m.OfUser.Content)
		case m.OfAssistant != nil:
			out[i].Role = chitta.RoleAssistant
			addBlocks(&b, &out[i], m.OfAssistant.Content)
		case m.OfSystem != nil:
			out[i].Role = chitta.RoleSystem
			for _, t := range m.OfSystem.Content {
				b.Add(t.Text)
			}
		default:
			return nil, fmt.Errorf("%w: message %d: no user, assistant or system variant set", chitta.ErrInvalidMessages, i)
		}
		out[i].Content = b.String()
	}
	return out, nil
}

func addBlocks(b *adaptkit.Text, m *chitta.Message, blocks []anthropic.ContentBlockParamUnion) {
	for _, blk := range blocks {
		switch {
		case blk.OfText != nil:
			b.Add(blk.OfText.Text)
		case blk.OfThinking != nil:
			b.Add(blk.OfThinking.Thinking)
		case blk.OfRedactedThinking != nil:
			b.Add("[redacted thinking]")
		case blk.OfToolUse != nil:
			m.ToolCallIDs = append(m.ToolCallIDs, blk.OfToolUse.ID)
			b.Add(blk.OfToolUse.Name + " " + adaptkit.JSON(blk.OfToolUse.Input))
		case blk.OfToolResult != nil:
			m.ToolResultIDs = append(m.ToolResultIDs, blk.OfToolResult.ToolUseID)
			for _, c := range blk.OfToolResult.Content {
				switch {
				case c.OfText != nil:
					b.Add(c.OfText.Text)
				case c.OfImage != nil:
					b.Add("[image]")
				default:
					b.Add(adaptkit.JSON(c))
				}
			}
		case blk.OfServerToolUse != nil:
			m.ToolCallIDs = append(m.ToolCallIDs, blk.OfServerToolUse.ID)
			b.Add(string(blk.OfServerToolUse.Name) + " " + adaptkit.JSON(blk.OfServerToolUse.Input))
		case blk.OfImage != nil:
			b.Add("[image]")
		case blk.OfDocument != nil:
			b.Add("[document]")
		default:
			// Server tool results (web search, web fetch, code execution,
			// ...) answer a server_tool_use by ID; any other block type is
			// scored by its JSON.
			if id := blk.GetToolUseID(); id != nil {
				m.ToolResultIDs = append(m.ToolResultIDs, *id)
			}
			b.Add(adaptkit.JSON(blk))
		}
	}
}

// Compact compacts msgs with [chitta.Compact] and returns the surviving
// values of msgs themselves (msgs[i] for each i in Result.Kept, not copies
// made through JSON), in order, with the Result. msgs is not modified.
func Compact(ctx context.Context, msgs []anthropic.MessageParam, opts *chitta.Options) ([]anthropic.MessageParam, *chitta.Result, error) {
	return adaptkit.Compact(ctx, msgs, opts, Messages)
}
