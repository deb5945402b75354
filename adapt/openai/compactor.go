package openai

import (
	"context"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/internal/adaptkit"
)

// Compactor is [chitta.Compactor] for Chat Completions conversations
// ([]openai.ChatCompletionMessageParamUnion), for an agent loop that calls
// Compact before every model call with the whole conversation so far: it
// returns the values to send, the caller's own (as [Compact] returns them),
// keeping the prompt's prefix unchanged between compactions so that the
// provider's prompt cache stays warm. A call that extends the previous
// call's conversation and fits [chitta.Policy.MaxTokens] returns the
// previous call's values followed by the new ones (Stats.Compacted false,
// Scores nil); otherwise it compacts, as Compact with MaxTokens =
// [chitta.Policy.TargetTokens].
//
// Every call converts the whole conversation, as Compact does: between
// compactions that conversion is nearly all of a call's cost (see
// BENCHMARKS.md). With Options.Mask, a value chitta masked is a new value,
// as Compact makes it (see Masking in the package doc), made again from the
// caller's value at every call until the next compaction drops or
// restores it.
//
// Ownership: the returned slice is new at every call and the caller's; its
// elements are the caller's values or new masked ones. Result.Messages are
// chitta's converted messages, shared between the Results of the calls
// between two compactions (see chitta.Compactor): do not modify them in
// place. With Mask, those with tool calls or results carry the adapter's
// synthetic Raw (JSON in Anthropic's block shape, not the SDK value's).
//
// A Compactor follows one conversation. It is safe for concurrent use: calls
// convert concurrently and compact one at a time. The zero value is not
// usable (Compact returns an error wrapping [chitta.ErrInvalidOption]); use
// [NewCompactor].
type Compactor struct {
	c *adaptkit.Compactor[openai.ChatCompletionMessageParamUnion]
}

// NewCompactor returns a Compactor compacting with opts (nil means the defaults)
// under policy p, as [chitta.NewCompactor] does, whose errors it returns.
func NewCompactor(opts *chitta.Options, p chitta.Policy) (*Compactor, error) {
	c, err := adaptkit.NewCompactor(opts, p, buildChat, rewriteChat)
	if err != nil {
		return nil, err
	}
	return &Compactor{c}, nil
}

// Compact returns the conversation msgs (the whole conversation so far) as
// the next model call should send it, with the Result (see [Compactor]). msgs
// is not modified. Errors are those of Compact and ctx.Err().
func (c *Compactor) Compact(ctx context.Context, msgs []openai.ChatCompletionMessageParamUnion) ([]openai.ChatCompletionMessageParamUnion, *chitta.Result, error) {
	if c == nil {
		return nil, nil, fmt.Errorf("%w: nil Compactor", chitta.ErrInvalidOption)
	}
	return c.c.Compact(ctx, msgs)
}

// ResponsesCompactor is [chitta.Compactor] for Responses input items
// ([]responses.ResponseInputItemUnionParam), for an agent loop that calls
// Compact before every model call with the whole conversation so far: it
// returns the values to send, the caller's own (as [CompactResponses]
// returns them), keeping the prompt's prefix unchanged between compactions
// so that the provider's prompt cache stays warm. A call that extends the
// previous call's conversation and fits [chitta.Policy.MaxTokens] returns
// the previous call's values followed by the new ones (Stats.Compacted
// false, Scores nil); otherwise it compacts, as CompactResponses with
// MaxTokens = [chitta.Policy.TargetTokens].
//
// Every call converts the whole conversation, as CompactResponses does: between
// compactions that conversion is nearly all of a call's cost (see
// BENCHMARKS.md). With Options.Mask, a value chitta masked is a new value,
// as CompactResponses makes it (see Masking in the package doc), made again from the
// caller's value at every call until the next compaction drops or
// restores it.
//
// Ownership: the returned slice is new at every call and the caller's; its
// elements are the caller's values or new masked ones. Result.Messages are
// chitta's converted messages, shared between the Results of the calls
// between two compactions (see chitta.Compactor): do not modify them in
// place. With Mask, those with tool calls or results carry the adapter's
// synthetic Raw (JSON in Anthropic's block shape, not the SDK value's);
// without Mask, so do the tool_search_output items that load a tool and
// the calls of a loaded tool (see [ResponsesMessages]).
//
// A ResponsesCompactor follows one conversation. It is safe for concurrent use: calls
// convert concurrently and compact one at a time. The zero value is not
// usable (Compact returns an error wrapping [chitta.ErrInvalidOption]); use
// [NewResponsesCompactor].
type ResponsesCompactor struct {
	c *adaptkit.Compactor[responses.ResponseInputItemUnionParam]
}

// NewResponsesCompactor returns a ResponsesCompactor compacting with opts (nil means the defaults)
// under policy p, as [chitta.NewCompactor] does, whose errors it returns.
func NewResponsesCompactor(opts *chitta.Options, p chitta.Policy) (*ResponsesCompactor, error) {
	c, err := adaptkit.NewCompactor(opts, p, buildResponses, rewriteResponses)
	if err != nil {
		return nil, err
	}
	return &ResponsesCompactor{c}, nil
}

// Compact returns the conversation msgs (the whole conversation so far) as
// the next model call should send it, with the Result (see [ResponsesCompactor]). msgs
// is not modified. Errors are those of CompactResponses and ctx.Err().
func (c *ResponsesCompactor) Compact(ctx context.Context, msgs []responses.ResponseInputItemUnionParam) ([]responses.ResponseInputItemUnionParam, *chitta.Result, error) {
	if c == nil {
		return nil, nil, fmt.Errorf("%w: nil ResponsesCompactor", chitta.ErrInvalidOption)
	}
	return c.c.Compact(ctx, msgs)
}
