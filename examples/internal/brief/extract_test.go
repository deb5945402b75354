package brief

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/claudecode"
)

// transcript renders Claude Code entries (role, content) as a JSONL
// transcript and parses it.
func transcript(t testing.TB, entries ...any) []claudecode.Turn {
	t.Helper()
	var b strings.Builder
	for i := 0; i < len(entries); i += 2 {
		role := entries[i].(string)
		line, err := json.Marshal(map[string]any{
			"type": role, "uuid": fmt.Sprintf("u%d", i), "sessionId": "s",
			"message": map[string]any{"role": role, "id": fmt.Sprintf("m%d", i), "content": entries[i+1]},
		})
		require.NoError(t, err)
		b.Write(line)
		b.WriteByte('\n')
	}
	tr, err := claudecode.Parse(strings.NewReader(b.String()), nil)
	require.NoError(t, err)
	return tr.Turns
}

func toolUse(id, name string, input map[string]any) []any {
	return []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}}
}

func toolResult(id, content string, isErr bool) []any {
	return []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": content, "is_error": isErr}}
}

func text(s string) []any { return []any{map[string]any{"type": "text", "text": s}} }

// artifacts returns the artifacts of every turn, by kind.
func artifacts(turns []claudecode.Turn) map[Kind][]string {
	out := map[Kind][]string{}
	tools := ToolNames(turns)
	for i := range turns {
		for _, a := range Extract(&turns[i], tools) {
			out[a.Kind] = append(out[a.Kind], a.Text)
		}
	}
	return out
}

func TestExtract(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		entries []any
		kind    Kind
		want    []string
	}{
		{"paths from tool inputs", []any{
			"assistant", toolUse("t1", "Read", map[string]any{"file_path": "/repo/internal/scan/dots.go"}),
			"user", toolResult("t1", "package scan // see other/file.go", false),
			"assistant", toolUse("t2", "Glob", map[string]any{"path": "examples/chitta"}),
		}, Path, []string{"/repo/internal/scan/dots.go", "examples/chitta"}},
		{"paths from prose and commands, not from tool output", []any{
			"user", "Look at ./cmd/main.go and README.md, and/or the docs; 1/2 done.",
			"assistant", toolUse("t1", "Bash", map[string]any{"command": "go test ./internal/... && cat go.mod"}),
			"user", toolResult("t1", "ok\ninternal/x/y.go:3: unused", false),
		}, Path, []string{"./cmd/main.go", "README.md", "go.mod"}},
		{"commands, first line only", []any{
			"assistant", toolUse("t1", "Bash", map[string]any{"command": "git commit -m \"$(cat <<'EOF'\nfix: retry\nEOF\n)\""}),
			"user", toolResult("t1", "done", false),
			"user", "<bash-input>make lint</bash-input>",
			"assistant", toolUse("t2", "Read", map[string]any{"command": "not a shell tool"}),
		}, Command, []string{`git commit -m "$(cat <<'EOF'`, "make lint"}},
		{"errors: first line of a tool error, error lines of shell output", []any{
			"assistant", toolUse("t1", "Bash", map[string]any{"command": "go test ./..."}),
			"user", toolResult("t1", "ok  a\n--- FAIL: TestRetry (0.01s)\n    retry_test.go:12: expected 3, got 2\npanic: runtime error: index out of range", false),
			"assistant", toolUse("t2", "Edit", map[string]any{"file_path": "x.go"}),
			"user", toolResult("t2", "\nString to replace not found in file.\nString: foo", true),
			"assistant", toolUse("t3", "Read", map[string]any{"file_path": "y.go"}),
			"user", toolResult("t3", "// this error is part of a file, not an error", false),
		}, Error, []string{"--- FAIL: TestRetry (0.01s)", "panic: runtime error: index out of range", "String to replace not found in file."}},
		{"identifiers and numbers with units", []any{
			"assistant", text("The p99 of `Compact` went from 44 ms to 3.5ms at 100 000 memories; max_tokens and parseFlags, chitta.Compact, 98.2% and 2× faster."),
		}, Identifier, []string{"Compact", "44 ms", "3.5ms", "100 000 memories", "98.2%", "2×", "max_tokens", "parseFlags", "chitta.Compact"}},
		{"URLs from prose and tool inputs", []any{
			"user", "See https://example.com/docs/hooks#precompact, then http://localhost:8080/x.",
			"assistant", toolUse("t1", "WebFetch", map[string]any{"url": "https://code.claude.com/docs/en/hooks", "prompt": "read it"}),
		}, URL, []string{"https://example.com/docs/hooks#precompact", "http://localhost:8080/x", "https://code.claude.com/docs/en/hooks"}},
		{"user constraints from real prompts only", []any{
			"user", "Fix the parser. Never push to main without CI! We prefer tabs. Use slog instead of log.\nThanks.",
			"assistant", text("I will never push to main."),
			"user", toolResult("t9", "you must not", false),
		}, Constraint, []string{"Never push to main without CI!", "We prefer tabs.", "Use slog instead of log."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := artifacts(transcript(t, tt.entries...))[tt.kind]
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestExtractCutsLongItems(t *testing.T) {
	t.Parallel()
	turns := transcript(t, "assistant", toolUse("t1", "Bash", map[string]any{"command": strings.Repeat("é", 300)}))
	got := artifacts(turns)[Command]
	require.Len(t, got, 1)
	assert.Equal(t, strings.Repeat("é", MaxItemRunes)+"…", got[0])
}

// window is a generated session of n rounds, each with its own path,
// command and error.
func window(t testing.TB, n int) []claudecode.Turn {
	t.Helper()
	var entries []any
	for i := range n {
		id := fmt.Sprintf("t%d", i)
		entries = append(entries,
			"user", fmt.Sprintf("Round %d: never touch vendor/ in round %d, and check pkg/round%d/file%d.go", i, i, i, i),
			"assistant", toolUse(id, "Bash", map[string]any{"command": fmt.Sprintf("go test ./pkg/round%d/... -run TestRound%d", i, i)}),
			"user", toolResult(id, fmt.Sprintf("--- FAIL: TestRound%d (0.%02ds)", i, i), false),
			"assistant", text(fmt.Sprintf("Round %d fails because the loop in file%d.go is off by one.", i, i)))
	}
	return transcript(t, entries...)
}

// scoresFor scores turns as Compact does, with an in-memory store.
func scoresFor(t *testing.T, turns []claudecode.Turn) []chitta.TurnScore {
	t.Helper()
	res, err := chitta.Compact(t.Context(), claudecode.Messages(turns), &chitta.Options{Embedder: chitta.NewHashEmbedder(0)})
	require.NoError(t, err)
	return res.Scores
}

func TestBuildCapAndDeterminism(t *testing.T) {
	t.Parallel()
	turns := window(t, 40)
	scores := scoresFor(t, turns)
	for _, cap := range []int{100, 300, 1500, 5000} {
		b, err := Build(turns, scores, nil, &Options{MaxTokens: cap})
		require.NoError(t, err)
		assert.LessOrEqual(t, b.Tokens, cap, "cap %d", cap)
		assert.Equal(t, chitta.EstimateTokens(b.Text), b.Tokens)
		assert.True(t, strings.HasPrefix(b.Text, Header))
		assert.True(t, strings.HasSuffix(b.Text, "Memory holds none of these turns yet."), "cap %d", cap)
		for _, it := range b.Items {
			assert.Contains(t, b.Text, it.Text, "every item carried is in the text verbatim")
		}
		again, err := Build(turns, scores, nil, &Options{MaxTokens: cap})
		require.NoError(t, err)
		assert.Equal(t, b.Text, again.Text, "deterministic")
		if cap == 5000 {
			assert.Zero(t, b.Left, "everything fits")
			assert.Positive(t, b.Excerpts)
		} else {
			assert.Positive(t, b.Left, "cap %d leaves artifacts out", cap)
		}
	}
	// Ranked by score: a higher cap never drops an item a lower cap kept.
	lo, err := Build(turns, scores, nil, &Options{MaxTokens: 300})
	require.NoError(t, err)
	hi, err := Build(turns, scores, nil, &Options{MaxTokens: 1500})
	require.NoError(t, err)
	for _, it := range lo.Items {
		assert.Contains(t, hi.Text, it.Text)
	}
	for k := 1; k < len(hi.Items); k++ {
		assert.GreaterOrEqual(t, hi.Items[k-1].Score, hi.Items[k].Score, "rank order")
	}
}

func TestBuildCoverage(t *testing.T) {
	t.Parallel()
	turns := window(t, 4)
	scores := scoresFor(t, turns)
	// Turns 0–3 (round 0) dropped and covered: their artifacts are left to
	// memory and the held line names what memory holds.
	for i := range 4 {
		scores[i].Kept, scores[i].Coverage = false, 0.9
	}
	b, err := Build(turns, scores, []string{"the round 0 loop is off by one in file0.go (remembered)"}, nil)
	require.NoError(t, err)
	assert.NotContains(t, b.Text, "pkg/round0/file0.go")
	assert.Contains(t, b.Text, "pkg/round1/file1.go")
	assert.Contains(t, b.Text, `Memory already holds what 4 dropped turns say (the summary may shorten it): “the round 0 loop is off by one in file0.go (remembered)”.`)

	_, err = Build(turns, scores[1:], nil, nil)
	require.Error(t, err)
	_, err = Build(turns, scores, nil, &Options{MaxTokens: -1})
	require.ErrorContains(t, err, "MaxTokens -1")
}

func TestRecentBaseline(t *testing.T) {
	t.Parallel()
	turns := window(t, 40)
	b, err := Recent(turns, &Options{MaxTokens: 300})
	require.NoError(t, err)
	assert.LessOrEqual(t, b.Tokens, 300)
	require.NotEmpty(t, b.Items)
	assert.Equal(t, len(turns)-1, b.Items[0].Turn, "the most recent first")
	assert.Contains(t, b.Text, "round39")
	assert.NotContains(t, b.Text, "round0/")
}

func TestRunDistillsNoBoilerplate(t *testing.T) {
	t.Parallel()
	turns := transcript(t,
		"user", "Please make the retry loop back off exponentially, starting at 100 ms.",
		"assistant", text("Great! Now let me look at the retry loop and see what it does."),
		"assistant", toolUse("t1", "Edit", map[string]any{"file_path": "retry.go"}),
		"user", toolResult("t1", "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.", false),
		"assistant", toolUse("t2", "Read", map[string]any{"file_path": "nope.go"}),
		"user", toolResult("t2", "<tool_use_error>File does not exist. Current working directory: /repo</tool_use_error>", true),
		"user", "[Request interrupted by user for tool use]",
		"assistant", text("The retry loop sleeps a fixed 100 ms between attempts, which is why the API throttles every client after a deploy."),
		"user", "Good. Keep the jitter under 20% and never retry a POST that may have reached the server.",
		"assistant", text("Understood."),
		"user", "Now write the test.",
	)
	store, err := chitta.NewHNSWStore(chitta.NewHashEmbedder(0).Dimensions(), nil)
	require.NoError(t, err)
	out, err := Run(t.Context(), turns, chitta.NewHashEmbedder(0), store, &RunOptions{Query: "write the test", Distill: true, DistillMax: 8})
	require.NoError(t, err)
	require.NotEmpty(t, out.Compact.Distilled)
	assert.LessOrEqual(t, len(out.Compact.Distilled), 8)
	for _, d := range out.Compact.Distilled {
		for _, bad := range []string{"doesn't want to proceed", "tool_use_error", "Request interrupted", "Great! Now let me", "Understood."} {
			assert.NotContains(t, d.Text, bad)
		}
	}
	_, err = Run(t.Context(), turns, chitta.NewHashEmbedder(0), store, &RunOptions{DistillMax: -1})
	require.ErrorContains(t, err, "DistillMax -1")
}
