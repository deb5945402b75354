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
	b       []byte
	i       int // the next key, once the previous value is finished
	vs, ve  int // the current value; ve is -1 until known
	key     []byte
	started bool
	bad     bool
	done    bool
	stop    int
}

func newMembers(b []byte, start int) members {
	it := members{b: b, ve: -1}
	i := skipSpace(b, start)
	if i >= len(b) || b[i] != '{' {
		it.bad, it.done = true, true
		return it
	}
	if i = skipSpace(b, i+1); i < len(b) && b[i] == '}' {
		it.done, it.stop = true, i+1
		return it
	}
	it.i = i
	return it
}

func (it *members) fail() bool { it.bad, it.done = true, true; return false }

func (it *members) next() bool {
	if it.done {
		return false
	}
	b := it.b
	if it.started {
		if it.val(); it.bad {
			return false
		}
		i := skipSpace(b, it.ve)
		switch {
		case i >= len(b):
			return it.fail()
		case b[i] == '}':
			it.done, it.stop = true, i+1
			return false
		case b[i] != ',':
			return it.fail()
		}
		it.i = skipSpace(b, i+1)
	}
	it.started = true
	i := it.i
	if i >= len(b) || b[i] != '"' {
		return it.fail()
	}
	ke := skipString(b, i)
	if ke < 0 {
		return it.fail()
	}
	it.key = b[i+1 : ke-1]
	if i = skipSpace(b, ke); i >= len(b) || b[i] != ':' {
		return it.fail()
	}
	if it.vs, it.ve = skipSpace(b, i+1), -1; it.vs >= len(b) {
		return it.fail()
	}
	return true
}

// start is the index of the current value's first byte.
func (it *members) start() int { return it.vs }

// val returns the current value's span (empty once the object is bad).
func (it *members) val() jsonSpan {
	if it.ve < 0 && !it.bad {
		if it.ve = skipValue(it.b, it.vs); it.ve < 0 {
			it.fail()
		}
	}
	if it.bad {
		return jsonSpan{}
	}
	return jsonSpan{it.vs, it.ve}
}

// setEnd records where the current value ends, after the caller read it
// (end < 0: it was malformed).
func (it *members) setEnd(end int) {
	if end < 0 {
		it.fail()
		return
	}
	it.ve = end
}

func (it *members) ok() bool { return !it.bad }

// elements iterates over the elements of a JSON array like members.
type elements struct {
	b       []byte
	i       int
	vs, ve  int
	j       int // index of the current element
	started bool
	bad     bool
	done    bool
	stop    int
}

func newElements(b []byte, start int) elements {
	it := elements{b: b, ve: -1, j: -1}
	i := skipSpace(b, start)
	if i >= len(b) || b[i] != '[' {
		it.bad, it.done = true, true
		return it
	}
	if i = skipSpace(b, i+1); i < len(b) && b[i] == ']' {
		it.done, it.stop = true, i+1
		return it
	}
	it.i = i
	return it
}

func (it *elements) fail() bool { it.bad, it.done = true, true; return false }

func (it *elements) next() bool {
	if it.done {
		return false
	}
	if it.started {
		if it.val(); it.bad {
			return false
		}
		i := skipSpace(it.b, it.ve)
		switch {
		case i >= len(it.b):
			return it.fail()
		case it.b[i] == ']':
			it.done, it.stop = true, i+1
			return false
		case it.b[i] != ',':
			return it.fail()
		}
		it.i = skipSpace(it.b, i+1)
	}
	it.started = true
	if it.i >= len(it.b) {
		return it.fail()
	}
	it.vs, it.ve = it.i, -1
	it.j++
	return true
}

func (it *elements) start() int { return it.vs }

func (it *elements) val() jsonSpan {
	if it.ve < 0 && !it.bad {
		if it.ve = skipValue(it.b, it.vs); it.ve < 0 {
			it.fail()
		}
	}
	if it.bad {
		return jsonSpan{}
	}
	return jsonSpan{it.vs, it.ve}
}

func (it *elements) setEnd(end int) {
	if end < 0 {
		it.fail()
		return
	}
	it.ve = end
}

func (it *elements) ok() bool { return !it.bad }

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

// appendJSONString appends s to dst as a JSON string: quotes, backslashes
// and control characters escaped, invalid UTF-8 replaced by U+FFFD, and
// (unlike encoding/json) <, > and & left as they are.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = slices.Grow(dst, len(s)+2)
	dst = append(dst, '"')
	for i := 0; i < len(s); {
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
