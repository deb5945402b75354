package adaptkit

import (
	"math"
	"unsafe"

	"github.com/chitta-go/chitta"
)

// A check is one value of a tool call's arguments, a map, as the memo
// remembers them (see memo): what the arguments of a later call must
// hold for the text composed from these to be theirs. A map's or a
// list's members follow its check, each with the checks of its own
// members after it; a map member's check names its key. A string is
// compared by identity, as the memo's keys are (same); a number or a bool
// by its value (a float by its bits: 0 and -0 are written apart); a map or
// a list by its length, its nil-ness (nil is written null, empty {} or
// []) and its members, read anew every time, so that a map or a list
// changed in place, at any depth, is seen.
type check struct {
	key  string // the key of a map member; "" at the top and in a list
	s    string // checkString: the string
	n    int64  // a map's, a list's length (-1: nil); a number's value or bits; a bool's 0 or 1
	kind uint8
}

// Kinds of check: the types appendValue encodes itself.
const (
	checkNull uint8 = iota
	checkString
	checkBool
	checkFloat
	checkInt
	checkInt64
	checkMap     // map[string]any
	checkList    // []any
	checkStrings // []string
)

// maxChecks bounds the checks remembered for one call's arguments;
// larger arguments are composed every time.
const maxChecks = 256

// snapshot appends to cs the checks of v, the value under key, and
// reports whether the memo can remember it: every value in it is of a
// type appendValue encodes itself (and no float NaN or infinity), at
// most maxFastDepth deep and maxChecks values in all.
func snapshot(cs []check, key string, v any, depth int) ([]check, bool) {
	if depth > maxFastDepth || len(cs) >= maxChecks {
		return cs, false
	}
	c := check{key: key}
	switch x := v.(type) {
	case nil:
		c.kind = checkNull
	case string:
		c.kind, c.s = checkString, x
	case bool:
		c.kind = checkBool
		if x {
			c.n = 1
		}
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return cs, false
		}
		c.kind, c.n = checkFloat, int64(math.Float64bits(x))
	case int:
		c.kind, c.n = checkInt, int64(x)
	case int64:
		c.kind, c.n = checkInt64, x
	case map[string]any:
		c.kind, c.n = checkMap, lenOrNil(len(x), x == nil)
		cs = append(cs, c)
		for k, e := range x {
			var ok bool
			if cs, ok = snapshot(cs, k, e, depth+1); !ok {
				return cs, false
			}
		}
		return cs, true
	case []any:
		c.kind, c.n = checkList, lenOrNil(len(x), x == nil)
		cs = append(cs, c)
		for _, e := range x {
			var ok bool
			if cs, ok = snapshot(cs, "", e, depth+1); !ok {
				return cs, false
			}
		}
		return cs, true
	case []string:
		c.kind, c.n = checkStrings, lenOrNil(len(x), x == nil)
		if len(cs)+len(x) >= maxChecks {
			return cs, false
		}
		cs = append(cs, c)
		for _, s := range x {
			cs = append(cs, check{kind: checkString, s: s})
		}
		return cs, true
	default:
		return cs, false
	}
	return append(cs, c), true
}

// lenOrNil is a check's n for a map or list of length n: -1 if it is nil.
func lenOrNil(n int, isNil bool) int64 {
	if isNil {
		return -1
	}
	return int64(n)
}

// match reports whether v holds what the checks from cs[i] on remembered
// (see check), and returns the index after them.
func match(cs []check, i int, v any) (int, bool) {
	c := &cs[i]
	i++
	switch c.kind {
	case checkString:
		s, ok := v.(string)
		return i, ok && same(s, c.s)
	case checkMap:
		m, ok := v.(map[string]any)
		if !ok || lenOrNil(len(m), m == nil) != c.n {
			return i, false
		}
		for range c.n {
			e, ok := m[cs[i].key]
			if !ok {
				return i, false
			}
			if i, ok = match(cs, i, e); !ok {
				return i, false
			}
		}
		return i, true
	case checkList:
		l, ok := v.([]any)
		if !ok || lenOrNil(len(l), l == nil) != c.n {
			return i, false
		}
		for _, e := range l {
			if i, ok = match(cs, i, e); !ok {
				return i, false
			}
		}
		return i, true
	case checkStrings:
		l, ok := v.([]string)
		if !ok || lenOrNil(len(l), l == nil) != c.n {
			return i, false
		}
		for _, s := range l {
			if !same(s, cs[i].s) {
				return i, false
			}
			i++
		}
		return i, true
	case checkFloat:
		f, ok := v.(float64)
		return i, ok && int64(math.Float64bits(f)) == c.n
	case checkBool:
		b, ok := v.(bool)
		return i, ok && b == (c.n == 1)
	case checkInt:
		x, ok := v.(int)
		return i, ok && int64(x) == c.n
	case checkInt64:
		x, ok := v.(int64)
		return i, ok && x == c.n
	}
	return i, v == nil
}

// argsHash is the hash of the key of a call to name with the arguments
// args, as memoHash mixes a key's strings: the identity of name and of
// the map (which picks only where the memo looks: an entry found there is
// checked value by value).
func argsHash(name string, args map[string]any) uint64 {
	x := uint64(uintptr(*(*unsafe.Pointer)(unsafe.Pointer(&args)))) * 0x9e3779b97f4a7c15
	x ^= uint64(uintptr(unsafe.Pointer(unsafe.StringData(name)))) ^ uint64(memoArgs)<<56
	x = (x ^ x>>31) * 0xff51afd7ed558ccd
	return x ^ x>>29 | 1
}

// argsText gives m the text of a call to name with the arguments args,
// found in the memo by the identity of their values (see check), or
// composed and remembered there, and reports whether it did; it does not
// for arguments the memo cannot remember (see snapshot).
func (b *Builder) argsText(m *chitta.Message, name string, args map[string]any) bool {
	h := argsHash(name, args)
	if t, ok := b.memo.recallArgs(h, name, args); ok {
		b.recalled(m, t)
		return true
	}
	if b.memo.held >= maxArgChecks {
		return false
	}
	cs, ok := snapshot(make([]check, 0, 1+len(args)), "", args, 0)
	if !ok {
		return false
	}
	b.buf = b.appendNamedJSON(b.buf, name, args, laneCall)
	p := b.remember(m, h, memoArgs, name, "", "")
	b.memo.table[p].args = cs
	b.memo.held += len(cs)
	return true
}
