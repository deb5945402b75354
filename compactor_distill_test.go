package chitta_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/chittatest"
)

// TestCompactorKeepsPlaceholderMemory: with Mask and DistillNovel, a
// compaction masks an old tool result and stores its excerpt, naming the
// memory in the placeholder. The next compaction masks it again, and the
// message, now covered by that very memory, is no distillation candidate:
// the placeholder used to lose the memory's ID (the agent no longer knew
// where the excerpt was) and changed, so the prompt's prefix, and the
// provider's cache, broke at the first masked message of every compaction.
func TestCompactorKeepsPlaceholderMemory(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store := &chittatest.Store{}
	opts := &chitta.Options{Embedder: chittatest.SeededEmbedder{Dims: 64}, Store: store, Tokens: words, DistillNovel: true,
		Mask: &chitta.MaskOptions{KeepRecent: 1, MinTokens: 5}, KeepLast: 50}
	c, err := chitta.NewCompactor(opts, chitta.Policy{MaxTokens: 400, TargetTokens: 300})
	require.NoError(t, err)
	msgs := []chitta.Message{msg(chitta.RoleSystem, "agent"), msg(chitta.RoleUser, "start the work now please")}
	named := map[int]string{} // message index: the memory its placeholder named
	compactions, checked := 0, 0
	var prevKept []int
	for step := range 40 {
		id := fmt.Sprint("c", step)
		msgs = append(msgs,
			chitta.Message{Role: chitta.RoleAssistant, Content: "run " + id, ToolCallIDs: []string{id}},
			chitta.Message{Role: chitta.RoleTool, Content: fmt.Sprintf("result %d: %s", step, text(fmt.Sprint("w", step, "_"), 30)), ToolResultIDs: []string{id}})
		prev := len(named)
		res, err := c.Compact(ctx, msgs)
		require.NoError(t, err)
		if !res.Stats.Compacted {
			prevKept = res.Kept
			continue
		}
		compactions++
		for j, i := range res.Kept {
			m := res.Messages[j]
			if !strings.HasPrefix(m.Content, chitta.MaskPrefix) {
				continue
			}
			if memory, ok := named[i]; ok {
				assert.Contains(t, m.Content, "excerpt in memory "+memory, "step %d: message %d names its memory again", step, i)
				continue
			}
			if _, memory, ok := strings.Cut(strings.TrimSuffix(m.Content, "]"), "excerpt in memory "); ok {
				named[i] = memory // distilled by this compaction
			}
		}
		if prev > 0 {
			// Up to the first message named before, the same messages
			// are kept (nothing older dropped): they are sent as before.
			first := -1
			for j, i := range res.Kept {
				if _, ok := named[i]; ok {
					first = j
					break
				}
			}
			if first >= 0 && slices.Equal(res.Kept[:first+1], prevKept[:min(first+1, len(prevKept))]) {
				assert.Greater(t, res.Stats.StablePrefix, first, "step %d: the placeholders masked before stay as they were", step)
				checked++
			}
		}
		prevKept = res.Kept
	}
	require.GreaterOrEqual(t, compactions, 3)
	require.NotEmpty(t, named)
	require.Positive(t, checked)
}
