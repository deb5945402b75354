// Package openai compacts openai-go v3 conversations with chitta,
// returning the caller's own values: Chat Completions messages
// ([]openai.ChatCompletionMessageParamUnion, [Compact] and [Messages]) and
// Responses input items ([]responses.ResponseInputItemUnionParam,
// [CompactResponses] and [ResponsesMessages]).
//
// Text for scoring comes from every part: text and refusals, tool call
// names and arguments, tool outputs, reasoning summaries; images, audio and
// files count as "[image]" or "[document]"; anything the adapter does not
// read itself is scored by its JSON. Units stay intact by the SDK's own
// linkage: tool_calls[].id and tool_call_id in chat; call_id between a
// *_call item and its *_call_output in Responses, where a reasoning item is
// also kept or dropped with the item after it, and a compaction item is
// always kept.
//
// This module needs go 1.26, as openai-go v3 does.
package openai

import (
	"context"
	"fmt"
	"strconv"

	"github.com/openai/openai-go/v3"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/internal/adaptkit"
)

// Messages converts chat messages to chitta messages, index for index,
// with Content and tool linkage set and Raw nil. A message with no variant
// set is an error naming its index.
func Messages(msgs []openai.ChatCompletionMessageParamUnion) ([]chitta.Message, error) {
	out := make([]chitta.Message, len(msgs))
	pendingFunction := "" // legacy function_call awaiting its function message
	for i := range msgs {
		u := &msgs[i]
		m := &out[i]
		var b adaptkit.Text
		switch {
		case u.OfSystem != nil:
			m.Role = chitta.RoleSystem
			b.Add(u.OfSystem.Content.OfString.Value)
			addTextParts(&b, u.OfSystem.Content.OfArrayOfContentParts)
		case u.OfDeveloper != nil:
			m.Role = chitta.RoleDeveloper
			b.Add(u.OfDeveloper.Content.OfString.Value)
			addTextParts(&b, u.OfDeveloper.Content.OfArrayOfContentParts)
		case u.OfUser != nil:
			m.Role = chitta.RoleUser
			b.Add(u.OfUser.Content.OfString.Value)
			for _, p := range u.OfUser.Content.OfArrayOfContentParts {
				switch {
				case p.OfText != nil:
					b.Add(p.OfText.Text)
				case p.OfImageURL != nil:
					b.Add("[image]")
				case p.OfInputAudio != nil:
					b.Add("[audio]")
				case p.OfFile != nil:
					b.Add("[document]")
				default:
					b.Add(adaptkit.JSON(p))
				}
			}
		case u.OfAssistant != nil:
			a := u.OfAssistant
			m.Role = chitta.RoleAssistant
			b.Add(a.Content.OfString.Value)
			for _, p := range a.Content.OfArrayOfContentParts {
				switch {
				case p.OfText != nil:
					b.Add(p.OfText.Text)
				case p.OfRefusal != nil:
					b.Add(p.OfRefusal.Refusal)
				default:
					b.Add(adaptkit.JSON(p))
				}
			}
			b.Add(a.Refusal.Value)
			for _, tc := range a.ToolCalls {
				switch {
				case tc.OfFunction != nil:
					m.ToolCallIDs = appendID(m.ToolCallIDs, tc.OfFunction.ID)
					b.Add(tc.OfFunction.Function.Name + " " + tc.OfFunction.Function.Arguments)
				case tc.OfCustom != nil:
					m.ToolCallIDs = appendID(m.ToolCallIDs, tc.OfCustom.ID)
					b.Add(tc.OfCustom.Custom.Name + " " + tc.OfCustom.Custom.Input)
				default:
					b.Add(adaptkit.JSON(tc))
				}
			}
			//lint:ignore SA1019 conversations written with the legacy function_call must still pair
			if fc := a.FunctionCall; fc.Name != "" || fc.Arguments != "" {
				pendingFunction = "function_call@" + strconv.Itoa(i)
				m.ToolCallIDs = append(m.ToolCallIDs, pendingFunction)
				b.Add(fc.Name + " " + fc.Arguments)
			}
		case u.OfTool != nil:
			m.Role = chitta.RoleTool
			m.ToolResultIDs = appendID(m.ToolResultIDs, u.OfTool.ToolCallID)
			b.Add(u.OfTool.Content.OfString.Value)
			addTextParts(&b, u.OfTool.Content.OfArrayOfContentParts)
		case u.OfFunction != nil:
			m.Role = "function"
			if pendingFunction != "" {
				m.ToolResultIDs = append(m.ToolResultIDs, pendingFunction)
				pendingFunction = ""
			}
			b.Add(u.OfFunction.Content.Value)
		default:
			return nil, fmt.Errorf("%w: message %d: no message variant set", chitta.ErrInvalidMessages, i)
		}
		m.Content = b.String()
	}
	return out, nil
}

func addTextParts(b *adaptkit.Text, parts []openai.ChatCompletionContentPartTextParam) {
	for _, p := range parts {
		b.Add(p.Text)
	}
}

func appendID(ids []string, id string) []string {
	if id == "" {
		return ids
	}
	return append(ids, id)
}

// Compact compacts chat messages with [chitta.Compact] and returns the
// surviving values of msgs themselves (msgs[i] for each i in Result.Kept,
// not copies made through JSON), in order, with the Result. msgs is not
// modified.
func Compact(ctx context.Context, msgs []openai.ChatCompletionMessageParamUnion, opts *chitta.Options) ([]openai.ChatCompletionMessageParamUnion, *chitta.Result, error) {
	return adaptkit.Compact(ctx, msgs, opts, Messages)
}
