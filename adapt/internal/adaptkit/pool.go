package adaptkit

import (
	"context"
	"sync"

	"github.com/chitta-go/chitta"
)

// BuildFunc fills a started [Builder] with the messages of msgs, in order
// (SetRole, the Add methods, End for each), or returns an error naming the
// message it cannot read.
type BuildFunc[T any] func(b *Builder, msgs []T) error

// Messages builds msgs with build into new messages the caller owns.
func Messages[T any](msgs []T, build BuildFunc[T]) ([]chitta.Message, error) {
	var b Builder
	b.Start(len(msgs))
	if err := build(&b, msgs); err != nil {
		return nil, err
	}
	return b.Finish(), nil
}

// CompactBuilt is [Compact] with the chitta messages built by build on a
// pooled Builder: the message slice, the text buffer and the key scratch
// are reused from call to call (chitta.Compact copies the messages it
// returns, so the slice is free again once it returns: nothing chitta
// calls during Compact, FramingCounter.FramingTokens included, may keep a
// *chitta.Message it is given), which leaves a conversion only the ID
// slices and the composed texts that differ from the last conversion's
// (none when the same conversation is compacted again) to allocate.
//
// With opts.Mask set, the messages are built on a Builder of their own
// pool in mask mode (see mask.go: each message with tool calls or results
// also gets a synthetic Raw, in new memory every call), and each kept
// message chitta masked is returned as rewrite makes it from the input
// value; Result.Messages then have Raw nil (as they have outside mask
// mode, where the Raw that Builder.ToolSearch writes is cleared too,
// see toolsearch.go). rewrite is not called without
// Mask (it may be nil for a caller that never masks).
func CompactBuilt[T any](ctx context.Context, msgs []T, opts *chitta.Options, build BuildFunc[T], rewrite RewriteFunc[T]) ([]T, *chitta.Result, error) {
	if opts != nil && opts.Mask != nil {
		return compactMasked(ctx, msgs, opts, build, rewrite)
	}
	b, cm, err := built(msgs, false, build)
	if err != nil {
		return nil, nil, err
	}
	defer b.release()
	out, res, err := compact(ctx, msgs, cm, opts)
	if len(b.searched) > 0 && res != nil {
		for j := range res.Messages {
			res.Messages[j].Raw = nil // ToolSearch's, never the caller's
		}
	}
	return out, res, err
}

// built converts msgs with build on a pooled Builder, in mask mode when
// mask is set, and returns the Builder, to release once the messages are
// no longer read, with the messages (which live in its memory until then).
func built[T any](msgs []T, mask bool, build BuildFunc[T]) (*Builder, []chitta.Message, error) {
	var b *Builder
	if mask {
		b = maskBuilders.Get().(*Builder)
		b.reuseMask(len(msgs))
	} else {
		b = builders.Get().(*Builder)
		b.reuse(len(msgs))
		b.search = true
	}
	if err := build(b, msgs); err != nil {
		b.release()
		return nil, nil, err
	}
	return b, b.Finish(), nil
}

var builders = sync.Pool{New: func() any { return new(Builder) }}

// Pooled builders keep at most this much memory between calls.
const (
	maxPooledMessages = 1 << 16
	maxPooledBuf      = 4 << 20
)

// reuse starts a conversation of n messages in b's memory from the last
// one: the message slice (whose fields End overwrites) and the text buffer
// are reused; the ID slices, which the messages returned last time still
// reference, are new, sized for as many IDs as the last conversation had.
func (b *Builder) reuse(n int) {
	out := b.out[:0]
	if cap(out) < n {
		out = make([]chitta.Message, n)
	}
	*b = Builder{
		out:         out[:n],
		buf:         b.buf[:0],
		pending:     b.pending[:0],
		enc:         b.enc,
		memo:        b.memo,
		lastCalls:   b.lastCalls,
		lastResults: b.lastResults,
	}
	b.memo.turn()
	for i := range b.out {
		// set by Media and OpensWithThinking only (not pointers: no
		// write barrier)
		b.out[i].MediaTokens, b.out[i].OpensWithThinking = 0, false
	}
	if b.lastCalls > 0 {
		b.calls.all = make([]string, 0, b.lastCalls+b.lastCalls/8+8)
	}
	if b.lastResults > 0 {
		b.results.all = make([]string, 0, b.lastResults+b.lastResults/8+8)
	}
}

// release returns b to the pool. Its message slice still references the
// conversation (texts, IDs) until the next reuse overwrites it, or the
// pool drops it (within two garbage collections of disuse): clearing it
// would cost more than the conversion's other work together.
func (b *Builder) release() {
	b.retire()
	if cap(b.out) > maxPooledMessages || cap(b.buf) > maxPooledBuf {
		return
	}
	if b.mk != nil {
		b.mk.retire()
		maskBuilders.Put(b)
		return
	}
	builders.Put(b)
}

// retire drops what b must not keep between conversations (the map keys
// it sorted, the ID slices the returned messages use) and remembers how
// many IDs there were, for the next reuse.
func (b *Builder) retire() {
	b.unsearch()
	b.enc.reset()
	b.lastCalls, b.lastResults = len(b.calls.all), len(b.results.all)
	b.calls, b.results = idList{}, idList{}
}
