package chitta

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestListValues(t *testing.T) {
	t.Parallel()
	long := `{"pad": "` + strings.Repeat("x", maxValueScan) + `", "id": "AB12"}`
	tests := []struct {
		name string
		text string
		max  int
		want []string
	}{
		{"object", `{"id": "JG7FMM", "n": 42, "m": 7, "neg": -13, "f": 1.5e3, "ok": true, "x": null, "w": "economy"}`, 32, []string{"JG7FMM", "42", "-13", "1.5e3"}},
		{"no white space", `{"n":42,"m":[-13,"AB1",true,7e10],"k":{"x":"Z9"}}`, 32, []string{"42", "-13", "AB1", "7e10", "Z9"}},
		{"leading space and an array", " \n[\"HAT028\", {\"HAT028\": \"MCO\"}, \"MCO\"]", 32, []string{"HAT028", "MCO"}},
		{"keys are never values", `{"AB12": {"CD34": "x"}}`, 32, nil},
		{"prose and escapes are not identifiers", `{"a": "New York", "b": "a\"b1", "c": "Ab1é", "d": "` + strings.Repeat("7", 41) + `"}`, 32, nil},
		{"codes, dates, paths", `{"a": "MCO", "b": "2024-05-21", "c": "src/a.go:12", "d": "credit_card_2929732", "e": "A"}`, 32, []string{"MCO", "2024-05-21", "src/a.go:12", "credit_card_2929732"}},
		{"capped, first appearance first", `["Z9", "A1", "Z9", "B2"]`, 2, []string{"Z9", "A1"}},
		{"not JSON", `id AB12 and 42`, 32, nil},
		{"no values wanted", `["A1"]`, 0, nil},
		{"malformed keeps what was read", `["A1", "B2`, 32, []string{"A1"}},
		// Python's repr, log lines: digits inside a word are no number.
		{"not JSON: no number from a word", `{'id': 'HAT028', 'n': 42, 'v': w10, 'h': sha256, 'x': 10px, 'd': '2024-05-21'}`, 32, []string{"42", "2024-05-21"}},
		{"not JSON: a log line", `[12:01:07] INFO job 7f3a2 took 1200ms, exit 0 on port 8080`, 32, []string{"8080"}},
		{"only the first 32 KiB is read", long, 32, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, listValues(tt.text, tt.max))
		})
	}
}

// appendValues appends what listValues lists, each value once, with its
// valueHash, after what vs and hs already hold (of other lengths, as in a
// call's scratch), with few values and with more than its table of 32 takes
// (compared one by one then); values drawn from a small set repeat, and
// the table's slots collide.
func TestAppendValues(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(8, 9))
	for range 3000 {
		pool := make([]string, 1+r.IntN(80))
		for k := range pool {
			pool[k] = fmt.Sprintf("V%d", r.IntN(1000))
		}
		fields := make([]string, r.IntN(120))
		for k := range fields {
			if r.IntN(4) == 0 {
				fields[k] = fmt.Sprintf(`"n%d": %d`, k, 10+r.IntN(50))
			} else {
				fields[k] = fmt.Sprintf(`"%s": "%s"`, pool[r.IntN(len(pool))], pool[r.IntN(len(pool))])
			}
		}
		text := "{" + strings.Join(fields, ", ") + "}"
		max := []int{1, 5, 32, 33, 100}[r.IntN(5)]
		want, wantHashes := []string{"pre"}, []uint64{1, 2, 3}
		for _, v := range listValuesAll(t, text) { // first appearance first, each once
			if len(want)-1 < max && !slices.Contains(want[1:], v) {
				want, wantHashes = append(want, v), append(wantHashes, valueHash(v))
			}
		}
		vs, hs := appendValues([]string{"pre"}, []uint64{1, 2, 3}, text, max)
		require.Equal(t, want, vs, "max %d: %s", max, text)
		require.Equal(t, wantHashes, hs)
	}
}

// listValuesAll returns, by encoding/json's tokens, every value that
// listValues may list in text (well-formed JSON under 32 KiB), in order,
// repeats included: the strings that are not object keys and that
// isIdentifierLike accepts, and the numbers of 2 to 40 characters as
// written.
func listValuesAll(t *testing.T, text string) []string {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	type frame struct{ object, wantKey bool }
	var out []string
	var stack []frame
	for {
		tok, err := dec.Token()
		if err != nil {
			require.ErrorIs(t, err, io.EOF)
			return out
		}
		top := len(stack) - 1
		key := top >= 0 && stack[top].object && stack[top].wantKey
		switch v := tok.(type) {
		case json.Delim:
			if v == '}' || v == ']' {
				stack = stack[:top]
				continue
			}
			if top >= 0 && stack[top].object {
				stack[top].wantKey = true // after this value, a key
			}
			stack = append(stack, frame{object: v == '{', wantKey: v == '{'})
			continue
		case string:
			if !key && isIdentifierLike(v) {
				out = append(out, v)
			}
		case json.Number:
			if len(v) >= 2 && len(v) <= maxListedValue {
				out = append(out, string(v))
			}
		}
		if top >= 0 && stack[top].object {
			stack[top].wantKey = !key
		}
	}
}

// isIdentifierLikeRef is the rule isIdentifierLike implements with a
// table, written out byte class by byte class.
func isIdentifierLikeRef(v string) bool {
	if len(v) < 2 || len(v) > maxListedValue {
		return false
	}
	digit, upper, lower := false, false, false
	for i := range len(v) {
		switch c := v[i]; {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c == '_' || c == '-' || c == '.' || c == ':' || c == '/' || c == '@' || c == '+' || c == '#':
		default:
			return false
		}
	}
	return digit || upper && !lower
}

// isIdentifierLike agrees with the rule written out, on every pair of
// bytes and on random strings of every length up to past the limit.
func TestIsIdentifierLikeMatchesRule(t *testing.T) {
	t.Parallel()
	for a := range 256 {
		for b := range 256 {
			v := string([]byte{byte(a), byte(b)})
			require.Equal(t, isIdentifierLikeRef(v), isIdentifierLike(v), "%q", v)
		}
	}
	r := rand.New(rand.NewPCG(3, 5))
	alphabet := "aZ09_-.:/@+# é\"xY"
	for range 20000 {
		b := make([]byte, r.IntN(maxListedValue+3))
		for i := range b {
			if r.IntN(10) == 0 {
				b[i] = byte(r.IntN(256))
			} else {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
		}
		require.Equal(t, isIdentifierLikeRef(string(b)), isIdentifierLike(string(b)), "%q", b)
	}
}

// placeholderWords counts the words of the placeholder that placeholder
// writes, for tool names with white space (ASCII and Unicode), invalid
// UTF-8, over 64 runes or empty, with and without values and a memory.
func TestPlaceholderWords(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(13, 1))
	names := []string{"", "get_reservation_details", "read file", " lead", "trail\t", "a\u00a0b\u2003c", "x\u0085y", "bad\xffname", "mcp__chitta__recall",
		strings.Repeat("long", 20), strings.Repeat("w ", 40), strings.Repeat("é", 70), "\n"}
	alphabet := "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.:/@+#"
	for range 2000 {
		res := toolResult{name: names[r.IntN(len(names))], tokens: r.IntN(100000)}
		for range r.IntN(5) {
			v := make([]byte, 2+r.IntN(maxListedValue-1))
			for k := range v {
				v[k] = alphabet[r.IntN(len(alphabet))]
			}
			res.values = append(res.values, string(v))
		}
		memory := ""
		if r.IntN(2) == 0 {
			memory = MemoryID("tool", res.name)
		}
		require.Equal(t, CountWords(placeholder(&res, memory)), placeholderWords(&res, memory), "%q %q %q", res.name, res.values, memory)
	}
}
