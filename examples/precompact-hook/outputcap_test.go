package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta/examples/internal/brief"
)

// TestOutputUnderClaudeCodeCut: Claude Code (2.1.332) cuts a PreCompact
// hook's output, and a SessionStart hook's, to its first 10 000 UTF-16
// code units. A window whose turns read 120 files under long monorepo paths
// made PreCompact print a brief of 461 tokens, well under --brief-tokens,
// but 12 907 characters, so the summariser never saw its end (the kept turns'
// excerpts, what memory holds) and got a path cut in half; SessionStart
// printed such a brief back whole too. Now both fit the cut, the brief
// keeping its excerpts.
func TestOutputUnderClaudeCodeCut(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 30 {
		b.WriteString(entry(t, "user", fmt.Sprintf("p%d", i), "", fmt.Sprintf("Round %d: please fix the refund handler %d.", i, i)))
		var uses, results []any
		for k := range 6 {
			id := fmt.Sprintf("u%d_%d", i, k)
			uses = append(uses, map[string]any{"type": "tool_use", "id": id, "name": "Read", "input": map[string]any{
				"file_path": fmt.Sprintf("/home/dev/src/monorepo/services/payments/internal/handlers/refund_%02d/refund_handler_%02d_part%d.go", i, i, k),
			}})
			results = append(results, map[string]any{"type": "tool_result", "tool_use_id": id, "content": "package refund"})
		}
		b.WriteString(entry(t, "assistant", fmt.Sprintf("a%d", i), fmt.Sprintf("m%d", i), uses))
		b.WriteString(entry(t, "user", fmt.Sprintf("r%d", i), "", results))
	}
	transcript := filepath.Join(t.TempDir(), "session.jsonl")
	require.NoError(t, os.WriteFile(transcript, []byte(b.String()), 0o600))
	store := filepath.Join(t.TempDir(), "memory.chitta")

	pre := runHook(t, strings.NewReader(hookJSON(t, "PreCompact", transcript, "s", "")), "--store", store)
	require.Equal(t, 0, pre.code, pre.stderr)
	out := strings.TrimSpace(pre.stdout)
	assert.LessOrEqual(t, brief.Chars(out), maxOutputChars)
	assert.Contains(t, out, "/home/dev/src/monorepo/services/payments/internal/handlers/refund_29/refund_handler_29_part0.go")
	assert.Contains(t, out, "Kept turns memory does not hold:\n- [user] Round 29")
	assert.True(t, strings.HasSuffix(out, "Memory holds none of these turns yet."), "the brief's last line")

	// A brief over the cut that an earlier hook stored: SessionStart
	// prints the lines that fit under its memory.
	var long strings.Builder
	long.WriteString(brief.Header + "\nCommands that ran:")
	for i := range 150 {
		fmt.Fprintf(&long, "\n- go test ./services/payments/internal/handlers/refund_%03d/... -run TestRefund -count=1", i)
	}
	start := runHook(t, strings.NewReader(hookJSON(t, "SessionStart", transcript, "s", "compact")), "--store",
		seedStore(t, long.String(), "Round 29: please fix the refund handler 29 (it returns 500)."))
	require.Equal(t, 0, start.code, start.stderr)
	out = strings.TrimSpace(start.stdout)
	assert.LessOrEqual(t, brief.Chars(out), maxOutputChars)
	assert.Contains(t, out, "- [fact] Round 29", "the memory")
	assert.Contains(t, out, "preservation brief from before the last compaction of this session:\nCommands that ran:\n- go test ./services/payments/internal/handlers/refund_000/")
	assert.True(t, strings.HasSuffix(out, "-run TestRefund -count=1"), "whole lines")
	assert.NotContains(t, out, "refund_149", "the brief's last lines are left out")
}
