//go:build claudecode

package main

import (
	"context"
	"encoding/json"
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

// TestClaudeCodeMCP runs the real Claude Code CLI ($CHITTA_CLAUDE, installed
// by scripts/install-claude-code.sh) with chitta as its MCP server, against
// a fake Anthropic API whose model calls chitta's tools: in one session it
// calls remember, in a second session (a new chitta process on the same
// store) recall. It checks what Claude Code did with them: it offered the
// model chitta's tools, ran the calls through the MCP server, and sent the
// results back to the model; the second session's recall finds what the
// first remembered.
func TestClaudeCodeMCP(t *testing.T) {
	claude := fakeanthropic.ClaudeCLI(t)
	const fact = "The deploy test needs DEPLOY_ENV=staging and the vault token."
	api := &fakeanthropic.Server{Reply: func(req fakeanthropic.Request) []fakeanthropic.Block {
		if b := req.ToolResult("toolu_remember"); b != nil {
			return []fakeanthropic.Block{fakeanthropic.Text("Remembered.")}
		}
		if b := req.ToolResult("toolu_recall"); b != nil {
			return []fakeanthropic.Block{fakeanthropic.Text("Recalled.")}
		}
		for _, b := range req.LastUser().Blocks() {
			text, _ := b["text"].(string)
			switch {
			case strings.Contains(text, "Remember this"):
				return []fakeanthropic.Block{fakeanthropic.ToolUse("toolu_remember", "mcp__chitta__remember", map[string]any{"text": fact})}
			case strings.Contains(text, "What do we know"):
				return []fakeanthropic.Block{fakeanthropic.ToolUse("toolu_recall", "mcp__chitta__recall", map[string]any{"text": "what does the deploy test need"})}
			}
		}
		return []fakeanthropic.Block{fakeanthropic.Text("Nothing to do.")}
	}}
	srv := httptest.NewServer(api)
	defer srv.Close()

	home, proj := t.TempDir(), t.TempDir()
	store := filepath.Join(t.TempDir(), "memory.chitta")
	mcp := filepath.Join(t.TempDir(), "mcp.json")
	data, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"chitta": map[string]any{"command": binary, "args": []string{"--store", store}},
	}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(mcp, data, 0o600))

	// toolResult returns the text of the tool_result block answering id
	// among the requests the API received.
	toolResult := func(id string) string {
		for _, body := range api.Requests() {
			var req fakeanthropic.Request
			require.NoError(t, json.Unmarshal([]byte(body), &req))
			if b := req.ToolResult(id); b != nil {
				out, err := json.Marshal(b["content"])
				require.NoError(t, err)
				return string(out)
			}
		}
		return ""
	}
	run := func(prompt string) string {
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, claude, "-p", prompt, "--mcp-config", mcp, "--strict-mcp-config",
			"--allowedTools", "mcp__chitta__remember,mcp__chitta__recall")
		cmd.Dir = proj
		cmd.Env = append(fakeanthropic.ClaudeEnv(srv.URL, home), "ENABLE_TOOL_SEARCH=false")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "claude -p %q: %s", prompt, out)
		return string(out)
	}

	out := run("Remember this: " + fact)
	assert.Contains(t, out, "Remembered.")
	first := api.Requests()[0]
	assert.True(t, strings.Contains(first, `"name":"mcp__chitta__remember"`), "Claude Code offered the model chitta's remember tool")
	stored := toolResult("toolu_remember")
	assert.True(t, strings.Contains(stored, `\"memories\":1`), "remember ran through the MCP server and stored one memory: %s", stored)

	out = run("What do we know about the deploy test?")
	assert.Contains(t, out, "Recalled.")
	recalled := toolResult("toolu_recall")
	assert.True(t, strings.Contains(recalled, "DEPLOY_ENV=staging"), "a new chitta process recalls what the first session remembered: %s", recalled)
	for _, body := range api.Requests() {
		assert.False(t, strings.Contains(body, fakeanthropic.TestKey), "the key never reaches a request body")
	}
}
