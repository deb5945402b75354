package adaptkit_test

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta/adapt/internal/adaptkit"
)

// reference is what JSON returned before it had its own encoder: the
// specification the fast path must match byte for byte.
func reference(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.RawMessage:
		return string(x)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(data)
}

type named string

func nested(depth int) any {
	var v any = "leaf"
	for range depth {
		v = map[string]any{"k": []any{v}}
	}
	return v
}

func TestJSONMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for name, v := range map[string]any{
		"nil":            nil,
		"string as is":   `a "quoted" <tag>`,
		"raw as is":      json.RawMessage(`{ "a" : 1 }`),
		"bytes":          []byte(`{"a":1}`),
		"one key":        map[string]any{"cmd": "go test ./..."},
		"sorted keys":    map[string]any{"b": 1.0, "a": 2.0, "é": 3.0, "B": 4.0, "": 5.0, "aa": 6.0},
		"empty map":      map[string]any{},
		"nil map":        map[string]any(nil),
		"nil slice":      []any(nil),
		"nil strings":    map[string]any{"s": []string(nil), "t": []string{"x", "<y>"}},
		"html escapes":   map[string]any{"<k>": "a<b>&c"},
		"controls":       map[string]any{"s": "\x00\x01\b\f\n\r\t\x1f\x7f\"\\/"},
		"unicode":        map[string]any{"s": "ü — 日本 \u2028 \u2029 😀"},
		"invalid utf8":   map[string]any{"s": "a\xffb\xc3", "\xfe": 1.0},
		"floats":         []any{0.0, math.Copysign(0, -1), 1.0, -1.5, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 1.5e300, 123456789.125, 5e-324, math.MaxFloat64},
		"ints":           []any{0, -1, math.MaxInt64, int64(math.MinInt64)},
		"bools and null": []any{true, false, nil},
		"deep nesting":   map[string]any{"a": map[string]any{"b": []any{map[string]any{"d": 1.0, "c": []any{}}}}},
		"60 deep":        nested(30),
		"140 deep":       nested(70),
		"NaN":            map[string]any{"x": math.NaN()},
		"infinity":       []any{math.Inf(1)},
		"named string":   map[string]any{"s": named("<x>")},
		"other ints":     map[string]any{"a": int32(7), "b": uint8(8)},
		"float32":        []any{float32(0.1)},
		"struct":         map[string]any{"s": struct{ A int }{1}},
		"map of ints":    map[string]int{"a": 1},
		"unmarshalable":  map[string]any{"f": func() {}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, reference(v), adaptkit.JSON(v))
		})
	}
}

// FuzzJSON checks the encoder against encoding/json on every value a JSON
// document decodes to, and on arbitrary strings as keys and values.
func FuzzJSON(f *testing.F) {
	f.Add(`{"cmd":"go test ./p3","n":3,"ok":true,"x":null}`, "k", 1.5)
	f.Add(`[1e21,1e-7,"<&>",{"b":[],"a":{}}]`, "\u2028", math.Copysign(0, -1))
	f.Add(`"\u0000\ud800"`, "\xff\xfe", 1e-300)
	f.Add(`{"é":1,"e":2,"":[null,false]}`, "", 123456789.0)
	f.Fuzz(func(t *testing.T, doc, s string, x float64) {
		var v any
		if json.Unmarshal([]byte(doc), &v) == nil {
			require.Equal(t, reference(v), adaptkit.JSON(v), "document %q", doc)
			m := map[string]any{s: v, "x": x, "s": s}
			require.Equal(t, reference(m), adaptkit.JSON(m))
		}
		for _, v := range []any{map[string]any{s: s}, []any{s, x}, []string{s}} {
			require.Equal(t, reference(v), adaptkit.JSON(v), "value %#v", v)
		}
	})
}

func TestJSONLongStrings(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("line <1> & \"2\"\n\tü\u2028", 500)
	v := map[string]any{"content": s, "path": "/tmp/x.go"}
	assert.Equal(t, reference(v), adaptkit.JSON(v))
}

// TestJSONSelfReferentialValue: a tool input that contains itself does not
// marshal, and its %v form would recurse until the stack overflows (a
// fatal error that no recover catches); it is scored by a placeholder
// naming its type instead.
func TestJSONSelfReferentialValue(t *testing.T) {
	t.Parallel()
	m := map[string]any{"a": 1}
	m["self"] = m
	s := []any{"x", nil}
	s[1] = s
	type node struct {
		Name string
		Next any
	}
	n := &node{Name: "n"}
	n.Next = map[string]any{"back": []any{n}}
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"map", m, "[map[string]interface {} refers to itself]"},
		{"slice", s, "[[]interface {} refers to itself]"},
		{"struct through a map", n, "[*adaptkit_test.node refers to itself]"},
		{"NaN still uses %v", map[string]any{"x": math.NaN()}, "map[x:NaN]"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, adaptkit.JSON(tt.v), tt.name)
	}
}

// TestUnplainFindsFirstEscape: the eight-bytes-at-a-time test marks, by
// its lowest set bit, exactly the first byte the byte-at-a-time table
// finds not plain, and is 0 when there is none: over every byte value at
// every position after plain and unplain prefixes, and random words drawn
// mostly from the bytes near the ones it must catch.
func TestUnplainFindsFirstEscape(t *testing.T) {
	t.Parallel()
	check := func(w [8]byte) {
		first := 8
		for k, c := range w {
			if !adaptkit.Plain(c) {
				first = k
				break
			}
		}
		u := adaptkit.Unplain(binary.LittleEndian.Uint64(w[:]))
		got := 8
		if u != 0 {
			got = bits.TrailingZeros64(u) / 8
			require.Equal(t, 7, bits.TrailingZeros64(u)%8, "word %q: a byte's top bit", w)
		}
		require.Equal(t, first, got, "word %q", w)
	}
	for _, fill := range []byte{'a', ' ', '!', '=', '[', '~', 0x1f, '"', 0x80, 0xff} {
		for k := range 8 {
			for c := range 256 {
				var w [8]byte
				for j := range w {
					w[j] = fill
				}
				w[k] = byte(c)
				check(w)
				for j := k + 1; j < 8; j++ { // what follows a match must not matter
					w[j] = byte(c + j)
				}
				check(w)
			}
		}
	}
	near := []byte{0x00, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x25, 0x26, 0x27, 0x3b, 0x3c, 0x3d, 0x3e, 0x3f, 0x5b, 0x5c, 0x5d, 0x7f, 0x80, 0xa0, 0xe2}
	rng := rand.New(rand.NewPCG(3, 9))
	for range 200_000 {
		var w [8]byte
		for j := range w {
			if rng.IntN(4) == 0 {
				w[j] = byte(rng.IntN(256))
			} else {
				w[j] = near[rng.IntN(len(near))]
			}
		}
		check(w)
	}
}

// TestEncoderKeySets: one encoder writing many maps, whose key sets repeat,
// collide (same size, other keys; a subset of a remembered set; the same
// slot), nest (a child's new set evicting its parent's while the parent is
// written) and outnumber the sets it remembers, for several tools and
// lanes, writes each exactly as json.Marshal.
func TestEncoderKeySets(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 8))
	universe := []string{"cmd", "output", "path", "a", "b", "", "é", "cmd2", "<k>"}
	var value func(depth int) any
	value = func(depth int) any {
		switch rng.IntN(5) {
		case 0:
			if depth < 3 {
				n := rng.IntN(4)
				if rng.IntN(3) == 0 {
					n += rng.IntN(len(universe) - 3)
				}
				m := map[string]any{}
				for range n {
					m[universe[rng.IntN(len(universe))]] = value(depth + 1)
				}
				return m
			}
			return nil
		case 1:
			if depth < 3 {
				return []any{value(depth + 1), value(depth + 1)}
			}
			return 1.5
		case 2:
			return universe[rng.IntN(len(universe))]
		case 3:
			return float64(rng.IntN(100))
		}
		return rng.IntN(2) == 0
	}
	var (
		e   adaptkit.Encoder
		buf []byte
	)
	tools := []string{"", "bash", "read_file", "grep", "b"}
	for i := range 20_000 {
		v := value(0)
		e.For(tools[rng.IntN(len(tools))], rng.IntN(3))
		buf = e.Append(buf[:0], v)
		require.Equal(t, reference(v), string(buf), "value %d: %#v", i, v)
	}
}

// BenchmarkJSON encodes tool arguments and outputs of the shapes the
// adapters meet: a one-key map of a short command (the synthetic
// benchmark's call), a short multi-line result, and a tool output that is
// itself JSON text (tau-bench's), whose quotes all need escaping.
func BenchmarkJSON(b *testing.B) {
	for _, bc := range []struct {
		name string
		v    any
	}{
		{"cmd", map[string]any{"cmd": "go test ./p3"}},
		{"result", map[string]any{"output": "--- FAIL: TestX2 (0.00s)\n    x_test.go:2: got 2 want 3"}},
		{"json-text", map[string]any{"output": `{"name": {"first_name": "Sofia", "last_name": "Kim"}, "address": {"address1": "825 Laurel Lane", "address2": "Suite 595", "city": "Houston", "country": "USA", "province": "TX", "zip": "77243"}, "email": "sofia.kim1937@example.com", "dob": "1950-06-24"}`}},
		{"args", map[string]any{"reservation_id": "ZFA04Y", "cabin": "economy", "flights": []any{map[string]any{"flight_number": "HAT170", "date": "2024-05-22"}}, "payment_id": "credit_card_9879898"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var (
				buf []byte
				e   adaptkit.Encoder
			)
			for b.Loop() {
				buf = e.Append(buf[:0], bc.v)
			}
		})
	}
}

// TestJSONStringEveryPosition: a byte that needs a look (an escape, a
// multi-byte character, an invalid byte), or two, at every position of
// strings of 1 to 24 bytes, which covers the eight-byte words, the last
// few bytes read as part of the last eight, and strings shorter than eight.
func TestJSONStringEveryPosition(t *testing.T) {
	t.Parallel()
	specials := []string{"\"", "\\", "<", ">", "&", "\n", "\x00", "\x1f", "\x7f", "é", "\u2028", "\xff", "日", "😀"}
	for n := 1; n <= 24; n++ {
		for p := range n {
			for _, sp := range specials {
				for _, q := range []int{-1, (p + 3) % n, n - 1} {
					b := []byte(strings.Repeat("a", n))
					if q >= 0 {
						b[q] = '"'
					}
					s := string(b[:p]) + sp + string(b[p+1:])
					require.Equal(t, reference([]string{s}), adaptkit.JSON([]string{s}), "%q", s)
				}
			}
		}
	}
}
