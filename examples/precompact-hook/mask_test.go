package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With --mask, the brief lists the tool calls whose large output the
// compaction elided, and --distill stores their excerpts.
func TestPreCompactMask(t *testing.T) {
	t.Parallel()
	transcript := maskTranscript(t)
	store := filepath.Join(t.TempDir(), "memory.chitta")

	r := runHook(t, strings.NewReader(hookJSON(t, "PreCompact", transcript, "sess-m", "")), "--store", store, "--mask", "--distill")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "Tool calls whose output chitta elided")
	assert.Contains(t, r.stdout, "- Read src/loader0.go — output elided (195 tokens), memory ")
	// Every call is kept: at the hook's ratio the five reads fit only with
	// the recent outputs masked too, and the newest is whole again first.
	assert.NotContains(t, r.stdout, "src/loader4.go — output elided", "the newest output is not masked")
	assert.Contains(t, r.stderr, "kept 12 of 12 turns")
	assert.Contains(t, r.stderr, "4 tool results masked (4 listed)")

	plain := runHook(t, strings.NewReader(hookJSON(t, "PreCompact", transcript, "sess-m", "")), "--store", store)
	require.Equal(t, 0, plain.code, plain.stderr)
	assert.NotContains(t, plain.stdout, "output elided")
	assert.NotContains(t, plain.stderr, "masked")
}

// maskTranscript writes a transcript of five reads of 150-word outputs
// between two prompts, whose older outputs --mask elides, and returns its
// path.
func maskTranscript(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(entry(t, "user", "p0", "", "Please read the loaders and fix the config bug."))
	for i := range 5 {
		id := fmt.Sprintf("toolu_%d", i)
		body := make([]string, 150)
		for k := range body {
			body[k] = fmt.Sprintf("line%d_%d", i, k)
		}
		b.WriteString(entry(t, "assistant", fmt.Sprintf("a%d", i), fmt.Sprintf("msg_%d", i), []any{map[string]any{"type": "tool_use", "id": id, "name": "Read", "input": map[string]any{"file_path": fmt.Sprintf("src/loader%d.go", i)}}}))
		b.WriteString(entry(t, "user", fmt.Sprintf("r%d", i), "", []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": strings.Join(body, " ")}}))
	}
	b.WriteString(entry(t, "user", "p1", "", "Now fix the config loader."))
	transcript := filepath.Join(t.TempDir(), "session.jsonl")
	require.NoError(t, os.WriteFile(transcript, []byte(b.String()), 0o600))
	return transcript
}

// TestPreCompactNoStoreNoDistill: with --distill and a store that cannot
// be opened, PreCompact distils nothing, for there is nowhere to keep it,
// and says so: it used to distil into the empty stand-in it then threw
// away, report "N memories distilled", and with --mask name in the brief
// memory IDs of excerpts that were never stored.
func TestPreCompactNoStoreNoDistill(t *testing.T) {
	t.Parallel()
	transcript := maskTranscript(t)
	corrupt := filepath.Join(t.TempDir(), "memory.chitta")
	require.NoError(t, os.WriteFile(corrupt, []byte("not a store"), 0o600))

	r := runHook(t, strings.NewReader(hookJSON(t, "PreCompact", transcript, "sess-m", "")), "--store", corrupt, "--mask", "--distill")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "- Read src/loader0.go — output elided (195 tokens)\n", "no memory ID: nothing was stored")
	assert.NotContains(t, r.stdout, "), memory ")
	assert.Contains(t, r.stderr, "4 tool results masked (4 listed), no memories distilled (--distill: no store to keep them in); opening the store failed")
	assert.NotContains(t, r.stderr, "memories distilled;")
	got, err := os.ReadFile(corrupt)
	require.NoError(t, err)
	assert.Equal(t, "not a store", string(got))
}
