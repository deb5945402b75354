package brief

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// TestBuildCutsLongWords: a word longer than MaxWordRunes runes (a pasted
// base64 blob or token, minified JSON) is cut in the excerpts, the held
// line and a masked call's gist, as an artifact is cut at MaxItemRunes.
// The cap counts words, so the blob went into the brief whole: a brief of
// over 300 000 bytes that counted a few dozen tokens.
func TestBuildCutsLongWords(t *testing.T) {
	t.Parallel()
	blob := strings.Repeat("A", 300_000)
	turns := transcript(t,
		"user", "Here is the token: "+blob+" please decode it",
		"assistant", text("Decoded: "+blob),
	)
	scores := []chitta.TurnScore{
		{Index: 0, Score: 1, Kept: true},
		{Index: 1, Score: 0.5, Coverage: 0.99}, // dropped, held by memory
	}
	b, err := Build(turns, scores, []string{"The token is " + blob}, nil)
	require.NoError(t, err)
	require.Equal(t, 1, b.Excerpts)
	assert.Contains(t, b.Text, "- [user] Here is the token: "+strings.Repeat("A", MaxWordRunes)+"… please decode it")
	assert.Contains(t, b.Text, "“The token is "+strings.Repeat("A", MaxWordRunes)+"…”")
	assert.NotRegexp(t, fmt.Sprintf(`\S{%d}`, MaxItemRunes+2), b.Text, "a word over an item's %d runes and its …", MaxItemRunes)
	assert.Less(t, len(b.Text), 2048, "the brief's bytes")

	g := gist([]byte(`{"command": "echo ` + blob + ` | base64 -d"}`))
	assert.Equal(t, "echo "+strings.Repeat("A", MaxWordRunes)+"… | base64 -d", g)
}

func TestCutWords(t *testing.T) {
	t.Parallel()
	e := func(n int) string { return strings.Repeat("é", n) }
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"short words stay", "short words stay"},
		{"  spacing\tand\nlines  stay ", "  spacing\tand\nlines  stay "},
		{e(12), e(8) + "…"},
		{"a " + e(12) + "\n- " + e(9) + "x", "a " + e(8) + "…\n- " + e(8) + "…"},
		{e(8) + " exactly", e(8) + " exactly"},
		{"\xff\xff\xff\xff\xff\xff\xff\xff\xff bytes", "\xff\xff\xff\xff\xff\xff\xff\xff… bytes"},
	} {
		assert.Equal(t, tt.want, CutWords(tt.in, 8), "%q", tt.in)
	}
}

// TestBuildCharCap: with MaxChars, the brief fits that many UTF-16 code
// units, and the excerpts keep their share of it. A window whose turns read
// 180 files under long paths makes a brief far under its word cap but over
// 10 000 characters, where Claude Code cuts a hook's output (the kept
// turns' excerpts and the held line are at the brief's end).
func TestBuildCharCap(t *testing.T) {
	t.Parallel()
	var entries []any
	for i := range 30 {
		var uses []any
		for k := range 6 {
			uses = append(uses, toolUse(fmt.Sprintf("u%d_%d", i, k), "Read", map[string]any{
				"file_path": fmt.Sprintf("/home/dev/src/monorepo/services/payments/internal/handlers/refund_%02d/refund_handler_%02d_part%d.go", i, i, k),
			})[0])
		}
		entries = append(entries, "user", fmt.Sprintf("Round %d: please fix the refund handler %d.", i, i), "assistant", uses)
	}
	turns := transcript(t, entries...)
	scores := make([]chitta.TurnScore, len(turns))
	for i := range scores {
		scores[i] = chitta.TurnScore{Index: i, Score: float64(i), Kept: true}
	}

	whole, err := Build(turns, scores, nil, nil)
	require.NoError(t, err)
	require.Greater(t, Chars(whole.Text), 10_000, "the case needs a brief over the cap")

	for _, capChars := range []int{10_000, 3_000, 500} {
		b, err := Build(turns, scores, nil, &Options{MaxChars: capChars})
		require.NoError(t, err)
		assert.LessOrEqual(t, Chars(b.Text), capChars)
		assert.NotEmpty(t, b.Items, capChars)
		assert.Positive(t, b.Excerpts, capChars)
		assert.Contains(t, b.Text, "Memory holds none of these turns yet.", capChars)
		assert.Positive(t, b.Left, capChars)
	}

	_, err = Build(turns, scores, nil, &Options{MaxChars: -1})
	assert.ErrorContains(t, err, "MaxChars -1")
}

func TestChars(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]int{"": 0, "abc": 3, "é": 1, "…": 1, "😀": 2, "a\xffb": 3} {
		assert.Equal(t, want, Chars(s), "%q", s)
	}
}
