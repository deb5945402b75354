// Package eino compacts eino conversations ([]*schema.Message) with chitta,
// returning the caller's own values, and provides a message modifier for
// eino agents ([MessageModifier]).
//
// Text for scoring comes from Content, every part of MultiContent,
// UserInputMultiContent and AssistantGenMultiContent (images, audio, video
// and files count as "[image]" and "[media]"), ReasoningContent, and tool
// calls (function name and arguments). An image adds to
// chitta.Message.MediaTokens what the costliest provider bills for it,
// since eino's message does not say which model gets it:
// chitta.MaxImageTokens of the size read from its Base64Data or a base64
// data URL, erring on the safe side; an image by URL, or data whose size
// cannot be read, counts as the largest maximum
// (chitta.GeminiMaxImageTokens), as chitta.ParseMessages counts eino's
// JSON. An assistant message's tool calls
// and the tool messages answering them (ToolCallID) are kept or dropped
// together.
//
// For an agent loop that compacts before every model call, [NewCompactor]
// returns a Compactor: [chitta.Compactor] over the same values, which
// returns the previous call's values plus the new ones between
// compactions, so that the prompt's prefix, and the provider's prompt
// cache, stay warm.
//
// # Masking
//
// With [chitta.Options.Mask] set, [Compact] (and [MessageModifier]) masks
// the tool messages answering a call (ToolCallID set), each named after
// its call (ExcludeTools matches that name). A rewritten message is a new
// *schema.Message, a copy whose Content is chitta's placeholder, such as
//
//	[chitta: read_file output elided (391 tokens)]
//
// or its head and tail around a cut marker, and whose MultiContent,
// UserInputMultiContent and AssistantGenMultiContent (the rest of the
// tool's output) are nil; every other field (ToolCallID, ToolName,
// Extra, ...) is the caller's. A tool message without ToolCallID is never
// masked. The caller's values are never modified, and every
// value chitta did not mask is returned as it is. [Messages] of the
// returned values gives the texts chitta counted, so they count
// Stats.AfterTokens under the options' counter exactly. Result.Messages hold
// the masked texts as Content, with Raw nil (the synthetic Raw chitta
// masked, see adapt/internal/adaptkit, is not returned).
//
// go.mod raises eino's github.com/bytedance/sonic to v1.15.5: the v1.14.1
// eino v0.7.36 asks for does not build with go 1.26.
package eino

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/schema"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/internal/adaptkit"
)

// Messages converts msgs to chitta messages, index for index, with Content
// and tool linkage set and Raw nil. The role is eino's as it is (system,
// user, assistant, tool). A nil message is an error naming its index.
func Messages(msgs []*schema.Message) ([]chitta.Message, error) {
	return adaptkit.Messages(msgs, build)
}

func build(b *adaptkit.Builder, msgs []*schema.Message) error {
	for i, m := range msgs {
		if m == nil {
			return fmt.Errorf("%w: message %d: nil *schema.Message", chitta.ErrInvalidMessages, i)
		}
		if m.ReasoningContent == "" && len(m.MultiContent) == 0 && len(m.UserInputMultiContent) == 0 &&
			len(m.AssistantGenMultiContent) == 0 {
			switch {
			case len(m.ToolCalls) == 0 && m.ToolCallID == "":
				b.Message(chitta.Role(m.Role), m.Content) // text only
				continue
			case len(m.ToolCalls) == 0:
				b.ResultMessage(chitta.Role(m.Role), m.ToolCallID, m.Content) // a tool's text output
				continue
			case len(m.ToolCalls) == 1 && m.ToolCallID == "" && m.Content == "" && m.ToolCalls[0].ID != "":
				tc := &m.ToolCalls[0]
				b.CallTextMessage(chitta.Role(m.Role), tc.ID, tc.Function.Name, tc.Function.Arguments) // one call only
				continue
			}
		}
		b.SetRole(chitta.Role(m.Role))
		b.Add(m.ReasoningContent)
		if m.ToolCallID != "" {
			b.OpenResult(m.ToolCallID) // Content and the parts are the tool's output
		}
		b.Add(m.Content)
		for _, p := range m.MultiContent {
			var url string
			if p.ImageURL != nil {
				url = p.ImageURL.URL
			}
			if !addPart(b, p.Type, p.Text, url, nil) {
				b.AddCallJSON(string(p.Type), p)
			}
		}
		for _, p := range m.UserInputMultiContent {
			var img *schema.MessagePartCommon
			if p.Image != nil {
				img = &p.Image.MessagePartCommon
			}
			if !addPart(b, p.Type, p.Text, "", img) {
				b.AddCallJSON(string(p.Type), p)
			}
		}
		for _, p := range m.AssistantGenMultiContent {
			var img *schema.MessagePartCommon
			if p.Image != nil {
				img = &p.Image.MessagePartCommon
			}
			if !addPart(b, p.Type, p.Text, "", img) {
				b.AddCallJSON(string(p.Type), p)
			}
		}
		if m.ToolCallID != "" {
			b.CloseResult()
		}
		for _, tc := range m.ToolCalls {
			if tc.ID != "" {
				b.CallID(tc.ID)
			}
			b.AddCall(tc.Function.Name, tc.Function.Arguments)
		}
		if m.ToolCallID != "" {
			b.ResultID(m.ToolCallID)
		}
		b.End()
	}
	return nil
}

// addPart adds a part of type typ: text as itself, an image (by url, a
// MultiContent part's, or img, another list's) with its media tokens,
// other media as a placeholder. It reports false, adding nothing, for
// another type, which the caller adds as its type and the JSON of the part
// (its text and Extra included), so that nothing it holds goes unscored.
func addPart(b *adaptkit.Builder, typ schema.ChatMessagePartType, text, url string, img *schema.MessagePartCommon) bool {
	switch typ {
	case schema.ChatMessagePartTypeText:
		b.Add(text)
	case schema.ChatMessagePartTypeImageURL:
		b.Image(imageTokens(url, img))
	case schema.ChatMessagePartTypeFileURL:
		b.Add("[document]")
	case schema.ChatMessagePartTypeAudioURL, schema.ChatMessagePartTypeVideoURL:
		b.Add("[media]")
	default:
		return false
	}
	return true
}

// imageTokens estimates an image whose provider is unknown by
// chitta.MaxImageTokens of its size: read from img's Base64Data, else
// from a data URL (img's URL, or url); any other image counts as the
// largest maximum.
func imageTokens(url string, img *schema.MessagePartCommon) int {
	w, h, ok := 0, 0, false
	if img != nil {
		if img.Base64Data != nil && *img.Base64Data != "" {
			w, h, ok = chitta.Base64ImageSize(*img.Base64Data)
		}
		url = ""
		if img.URL != nil {
			url = *img.URL
		}
	}
	if !ok && url != "" {
		w, h, _ = chitta.DataURLImageSize(url)
	}
	return chitta.MaxImageTokens(w, h)
}

// Compact compacts msgs with [chitta.Compact] and returns the surviving
// values of msgs themselves (the same pointers, msgs[i] for each i in
// Result.Kept), in order, with the Result. msgs is not modified.
// With opts.Mask set, a value with a masked or cut tool result is a new
// value instead (see Masking in the package doc).
func Compact(ctx context.Context, msgs []*schema.Message, opts *chitta.Options) ([]*schema.Message, *chitta.Result, error) {
	return adaptkit.CompactBuilt(ctx, msgs, opts, build, rewrite)
}

// rewrite returns a copy of m, a message answering a tool call, whose
// Content is texts[0] and whose parts (MultiContent,
// UserInputMultiContent, AssistantGenMultiContent: the rest of the tool's
// output) are nil, when texts[0] != "" (see adaptkit.RewriteFunc). Every
// other field (ToolCallID, ToolName, Name, ReasoningContent, Extra,
// ResponseMeta) is the caller's.
func rewrite(m *schema.Message, texts []string) (*schema.Message, bool) {
	if m == nil || m.ToolCallID == "" || len(texts) != 1 {
		return m, false
	}
	if texts[0] == "" {
		return m, true
	}
	nm := *m
	nm.Content = texts[0]
	nm.MultiContent, nm.UserInputMultiContent, nm.AssistantGenMultiContent = nil, nil, nil
	return &nm, true
}

// MessageModifier returns a function for the MessageModifier (or
// MessageRewriter) field of an eino agent's config, such as
// react.AgentConfig: before each model call it compacts the conversation
// with opts once the conversation's tokens (as opts counts them) exceed
// triggerTokens, and passes it through unchanged below that (0 means
// compact on every call). On an error (an invalid option, an unknown role)
// it returns the input unchanged and logs to opts.Logger, so the agent
// never loses messages to the modifier. The returned function is safe for
// concurrent use if opts's Embedder, Store and Tokens are.
func MessageModifier(opts *chitta.Options, triggerTokens int) func(ctx context.Context, input []*schema.Message) []*schema.Message {
	return func(ctx context.Context, input []*schema.Message) []*schema.Message {
		out, res, err := Compact(ctx, input, opts)
		if err != nil {
			if opts != nil && opts.Logger != nil {
				opts.Logger.WarnContext(ctx, "chitta: compaction skipped", "err", err)
			}
			return input
		}
		if res.Stats.BeforeTokens <= triggerTokens {
			return input
		}
		return out
	}
}
