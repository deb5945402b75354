// Package langchaingo compacts langchaingo conversations
// ([]llms.MessageContent) with chitta, returning the caller's own values.
//
// Roles map to chitta's: human and generic to user, ai to assistant,
// system, tool and function as they are. Text for scoring comes from every
// part: text, tool calls (function name and arguments), tool responses;
// images and binary parts count as "[image]" or "[document]"; a part of a
// type this adapter does not know is scored by its JSON. An image adds to
// chitta.Message.MediaTokens what the costliest provider bills for it,
// since langchaingo does not say which model gets it:
// chitta.MaxImageTokens of the size read from its data (a binary part, or
// an image URL that is a base64 data URL), erring on the safe side; an
// image by URL, or data whose size cannot be read, counts as the largest
// maximum (chitta.GeminiMaxImageTokens), as chitta.ParseMessages counts
// the SDK's JSON. An ai message's
// tool calls and the tool messages answering them are kept or dropped
// together: paired by tool call ID, or, for a ToolCallResponse without
// one, by position (it answers the first call of the last ai message
// with calls that no response has answered yet), as the Gemini API pairs
// the calls of langchaingo's googleai and vertex providers, which carry no
// ID, with the responses that name only their tool.
//
// For an agent loop that compacts before every model call, [NewCompactor]
// returns a Compactor: [chitta.Compactor] over the same values, which
// returns the previous call's values plus the new ones between
// compactions, so that the prompt's prefix, and the provider's prompt
// cache, stay warm.
//
// # Masking
//
// With [chitta.Options.Mask] set, [Compact] masks ToolCallResponse parts,
// each on its own (several in one message, text parts beside them kept,
// inside a CachedContent too), named after the call it answers
// (ExcludeTools matches that name). A kept message with a rewritten
// response is a copy with a new Parts slice in which that part is a
// ToolCallResponse (same ToolCallID and Name) whose Content is chitta's
// placeholder, such as
//
//	[chitta: read_file output elided (391 tokens)]
//
// or its head and tail around a cut marker; every other part is the
// caller's. The caller's values are never modified, and every
// value chitta did not mask is returned as it is. [Messages] of the
// returned values gives the texts chitta counted, so they count
// Stats.AfterTokens under the options' counter exactly. Result.Messages hold
// the masked texts as Content, with Raw nil (the synthetic Raw chitta
// masked, see adapt/internal/adaptkit, is not returned).
package langchaingo

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/internal/adaptkit"
)

// role maps a langchaingo role to chitta's (a switch: a map look-up costs
// a third of a short message's conversion).
func role(t llms.ChatMessageType) (chitta.Role, bool) {
	switch t {
	case llms.ChatMessageTypeHuman, llms.ChatMessageTypeGeneric:
		return chitta.RoleUser, true
	case llms.ChatMessageTypeAI:
		return chitta.RoleAssistant, true
	case llms.ChatMessageTypeSystem:
		return chitta.RoleSystem, true
	case llms.ChatMessageTypeTool:
		return chitta.RoleTool, true
	case llms.ChatMessageTypeFunction:
		return "function", true
	}
	return "", false
}

// Messages converts msgs to chitta messages, index for index, with Content
// and tool linkage set and Raw nil. A ToolCall without an ID (but with a
// FunctionCall) gets the ID "tool_call@<message>.<part>" in ToolCallIDs,
// which the response it pairs with carries in ToolResultIDs. A role other
// than langchaingo's six is an error naming the message.
func Messages(msgs []llms.MessageContent) ([]chitta.Message, error) {
	return adaptkit.Messages(msgs, build)
}

func build(b *adaptkit.Builder, msgs []llms.MessageContent) error {
	var st state
	for i := range msgs {
		r, ok := role(msgs[i].Role)
		if !ok {
			return fmt.Errorf("%w: message %d: role %q, want human, ai, system, tool, function or generic", chitta.ErrInvalidMessages, i, msgs[i].Role)
		}
		if parts := msgs[i].Parts; len(parts) == 1 {
			switch p := parts[0].(type) {
			case llms.TextContent:
				b.Message(r, p.Text) // text only
				continue
			case llms.ToolCallResponse:
				if p.ToolCallID != "" {
					st.Answer(p.ToolCallID)
					b.ResultMessage(r, p.ToolCallID, p.Content) // a tool's text output
					continue
				}
			case llms.ToolCall:
				if p.ID != "" && p.FunctionCall != nil {
					st.Start()
					st.Call(p.ID)
					b.CallTextMessage(r, p.ID, p.FunctionCall.Name, p.FunctionCall.Arguments) // one call only
					continue
				}
			}
		}
		b.SetRole(r)
		st.Start()
		for j, p := range msgs[i].Parts {
			st.addPart(b, p, i, j)
		}
		b.End()
	}
	return nil
}

// state is what build carries from message to message: the calls
// awaiting a response (see adaptkit.Pending), those without an ID
// (langchaingo's googleai and vertex providers give none) by the ID
// "tool_call@<message>.<part>".
type state struct{ adaptkit.Pending }

// addPart adds p, part j of message i.
func (st *state) addPart(b *adaptkit.Builder, p llms.ContentPart, i, j int) {
	switch x := p.(type) {
	case llms.TextContent:
		b.Add(x.Text)
	case llms.ToolCall:
		id := x.ID
		if id == "" && x.FunctionCall != nil {
			id = "tool_call@" + strconv.Itoa(i) + "." + strconv.Itoa(j)
		}
		if id != "" {
			st.Call(id)
			b.CallID(id)
		}
		if x.FunctionCall != nil {
			b.AddCall(x.FunctionCall.Name, x.FunctionCall.Arguments)
		}
	case llms.ToolCallResponse:
		id := st.Answer(x.ToolCallID)
		if id != "" {
			b.ResultID(id)
		}
		b.OpenResult(id)
		b.Add(x.Content)
		b.CloseResult()
	case llms.ImageURLContent:
		w, h, _ := chitta.DataURLImageSize(x.URL)
		b.Image(chitta.MaxImageTokens(w, h))
	case llms.BinaryContent:
		if strings.HasPrefix(x.MIMEType, "image/") {
			w, h, _ := chitta.ImageSize(bytes.NewReader(x.Data))
			b.Image(chitta.MaxImageTokens(w, h))
		} else {
			b.Add("[document]")
		}
	case llms.CachedContent:
		st.addPart(b, x.ContentPart, i, j)
	case nil:
	default:
		b.AddJSON(p)
	}
}

// Compact compacts msgs with [chitta.Compact] and returns the surviving
// values of msgs themselves (msgs[i] for each i in Result.Kept, not copies
// made through JSON), in order, with the Result. msgs is not modified.
// With opts.Mask set, a value with a masked or cut tool result is a new
// value instead (see Masking in the package doc).
func Compact(ctx context.Context, msgs []llms.MessageContent, opts *chitta.Options) ([]llms.MessageContent, *chitta.Result, error) {
	return adaptkit.CompactBuilt(ctx, msgs, opts, build, rewrite)
}

// rewrite returns a copy of m in which the k-th ToolCallResponse part (in
// part order, inside CachedContent too, as build declares them) has its
// Content replaced by texts[k], for each texts[k] != "" (see
// adaptkit.RewriteFunc). The Parts slice is new; every other part, and
// every other field of a replaced response (ToolCallID, Name, the cache
// control of a CachedContent around it), is the caller's.
func rewrite(m llms.MessageContent, texts []string) (llms.MessageContent, bool) {
	parts := slices.Clone(m.Parts)
	k := 0
	for i, p := range parts {
		np, ok := rewritePart(p, texts, &k)
		if !ok {
			return m, false
		}
		parts[i] = np
	}
	m.Parts = parts
	return m, k == len(texts)
}

// rewritePart rewrites p when it is (or caches) the k-th response.
func rewritePart(p llms.ContentPart, texts []string, k *int) (llms.ContentPart, bool) {
	switch x := p.(type) {
	case llms.ToolCallResponse:
		if *k >= len(texts) {
			return p, false
		}
		text := texts[*k]
		*k++
		if text != "" {
			x.Content = text
			return x, true
		}
	case llms.CachedContent:
		inner, ok := rewritePart(x.ContentPart, texts, k)
		if !ok {
			return p, false
		}
		x.ContentPart = inner
		return x, true
	}
	return p, true
}
