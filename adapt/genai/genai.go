// Package genai compacts Google Gen AI SDK conversations
// ([]*genai.Content) with chitta, returning the caller's own values.
//
// Role "model" maps to assistant, "user" (or empty, the SDK's default) to
// user. Text for scoring comes from every part: text and thoughts, function
// calls (name and args), function responses (the response, without the
// name, which its call already gives, as a tool result of the other SDKs
// reads; a response that is only {"output": s} or {"error": s}, s a
// string, reads as s, since the Gemini API takes that s as the function's
// output, then its parts: inline and file data as below),
// executable code and its result, server tool calls and responses; inline
// and file data count as "[image]" or "[document]", an image adding what
// Gemini bills for it to chitta.Message.MediaTokens (chitta.GeminiImageTokens
// of inline data's size, read from its header; chitta.GeminiMaxImageTokens
// for file data or data whose size cannot be read; exactly
// MediaResolution.NumTokens when a part sets it above zero, a count not
// positive being ignored; MediaResolution.Level alone changes nothing,
// since what a level costs depends on the model), as
// chitta.ParseMessages counts the SDK's JSON; a part with none of
// these set is scored by its JSON. A function call and its response are
// kept or dropped together: paired by ID, or, for a response without an
// ID, by position (it answers the first call of the last turn of calls
// that no response has answered yet, whether or not that call has an
// ID), as the Gemini API pairs them. A turn of calls is a model content
// that makes calls and the model contents right after it: the SDK's
// Chat.SendStream records a streamed reply as one model content a chunk,
// so the parallel calls of one reply may each have a content of their
// own. (Whether the Gemini API takes a function-call content right after
// a model text content as one turn, as that history sends it, is not
// known here; chitta.Validate reports it in genai JSON. Merging a reply's
// chunks into one content, as a reply that is not streamed arrives, is
// safe either way.)
//
// # Gemini API rules
//
// The Gemini API refuses a conversation in which a function-call turn
// does not come right after a user turn or a function-response turn, or a
// function-response turn does not come right after its call turn with as
// many responses as the turn has calls. [Compact] and the Compactor keep
// both: a call content and the contents answering it are kept or dropped
// together, and the turn rule pins the prompt a kept call turn needs (see
// [Compact]). Thought signatures (Gemini 3 checks those of the current
// turn's function calls) stay as the model sent them: every kept content
// is the caller's value, its parts untouched (masking rewrites function
// responses only), so a kept call keeps its signature and a dropped step
// of the current turn takes its own with it. What the adapter
// passes on as it is given: a content with no parts, which the API
// refuses ("contents.parts must not be empty"; a blocked or empty
// candidate's Content is one, so do not append it to the history), and
// one whose role is empty, which the SDK sends without a role and the
// adapter reads as user.
//
// For an agent loop that compacts before every model call, [NewCompactor]
// returns a Compactor: [chitta.Compactor] over the same values, which
// returns the previous call's values plus the new ones between
// compactions, so that the prompt's prefix, and the provider's prompt
// cache, stay warm.
//
// # Masking
//
// With [chitta.Options.Mask] set, [Compact] masks function responses as
// chitta masks tool results: each response of a content on its own (its
// text parts kept), named after the call it answers (ExcludeTools matches
// that name), the values of a JSON response listed. A kept content with
// a masked or cut response is a new *genai.Content: a new Parts slice,
// and for each rewritten response a new *genai.Part and
// *genai.FunctionResponse (same ID and Name, Parts nil: the placeholder
// stands for the response's inline and file data too) whose Response is
// {"output": text} ({"error": text} when it was only {"error": s}), text
// chitta's placeholder, such as
//
//	[chitta: read_file output elided (391 tokens); values: JG7FMM, MCO]
//
// or its head and tail around a cut marker; every other part is the
// caller's. The Gemini API reads {"output": s} as the function's output.
// The caller's values are never modified, and every
// value chitta did not mask is returned as it is. [Messages] of the
// returned values gives the texts chitta counted, so they count
// Stats.AfterTokens under the options' counter. Result.Messages hold
// the masked texts as Content, with Raw nil (the synthetic Raw chitta
// masked, see adapt/internal/adaptkit, is not returned).
package genai

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/genai"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/internal/adaptkit"
)

// Messages converts msgs to chitta messages, index for index, with Content
// and tool linkage set and Raw nil. Function calls without an ID get the
// ID "functionCall@<message>.<part>" in ToolCallIDs, which the responses
// they pair with carry in ToolResultIDs. A nil Content, or a role other
// than user and model, is an error naming the message.
func Messages(msgs []*genai.Content) ([]chitta.Message, error) {
	return adaptkit.Messages(msgs, build)
}

func build(b *adaptkit.Builder, msgs []*genai.Content) error {
	var st state
	for i, c := range msgs {
		// A model content right after a model content whose turn made
		// calls continues that turn (a streamed reply, which the SDK's
		// Chat records as one content a chunk): its calls join those
		// awaiting a response, as chitta.ParseMessages reads them.
		model := c != nil && c.Role == genai.RoleModel
		st.continues, st.called = st.modelCalls && model, false
		if err := st.content(b, i, c); err != nil {
			return err
		}
		st.modelCalls = model && (st.continues || st.called)
	}
	return nil
}

// content builds msgs[i], c: a content of one usual part (a text, a
// function call with an ID, a function response with an ID whose output
// is text) in one Builder call, any other by state.message.
func (st *state) content(b *adaptkit.Builder, i int, c *genai.Content) error {
	if c != nil && len(c.Parts) == 1 && c.Parts[0] != nil {
		p := c.Parts[0]
		if r := roleOf(c.Role); r != "" {
			switch {
			case p.FunctionCall != nil:
				if fc := p.FunctionCall; fc.ID != "" {
					st.start()
					st.call(fc.ID)
					b.CallMessage(r, fc.ID, fc.Name, omitEmpty(fc.Args))
					return nil
				}
			case p.FunctionResponse != nil:
				if fr := p.FunctionResponse; fr.ID != "" && len(fr.Parts) == 0 {
					if out, ok := outputText(fr.Response); ok {
						st.Answer(fr.ID)
						b.ResultMessage(r, fr.ID, out)
						return nil
					}
				}
			case p.ToolCall == nil && p.ToolResponse == nil && p.Text != "":
				b.Message(r, p.Text)
				return nil
			}
		}
	}
	return st.message(b, i, c)
}

// state is what build carries from message to message: the calls
// awaiting a response (see adaptkit.Pending), those without an ID by the
// ID build gives them; whether the content built last is a model content
// whose turn made calls (modelCalls), whether the current one continues
// that turn, and whether it has made a call.
type state struct {
	adaptkit.Pending
	modelCalls, continues, called bool
}

// start begins the current content: a new turn of calls, unless it is a
// model content continuing the turn of the one before it (see build).
func (st *state) start() {
	if !st.continues {
		st.Start()
	}
}

// call records a call of the current content.
func (st *state) call(id string) {
	st.Call(id)
	st.called = true
}

// message builds msgs[i], c, part by part.
func (st *state) message(b *adaptkit.Builder, i int, c *genai.Content) error {
	if c == nil {
		return fmt.Errorf("%w: message %d: nil *genai.Content", chitta.ErrInvalidMessages, i)
	}
	role := roleOf(c.Role)
	if role == "" {
		return fmt.Errorf("%w: message %d: role %q, want user or model", chitta.ErrInvalidMessages, i, c.Role)
	}
	b.SetRole(role)
	st.start()
	for j, p := range c.Parts {
		if p == nil {
			continue
		}
		switch {
		case p.FunctionCall != nil:
			id := p.FunctionCall.ID
			if id == "" {
				id = "functionCall@" + strconv.Itoa(i) + "." + strconv.Itoa(j)
			}
			st.call(id)
			b.CallID(id)
			b.AddCallJSON(p.FunctionCall.Name, omitEmpty(p.FunctionCall.Args))
		case p.FunctionResponse != nil:
			id := st.Answer(p.FunctionResponse.ID)
			if id != "" {
				b.ResultID(id)
			}
			b.OpenResult(id)
			if out, ok := outputText(p.FunctionResponse.Response); ok {
				b.Add(out)
			} else {
				b.AddJSON(omitEmpty(p.FunctionResponse.Response))
			}
			addResponseParts(b, p.FunctionResponse.Parts)
			b.CloseResult()
		case p.ToolCall != nil:
			if p.ToolCall.ID != "" {
				b.CallID(p.ToolCall.ID)
			}
			b.AddCallJSON(string(p.ToolCall.ToolType), omitEmpty(p.ToolCall.Args))
		case p.ToolResponse != nil:
			if p.ToolResponse.ID != "" {
				b.ResultID(p.ToolResponse.ID)
			}
			b.AddResultJSON(string(p.ToolResponse.ToolType), omitEmpty(p.ToolResponse.Response))
		case p.Text != "":
			b.Add(p.Text)
		case p.InlineData != nil:
			addMedia(b, p.InlineData.MIMEType, p.InlineData.Data, true, numTokens(p.MediaResolution))
		case p.FileData != nil:
			addMedia(b, p.FileData.MIMEType, nil, false, numTokens(p.MediaResolution))
		case p.ExecutableCode != nil:
			b.Add(p.ExecutableCode.Code)
		case p.CodeExecutionResult != nil:
			b.Add(p.CodeExecutionResult.Output)
		case len(p.ThoughtSignature) > 0 && !p.Thought:
			// a bare thought signature carries nothing to read
		default:
			b.AddJSON(p)
		}
	}
	b.End()
	return nil
}

// roleOf maps a genai role to chitta's: "user" (or empty, the SDK's
// default) to user, "model" to assistant; any other is not known: "".
func roleOf(r string) chitta.Role {
	switch r {
	case genai.RoleUser, "":
		return chitta.RoleUser
	case genai.RoleModel:
		return chitta.RoleAssistant
	}
	return ""
}

// rewrite returns a copy of c in which the k-th function response (in
// part order, as build declares them) has its response replaced by
// {"output": texts[k]} ({"error": texts[k]} when it was only {"error": s}),
// for each texts[k] != "" (see adaptkit.RewriteFunc). The Content, its
// Parts slice, each replaced *Part and its *FunctionResponse are new; a
// replaced response's Parts (multimodal output, which the placeholder
// stands for) are nil; every other part, and every other field of a
// replaced response (ID, Name, WillContinue, Scheduling), is the caller's.
func rewrite(c *genai.Content, texts []string) (*genai.Content, bool) {
	if c == nil {
		return c, len(texts) == 0
	}
	nc := *c
	nc.Parts = slices.Clone(c.Parts)
	k := 0
	for i, p := range nc.Parts {
		if p == nil || p.FunctionCall != nil || p.FunctionResponse == nil {
			continue
		}
		if k >= len(texts) {
			return c, false
		}
		if texts[k] != "" {
			fr := *p.FunctionResponse
			key := "output"
			if _, ok := fr.Response["error"]; ok && len(fr.Response) == 1 {
				key = "error"
			}
			fr.Response = map[string]any{key: texts[k]}
			fr.Parts = nil // the placeholder stands for them too
			np := *p
			np.FunctionResponse = &fr
			nc.Parts[i] = &np
		}
		k++
	}
	return &nc, k == len(texts)
}

// omitEmpty returns m, a call's arguments or a response, as the SDK's
// JSON carries it: nothing (nil, which scores no text) when m is empty,
// since encoding/json omits it (omitempty), so that a call without
// arguments reads as its name, as chitta.ParseMessages reads its JSON,
// not as "name null" or "name {}".
func omitEmpty(m map[string]any) any {
	if len(m) == 0 {
		return nil
	}
	return m
}

// outputText returns the text of a function response that is only its
// output or only its error ({"output": s} or {"error": s}, s a string),
// which the Gemini API reads as the function's output or error itself.
func outputText(response map[string]any) (string, bool) {
	if len(response) != 1 {
		return "", false
	}
	// Look-ups, not a range: a map iterator's randomised start costs more
	// than the rest of a short message's conversion. The one key is
	// "output" if the first holds a string; else only "error" can.
	if s, ok := response["output"].(string); ok {
		return s, true
	}
	s, ok := response["error"].(string)
	return s, ok
}

// addResponseParts adds the parts of a multimodal function response, as
// the content's own inline and file data count: "[image]" (with its
// media tokens) or "[document]"; a part with neither is scored by its
// JSON.
func addResponseParts(b *adaptkit.Builder, parts []*genai.FunctionResponsePart) {
	for _, p := range parts {
		switch {
		case p == nil:
		case p.InlineData != nil:
			addMedia(b, p.InlineData.MIMEType, p.InlineData.Data, true, 0)
		case p.FileData != nil:
			addMedia(b, p.FileData.MIMEType, nil, false, 0)
		default:
			b.AddJSON(p)
		}
	}
}

// addMedia adds inline (inline is true) or file data of the given MIME
// type: an image as "[image]" costing what Gemini bills for it (tokens
// when it is above zero, the part's own count; else inline data by its
// size, file data, or data whose size cannot be read, as
// chitta.GeminiMaxImageTokens), anything else as "[document]".
func addMedia(b *adaptkit.Builder, mime string, data []byte, inline bool, tokens int) {
	if !strings.HasPrefix(mime, "image/") {
		b.Add("[document]")
		return
	}
	if tokens > 0 {
		b.Image(tokens)
		return
	}
	w, h := 0, 0
	if inline {
		w, h, _ = chitta.ImageSize(bytes.NewReader(data))
	}
	b.Image(chitta.GeminiImageTokens(w, h))
}

// numTokens is the token count a part's media resolution sets: its
// NumTokens, or 0 (none: the Gemini rule applies) when r or NumTokens is
// nil or NumTokens is not positive. Level alone sets none: what a level
// costs depends on the model.
func numTokens(r *genai.PartMediaResolution) int {
	if r == nil || r.NumTokens == nil || *r.NumTokens <= 0 {
		return 0
	}
	return int(*r.NumTokens)
}

// Compact compacts msgs with [chitta.Compact] and returns the surviving
// values of msgs themselves (the same pointers, msgs[i] for each i in
// Result.Kept), in order, with the Result. msgs is not modified.
// With opts.Mask set, a value with a masked or cut tool result is a new
// value instead (see Masking in the package doc).
//
// Compact applies the Gemini API's turn rule ([chitta.Options.GeminiTurns]
// set on a copy of opts): a kept function-call content comes right after
// a user content (a prompt or a function response), never right after a
// model content.
func Compact(ctx context.Context, msgs []*genai.Content, opts *chitta.Options) ([]*genai.Content, *chitta.Result, error) {
	return adaptkit.CompactBuilt(ctx, msgs, geminiTurns(opts), build, rewrite)
}

// geminiTurns returns a copy of opts (nil means the defaults) with
// GeminiTurns set, unless opts already has it.
func geminiTurns(opts *chitta.Options) *chitta.Options {
	if opts != nil && opts.GeminiTurns {
		return opts
	}
	o := chitta.Options{}
	if opts != nil {
		o = *opts
	}
	o.GeminiTurns = true
	return &o
}
