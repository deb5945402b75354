package adaptkit

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"unsafe"

	"github.com/chitta-go/chitta"
)

// Compactor is [chitta.Compactor] over a conversation of SDK values: each
// call converts the whole conversation with the adapter's BuildFunc on a
// pooled [Builder] (in mask mode when the options set Mask), runs the
// chitta Compactor on it, and returns the caller's values at Result.Kept,
// or, for a message chitta masked, the value the adapter's RewriteFunc
// makes of the caller's. The adapters wrap it in a named type of their
// own (see adapt/openai.Compactor).
//
// Every call converts all of msgs (the Compactor cannot tell that an SDK
// value is unchanged without converting it), so a call between
// compactions costs about one conversion, against a chitta.Compactor call
// that costs little more than comparing the conversation with the last
// one.
//
// Masked messages. A compacting Result has Scores, which say which kept
// messages chitta masked; a call between compactions returns the previous
// survivors as they were (masked ones too) with Scores nil. A kept
// message is then masked exactly when its Raw in Result.Messages differs
// from the synthetic Raw this call's conversion gave it: the conversion
// is deterministic, chitta.Compactor has checked that the conversation
// extends the last one Raw included, and masking always rewrites the Raw
// (chitta reads a masked result's placeholder from it). Only messages
// with tool results have a Raw worth comparing (most are short: a whole
// result's Raw holds its ID, not its text), and masked ones are rewritten
// again on every call, from the caller's current values (an SDK-only
// field, such as a cache breakpoint, may have moved), with the texts
// read from their Raw at the first call that returned them.
//
// Ownership. Result.Messages are chitta's: the converted messages, as the
// chitta Compactor returns them. In mask mode the messages with tool
// calls or results keep their synthetic Raw (adaptkit's Anthropic-shaped
// JSON, not the SDK's), and outside mask mode the messages an adapter gave
// a Raw with [Builder.ToolSearch] keep that Raw: the Compactor does not
// clear it as [CompactBuilt] does, since a Result between compactions shares its Messages with later
// Results (see chitta.Compactor). The returned []T is new on every call
// and the caller's; its elements are the caller's values (or new
// rewritten ones), never copies made through JSON. The chitta Compactor
// keeps copies of the converted messages of the last call: their texts
// are strings, their ID slices and Raw are allocated anew by every
// conversion, so nothing in them is memory the pooled Builder reuses.
//
// The zero value is not usable (Compact returns an error wrapping
// chitta.ErrInvalidOption). A Compactor is safe for concurrent use: the
// conversion runs concurrently, the chitta Compactor serialises the rest.
type Compactor[T any] struct {
	c       *chitta.Compactor
	mask    bool
	build   BuildFunc[T]
	rewrite RewriteFunc[T]

	mu    sync.Mutex
	texts map[*byte]maskedTexts // by the masked Raw's first byte: the texts read from it
}

// maskedTexts are the texts of the results chitta masked in raw, a masked
// Raw of the last compaction's Result, as [RewrittenTexts] reads them
// (from raw and the synthetic Raw it was masked from). A masked Raw is
// returned, in the same memory, by every call until the next compaction,
// always for the same message of the same conversation (a call between
// compactions keeps the survivors only when the conversation extends the
// compacted one, Raw included), so its texts are read once; holding raw
// keeps its address from being reused while it is a key.
type maskedTexts struct {
	raw   []byte
	texts []string
}

// NewCompactor returns a Compactor over chitta.NewCompactor(opts, p),
// converting with build and, with opts.Mask set, rewriting masked values
// with rewrite. Its errors are chitta.NewCompactor's, and one wrapping
// chitta.ErrInvalidOption when opts.Mask is set and rewrite is nil.
func NewCompactor[T any](opts *chitta.Options, p chitta.Policy, build BuildFunc[T], rewrite RewriteFunc[T]) (*Compactor[T], error) {
	if opts != nil && opts.Mask != nil && rewrite == nil {
		return nil, fmt.Errorf("%w: Mask set and no RewriteFunc", chitta.ErrInvalidOption)
	}
	c, err := chitta.NewCompactor(opts, p)
	if err != nil {
		return nil, err
	}
	return &Compactor[T]{c: c, mask: opts != nil && opts.Mask != nil, build: build, rewrite: rewrite}, nil
}

// Compact returns the conversation msgs (the whole conversation so far)
// as the next model call should send it, with chitta.Compactor's Result
// (see [Compactor]). msgs is not modified. Errors are the conversion's
// and chitta.Compactor.Compact's, after which the Compactor is as before
// the call, and, with Mask, one wrapping errRewrite when a masked value
// cannot be rewritten (the adapter's RewriteFunc disagrees with its
// BuildFunc: a bug), after which the Compactor has forgotten the previous
// call too (chitta.Compactor.Reset): the next call starts afresh.
func (c *Compactor[T]) Compact(ctx context.Context, msgs []T) ([]T, *chitta.Result, error) {
	if c == nil || c.c == nil {
		return nil, nil, fmt.Errorf("%w: Compactor not created by NewCompactor", chitta.ErrInvalidOption)
	}
	b, cm, err := built(msgs, c.mask, c.build)
	if err != nil {
		return nil, nil, err
	}
	defer b.release()
	res, err := c.c.Compact(ctx, cm)
	if err != nil {
		return nil, nil, err
	}
	out := make([]T, len(res.Kept))
	for j, i := range res.Kept {
		out[j] = msgs[i]
	}
	if c.mask {
		if err := c.rewriteMasked(out, msgs, cm, res); err != nil {
			c.c.Reset() // res is not returned: the next call must not build on it
			return nil, nil, err
		}
	}
	return out, res, nil
}

// rewriteMasked replaces in out, the values of msgs at res.Kept, those of
// the messages chitta masked by their rewritten values; cm are msgs
// converted in mask mode.
func (c *Compactor[T]) rewriteMasked(out, msgs []T, cm []chitta.Message, res *chitta.Result) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.texts == nil || res.Stats.Compacted {
		c.texts = map[*byte]maskedTexts{} // the last compaction's Raws only
	}
	for j, i := range res.Kept {
		m := res.Messages[j].Raw
		if !masked(res, j, i, cm[i].Raw) {
			continue
		}
		e, ok := c.texts[unsafe.SliceData(m)]
		if !ok || len(e.raw) != len(m) {
			e.texts = nil
		}
		v, texts, err := rewritten(msgs[i], i, cm[i].Raw, m, e.texts, c.rewrite)
		if err != nil {
			return err
		}
		if !ok && len(m) > 0 {
			c.texts[unsafe.SliceData(m)] = maskedTexts{m, texts}
		}
		out[j] = v
	}
	return nil
}

// masked reports whether chitta masked message i, kept at j, whose
// synthetic Raw is raw: by its score when res has Scores, else by its Raw
// (see Compactor).
func masked(res *chitta.Result, j, i int, raw []byte) bool {
	if res.Scores != nil {
		return res.Scores[i].Masked
	}
	return !bytes.Equal(raw, res.Messages[j].Raw)
}
