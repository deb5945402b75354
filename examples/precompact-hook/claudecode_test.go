//go:build claudecode

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeAnthropic is a stand-in for the Anthropic Messages API that answers
// every request with one short text reply (streamed when asked) and keeps
// each request body, so that a test can read what Claude Code sent.
type fakeAnthropic struct {
	mu       sync.Mutex
	requests []string // bodies of POST /v1/messages, in order
}

func (f *fakeAnthropic) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	switch r.URL.Path {
	case "/v1/messages/count_tokens":
		_ = json.NewEncoder(w).Encode(map[string]any{"input_tokens": len(body) / 4})
		return
	case "/v1/messages":
	default:
		http.NotFound(w, r)
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, string(body))
	n := len(f.requests)
	f.mu.Unlock()
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	_ = json.Unmarshal(body, &req)
	text := fmt.Sprintf("Reply %d. <summary>We looked at cmd/server/main.go.</summary>", n)
	usage := map[string]any{"input_tokens": 100, "output_tokens": 20}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": fmt.Sprint("msg_", n), "type": "message", "role": "assistant", "model": req.Model,
			"content": []any{map[string]any{"type": "text", "text": text}}, "stop_reason": "end_turn", "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, ev := range []map[string]any{
		{"type": "message_start", "message": map[string]any{"id": fmt.Sprint("msg_", n), "type": "message", "role": "assistant", "model": req.Model, "content": []any{}, "usage": usage}},
		{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}},
		{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": text}},
		{"type": "content_block_stop", "index": 0},
		{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn"}, "usage": map[string]any{"output_tokens": 20}},
		{"type": "message_stop"},
	} {
		data, _ := json.Marshal(ev)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev["type"], data)
	}
}

// last returns the body of the last request, and how many there were.
func (f *fakeAnthropic) last() (string, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.requests) == 0 {
		return "", 0
	}
	return f.requests[len(f.requests)-1], len(f.requests)
}

// TestClaudeCodeCompact runs the real Claude Code CLI ($CHITTA_CLAUDE,
// installed by scripts/install-claude-code.sh) against a fake Anthropic
// API, with the hook configured as README says: one prompt, then /compact,
// then a follow-up prompt, each `claude -p` with --continue. It checks what
// reaches the model: the compaction request carries the hook's preservation
// brief in its instructions (PreCompact stdout on exit 0), and the request
// after the compaction carries the SessionStart:compact output.
func TestClaudeCodeCompact(t *testing.T) {
	claude := os.Getenv("CHITTA_CLAUDE")
	if claude == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CHITTA_CLAUDE is not set: scripts/test-claudecode.sh installs Claude Code and sets it")
		}
		t.Skip("CHITTA_CLAUDE is not set (run scripts/test-claudecode.sh)")
	}
	api := &fakeAnthropic{}
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
		cmd.Env = []string{
			"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + os.TempDir(),
			"ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=sk-ant-test-not-a-key",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1",
		}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "claude %v: %s", args, out)
		return string(out)
	}

	out := run("The deploy test fails in cmd/server/main.go; run `go test ./cmd/server` and fix it.")
	assert.Contains(t, out, "Reply 1.", "the first prompt reached the fake API")

	run("--continue", "/compact")
	compaction, n := api.last()
	require.GreaterOrEqual(t, n, 2)
	assert.True(t, strings.Contains(compaction, "Additional Instructions:\\nPreservation brief from chitta"), "PreCompact's stdout is not in the summariser's instructions (request %d, %d bytes)", n, len(compaction))
	assert.True(t, strings.Contains(compaction, "Files: cmd/server/main.go"), "the brief does not name the file")
	info, err := os.Stat(store)
	require.NoError(t, err, "the hook saved its store")
	assert.Positive(t, info.Size())

	run("--continue", "Where were we?")
	next, _ := api.last()
	assert.True(t, strings.Contains(next, "SessionStart:compact hook success: chitta"), "SessionStart's stdout is not in the model's context after the compaction (%d bytes)", len(next))
	assert.True(t, strings.Contains(next, "Preservation brief from chitta"), "the context after the compaction does not carry the brief")
	assert.False(t, strings.Contains(next, "sk-ant-test-not-a-key"), "the key never reaches a request body")
}
