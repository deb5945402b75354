package adaptkit

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"
)

// maxFastDepth bounds the nesting the fast encoder follows; deeper values
// (and cyclic ones) go to encoding/json, which handles them as it always has.
const maxFastDepth = 64

// appendJSON appends JSON(v) to dst. The shapes tool arguments decode to
// (map[string]any, []any, string, float64, bool, nil, plus int, int64 and
// []string) are encoded directly, byte for byte as encoding/json.Marshal
// encodes them (sorted keys, HTML-safe string escapes, ES6 float format);
// any other type anywhere in v sends the whole value to json.Marshal.
// e is scratch memory reused across calls.
func appendJSON(dst []byte, v any, e *encoder) []byte {
	switch x := v.(type) {
	case nil:
		return dst
	case string:
		return append(dst, x...)
	case json.RawMessage:
		return append(dst, x...)
	}
	if out, ok := appendValue(dst, v, e, 0); ok {
		return out
	}
	// dst[:len(dst)] is untouched: appendValue only appended past it.
	data, err := json.Marshal(v)
	if err != nil {
		return appendFormatted(dst, v)
	}
	return append(dst, data...)
}

// appendFormatted appends v's %v form, or, when v refers to itself, a
// placeholder naming its type: fmt would recurse until the stack overflows,
// a fatal error that no recover catches.
func appendFormatted(dst []byte, v any) []byte {
	if selfReferential(reflect.ValueOf(v), map[uintptr]bool{}, 0) {
		return fmt.Appendf(dst, "[%T refers to itself]", v)
	}
	return fmt.Appendf(dst, "%v", v)
}

// maxFormatDepth bounds how deep selfReferential looks; a value nested
// deeper is treated as self-referential (fmt would recurse as deep).
const maxFormatDepth = 10_000

// selfReferential reports whether v reaches a map, slice or pointer that
// is already on the path from the root to it. onPath holds that path.
func selfReferential(v reflect.Value, onPath map[uintptr]bool, depth int) bool {
	if depth > maxFormatDepth {
		return true
	}
	switch v.Kind() {
	case reflect.Interface:
		return !v.IsNil() && selfReferential(v.Elem(), onPath, depth+1)
	case reflect.Pointer, reflect.Map, reflect.Slice:
		if v.IsNil() || v.Kind() == reflect.Slice && v.Len() == 0 {
			return false
		}
		p := v.Pointer()
		if onPath[p] {
			return true
		}
		onPath[p] = true
		defer delete(onPath, p)
		switch v.Kind() {
		case reflect.Pointer:
			return selfReferential(v.Elem(), onPath, depth+1)
		case reflect.Map:
			for it := v.MapRange(); it.Next(); {
				if selfReferential(it.Key(), onPath, depth+1) || selfReferential(it.Value(), onPath, depth+1) {
					return true
				}
			}
			return false
		}
		for i := range v.Len() {
			if selfReferential(v.Index(i), onPath, depth+1) {
				return true
			}
		}
	case reflect.Array:
		for i := range v.Len() {
			if selfReferential(v.Index(i), onPath, depth+1) {
				return true
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if selfReferential(v.Field(i), onPath, depth+1) {
				return true
			}
		}
	}
	return false
}

// appendValue appends the JSON encoding of v, or reports false when v holds
// a type it does not encode itself (or nests deeper than maxFastDepth).
func appendValue(dst []byte, v any, e *encoder, depth int) ([]byte, bool) {
	if depth > maxFastDepth {
		return dst, false
	}
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), true
	case string:
		return appendString(dst, x), true
	case bool:
		return strconv.AppendBool(dst, x), true
	case float64:
		return appendFloat(dst, x)
	case int:
		return strconv.AppendInt(dst, int64(x), 10), true
	case int64:
		return strconv.AppendInt(dst, x, 10), true
	case []string:
		if x == nil {
			return append(dst, "null"...), true
		}
		dst = append(dst, '[')
		for i, s := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, s)
		}
		return append(dst, ']'), true
	case []any:
		if x == nil {
			return append(dst, "null"...), true
		}
		dst = append(dst, '[')
		for i, elem := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = appendValue(dst, elem, e, depth+1); !ok {
				return dst, false
			}
		}
		return append(dst, ']'), true
	case map[string]any:
		return appendMap(dst, x, e, depth)
	}
	return dst, false
}

// keySets is how many key sets an encoder remembers (a power of two).
const keySets = 32

// Where a map being encoded comes from, which with its tool's name and its
// size picks the remembered set tried first.
const (
	laneOther  uint8 = iota // a part scored by its JSON
	laneCall                // a tool call's arguments
	laneResult              // a tool result's response
)

// encoder is appendJSON's scratch memory, reused from call to call: the
// keys of a map being sorted, the values of the maps being written, and the
// key sets of recent maps. Tool arguments come with a few key sets that
// repeat (each tool's parameters, a response's {"output"}), and a map whose
// size and keys match a remembered set needs neither iteration (whose
// randomised start alone costs more than looking up a few keys) nor
// sorting, and its keys come already encoded. Each set is remembered in
// the slot that the tool's name, the lane and the map's size and depth
// pick, and that slot is tried first: a wrong guess costs one failed
// look-up, then the other slots are tried. The zero value is ready to use.
type encoder struct {
	keys []string        // keys being sorted; a nested map's above its parent's
	vals []any           // values of the maps being written, a nested map's above its parent's
	sets [keySets]keySet // recent maps' key sets
	tool string          // the tool whose arguments or response are being encoded, if any
	lane uint8           // where the value being encoded comes from
}

// keySet is the keys of a map, sorted, and what precedes each key's value
// in its JSON: `{"key":` for the first, `,"key":` for the others. Its
// slices are never written once made, so a parent map writing a set that a
// nested map's set replaces keeps its copy.
type keySet struct {
	keys, heads []string
}

// reset drops every reference e holds, keeping its memory.
func (e *encoder) reset() {
	clear(e.keys[:cap(e.keys)])
	clear(e.vals[:cap(e.vals)])
	e.keys, e.vals = e.keys[:0], e.vals[:0]
	e.sets, e.tool, e.lane = [keySets]keySet{}, "", laneOther
}

// appendMap encodes m with its keys in byte order, as encoding/json does.
func appendMap(dst []byte, m map[string]any, e *encoder, depth int) ([]byte, bool) {
	if m == nil {
		return append(dst, "null"...), true
	}
	slot := e.slot(len(m), depth)
	if set := &e.sets[slot]; len(m) == 1 && len(set.keys) == 1 {
		// The usual tool input, {"cmd": …}, its set where it was last time.
		if v, ok := m[set.keys[0]]; ok {
			dst = append(dst, set.heads[0]...)
			if s, isString := v.(string); isString {
				dst = appendString(dst, s)
			} else if dst, ok = appendValue(dst, v, e, depth+1); !ok {
				return dst, false
			}
			return append(dst, '}'), true
		}
	}
	if len(m) == 0 {
		return append(dst, "{}"...), true
	}
	// Nested maps share the scratch: this level's values sit at base:.
	base := len(e.vals)
	j := e.known(m, slot)
	if j < 0 {
		j = e.learn(m, slot)
	}
	heads := e.sets[j].heads // a nested map may replace set j, never its slices
	for i, head := range heads {
		dst = append(dst, head...)
		var ok bool
		if dst, ok = appendValue(dst, e.vals[base+i], e, depth+1); !ok {
			e.vals = e.vals[:base]
			return dst, false
		}
	}
	e.vals = e.vals[:base]
	return append(dst, '}'), true
}

// slot is where the key set of a map of n keys at depth in the value
// being encoded is remembered: a hash of the tool's name, the lane, n and
// depth.
func (e *encoder) slot(n, depth int) int { return slotOf(e.tool, e.lane, n, depth) }

// slotOf is the slot of a map of n keys at depth in the value that tool t
// passes in lane.
func slotOf(t string, lane uint8, n, depth int) int {
	h := uint(len(t))*31 + uint(n)*7 + uint(lane)*5 + uint(depth)*11
	if len(t) > 0 {
		h += uint(t[0])*3 + uint(t[len(t)-1])
	}
	return int(h % keySets)
}

// known returns the remembered key set that is m's, trying slot first,
// with m's values appended to e.vals in its order, or -1 when none is
// (e.vals is then unchanged).
func (e *encoder) known(m map[string]any, slot int) int {
	if e.holds(m, slot) {
		return slot
	}
	for j := range e.sets {
		if j != slot && e.holds(m, j) {
			return j
		}
	}
	return -1
}

// holds reports whether set j is m's keys, appending m's values to e.vals
// in its order if it is. A set of len(m) distinct keys all found in m is
// m's.
func (e *encoder) holds(m map[string]any, j int) bool {
	keys := e.sets[j].keys
	if len(keys) != len(m) {
		return false
	}
	base := len(e.vals)
	for _, k := range keys {
		v, ok := m[k]
		if !ok {
			e.vals = e.vals[:base]
			return false
		}
		e.vals = append(e.vals, v)
	}
	return true
}

// learn remembers m's key set in slot, with m's values appended to e.vals
// in its order, and returns slot.
func (e *encoder) learn(m map[string]any, slot int) int {
	var keys []string
	if len(m) == 1 {
		for k, v := range m {
			keys = []string{k}
			e.vals = append(e.vals, v)
			break // the only entry: spare the iterator its search for another
		}
	} else {
		base := len(e.keys)
		for k := range m {
			e.keys = append(e.keys, k)
		}
		keys = slices.Clone(e.keys[base:])
		e.keys = e.keys[:base]
		slices.Sort(keys)
		for _, k := range keys {
			e.vals = append(e.vals, m[k])
		}
	}
	set := keySet{keys: keys, heads: make([]string, len(keys))}
	var head []byte
	for i, k := range keys {
		head = append(head[:0], ',')
		if i == 0 {
			head[0] = '{'
		}
		head = append(appendString(head, k), ':')
		set.heads[i] = string(head)
	}
	e.sets[slot] = set
	return slot
}

// appendFloat formats f as encoding/json does (ES6 number format); NaN and
// infinities, which json.Marshal rejects, are left to the slow path.
func appendFloat(dst []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' { // e-09 → e-9
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, true
}

const hexDigits = "0123456789abcdef"

// plain[c] reports that ASCII byte c stands for itself in a JSON string as
// json.Marshal writes it (not a control character, '"', '\\', '<', '>'
// or '&'); bytes from 0x80 up are false, to be decoded as UTF-8.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = true
	}
	for _, c := range `"\\<>&` {
		t[c] = false
	}
	return t
}()

// Constants of the eight-bytes-at-a-time test in appendString.
const (
	ones  = 0x0101010101010101 // 0x01 in every byte
	highs = 0x8080808080808080 // 0x80 in every byte
)

// unplain returns a word whose lowest set bit (bit 8k+7) marks the first of
// the eight bytes of w (little endian: byte k is w>>(8k)) that is not
// plain: a control character, '"', '&', '<', '>', '\\' or a byte from
// 0x80 up; 0 when all eight are plain. Bits above the lowest may be set
// for plain bytes (a borrow carries past a match), so only the lowest set
// bit is exact. Each test is the zero-byte test (x - 0x01…) &^ x & 0x80…
// on a word whose zero bytes are the matches: '"' (0x22) and '&' (0x26)
// differ only in bit 2, '<' (0x3c) and '>' (0x3e) only in bit 1, so each
// pair is one test.
func unplain(w uint64) uint64 {
	quoteAmp := (w | 4*ones) ^ 0x26*ones
	angle := (w | 2*ones) ^ 0x3e*ones
	backslash := w ^ 0x5c*ones
	return (w | // bytes from 0x80 up
		(w-0x20*ones)&^w | // bytes below 0x20
		(quoteAmp-ones)&^quoteAmp |
		(angle-ones)&^angle |
		(backslash-ones)&^backslash) & highs
}

// appendString appends s as a JSON string with json.Marshal's escapes:
// control characters, '"' and '\\', the HTML-sensitive '<', '>' and '&',
// U+2028 and U+2029; invalid UTF-8 becomes \ufffd. It reads s eight bytes
// at a time (the last few as part of the last eight) and appends each
// eight as one word, of which it keeps the plain bytes before the first
// that needs a look (so an escape costs no copy call, which matters for a
// tool output that is itself JSON, with a quote every few bytes); a string
// shorter than eight goes one byte at a time.
func appendString(dst []byte, s string) []byte {
	if n := len(s); n >= 8 && n <= 16 {
		// The usual short value (a command, a path, an ID): two words,
		// overlapping when n < 16, that are both plain are s as it is,
		// written as those two words between its quotes.
		w0, w1 := load64(s, 0), load64(s, n-8)
		if unplain(w0)|unplain(w1) == 0 {
			l := len(dst)
			if cap(dst)-l < n+2 {
				dst = slices.Grow(dst, n+2)
			}
			dst = dst[:l+n+2]
			dst[l] = '"'
			binary.LittleEndian.PutUint64(dst[l+1:], w0)
			binary.LittleEndian.PutUint64(dst[l+n-7:], w1)
			dst[l+n+1] = '"'
			return dst
		}
	}
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		if len(s)-i >= 8 {
			w := load64(s, i)
			n := 8
			if u := unplain(w); u != 0 {
				n = bits.TrailingZeros64(u) >> 3 // the first byte that is not plain
			}
			keep := len(dst) + n
			dst = binary.LittleEndian.AppendUint64(dst, w)[:keep]
			if i += n; n == 8 {
				continue
			}
		} else if len(s) >= 8 {
			// The last r < 8 bytes, as the low bytes of the last eight.
			r := len(s) - i
			w := load64(s, len(s)-8) >> (64 - 8*r)
			n := r
			if u := unplain(w) & (highs >> (64 - 8*r)); u != 0 {
				n = bits.TrailingZeros64(u) >> 3
			}
			keep := len(dst) + n
			dst = binary.LittleEndian.AppendUint64(dst, w)[:keep]
			if i += n; n == r {
				continue
			}
		} else if c := s[i]; plain[c] {
			dst = append(dst, c)
			i++
			continue
		}
		c := s[i] // not plain
		if c < utf8.RuneSelf {
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			continue
		}
		// A run of multi-byte characters is copied as it is, up to an
		// invalid byte, U+2028 or U+2029 (or the next ASCII byte).
		j := i
		for j < len(s) && s[j] >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[j:])
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				break
			}
			j += size
		}
		if j > i {
			dst = append(dst, s[i:j]...)
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError {
			dst = append(dst, `\ufffd`...)
		} else {
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		}
		i += size
	}
	return append(dst, '"')
}

// load64 returns the eight bytes of s from i on as a little-endian word
// (one load where the architecture allows it).
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
