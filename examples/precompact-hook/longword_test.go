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

// TestLongWordsCut: what the hook prints is bounded in bytes, not only in
// words. A prompt holding a pasted 300 000-character token (no spaces) made
// PreCompact print it whole in the brief's excerpt (300 605 bytes on
// stdout, reported as "brief of 146 tokens"), and SessionStart printed it
// back from the stored brief, and whole from a memory holding one; the cap
// counts words, and that is one word. Now no word the hook prints is
// longer than an artifact (brief.MaxItemRunes runes, "…" and a comma).
func TestLongWordsCut(t *testing.T) {
	t.Parallel()
	blob := strings.Repeat("A", 300_000)
	const maxWord = briefWordRunes + 1 // and the "…" of a cut

	t.Run("PreCompact", func(t *testing.T) {
		t.Parallel()
		var b strings.Builder
		for i := range 10 {
			b.WriteString(entry(t, "user", fmt.Sprintf("p%d", i), "", fmt.Sprintf("Round %d: please look at the config loader.", i)))
			b.WriteString(entry(t, "assistant", fmt.Sprintf("a%d", i), fmt.Sprintf("m%d", i), []any{map[string]any{"type": "text", "text": "The loader is fine."}}))
		}
		b.WriteString(entry(t, "user", "last", "", "Here is the token: "+blob+" please decode it"))
		transcript := filepath.Join(t.TempDir(), "session.jsonl")
		require.NoError(t, os.WriteFile(transcript, []byte(b.String()), 0o600))

		r := runHook(t, strings.NewReader(hookJSON(t, "PreCompact", transcript, "s", "")), "--store", filepath.Join(t.TempDir(), "memory.chitta"))
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, "[user] Here is the token: AAAA")
		assert.NotRegexp(t, fmt.Sprintf(`\S{%d}`, maxWord+1), r.stdout, "a word over %d runes", maxWord)
		assert.Less(t, len(r.stdout), 16<<10)
	})

	t.Run("SessionStart", func(t *testing.T) {
		t.Parallel()
		transcript := writeTranscript(t, 25) // its last prompt is about the release notes
		// A brief stored by an earlier hook, and a memory, each with the blob.
		store := seedStore(t, brief.Header+"\n- [user] Here is the token: "+blob+" please decode it\nFiles: src/a.go",
			"Round 24: please look at the release notes and tell me what is wrong. The token is "+blob)
		r := runHook(t, strings.NewReader(hookJSON(t, "SessionStart", transcript, "s", "compact")), "--store", store)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, "[fact] Round 24")
		assert.Contains(t, r.stdout, "- [user] Here is the token: AAAA")
		assert.Contains(t, r.stdout, "Files: src/a.go")
		assert.NotRegexp(t, fmt.Sprintf(`\S{%d}`, maxWord+1), r.stdout, "a word over %d runes", maxWord)
		assert.Less(t, len(r.stdout), 16<<10)
	})
}
