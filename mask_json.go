package chitta

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"
)

// A small scanner over JSON that encoding/json has already accepted (a
// parsed message's Raw): masking finds the spans of a few members and
// splices new values in, keeping every other byte, without decoding the
// large tool output it replaces. Strings are skipped with IndexByte. Every
// function returns -1 or false on anything unexpected instead of
// panicking; the caller then leaves the message unmasked.

// jsonSpan is the byte range [start, end) of a JSON value.
type jsonSpan struct{ start, end int }

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just after the string that starts at
// b[i] == '"', or -1.
func skipString(b []byte, i int) int {
	for j := i + 1; j <= len(b); {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		p := j + k
		n := 0
		for q := p - 1; q > i && b[q] == '\\'; q-- {
			n++
		}
		if n%2 == 0 {
			return p + 1
		}
		j = p + 1
	}
	return -1
}

// skipValue returns the index just after the value that starts at b[i],
// or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e := skipString(b, j)
				if e < 0 {
					return -1
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// members iterates over the members of a JSON object, in order, in one
// pass:
//
//	for it := newMembers(b, start); it.next(); { use it.key, it.val() }
//
// A value is skipped only when the next member is read, so a caller may
// instead descend into it (from it.start()) and report where it ends with
// it.setEnd, reading every byte once. it.ok() reports afterwards whether
// the object was well formed, and it.stop is the index after its '}'.
type members struct {
	cursor
	key   []byte
	plain bool // key is plain ASCII without escapes (plainKey)
}

func newMembers(b []byte, start int) members {
	return members{cursor: newCursor(b, start, '{', '}')}
}

func (it *members) next() bool {
	if !it.advance() {
		return false
	}
	b, i := it.b, it.i
	if i >= len(b) || b[i] != '"' {
		return it.fail()
	}
	ke := skipString(b, i)
	if ke < 0 {
		return it.fail()
	}
	it.key = b[i+1 : ke-1]
	it.plain = plainKey(it.key)
	if i = skipSpace(b, ke); i >= len(b) || b[i] != ':' {
		return it.fail()
	}
	if it.vs, it.ve = skipSpace(b, i+1), -1; it.vs >= len(b) {
		return it.fail()
	}
	return true
}

// is reports whether the current member's key names field as keyIs
// does, comparing bytes when the key is plain (checked once per member,
// not once per field compared).
func (it *members) is(field string) bool {
	if it.plain {
		return plainKeyIs(it.key, field)
	}
	return keyIs(it.key, field)
}

// elements iterates over the elements of a JSON array like members.
type elements struct {
	cursor
	j int // index of the current element
}

func newElements(b []byte, start int) elements {
	return elements{cursor: newCursor(b, start, '[', ']'), j: -1}
}

func (it *elements) next() bool {
	if !it.advance() {
		return false
	}
	if it.i >= len(it.b) {
		return it.fail()
	}
	it.vs, it.ve = it.i, -1
	it.j++
	return true
}

// cursor is the state members and elements share: where the next entry
// starts, the current value's span, and whether the container ended or
// turned out malformed.
type cursor struct {
	b       []byte
	close   byte // '}' or ']'
	i       int  // the next entry, once the previous value is finished
	vs, ve  int  // the current value; ve is -1 until known
	started bool
	bad     bool
	done    bool
	stop    int // the index after the closing byte, once done and not bad
}

// newCursor opens the container that starts (after white space) at start
// with the byte open.
func newCursor(b []byte, start int, open, close byte) cursor {
	c := cursor{b: b, close: close, ve: -1}
	i := skipSpace(b, start)
	if i >= len(b) || b[i] != open {
		c.bad, c.done = true, true
		return c
	}
	if i = skipSpace(b, i+1); i < len(b) && b[i] == close {
		c.done, c.stop = true, i+1
		return c
	}
	c.i = i
	return c
}

func (c *cursor) fail() bool { c.bad, c.done = true, true; return false }

// advance finishes the previous value and steps over the comma after it,
// leaving c.i at the next entry; false at the end or on malformed input.
func (c *cursor) advance() bool {
	if c.done {
		return false
	}
	if c.started {
		if c.val(); c.bad {
			return false
		}
		i := skipSpace(c.b, c.ve)
		switch {
		case i >= len(c.b):
			return c.fail()
		case c.b[i] == c.close:
			c.done, c.stop = true, i+1
			return false
		case c.b[i] != ',':
			return c.fail()
		}
		c.i = skipSpace(c.b, i+1)
	}
	c.started = true
	return true
}

// start is the index of the current value's first byte.
func (c *cursor) start() int { return c.vs }

// val returns the current value's span (empty once the container is bad).
func (c *cursor) val() jsonSpan {
	if c.ve < 0 && !c.bad {
		if c.ve = skipValue(c.b, c.vs); c.ve < 0 {
			c.fail()
		}
	}
	if c.bad {
		return jsonSpan{}
	}
	return jsonSpan{c.vs, c.ve}
}

// setEnd records where the current value ends, after the caller read it
// (end < 0: it was malformed).
func (c *cursor) setEnd(end int) {
	if end < 0 {
		c.fail()
		return
	}
	c.ve = end
}

func (c *cursor) ok() bool { return !c.bad }

// keyIs reports whether a raw object key names field the way
// encoding/json matches it (case-insensitively).
func keyIs(key []byte, field string) bool {
	if bytes.IndexByte(key, '\\') < 0 {
		if len(key) == len(field) && isASCII(key) {
			for i := range key {
				if lowerASCII(key[i]) != field[i] {
					return false
				}
			}
			return true
		}
		if isASCII(key) {
			return false
		}
	}
	var s string
	if json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &s) != nil {
		return false
	}
	return strings.EqualFold(s, field)
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// stringAt decodes the JSON string value at v; ok is false for any other
// value.
func stringAt(b []byte, v jsonSpan) (string, bool) {
	if v.start >= v.end || b[v.start] != '"' {
		return "", false
	}
	in := b[v.start+1 : v.end-1]
	if bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		return string(in), true
	}
	var s string
	if json.Unmarshal(b[v.start:v.end], &s) != nil {
		return "", false
	}
	return s, true
}

// isNullAt reports whether the value at v is null.
func isNullAt(b []byte, v jsonSpan) bool { return string(b[v.start:v.end]) == "null" }

// absentAt reports whether the member at v is absent (v is zero) or null.
func absentAt(b []byte, v jsonSpan) bool { return v.end == 0 || isNullAt(b, v) }

// appendJSONString appends s to dst as a JSON string: quotes, backslashes
// and control characters escaped, invalid UTF-8 replaced by U+FFFD, and
// (unlike encoding/json) <, > and & left as they are.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = slices.Grow(dst, len(s)+2)
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		j := i // a run of bytes written as they are, appended at once
		for j < len(s) && jsonPlain[s[j]] {
			j++
		}
		dst = append(dst, s[i:j]...)
		if i = j; i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, `\ufffd`...)
		} else {
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return append(dst, '"')
}

// jsonPlain holds the bytes appendJSONString writes as they are: ASCII
// from the space up, but for '"' and '\\'.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// edit replaces span with val.
type edit struct {
	span jsonSpan
	val  []byte
}

// splice returns b with the edits (ascending, not overlapping) applied.
func splice(b []byte, edits []edit) []byte {
	n := len(b)
	for _, e := range edits {
		n += len(e.val) - (e.span.end - e.span.start)
	}
	out := make([]byte, 0, n)
	last := 0
	for _, e := range edits {
		out = append(append(out, b[last:e.span.start]...), e.val...)
		last = e.span.end
	}
	return append(out, b[last:]...)
}
