//go:build claudecode

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta/examples/internal/fakeanthropic"
)

// TestClaudeCodeCompact runs the real Claude Code CLI ($CHITTA_CLAUDE,
// installed by scripts/install-claude-code.sh) against a fake Anthropic
// API, with the hook configured as README says: one prompt, then /compact,
// then a follow-up prompt, each `claude -p` with --continue. It checks what
// reaches the model: the compaction request carries the hook's preservation
// brief in its instructions (PreCompact stdout on exit 0), and the request
// after the compaction carries the SessionStart:compact output.
func TestClaudeCodeCompact(t *testing.T) {
	claude := fakeanthropic.ClaudeCLI(t)
	api := &fakeanthropic.Server{Reply: func(req fakeanthropic.Request) []fakeanthropic.Block {
		return []fakeanthropic.Block{fakeanthropic.Text(fmt.Sprintf("Reply %d. <summary>We looked at cmd/server/main.go.</summary>", req.N))}
	}}
	srv := httptest.NewServer(api)
	defer srv.Close()

	home, proj := t.TempDir(), t.TempDir()
	store := filepath.Join(t.TempDir(), "memory.chitta")
	settings := filepath.Join(t.TempDir(), "settings.json")
	hook := func(extra string) map[string]any {
		return map[string]any{"type": "command", "command": fmt.Sprintf("%s --store %s%s", binary, store, extra), "timeout": 60}
	}
	cfg := map[string]any{"hooks": map[string]any{
		"PreCompact":   []any{map[string]any{"matcher": "", "hooks": []any{hook(" --distill")}}},
		"SessionStart": []any{map[string]any{"matcher": "compact|resume", "hooks": []any{hook("")}}},
	}}
	data, err := json.Marshal(cfg)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(settings, data, 0o600))

	run := func(args ...string) string {
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, claude, append(append([]string{"-p"}, args...), "--settings", settings)...)
		cmd.Dir = proj
		cmd.Env = fakeanthropic.ClaudeEnv(srv.URL, home)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "claude %v: %s", args, out)
		return string(out)
	}

	out := run("The deploy test fails in cmd/server/main.go; run `go test ./cmd/server` and fix it.")
	assert.Contains(t, out, "Reply 1.", "the first prompt reached the fake API")

	run("--continue", "/compact")
	compaction, n := api.Last(), len(api.Requests())
	require.GreaterOrEqual(t, n, 2)
	assert.True(t, strings.Contains(compaction, "Additional Instructions:\\nPreservation brief from chitta"), "PreCompact's stdout is not in the summariser's instructions (request %d, %d bytes)", n, len(compaction))
	assert.True(t, strings.Contains(compaction, "Files: cmd/server/main.go"), "the brief does not name the file")
	info, err := os.Stat(store)
	require.NoError(t, err, "the hook saved its store")
	assert.Positive(t, info.Size())

	run("--continue", "Where were we?")
	next := api.Last()
	assert.True(t, strings.Contains(next, "SessionStart:compact hook success: chitta"), "SessionStart's stdout is not in the model's context after the compaction (%d bytes)", len(next))
	assert.True(t, strings.Contains(next, "Preservation brief from chitta"), "the context after the compaction does not carry the brief")
	assert.False(t, strings.Contains(next, fakeanthropic.TestKey), "the key never reaches a request body")
}
