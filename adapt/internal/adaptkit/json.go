package adaptkit

import (
	"encoding/json"
	"fmt"
	"math"
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
// keys is scratch space for sorting map keys, reused across calls.
func appendJSON(dst []byte, v any, keys *[]string) []byte {
	switch x := v.(type) {
	case nil:
		return dst
	case string:
		return append(dst, x...)
	case json.RawMessage:
		return append(dst, x...)
	}
	if out, ok := appendValue(dst, v, keys, 0); ok {
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
func appendValue(dst []byte, v any, keys *[]string, depth int) ([]byte, bool) {
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
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = appendValue(dst, e, keys, depth+1); !ok {
				return dst, false
			}
		}
		return append(dst, ']'), true
	case map[string]any:
		return appendMap(dst, x, keys, depth)
	}
	return dst, false
}

// appendMap encodes m with its keys in byte order, as encoding/json does.
func appendMap(dst []byte, m map[string]any, keys *[]string, depth int) ([]byte, bool) {
	if m == nil {
		return append(dst, "null"...), true
	}
	dst = append(dst, '{')
	if len(m) == 1 { // the common case needs no sorting
		for k, e := range m {
			dst = appendString(dst, k)
			dst = append(dst, ':')
			var ok bool
			if dst, ok = appendValue(dst, e, keys, depth+1); !ok {
				return dst, false
			}
			break // the only entry: spare the iterator its search for another
		}
		return append(dst, '}'), true
	}
	// Nested maps share the scratch: this level's keys sit at base:.
	base := len(*keys)
	for k := range m {
		*keys = append(*keys, k)
	}
	slices.Sort((*keys)[base:])
	for i := base; i < len(*keys); i++ {
		k := (*keys)[i]
		if i > base {
			dst = append(dst, ',')
		}
		dst = appendString(dst, k)
		dst = append(dst, ':')
		var ok bool
		if dst, ok = appendValue(dst, m[k], keys, depth+1); !ok {
			*keys = (*keys)[:base]
			return dst, false
		}
	}
	*keys = (*keys)[:base]
	return append(dst, '}'), true
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

// appendString appends s as a JSON string with json.Marshal's escapes:
// control characters, '"' and '\\', the HTML-sensitive '<', '>' and '&',
// U+2028 and U+2029; invalid UTF-8 becomes \ufffd.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if plain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
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
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
