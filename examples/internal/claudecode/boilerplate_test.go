package claudecode_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/claudecode"
)

// TestParseLongLines: a line longer than MaxLineBytes is skipped (counted
// malformed) and the lines around it are read.
func TestParseLongLines(t *testing.T) {
	t.Parallel()
	entry := func(uuid, text string) string {
		b, err := json.Marshal(map[string]any{"type": "user", "uuid": uuid, "message": map[string]any{"role": "user", "content": text}})
		require.NoError(t, err)
		return string(b) + "\n"
	}
	huge := entry("huge", strings.Repeat("x", 300_000))
	in := entry("a", "before") + huge + entry("b", "after") + strings.Repeat("y", 500_000) // a last line without newline
	tr, err := claudecode.Parse(strings.NewReader(in), &claudecode.Options{MaxLineBytes: 100_000})
	require.NoError(t, err)
	require.Len(t, tr.Turns, 2)
	assert.Equal(t, "a", tr.Turns[0].UUID)
	assert.Equal(t, "b", tr.Turns[1].UUID)
	assert.Equal(t, 2, tr.Malformed)

	tr, err = claudecode.Parse(strings.NewReader(in), nil)
	require.NoError(t, err)
	assert.Len(t, tr.Turns, 3, "the default cap (8 MiB) reads the 300 KB line")

	_, err = claudecode.Parse(strings.NewReader(in), &claudecode.Options{MaxLineBytes: -1})
	require.ErrorIs(t, err, claudecode.ErrInvalidOptions)
	assert.Contains(t, err.Error(), "MaxLineBytes -1")
}

func TestReadFileContextDone(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := claudecode.ReadFileContext(ctx, filepath.Join("testdata", "session.jsonl"), nil)
	require.ErrorIs(t, err, context.Canceled)
}

func TestBoilerplate(t *testing.T) {
	t.Parallel()
	turn := func(role chitta.Role, content any, isErr bool) claudecode.Turn {
		raw, err := json.Marshal(map[string]any{"role": role, "content": content})
		require.NoError(t, err)
		var m chitta.Message
		require.NoError(t, m.UnmarshalJSON(raw))
		tr := claudecode.Turn{Message: m}
		if isErr {
			tr.ToolResults = []claudecode.ToolResult{{ToolUseID: "t", IsError: true}}
		}
		return tr
	}
	result := func(text string) []any {
		return []any{map[string]any{"type": "tool_result", "tool_use_id": "t", "content": text}}
	}
	tests := []struct {
		name string
		turn claudecode.Turn
		want bool
	}{
		{"tool error", turn(chitta.RoleUser, result("<tool_use_error>File does not exist.</tool_use_error>"), true), true},
		{"rejection", turn(chitta.RoleUser, result("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."), false), true},
		{"interruption", turn(chitta.RoleUser, "[Request interrupted by user for tool use]", false), true},
		{"filler prose with a tool call", turn(chitta.RoleAssistant, []any{
			map[string]any{"type": "text", "text": "Great! Now let me update the tests."},
			map[string]any{"type": "tool_use", "id": "t", "name": "Bash", "input": map[string]any{"command": "go test ./..."}},
		}, false), true},
		{"only a tool call", turn(chitta.RoleAssistant, []any{
			map[string]any{"type": "tool_use", "id": "t", "name": "Read", "input": map[string]any{"file_path": "a.go"}},
		}, false), true},
		{"an explanation", turn(chitta.RoleAssistant, []any{
			map[string]any{"type": "text", "text": "The retry loop never backs off, so the API throttles every client after a deploy."},
		}, false), false},
		{"a user prompt", turn(chitta.RoleUser, "Never push to main without running the integration tests first.", false), false},
		{"todo confirmation", turn(chitta.RoleUser, result("Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress."), false), true},
		{"edit confirmation", turn(chitta.RoleUser, result("The file /repo/a.go has been updated. Here's the result of running `cat -n` on a snippet of the edited file:"), false), true},
		{"a tool result", turn(chitta.RoleUser, result("ok  github.com/x/y 0.2s"), false), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, claudecode.Boilerplate(&tt.turn))
		})
	}
}
