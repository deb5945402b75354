// Package adaptkit is what the SDK adapters under adapt/ share: building a
// message's scoring text, rendering a value as JSON, and compacting a slice
// of SDK values by index. It lives in the root module, so that each
// adapter's own module needs nothing but its SDK.
package adaptkit

import (
	"context"
	"strings"

	"github.com/chitta-go/chitta"
)

// Text accumulates the scoring text of one message: non-blank pieces joined
// by newlines, as chitta.ParseMessages joins blocks. It is the reference
// the adapters' [Builder] matches (and is tested against); the adapters
// use Builder. The zero value is empty and ready to use.
type Text struct{ b strings.Builder }

// Add appends s unless it is blank.
func (t *Text) Add(s string) {
	if strings.TrimSpace(s) == "" {
		return
	}
	if t.b.Len() > 0 {
		t.b.WriteByte('\n')
	}
	t.b.WriteString(s)
}

// String returns the text so far.
func (t *Text) String() string { return t.b.String() }

// JSON returns the JSON encoding of v as encoding/json.Marshal gives it,
// or its %v form when v does not marshal (a placeholder naming its type
// when v refers to itself, which %v cannot print); nil gives "", a string and a
// json.RawMessage are returned as they are (a []byte is marshalled, as
// base64). Tool-argument shapes (map[string]any, []any, strings, numbers,
// bools) are encoded without reflection, with the same bytes.
func JSON(v any) string {
	var e encoder
	return string(appendJSON(nil, v, &e))
}

// Compact converts msgs with convert, compacts them with chitta.Compact,
// and returns the surviving elements of msgs themselves (msgs[i] for each i
// in Result.Kept), in order. The adapters use [CompactBuilt], which also
// reuses the converted messages' memory and honours Options.Mask (here a
// masked message is returned as the original value: chitta.Compact's
// Result.Messages have the masked text).
func Compact[T any](ctx context.Context, msgs []T, opts *chitta.Options, convert func([]T) ([]chitta.Message, error)) ([]T, *chitta.Result, error) {
	cm, err := convert(msgs)
	if err != nil {
		return nil, nil, err
	}
	return compact(ctx, msgs, cm, opts)
}

// compact compacts cm, the chitta messages of msgs, and returns the
// surviving elements of msgs.
func compact[T any](ctx context.Context, msgs []T, cm []chitta.Message, opts *chitta.Options) ([]T, *chitta.Result, error) {
	res, err := chitta.Compact(ctx, cm, opts)
	if err != nil {
		return nil, nil, err
	}
	out := make([]T, len(res.Kept))
	for j, i := range res.Kept {
		out[j] = msgs[i]
	}
	return out, res, nil
}
