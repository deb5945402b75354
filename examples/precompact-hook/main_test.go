package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/claudecode"
	"github.com/chitta-go/chitta/examples/internal/shareddata"
)

// entry renders one Claude Code transcript line.
func entry(t *testing.T, typ, uuid, msgID string, content any) string {
	t.Helper()
	msg := map[string]any{"role": typ, "content": content}
	if msgID != "" {
		msg["id"] = msgID
	}
	b, err := json.Marshal(map[string]any{
		"type": typ, "uuid": uuid, "isSidechain": false, "sessionId": "sess-file",
		"timestamp": "2026-03-01T09:00:00Z", "message": msg,
	})
	require.NoError(t, err)
	return string(b) + "\n"
}

// writeTranscript writes a session of n rounds (prompt, streamed assistant
// turn with a tool call, tool result, answer) plus bookkeeping lines and
// returns its path.
func writeTranscript(t *testing.T, rounds int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"type":"permission-mode","permissionMode":"default","sessionId":"sess-file"}` + "\n")
	topics := []string{"the flaky retry test", "the config loader", "the HTTP timeout", "the release notes", "the database migration"}
	for i := range rounds {
		topic := topics[i%len(topics)]
		id := fmt.Sprintf("toolu_%03d", i)
		msgID := fmt.Sprintf("msg_%03d", i)
		b.WriteString(entry(t, "user", fmt.Sprintf("p%03d", i), "", fmt.Sprintf("Round %d: please look at %s and tell me what is wrong.", i, topic)))
		b.WriteString(entry(t, "assistant", fmt.Sprintf("a%03d", i), msgID, []any{map[string]any{"type": "thinking", "thinking": "Let me read the code for " + topic + ".", "signature": "s"}}))
		b.WriteString(entry(t, "assistant", fmt.Sprintf("b%03d", i), msgID, []any{map[string]any{"type": "tool_use", "id": id, "name": "Read", "input": map[string]any{"file_path": "src/" + strings.ReplaceAll(topic, " ", "_") + ".go"}}}))
		b.WriteString(entry(t, "user", fmt.Sprintf("r%03d", i), "", []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": "package main // " + strings.Repeat(topic+" ", 20)}}))
		b.WriteString(entry(t, "assistant", fmt.Sprintf("c%03d", i), msgID+"x", []any{map[string]any{"type": "text", "text": fmt.Sprintf("In %s the problem is an off-by-one in round %d.", topic, i)}}))
		b.WriteString(`{"type":"file-history-snapshot","messageId":"x","snapshot":{}}` + "\n")
	}
	b.WriteString(entry(t, "user", "meta", "", "<local-command-stdout>ok</local-command-stdout>"))
	path := filepath.Join(t.TempDir(), "session.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o600))
	return path
}

func hookJSON(t *testing.T, transcript, session, instructions string) string {
	t.Helper()
	b, err := json.Marshal(hookInput{
		SessionID: session, TranscriptPath: transcript, CWD: "/work", HookEventName: "PreCompact",
		Trigger: "manual", CustomInstructions: instructions,
	})
	require.NoError(t, err)
	return string(b)
}

// recallText returns the texts of the k memories nearest to query in the
// store file at path.
func recallText(t *testing.T, path, query string, k int) []string {
	t.Helper()
	store, err := chitta.LoadHNSWStore(path)
	require.NoError(t, err)
	vecs, err := chitta.NewHashEmbedder(0).Embed(t.Context(), []string{query})
	require.NoError(t, err)
	hits, err := store.Recall(t.Context(), vecs[0], k)
	require.NoError(t, err)
	var out []string
	for _, h := range hits {
		out = append(out, h.Text)
	}
	return out
}

func storeLen(t *testing.T, path string) int {
	t.Helper()
	store, err := chitta.LoadHNSWStore(path)
	require.NoError(t, err)
	return store.Len()
}

func TestRunRecordsEpisode(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	transcript := writeTranscript(t, 25)
	store := filepath.Join(t.TempDir(), "data", "memory.chitta")

	var stderr bytes.Buffer
	summary, err := run(ctx, []string{"--store", store}, strings.NewReader(hookJSON(t, transcript, "sess-1", "")), &stderr)
	require.NoError(t, err)
	assert.Empty(t, stderr.String())
	assert.Contains(t, summary, "of 60 turns")
	assert.Contains(t, summary, "dropped")
	assert.NotContains(t, summary, "\n")
	assert.Equal(t, 1, storeLen(t, store), "one episode")
	texts := recallText(t, store, "pre-compact memory-aware compaction session sess-1", 1)
	require.Len(t, texts, 1)
	assert.Contains(t, texts[0], "[pre-compact]")
	assert.Contains(t, texts[0], "Session: sess-1")

	// A second compaction of another session adds its episode; with
	// --distill the novel dropped turns are stored too.
	summary, err = run(ctx, []string{"--store", store, "--distill"}, strings.NewReader(hookJSON(t, transcript, "sess-2", "focus on the HTTP timeout")), &stderr)
	require.NoError(t, err)
	assert.Contains(t, summary, "memories distilled")
	n := storeLen(t, store)
	assert.Greater(t, n, 2, "two episodes and distilled turns")
	assert.Contains(t, summary, fmt.Sprintf("(%d memories)", n))
}

// TestRunSubagentTranscript: a sub-agent's transcript holds only side-chain
// entries; the hook compacts those rather than finding no turns.
func TestRunSubagentTranscript(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(writeTranscript(t, 5))
	require.NoError(t, err)
	side := strings.ReplaceAll(string(data), `"isSidechain":false`, `"isSidechain":true`)
	require.NotEqual(t, string(data), side)
	transcript := filepath.Join(t.TempDir(), "agent-a1.jsonl")
	require.NoError(t, os.WriteFile(transcript, []byte(side), 0o600))
	store := filepath.Join(t.TempDir(), "memory.chitta")

	summary, err := run(t.Context(), []string{"--store", store}, strings.NewReader(hookJSON(t, transcript, "sess-sub", "")), io.Discard)
	require.NoError(t, err)
	assert.Contains(t, summary, "of 21 turns", "5 rounds of 4 turns and the command output")
	assert.Equal(t, 1, storeLen(t, store), "one episode")
}

func TestOneLine(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "store a: disk full ; store b: disk full", oneLine("store a: disk full\nstore b: disk full"))
	assert.Equal(t, "kept 3 of 5 turns", oneLine("kept 3 of 5 turns"))
}

func TestQueryFor(t *testing.T) {
	t.Parallel()
	tr, err := claudecode.ReadFile(writeTranscript(t, 3), nil)
	require.NoError(t, err)
	tests := []struct {
		name, instructions, want string
	}{
		{"custom instructions win", "  keep the migration plan ", "keep the migration plan"},
		{"else the last real prompt", "", "Round 2: please look at the HTTP timeout and tell me what is wrong."},
		{"blank instructions are none", " \n", "Round 2: please look at the HTTP timeout and tell me what is wrong."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, queryFor(&hookInput{CustomInstructions: tt.instructions}, tr.Turns))
		})
	}
}

func TestRunSkips(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	transcript := writeTranscript(t, 2)
	empty := filepath.Join(dir, "empty.jsonl")
	require.NoError(t, os.WriteFile(empty, []byte(`{"type":"summary","summary":"x"}`+"\n"), 0o600))
	corrupt := filepath.Join(dir, "corrupt.chitta")
	garbage := []byte("definitely not a store")
	require.NoError(t, os.WriteFile(corrupt, garbage, 0o600))
	good := filepath.Join(dir, "good.chitta")

	tests := []struct {
		name  string
		args  []string
		stdin string
		err   string
	}{
		{name: "malformed input", stdin: `{"session_id": `, err: "malformed hook input"},
		{name: "empty input", stdin: ``, err: "malformed hook input"},
		{name: "input not an object", stdin: `["PreCompact"]`, err: "malformed hook input"},
		{name: "no transcript path", stdin: `{"session_id":"s","hook_event_name":"PreCompact"}`, err: "transcript_path: required"},
		{name: "another event", stdin: `{"transcript_path":"/x","hook_event_name":"Stop"}`, err: "want PreCompact"},
		{name: "huge input", stdin: `{"custom_instructions":"` + strings.Repeat("x", maxInput) + `"}`, err: "larger than"},
		{name: "missing transcript", stdin: hookJSON(t, filepath.Join(dir, "nope.jsonl"), "s", ""), err: "no such file"},
		{name: "no turns", stdin: hookJSON(t, empty, "s", ""), err: "no user or assistant turns"},
		{name: "corrupt store", args: []string{"--store", corrupt}, stdin: hookJSON(t, transcript, "s", ""), err: "refusing to start"},
		{name: "bad embedder", args: []string{"--embedder", "bert"}, stdin: hookJSON(t, transcript, "s", ""), err: "want hash"},
		{name: "bad flag", args: []string{"--ratio", "0.5"}, stdin: hookJSON(t, transcript, "s", ""), err: "flag provided but not defined"},
		{name: "bad timeout", args: []string{"--timeout", "0s"}, stdin: hookJSON(t, transcript, "s", ""), err: "--timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"--store", good}, tt.args...)
			summary, err := run(t.Context(), args, strings.NewReader(tt.stdin), io.Discard)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
			assert.Empty(t, summary)
		})
	}
	got, err := os.ReadFile(corrupt)
	require.NoError(t, err)
	assert.Equal(t, garbage, got, "a corrupt store is never overwritten")
	_, err = os.Stat(good)
	assert.ErrorIs(t, err, os.ErrNotExist, "no failed run writes the store")
}

func TestRunTimesOutOnOpenStdin(t *testing.T) {
	t.Parallel()
	r, w := io.Pipe()
	defer w.Close()
	start := time.Now()
	_, err := run(t.Context(), []string{"--store", filepath.Join(t.TempDir(), "m"), "--timeout", "50ms"}, r, io.Discard)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 5*time.Second)
}

// TestHookExec runs the built hook: it exits 0 in every case, with one
// line on stderr.
func TestHookExec(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "precompact-hook")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	transcript := writeTranscript(t, 5)
	store := filepath.Join(t.TempDir(), "m.chitta")
	tests := []struct {
		name, stdin, stderr string
		args                []string
	}{
		{name: "compacts", stdin: hookJSON(t, transcript, "s", ""), stderr: "chitta precompact: kept"},
		{name: "malformed input", stdin: "{", stderr: "chitta precompact: skipped: malformed hook input"},
		{name: "bad flag", args: []string{"--nope"}, stdin: hookJSON(t, transcript, "s", ""), stderr: "skipped: flag provided but not defined"},
		{name: "help", args: []string{"-h"}, stderr: "Usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.CommandContext(t.Context(), bin, append([]string{"--store", store}, tt.args...)...)
			cmd.Stdin = strings.NewReader(tt.stdin)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			require.False(t, errors.As(err, &exit), "exit status must be 0: %v, %s", err, stderr.String())
			require.NoError(t, err)
			assert.Empty(t, stdout.String())
			assert.Contains(t, stderr.String(), tt.stderr)
			if tt.name != "help" {
				assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "one line: %s", stderr.String())
			}
		})
	}
}

func TestRealTranscripts(t *testing.T) {
	t.Parallel()
	dir, ok := shareddata.Dir("claude-transcripts")
	if !ok {
		t.Skip("shared/data/claude-transcripts not found above the working directory")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.NoError(t, err)
	store := filepath.Join(t.TempDir(), "m.chitta")
	n := 0
	for _, path := range files {
		summary, err := run(t.Context(), []string{"--store", store, "--distill"}, strings.NewReader(hookJSON(t, path, filepath.Base(path), "")), io.Discard)
		require.NoError(t, err, path)
		assert.Contains(t, summary, "kept")
		n++
	}
	require.Positive(t, n)
	assert.GreaterOrEqual(t, storeLen(t, store), n, "an episode per session")
}
