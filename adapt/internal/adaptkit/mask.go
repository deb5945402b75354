package adaptkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/chitta-go/chitta"
)

// Masking through an adapter ([chitta.Options.Mask]).
//
// chitta masks the tool results it finds in a message's Raw, block by
// block, in the Anthropic content-block shape; a message with Raw nil is
// masked as a whole, without its tool's name. So in mask mode (and only
// there) the Builder also gives each message that carries tool calls or
// results a synthetic Raw, written from the same pieces as its Content:
//
//	{"role":R,"content":[blocks]}
//
// with one block per piece: a text piece is {"type":"text","text":S}, a
// call piece (AddCall, AddCallJSON after CallID) is
// {"type":"tool_use","id":ID,"name":N,"input":ARGS} ("server_tool_use"
// for a server tool's call: declared by ServerCallID, or one whose result
// the message itself carries),
// ARGS the arguments' text as a JSON string (chitta reads a string input
// as it is, so the block reads back as the piece "N ARGS"), a result (the pieces between
// OpenResult and CloseResult) is {"type":"tool_result","tool_use_id":ID,
// "content":C}, C its one piece as a string or its pieces as text blocks
// (a piece added with AddReference as {"type":"tool_reference",
// "tool_name":N}, and C then always blocks, so that chitta's tool-search
// rule sees the tools the result loads).
// chitta's parser reads such a Raw back as exactly the message's Content, so a
// masked message's Content, which chitta reads back from its rewritten
// Raw, is what the adapter's Messages gives for the rewritten value.
//
// Shorter forms where chitta needs no more: a message that is one result
// and nothing else (ResultMessage) has the content "" in its block, as
// chitta takes the text of such a whole result from Content; a message
// with calls and no declared result has only {"type":"tool_use","id":ID,
// "name":N} blocks, which name the calls for the placeholders of their
// results; a message that carries results the adapter cannot rewrite (a
// tool-role message without a declared result, a server tool's output)
// is {"role":R}, in which chitta finds no result to mask; every other
// message has Raw nil.
//
// After chitta.Compact, each kept message whose score is Masked has its
// tool_result blocks read back from the rewritten Raw, in block order
// (the order the build function declared its results), and the adapter's
// RewriteFunc makes the new value.

// RewriteFunc returns a copy of orig in which the k-th tool result that
// the adapter's BuildFunc declared for it (OpenResult, ResultMessage, in
// order) has its
// output replaced by texts[k], for each k with texts[k] != "" ("" leaves
// that result as it is; a rewritten text is never empty). orig, and every
// slice and pointer it shares with the caller, must not be modified: the
// copy gets new slices and pointers down to what it replaces. It reports
// false when orig does not hold len(texts) results.
type RewriteFunc[T any] func(orig T, texts []string) (T, bool)

// errRewrite is the error of a masked message the adapter could not
// rewrite: a bug in the adapter, never expected.
var errRewrite = errors.New("adapt: masked message cannot be rewritten")

// maskBuild is a Builder's state in mask mode.
type maskBuild struct {
	raw    []byte    // this call's synthetic Raws (new memory each call, never pooled)
	spans  []rawSpan // where message i's Raw is in raw
	pieces []piece   // the current message's pieces, for its Raw
	used   int       // call IDs of the current message declared before its last call piece
	hint   int       // len(raw) of the last call, to size the next
	server []string  // the current message's server tool call IDs (ServerCallID)
}

// rawSpan is message i's Raw: raw[start:end].
type rawSpan struct{ i, start, end int }

// piece kinds.
const (
	pieceText     uint8 = iota // a: the text, or buf[from:to]
	pieceCall                  // a: name, b: arguments (or buf[from:to]), id
	pieceCallName              // id, a: name (names a call, adds no text)
	pieceOpen                  // id: a result's call
	pieceClose
	pieceRef   // a: the tool a tool_reference block loads (AddReference)
	pieceImage // media: the image's tokens (Image)
)

// piece is one piece of the current message, as its Raw block shows it.
// Text held in buf is referenced by offsets (buf is only appended to until
// End emits the Raw).
type piece struct {
	kind     uint8
	a, b, id string
	from, to int // buf[from:to] is the text (pieceText) or b (else) when to > from
	media    int // pieceImage: its MediaTokens
}

// maskBuilders are the pooled Builders of mask mode, apart from the
// others: their message slots hold Raw, which the others never write.
var maskBuilders = sync.Pool{New: func() any { return &Builder{mk: new(maskBuild)} }}

// reuseMask starts a conversation of n messages in mask mode.
func (b *Builder) reuseMask(n int) {
	mk := b.mk
	b.reuse(n)
	b.mk = mk
	mk.raw = make([]byte, 0, mk.hint+mk.hint/8+64)
	mk.spans = mk.spans[:0]
	mk.pieces = mk.pieces[:0]
	mk.used = 0
}

// retire drops what a pooled mask-mode Builder must not keep: this call's Raw
// memory (the caller's Result may share it until it is cleared) and the
// caller's strings in pieces.
func (mk *maskBuild) retire() {
	mk.hint = len(mk.raw)
	mk.raw = nil
	clear(mk.pieces)
	mk.pieces = mk.pieces[:0]
}

// isResultRole reports whether chitta reads a message of role r as one
// tool result (mask.go's isResultRole).
func isResultRole(r chitta.Role) bool {
	return r == chitta.RoleTool || r == "function" || r == "tool_result"
}

// startRaw writes the head of message i's Raw, {"role":R, and returns
// where it starts.
func (mk *maskBuild) startRaw(r chitta.Role) int {
	start := len(mk.raw)
	mk.raw = appendString(append(mk.raw, `{"role":`...), string(r))
	return start
}

// endRaw closes the Raw of message i started at start.
func (mk *maskBuild) endRaw(i, start int, content bool) {
	if content {
		mk.raw = append(mk.raw, ']')
	}
	mk.raw = append(mk.raw, '}')
	mk.spans = append(mk.spans, rawSpan{i, start, len(mk.raw)})
}

// marker gives message i the Raw {"role":R}: chitta finds no result in it.
func (mk *maskBuild) marker(i int, r chitta.Role) {
	mk.endRaw(i, mk.startRaw(r), false)
}

// wholeResult gives message i, one result of call id and nothing else,
// its Raw (content "": chitta reads a whole result's text from Content).
func (mk *maskBuild) wholeResult(i int, r chitta.Role, id string) {
	start := mk.startRaw(r)
	mk.raw = append(mk.raw, `,"content":[{"type":"tool_result","tool_use_id":`...)
	mk.raw = appendString(mk.raw, id)
	mk.raw = append(mk.raw, `,"content":""}`...)
	mk.endRaw(i, start, true)
}

// callOnly gives message i, one call of id to name, its Raw.
func (mk *maskBuild) callOnly(i int, r chitta.Role, id, name string) {
	start := mk.startRaw(r)
	mk.raw = append(mk.raw, `,"content":[`...)
	mk.raw = mk.appendUse(mk.raw, id, name, false)
	mk.raw = append(mk.raw, '}')
	mk.endRaw(i, start, true)
}

// serverCall reports whether the current message's call id is a server
// tool's: declared by ServerCallID, or answered by the message itself
// (Anthropic's web search), which chitta.Validate tells from a client
// call by its block type.
func (mk *maskBuild) serverCall(b *Builder, id string) bool {
	return slices.Contains(mk.server, id) || slices.Contains(b.results.all[b.results.start:], id)
}

// appendUse appends the head of a tool_use block (no closing brace), or
// of a server_tool_use block for a server tool's call.
func (mk *maskBuild) appendUse(dst []byte, id, name string, server bool) []byte {
	if server {
		dst = append(dst, `{"type":"server_tool_use","id":`...)
	} else {
		dst = append(dst, `{"type":"tool_use","id":`...)
	}
	dst = appendString(dst, id)
	dst = append(dst, `,"name":`...)
	return appendString(dst, name)
}

// add records a piece of the current message.
func (mk *maskBuild) add(p piece) { mk.pieces = append(mk.pieces, p) }

// text records the text piece s (blank pieces are dropped, as Add drops
// them).
func (mk *maskBuild) text(s string) {
	if startsWord(s) || !blank(s) {
		mk.add(piece{kind: pieceText, a: s})
	}
}

// bufText records the text piece b.buf[from:], when not empty (Builder
// drops a blank piece from buf).
func (mk *maskBuild) bufText(b *Builder, from int) {
	if to := len(b.buf); to > from {
		mk.add(piece{kind: pieceText, from: from, to: to})
	}
}

// callJSON records the call piece name + " " + JSON written at b.buf[at:].
func (mk *maskBuild) callJSON(b *Builder, name string, at int) {
	p := piece{a: name}
	if from := at + len(name) + 1; len(b.buf) > from {
		p.from, p.to = from, len(b.buf)
	}
	mk.call(b, p)
}

// call records a call piece of the current message, taking the call ID
// declared last (CallID right before the call) unless a call piece took it
// already (none: ""). An ID declared with no call piece of its own (a
// langchaingo ToolCall without a FunctionCall) is skipped, not given to
// the next call.
func (mk *maskBuild) call(b *Builder, p piece) {
	if n := len(b.calls.all); n > b.calls.start+mk.used {
		p.id = b.calls.all[n-1]
		mk.used = n - b.calls.start
	}
	p.kind = pieceCall
	mk.add(p)
}

// end writes the Raw of the current message (index i, role r) from its
// pieces, before End settles its text.
func (mk *maskBuild) end(b *Builder, i int, r chitta.Role) {
	defer func() {
		clear(mk.pieces)
		clear(mk.server)
		mk.pieces, mk.used, mk.server = mk.pieces[:0], 0, mk.server[:0]
	}()
	results, calls := false, false
	for k := range mk.pieces {
		switch mk.pieces[k].kind {
		case pieceOpen:
			results = true
		case pieceCall, pieceCallName:
			calls = calls || mk.pieces[k].id != ""
		}
	}
	switch {
	case results && mk.whole(b):
		mk.wholeResult(i, r, mk.pieces[0].id)
	case results:
		mk.full(b, i, r)
	case calls:
		start := mk.startRaw(r)
		mk.raw = append(mk.raw, `,"content":[`...)
		first := true
		for _, p := range mk.pieces {
			if (p.kind == pieceCall || p.kind == pieceCallName) && p.id != "" {
				if !first {
					mk.raw = append(mk.raw, ',')
				}
				first = false
				mk.raw = append(mk.appendUse(mk.raw, p.id, p.a, mk.serverCall(b, p.id)), '}')
			}
		}
		mk.endRaw(i, start, true)
	}
	// A message with results but none declared gets its marker Raw at
	// finishRaw.
}

// whole reports whether the current message is one declared result and
// nothing else, with one result ID and no call ID: chitta then reads the
// result's text from Content (a "whole" result), so its Raw need not
// hold it.
func (mk *maskBuild) whole(b *Builder) bool {
	n := len(mk.pieces)
	if n < 2 || mk.pieces[0].kind != pieceOpen || mk.pieces[n-1].kind != pieceClose ||
		len(b.results.all)-b.results.start != 1 || len(b.calls.all) != b.calls.start {
		return false
	}
	for _, p := range mk.pieces[1 : n-1] {
		if p.kind != pieceText {
			return false
		}
	}
	return true
}

// full writes the Raw of a message with results: every piece as a block.
func (mk *maskBuild) full(b *Builder, i int, r chitta.Role) {
	start := mk.startRaw(r)
	raw := append(mk.raw, `,"content":[`...)
	second := func(p *piece) string {
		if p.to > p.from {
			return string(b.buf[p.from:p.to]) // a copy (JSON pieces)
		}
		return p.b
	}
	for k := 0; k < len(mk.pieces); k++ {
		p := &mk.pieces[k]
		if p.kind == pieceCallName || p.kind == pieceClose {
			continue // no text: no block (a close without an open: nothing)
		}
		if raw[len(raw)-1] != '[' {
			raw = append(raw, ',')
		}
		switch p.kind {
		case pieceText, pieceRef: // a reference outside a result: text
			raw = append(raw, `{"type":"text","text":`...)
			raw = append(mk.appendText(raw, b, p), '}')
		case pieceImage:
			raw = appendImage(raw, p)
		case pieceCall:
			raw = append(mk.appendUse(raw, p.id, p.a, mk.serverCall(b, p.id)), `,"input":`...)
			raw = append(appendString(raw, second(p)), '}')
		case pieceOpen:
			raw = append(raw, `{"type":"tool_result","tool_use_id":`...)
			raw = append(appendString(raw, p.id), `,"content":`...)
			end := k + 1
			for end < len(mk.pieces) && mk.pieces[end].kind != pieceClose {
				end++
			}
			var inner []*piece
			blocks := false // a piece only a block shows: the content is blocks
			for q := k + 1; q < end; q++ {
				switch mk.pieces[q].kind {
				case pieceRef, pieceImage:
					blocks = true
					fallthrough
				case pieceText, pieceCall:
					inner = append(inner, &mk.pieces[q])
				}
			}
			switch {
			case len(inner) == 0:
				raw = append(raw, `""`...)
			case len(inner) == 1 && !blocks:
				raw = mk.appendText(raw, b, inner[0])
			default:
				raw = append(raw, '[')
				for q, ip := range inner {
					if q > 0 {
						raw = append(raw, ',')
					}
					if ip.kind == pieceImage {
						raw = appendImage(raw, ip)
						continue
					}
					if ip.kind == pieceRef {
						// chitta's tool-search rule reads the block
						// (see Builder.AddReference)
						raw = append(raw, `{"type":"tool_reference","tool_name":`...)
					} else {
						raw = append(raw, `{"type":"text","text":`...)
					}
					raw = append(mk.appendText(raw, b, ip), '}')
				}
				raw = append(raw, ']')
			}
			raw = append(raw, '}')
			k = end // past the close
		}
	}
	mk.raw = raw
	mk.endRaw(i, start, true)
}

// appendImage appends the block of image piece p,
// {"type":"image","media_tokens":N}, which chitta reads back as the piece
// "[image]" costing N media tokens: a masked message then counts the
// images its rewritten Raw still holds, as the adapter counts the
// rewritten value.
func appendImage(dst []byte, p *piece) []byte {
	dst = append(dst, `{"type":"image","media_tokens":`...)
	return append(strconv.AppendInt(dst, int64(p.media), 10), '}')
}

// appendText appends the text of p as a JSON string: a text piece's text,
// or a call piece's "name args" (inside a result, such a piece reads as
// text).
func (mk *maskBuild) appendText(dst []byte, b *Builder, p *piece) []byte {
	switch {
	case p.kind == pieceText && p.to > p.from:
		return appendString(dst, string(b.buf[p.from:p.to]))
	case p.kind == pieceText || p.kind == pieceRef:
		return appendString(dst, p.a)
	}
	// "name args" as one string: the name's string without its closing
	// quote, a space, the arguments' string without its opening quote.
	args := p.b
	if p.to > p.from {
		args = string(b.buf[p.from:p.to])
	}
	dst = appendString(dst, p.a)
	dst = append(dst[:len(dst)-1], ' ')
	at := len(dst)
	dst = appendString(dst, args)
	copy(dst[at:], dst[at+1:])
	return dst[:len(dst)-1]
}

// finishRaw sets every message's Raw: its span of this call's memory, or
// nil; a message that has none and carries tool results (or has a result
// role) first gets the marker {"role":R}, in which chitta finds no result
// to mask (Message and End leave those to here, so that the calls without
// masking stay as cheap as they were).
func (mk *maskBuild) finishRaw(out []chitta.Message) {
	s, all := 0, len(mk.spans)
	for i := range out {
		if s < all && mk.spans[s].i == i {
			s++
		} else if m := &out[i]; len(m.ToolResultIDs) > 0 || isResultRole(m.Role) {
			mk.marker(i, m.Role)
		}
	}
	if len(mk.spans) > all { // markers were added out of order
		slices.SortFunc(mk.spans, func(a, b rawSpan) int { return a.i - b.i })
	}
	s = 0
	for i := range out {
		if s < len(mk.spans) && mk.spans[s].i == i {
			sp := mk.spans[s]
			out[i].Raw = mk.raw[sp.start:sp.end:sp.end]
			s++
		} else if out[i].Raw != nil {
			out[i].Raw = nil
		}
	}
}

// OpenResult starts a tool result answering call id ("" for none): the
// pieces added until [Builder.CloseResult] are its output, which masking
// may replace (see RewriteFunc). It adds no ID (ResultID does) and, without
// masking, does nothing.
func (b *Builder) OpenResult(id string) {
	if b.mk != nil {
		b.mk.add(piece{kind: pieceOpen, id: id})
	}
}

// CloseResult ends the result OpenResult started.
func (b *Builder) CloseResult() {
	if b.mk != nil {
		b.mk.add(piece{kind: pieceClose})
	}
}

// CallName names the call id: with masking, the placeholders of its
// results name the tool. It adds no ID and no text (a call whose text
// was added otherwise, as JSON).
func (b *Builder) CallName(id, name string) {
	if b.mk != nil && id != "" {
		b.mk.add(piece{kind: pieceCallName, id: id, a: name})
	}
}

// compactMasked is CompactBuilt with opts.Mask set: the messages get
// synthetic Raw, and each kept masked message is rewritten with rewrite.
func compactMasked[T any](ctx context.Context, msgs []T, opts *chitta.Options, build BuildFunc[T], rewrite RewriteFunc[T]) ([]T, *chitta.Result, error) {
	b, cm, err := built(msgs, true, build)
	if err != nil {
		return nil, nil, err
	}
	defer b.release()
	res, err := chitta.Compact(ctx, cm, opts)
	if err != nil {
		return nil, nil, err
	}
	out := make([]T, len(res.Kept))
	for j, i := range res.Kept {
		out[j] = msgs[i]
		if res.Scores[i].Masked {
			if out[j], _, err = rewritten(msgs[i], i, cm[i].Raw, res.Messages[j].Raw, nil, rewrite); err != nil {
				return nil, nil, err
			}
		}
		res.Messages[j].Raw = nil
	}
	return out, res, nil
}

// rewritten returns orig, message i, rewritten with rewrite after chitta
// masked its synthetic Raw raw into masked, with the texts of the
// results it read from them; texts, when not nil, are those texts, read
// before from the same Raws.
func rewritten[T any](orig T, i int, raw, masked json.RawMessage, texts []string, rewrite RewriteFunc[T]) (T, []string, error) {
	if texts == nil {
		var err error
		if texts, err = RewrittenTexts(raw, masked); err != nil {
			return orig, nil, fmt.Errorf("%w: message %d: %v", errRewrite, i, err)
		}
	}
	if rewrite == nil {
		return orig, nil, fmt.Errorf("%w: message %d: no rewrite function", errRewrite, i)
	}
	v, ok := rewrite(orig, texts)
	if !ok {
		return orig, nil, fmt.Errorf("%w: message %d: %d results", errRewrite, i, len(texts))
	}
	return v, texts, nil
}

// RewrittenTexts compares the tool_result blocks of orig, a synthetic Raw,
// with those of masked, the Raw chitta rewrote from it, in block order,
// and returns for each the new text of its content ("" when unchanged).
// It is an error when the blocks do not correspond or a changed content
// is not a non-empty string.
func RewrittenTexts(orig, masked json.RawMessage) ([]string, error) {
	a, err := resultContents(orig)
	if err != nil {
		return nil, fmt.Errorf("original: %w", err)
	}
	bs, err := resultContents(masked)
	if err != nil {
		return nil, fmt.Errorf("masked: %w", err)
	}
	if len(a) != len(bs) {
		return nil, fmt.Errorf("%d results, masked %d", len(a), len(bs))
	}
	texts := make([]string, len(a))
	for k := range a {
		if bytes.Equal(a[k], bs[k]) {
			continue
		}
		var s string
		if err := json.Unmarshal(bs[k], &s); err != nil || s == "" {
			return nil, fmt.Errorf("result %d: content %.40q is not a non-empty string", k, bs[k])
		}
		texts[k] = s
	}
	return texts, nil
}

// resultMark starts every tool_result block the Builder writes; chitta's
// rewrite keeps it (it replaces content values only). Inside a JSON string
// a quote is escaped, so the mark is never found in one.
const resultMark = `{"type":"tool_result","tool_use_id":`

// resultContents returns the content of each tool_result block of raw, a
// synthetic Raw (or chitta's rewrite of one): found by resultMark, without
// decoding raw; anything else falls back to decoding (decodeContents).
func resultContents(raw json.RawMessage) ([]json.RawMessage, error) {
	var out []json.RawMessage
	for at := 0; ; {
		k := bytes.Index(raw[at:], []byte(resultMark))
		if k < 0 {
			break
		}
		at += k + len(resultMark)
		end := skipJSON(raw, at) // the ID
		if end < 0 || !bytes.HasPrefix(raw[end:], []byte(`,"content":`)) {
			return decodeContents(raw)
		}
		start := end + len(`,"content":`)
		if end = skipJSON(raw, start); end < 0 || end >= len(raw) || raw[end] != '}' {
			return decodeContents(raw)
		}
		out = append(out, raw[start:end])
		at = end
	}
	if len(out) == 0 && bytes.Contains(raw, []byte(`"tool_result"`)) {
		return decodeContents(raw) // another layout
	}
	return out, nil
}

// skipJSON returns the index after the JSON string or array starting at
// b[at] (arrays of objects and strings, as the Builder writes them), or
// -1.
func skipJSON(b []byte, at int) int {
	if at >= len(b) {
		return -1
	}
	switch b[at] {
	case '"':
		for i := at + 1; i < len(b); i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return -1
	case '[', '{':
		depth := 0
		for i := at; i < len(b); i++ {
			switch b[i] {
			case '"':
				e := skipJSON(b, i)
				if e < 0 {
					return -1
				}
				i = e - 1
			case '[', '{':
				depth++
			case ']', '}':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	}
	return -1
}

// decodeContents is resultContents by encoding/json: the content of each
// top-level content block of type tool_result.
func decodeContents(raw json.RawMessage) ([]json.RawMessage, error) {
	var m struct {
		Content []struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		} `json:"content"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	var out []json.RawMessage
	for _, blk := range m.Content {
		if blk.Type == "tool_result" {
			out = append(out, bytes.TrimSpace(blk.Content))
		}
	}
	return out, nil
}
