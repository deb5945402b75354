package chitta

import (
	"hash/maphash"
	"unsafe"
)

// DefaultMaskListValues is the number of identifier-like values a
// placeholder lists when MaskOptions.ListValues is 0.
const DefaultMaskListValues = 32

// maxListedValue is the longest value, in bytes, a placeholder lists.
const maxListedValue = 40

// maxValueScan is how many leading bytes of a result listValues reads.
const maxValueScan = 32 << 10

// listValues returns up to max distinct identifier-like scalar values of
// a tool result whose text is JSON (an object or an array, after leading
// white space), in order of first appearance: strings that
// [isIdentifierLike] accepts and numbers of at least two characters,
// each as written. Object keys are never listed, and only the first
// maxValueScan bytes (32 KiB) are read. Text
// that is not JSON, and max <= 0, give none. The scan is linear and never
// fails: past malformed JSON it goes on, listing only strings and numbers
// that stand alone (digits inside a word, as in Python's repr 'HAT028' or
// a log's 1200ms, are no number), and it stops at a string that does not
// end.
func listValues(text string, max int) []string {
	vs, _ := appendValues(nil, nil, text, max)
	return vs
}

// appendValues appends to vs the values listValues returns for text, and
// to hs the valueHash of each. A value met again is known by its hash
// (and then its text) in a small table rather than compared with every
// value listed before.
func appendValues(vs []string, hs []uint64, text string, max int) ([]string, []uint64) {
	i := jsonStart(text)
	if max <= 0 || i < 0 {
		return vs, hs
	}
	text = text[:min(len(text), maxValueScan)]
	// A read-only view of text for skipString, so that a large result is
	// not copied; values are substrings of text.
	b := unsafe.Slice(unsafe.StringData(text), len(text))
	start, hstart := len(vs), len(hs)
	// seen[h&63] holds 1 + the index (from start) of a listed value of
	// hash h, probed linearly; with more than 32 values to list, a map
	// holds them instead (compared one by one, the values of a result
	// listing thousands cost time quadratic in their number).
	var seen [64]uint8
	var many map[string]struct{}
	small := max <= 32
	add := func(v string) {
		h := valueHash(v)
		if !small {
			if many == nil {
				many = make(map[string]struct{})
			}
			if _, dup := many[v]; !dup {
				many[v] = struct{}{}
				vs, hs = append(vs, v), append(hs, h)
			}
			return
		}
		k := h & 63
		for ; seen[k] != 0; k = (k + 1) & 63 {
			if j := int(seen[k]) - 1; hs[hstart+j] == h && vs[start+j] == v {
				return
			}
		}
		vs, hs = append(vs, v), append(hs, h)
		seen[k] = uint8(len(vs) - start)
	}
	for i < len(text) && len(vs)-start < max {
		switch c := text[i]; {
		case c == '"':
			end := skipString(b, i)
			if end < 0 {
				return vs, hs
			}
			k := end
			for k < len(text) && (text[k] == ' ' || text[k] == '\t' || text[k] == '\n' || text[k] == '\r') {
				k++
			}
			if k < len(text) && text[k] == ':' {
				i = end // a key
				continue
			}
			if v := text[i+1 : end-1]; len(v) <= maxListedValue && isIdentifierLike(v) {
				add(v)
			}
			i = end
		case c == '-' || c >= '0' && c <= '9':
			end := i + 1
			for end < len(text) && (text[end] >= '0' && text[end] <= '9' || text[end] == '.' || text[end] == 'e' || text[end] == 'E' || text[end] == '+' || text[end] == '-') {
				end++
			}
			if end < len(text) && valueByte(text[end]) {
				// Not JSON: the digits start a word ("10px", "12:01").
				i = skipWord(text, end)
				continue
			}
			if v := text[i:end]; len(v) >= 2 && len(v) <= maxListedValue {
				add(v)
			}
			i = end
		case c != ':' && valueByte(c):
			// A literal of JSON, or a word of text that is not JSON
			// ("HAT028" in Python's repr): digits in it are no number.
			// (A ':' is JSON's, after a key.)
			i = skipWord(text, i)
		default:
			i++
		}
	}
	return vs, hs
}

// skipWord returns the index after the run of bytes a value may hold
// (valueByte) that starts at text[i].
func skipWord(text string, i int) int {
	for i < len(text) && valueByte(text[i]) {
		i++
	}
	return i
}

// jsonStart returns the index of the '{' or '[' that starts text after
// white space, or -1 when text does not start so.
func jsonStart(text string) int {
	i := 0
	for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r') {
		i++
	}
	if i >= len(text) || text[i] != '{' && text[i] != '[' {
		return -1
	}
	return i
}

// jsonLike reports whether listValues reads text (see jsonStart).
func jsonLike(text string) bool { return jsonStart(text) >= 0 }

// isIdentifierLike reports whether v looks like an identifier, a code or
// a date rather than a word of prose: 2 to 40 bytes of ASCII letters,
// digits and _ - . : / @ + #, with a digit, or with upper-case letters and
// no lower-case ones ("HAT028", "2024-05-21", "credit_card_2929732",
// "JG7FMM", "MCO"; not "economy", "New York").
func isIdentifierLike(v string) bool {
	if len(v) < 2 || len(v) > maxListedValue {
		return false
	}
	var flags uint8 // one table lookup a byte (valueClass, mask_select.go)
	for i := range len(v) {
		c := valueClass[v[i]]
		if c == 0 {
			return false
		}
		flags |= c
	}
	return flags&vbDigit != 0 || flags&(vbUpper|vbLower) == vbUpper
}

// valueSeed seeds valueHash (one seed for the process, so that hashes a
// MaskCache keeps stay comparable with those a later call computes).
var valueSeed = maphash.MakeSeed()

// valueHash returns the 64-bit hash by which the value-once rule knows a
// value or a word (see valueSet): two distinct values share one with
// probability ~2⁻⁶⁴, as two messages share a MaskCache key.
func valueHash(v string) uint64 { return maphash.String(valueSeed, v) }

// valueHashes returns the valueHash of each of vs (nil for none).
func valueHashes(vs []string) []uint64 {
	if len(vs) == 0 {
		return nil
	}
	hs := make([]uint64, len(vs))
	for k, v := range vs {
		hs[k] = valueHash(v)
	}
	return hs
}
