// Package openai compacts openai-go v3 conversations with chitta,
// returning the caller's own values: Chat Completions messages
// ([]openai.ChatCompletionMessageParamUnion, [Compact] and [Messages]) and
// Responses input items ([]responses.ResponseInputItemUnionParam,
// [CompactResponses] and [ResponsesMessages]).
//
// Text for scoring comes from every part: text and refusals, tool call
// names and arguments, tool outputs, reasoning summaries; images, audio and
// files count as "[image]" or "[document]", and an image also carries what
// OpenAI bills for it in chitta.Message.MediaTokens
// (chitta.OpenAIImageURLTokens: a data URL's size by the tile rule, the
// rule's maximum for another URL or a file ID), as chitta.ParseMessages
// counts it; anything the adapter does not
// read itself is scored by its JSON. Units stay intact by the SDK's own
// linkage: tool_calls[].id and tool_call_id in chat; call_id between a
// *_call item and its *_call_output in Responses, where a reasoning item is
// also kept or dropped with the rest of the model's reply (the items after
// it up to the next input item), and a compaction item is
// always kept.
//
// For an agent loop that compacts before every model call, [NewCompactor]
// ([NewResponsesCompactor] for Responses items) returns a Compactor:
// [chitta.Compactor] over the same values, which returns the previous
// call's values plus the new ones between compactions, so that the
// prompt's prefix, and the provider's prompt cache, stay warm.
//
// # Masking
//
// With [chitta.Options.Mask] set, [Compact] masks tool messages and
// legacy function messages, and [CompactResponses] function_call_output
// and custom_tool_call_output items, each named after its call
// (ExcludeTools matches that name). Their rewritten form is a new union
// holding a new message or item (same tool_call_id, call_id, name, id)
// whose content or output is the string chitta gives, its placeholder,
// such as
//
//	[chitta: read_file output elided (391 tokens)]
//
// or its head and tail around a cut marker (content parts, images too,
// are replaced by that string). Other *_output items (computer, shell,
// MCP, ...) are never masked: the adapter tells chitta they hold no
// result it may rewrite. The caller's values are never modified, and every
// value chitta did not mask is returned as it is. [Messages] of the
// returned values gives the texts chitta counted, so they count
// Stats.AfterTokens under the options' counter exactly. Result.Messages hold
// the masked texts as Content, with Raw nil (the synthetic Raw chitta
// masked, see adapt/internal/adaptkit, is not returned).
//
// This module needs go 1.26, as openai-go v3 does.
package openai

import (
	"context"
	"fmt"
	"strconv"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/internal/adaptkit"
)

// Messages converts chat messages to chitta messages, index for index,
// with Content and tool linkage set and Raw nil. A message with no variant
// set is an error naming its index, and so is a content part or tool call
// with no variant set (the zero union, which the SDK sends as null),
// naming the message and the part; [Compact] and the Compactor return
// the same errors.
func Messages(msgs []openai.ChatCompletionMessageParamUnion) ([]chitta.Message, error) {
	return adaptkit.Messages(msgs, buildChat)
}

func buildChat(b *adaptkit.Builder, msgs []openai.ChatCompletionMessageParamUnion) error {
	pendingFunction := "" // legacy function_call awaiting its function message
	for i := range msgs {
		u := &msgs[i]
		switch {
		case u.OfSystem != nil:
			b.SetRole(chitta.RoleSystem)
			b.Add(u.OfSystem.Content.OfString.Value)
			addTextParts(b, u.OfSystem.Content.OfArrayOfContentParts)
		case u.OfDeveloper != nil:
			b.SetRole(chitta.RoleDeveloper)
			b.Add(u.OfDeveloper.Content.OfString.Value)
			addTextParts(b, u.OfDeveloper.Content.OfArrayOfContentParts)
		case u.OfUser != nil:
			if len(u.OfUser.Content.OfArrayOfContentParts) == 0 {
				b.Message(chitta.RoleUser, u.OfUser.Content.OfString.Value)
				continue
			}
			b.SetRole(chitta.RoleUser)
			b.Add(u.OfUser.Content.OfString.Value)
			for j, p := range u.OfUser.Content.OfArrayOfContentParts {
				switch {
				case p.OfText != nil:
					b.Add(p.OfText.Text)
				case p.OfImageURL != nil:
					b.Image(chitta.OpenAIImageURLTokens(p.OfImageURL.ImageURL.URL, p.OfImageURL.ImageURL.Detail))
				case p.OfInputAudio != nil:
					b.Add("[audio]")
				case p.OfFile != nil:
					b.Add("[document]")
				case param.IsOmitted(p):
					return noVariant(i, "message", "content", j, "part")
				default:
					b.AddJSON(p)
				}
			}
		case u.OfAssistant != nil:
			a := u.OfAssistant
			//lint:ignore SA1019 the legacy function_call is read below
			if len(a.Content.OfArrayOfContentParts) == 0 && a.Refusal.Value == "" && a.FunctionCall.Name == "" && a.FunctionCall.Arguments == "" {
				switch len(a.ToolCalls) {
				case 0:
					b.Message(chitta.RoleAssistant, a.Content.OfString.Value) // text only
					continue
				case 1:
					if fc := a.ToolCalls[0].OfFunction; fc != nil && fc.ID != "" && a.Content.OfString.Value == "" {
						b.CallTextMessage(chitta.RoleAssistant, fc.ID, fc.Function.Name, fc.Function.Arguments) // one call only
						continue
					}
				}
			}
			b.SetRole(chitta.RoleAssistant)
			b.Add(a.Content.OfString.Value)
			for j, p := range a.Content.OfArrayOfContentParts {
				switch {
				case p.OfText != nil:
					b.Add(p.OfText.Text)
				case p.OfRefusal != nil:
					b.Add(p.OfRefusal.Refusal)
				case param.IsOmitted(p):
					return noVariant(i, "message", "content", j, "part")
				default:
					b.AddJSON(p)
				}
			}
			b.Add(a.Refusal.Value)
			for j, tc := range a.ToolCalls {
				switch {
				case tc.OfFunction != nil:
					callID(b, tc.OfFunction.ID)
					b.AddCall(tc.OfFunction.Function.Name, tc.OfFunction.Function.Arguments)
				case tc.OfCustom != nil:
					callID(b, tc.OfCustom.ID)
					b.AddCall(tc.OfCustom.Custom.Name, tc.OfCustom.Custom.Input)
				case param.IsOmitted(tc):
					return noVariant(i, "message", "tool_calls", j, "tool call")
				default:
					b.AddJSON(tc)
				}
			}
			//lint:ignore SA1019 conversations written with the legacy function_call must still pair
			if fc := a.FunctionCall; fc.Name != "" || fc.Arguments != "" {
				pendingFunction = "function_call@" + strconv.Itoa(i)
				b.CallID(pendingFunction)
				b.AddCall(fc.Name, fc.Arguments)
			}
		case u.OfTool != nil:
			if id := u.OfTool.ToolCallID; id != "" && len(u.OfTool.Content.OfArrayOfContentParts) == 0 {
				b.ResultMessage(chitta.RoleTool, id, u.OfTool.Content.OfString.Value) // text only
				continue
			}
			b.SetRole(chitta.RoleTool)
			resultID(b, u.OfTool.ToolCallID)
			b.OpenResult(u.OfTool.ToolCallID)
			b.Add(u.OfTool.Content.OfString.Value)
			addTextParts(b, u.OfTool.Content.OfArrayOfContentParts)
			b.CloseResult()
		case u.OfFunction != nil:
			b.SetRole("function")
			if pendingFunction != "" {
				b.ResultID(pendingFunction)
			}
			b.OpenResult(pendingFunction)
			pendingFunction = ""
			b.Add(u.OfFunction.Content.Value)
			b.CloseResult()
		default:
			return fmt.Errorf("%w: message %d: no message variant set", chitta.ErrInvalidMessages, i)
		}
		b.End()
	}
	return nil
}

// noVariant returns the error for part j of field in message (or item) i,
// a union of what (a content part, a tool call) with no variant set: the
// SDK sends it as null, which the API and chitta.ParseMessages refuse.
func noVariant(i int, message, field string, j int, what string) error {
	return fmt.Errorf("%w: %s %d: %s[%d]: no %s variant set", chitta.ErrInvalidMessages, message, i, field, j, what)
}

func addTextParts(b *adaptkit.Builder, parts []openai.ChatCompletionContentPartTextParam) {
	for _, p := range parts {
		b.Add(p.Text)
	}
}

// callID and resultID add a non-empty tool ID.
func callID(b *adaptkit.Builder, id string) {
	if id != "" {
		b.CallID(id)
	}
}

func resultID(b *adaptkit.Builder, id string) {
	if id != "" {
		b.ResultID(id)
	}
}

// Compact compacts chat messages with [chitta.Compact] and returns the
// surviving values of msgs themselves (msgs[i] for each i in Result.Kept,
// not copies made through JSON), in order, with the Result. msgs is not
// modified.
// With opts.Mask set, a value with a masked or cut tool result is a new
// value instead (see Masking in the package doc).
func Compact(ctx context.Context, msgs []openai.ChatCompletionMessageParamUnion, opts *chitta.Options) ([]openai.ChatCompletionMessageParamUnion, *chitta.Result, error) {
	return adaptkit.CompactBuilt(ctx, msgs, opts, buildChat, rewriteChat)
}

// rewriteChat returns a copy of a tool (or legacy function) message whose
// content is texts[0], a string, when texts[0] != "" (see
// adaptkit.RewriteFunc). The union's message is new; every other field
// (tool_call_id, name) is the caller's.
func rewriteChat(u openai.ChatCompletionMessageParamUnion, texts []string) (openai.ChatCompletionMessageParamUnion, bool) {
	if len(texts) != 1 {
		return u, false
	}
	text := texts[0]
	switch {
	case text == "":
	case u.OfTool != nil:
		t := *u.OfTool
		t.Content = openai.ChatCompletionToolMessageParamContentUnion{OfString: param.NewOpt(text)}
		u.OfTool = &t
	case u.OfFunction != nil:
		f := *u.OfFunction
		f.Content = param.NewOpt(text)
		u.OfFunction = &f
	default:
		return u, false
	}
	return u, true
}
