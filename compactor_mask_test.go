package chitta_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// TestCompactorMaskStats: with Mask, the masking figures of every result,
// compacting or not, describe what it returns: Stats.Masked counts the
// returned messages masking rewrote (those that differ from the input
// message at their index) and MaskedTokens the tokens that saved, so a
// call between compactions reports the masked survivors it returns.
func TestCompactorMaskStats(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	for _, p := range []chitta.Policy{{MaxTokens: 600}, {MaxTokens: 400, TargetTokens: 100, Horizon: 20}} {
		t.Run(fmt.Sprint(p.MaxTokens, "/", p.Horizon), func(t *testing.T) {
			t.Parallel()
			c, err := chitta.NewCompactor(&chitta.Options{Tokens: words, Mask: &chitta.MaskOptions{KeepRecent: 1, MinTokens: 5}}, p)
			require.NoError(t, err)
			r := rand.New(rand.NewPCG(uint64(p.MaxTokens), 3))
			msgs := []chitta.Message{msg(chitta.RoleSystem, "you are a coding agent")}
			between := 0 // non-compacting calls returning masked messages
			for step := range 200 {
				msgs = append(msgs, agentStep(r, step)...)
				res, err := c.Compact(ctx, msgs)
				require.NoError(t, err, "step %d", step)
				masked, saved := 0, 0
				for j, i := range res.Kept {
					if got := res.Messages[j]; got.Content != msgs[i].Content {
						masked++
						saved += words.CountTokens(msgs[i].Content) - words.CountTokens(got.Content)
					}
				}
				assert.Equal(t, masked, res.Stats.Masked, "step %d (compacted %v)", step, res.Stats.Compacted)
				assert.Equal(t, saved, res.Stats.MaskedTokens, "step %d (compacted %v)", step, res.Stats.Compacted)
				cached := 0
				for _, m := range res.Messages[:res.Stats.StablePrefix] {
					cached += words.CountTokens(m.Content)
				}
				assert.Equal(t, cached, res.Stats.CachedTokens, "step %d (compacted %v): the returned prefix", step, res.Stats.Compacted)
				if !res.Stats.Compacted && masked > 0 {
					between++
				}
			}
			assert.Greater(t, between, 10, "calls between compactions return masked survivors")
		})
	}
}
