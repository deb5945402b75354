package brief

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// fileBody is a 150-word tool output.
func fileBody(tag string) string {
	w := make([]string, 150)
	for i := range w {
		w[i] = fmt.Sprintf("%s%d", tag, i)
	}
	return strings.Join(w, " ")
}

func TestRunListsMaskedCalls(t *testing.T) {
	t.Parallel()
	turns := transcript(t,
		"user", "Please read the scanner and the parser, then fix the off-by-one.",
		"assistant", toolUse("t1", "Read", map[string]any{"file_path": "/repo/scan.go"}),
		"user", toolResult("t1", fileBody("scan"), false),
		"assistant", toolUse("t2", "Bash", map[string]any{"command": "go test ./parser/...\nand more"}),
		"user", toolResult("t2", fileBody("test"), false),
		"assistant", toolUse("t3", "Read", map[string]any{"file_path": "/repo/parse.go"}),
		"user", toolResult("t3", "short", false),
		"user", "Now fix it.",
	)
	store, err := chitta.NewHNSWStore(chitta.NewHashEmbedder(0).Dimensions(), nil)
	require.NoError(t, err)
	out, err := Run(t.Context(), turns, chitta.NewHashEmbedder(0), store, &RunOptions{Query: "fix the off-by-one", Distill: true, Mask: &chitta.MaskOptions{KeepRecent: 1}})
	require.NoError(t, err)
	require.Equal(t, 2, out.Compact.Stats.Masked, "the two old outputs")
	lines := MaskedCalls(turns, out.Compact)
	require.Len(t, lines, 2)
	assert.True(t, strings.HasPrefix(lines[0], "Bash go test ./parser/... and more — output elided (195 tokens), memory "), lines[0])
	assert.True(t, strings.HasPrefix(lines[1], "Read /repo/scan.go — output elided (195 tokens), memory "), lines[1])
	for _, l := range lines {
		id := l[strings.LastIndex(l, " ")+1:]
		m, ok := store.Get(id)
		require.True(t, ok, "memory %s is in the store", id)
		assert.Contains(t, m.Text, "0 ", "the excerpt of the output")
	}
	assert.Equal(t, 2, out.Brief.Masked)
	assert.Contains(t, out.Brief.Text, maskedTitle+"\n- "+lines[0]+"\n- "+lines[1])
	assert.LessOrEqual(t, out.Brief.Tokens, DefaultMaxTokens)

	// Without Mask, nothing is listed.
	plain, err := Run(t.Context(), turns, chitta.NewHashEmbedder(0), store, &RunOptions{Query: "fix the off-by-one"})
	require.NoError(t, err)
	assert.Empty(t, MaskedCalls(turns, plain.Compact))
	assert.NotContains(t, plain.Brief.Text, maskedTitle)
}

func TestBuildMaskedUnderCap(t *testing.T) {
	t.Parallel()
	turns := transcript(t, "user", "hello there")
	scores := []chitta.TurnScore{{Index: 0, Kept: true, Score: 1}}
	var masked []string
	for i := range 200 {
		masked = append(masked, fmt.Sprintf("Read /repo/file%d.go — output elided (900 tokens)", i))
	}
	b, err := Build(turns, scores, nil, &Options{MaxTokens: 200, Masked: masked})
	require.NoError(t, err)
	assert.LessOrEqual(t, b.Tokens, 200)
	assert.Positive(t, b.Masked)
	assert.Less(t, b.Masked, 200, "the cap bounds the list")
	assert.Equal(t, b.Masked, strings.Count(b.Text, "— output elided"))
}

func TestGist(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"file_path": "/a/b.go", "limit": 5}`: "/a/b.go",
		`{"command": "ls -la\n| wc"}`:          "ls -la | wc",
		`{"todos": [1, 2]}`:                    `{"todos": [1, 2]}`,
		`{}`:                                   "",
		`null`:                                 "",
		`{"pattern": "   "}`:                   `{"pattern": " "}`,
	} {
		assert.Equal(t, want, gist([]byte(in)), in)
	}
}

// maskedBlocks reads every placeholder masking writes, those listing
// values too, and nothing else.
func TestMaskedBlocksPlaceholders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		content string
		want    []maskedResult
	}{
		{"[chitta: Read output elided (195 tokens)]", []maskedResult{{"t1", "195", ""}}},
		{"[chitta: Read output elided (195 tokens); excerpt in memory 3f1c]", []maskedResult{{"t1", "195", "3f1c"}}},
		{"[chitta: mcp__db__query output elided (286 tokens); values: JG7FMM, 2024-05-21]", []maskedResult{{"t1", "286", ""}}},
		{"[chitta: mcp__db__query output elided (286 tokens); values: JG7FMM, 2024-05-21; excerpt in memory 3f1c]", []maskedResult{{"t1", "286", "3f1c"}}},
		{"head\n[chitta: Bash output cut from 900 tokens to head and tail; values: A1]\ntail", nil},
		{"plain output", nil},
	}
	for _, tt := range tests {
		raw := fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":%q}]}`, tt.content)
		assert.Equal(t, tt.want, maskedBlocks([]byte(raw)), tt.content)
	}
}
