package chitta

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// appendJSONString writes each byte as the rewritten messages have always
// had it, and on random strings mixing plain text, every ASCII control
// byte, quotes, backslashes, multi-byte runes and invalid UTF-8 its
// output is a JSON string of the text (each invalid byte U+FFFD) whose
// escapes are only those of the table.
func TestAppendJSONString(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"", `""`},
		{"plain [chitta: x]", `"plain [chitta: x]"`},
		{"a\"b\\c", `"a\"b\\c"`},
		{"\n\t\r", `"\n\t\r"`},
		{"\x00\x01\x1f", `"\u0000\u0001\u001f"`},
		{"\x7f<>&", "\"\x7f<>&\""},
		{"é日本\u2028", "\"é日本\u2028\""},
		{"a\xffb\xe6\x97", `"a\ufffdb\ufffd\ufffd"`},
	}
	for _, tt := range tests {
		assert.Equal(t, "x"+tt.want, string(appendJSONString([]byte("x"), tt.in)), "%q", tt.in)
	}
	r := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"plain text ", "\"", "\\", "\n", "\t", "\r", "\x00", "\x1f", "\x7f", "é", "日本", "\xff", "\xe6\x97", "[chitta: x]"}
	for range 20000 {
		var s []byte
		for range r.IntN(12) {
			if r.IntN(4) == 0 {
				s = append(s, byte(r.IntN(256)))
			} else {
				s = append(s, pieces[r.IntN(len(pieces))]...)
			}
		}
		var want strings.Builder
		for i := 0; i < len(s); {
			c, n := utf8.DecodeRune(s[i:])
			want.WriteRune(c) // RuneError for an invalid byte, n == 1
			i += n
		}
		got := appendJSONString(nil, string(s))
		var back string
		require.NoError(t, json.Unmarshal(got, &back), "%q", s)
		require.Equal(t, want.String(), back, "%q", s)
		for k := 0; k < len(got); k++ { // every escape is one of the table's
			if got[k] == '\\' {
				k++
				require.Contains(t, `"\ntru`, string(got[k]), "%q", got)
				if got[k] == 'u' {
					require.Contains(t, []string{"fffd", "0000", "0001", "0002", "0003", "0004", "0005", "0006", "0007", "0008", "000b", "000c", "000e", "000f", "0010", "0011", "0012", "0013", "0014", "0015", "0016", "0017", "0018", "0019", "001a", "001b", "001c", "001d", "001e", "001f"}, string(got[k+1:k+5]), "%q", got)
				}
			}
		}
	}
}

// members.is matches a key as keyIs does (as encoding/json matches a
// field name): case-insensitively byte by byte for a plain key, decoded
// for an escaped or non-ASCII one (a \u escape, the Kelvin sign that
// folds to k).
func TestMembersIs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key, field string
		want       bool
	}{
		{`"role"`, "role", true},
		{`"ROLE"`, "role", true},
		{`"roles"`, "role", false},
		{`"rol"`, "role", false},
		{`""`, "role", false},
		{`"\u0063ontent"`, "content", true},
		{`"\u0063ontents"`, "content", false},
		{`"\u212aey"`, "key", true},
		{"\"\u212aey\"", "key", true},
		{`"ké"`, "ke", false},
	}
	for _, tt := range tests {
		raw := []byte("{" + tt.key + ": 1}")
		it := newMembers(raw, 0)
		require.True(t, it.next(), tt.key)
		assert.Equal(t, tt.want, it.is(tt.field), "%s against %s", tt.key, tt.field)
		assert.Equal(t, keyIs(it.key, tt.field), it.is(tt.field), "%s against %s", tt.key, tt.field)
	}
}
