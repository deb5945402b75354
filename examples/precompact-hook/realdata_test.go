package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/internal/testkit/shareddata"
)

// TestRealTranscripts runs the hook as Claude Code does on every real
// transcript of the shared data, twice with --distill over one store: each
// compaction prints a brief within the cap, adds at most --distill-max
// memories, and none of the stored memories is Claude Code boilerplate or
// assistant filler. The data is required in CI (it sits beside the clone).
func TestRealTranscripts(t *testing.T) {
	t.Parallel()
	dir := shareddata.ForTest(t, "claude-transcripts")
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			store := filepath.Join(t.TempDir(), "m.chitta")
			facts := 0
			for round := range 2 {
				r := runHook(t, strings.NewReader(hookJSON(t, "PreCompact", path, "real", "")), "--store", store, "--distill")
				require.Equal(t, 0, r.code, r.stderr)
				assert.True(t, strings.HasPrefix(r.stdout, "Preservation brief from chitta"))
				assert.LessOrEqual(t, chitta.EstimateTokens(r.stdout), 1500)
				k := kinds(t, store)
				n := 0
				for kind, c := range k {
					if kind != chitta.KindEpisode && kind != chitta.KindBrief {
						n += c
					}
				}
				assert.LessOrEqual(t, n-facts, 8, "round %d: at most --distill-max memories", round)
				facts = n
				assert.Equal(t, round+1, k[chitta.KindEpisode])
				assert.Equal(t, 1, k[chitta.KindBrief])
			}
			s, err := chitta.LoadHNSWStore(store)
			require.NoError(t, err)
			for m := range s.All() {
				body, isDistilled := strings.CutPrefix(m.Text, chitta.DistillPrefix)
				if !isDistilled {
					continue
				}
				role, body, _ := strings.Cut(body, "] ")
				for _, bad := range []string{"<tool_use_error>", "doesn't want to proceed", "Request interrupted", "<command-name>", "<local-command-"} {
					assert.NotContains(t, body, bad)
				}
				assert.False(t, chitta.IsFiller(chitta.Role(role), body), "filler stored: %q", body)
			}
		})
	}
}
