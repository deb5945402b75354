package adaptkit_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/internal/adaptkit"
)

// call is a toy SDK message for the pooled path: a text, or a tool call
// (name and arguments) with its ID, or a tool result for an ID.
type call struct {
	text, name, id, result string
	args                   map[string]any
}

func buildCalls(b *adaptkit.Builder, msgs []call) error {
	for i, m := range msgs {
		if m.text == "bad" {
			return fmt.Errorf("message %d: bad", i)
		}
		b.SetRole(chitta.RoleUser)
		if m.name != "" {
			b.SetRole(chitta.RoleAssistant)
			b.CallID(m.id)
			b.AddCallJSON(m.name, m.args)
		}
		if m.result != "" {
			b.SetRole(chitta.RoleTool)
			b.ResultID(m.result)
		}
		b.Add(m.text)
		b.End()
	}
	return nil
}

func calls(n, seed int) []call {
	msgs := make([]call, n)
	for i := range msgs {
		k := i + seed%3 // conversations differ in which slots carry IDs
		id := fmt.Sprintf("c%d_%d", seed, k/3)
		switch k % 3 {
		case 0:
			msgs[i] = call{text: fmt.Sprintf("question %d of conversation %d about package p%d", i, seed, i%7)}
		case 1:
			msgs[i] = call{name: "grep", id: id, args: map[string]any{"pattern": fmt.Sprintf("p%d", i), "n": float64(seed)}}
		default:
			msgs[i] = call{result: id, text: fmt.Sprintf("p%d.go:%d: match", i%7, i)}
		}
	}
	return msgs
}

// TestCompactBuiltConcurrent runs conversations of different lengths
// through the pooled path at once, and each must get exactly what the
// unpooled Messages and chitta.Compact give it (the pool's builders, their
// message slices and buffers, are reused across these calls).
func TestCompactBuiltConcurrent(t *testing.T) {
	t.Parallel()
	opts := &chitta.Options{TargetRatio: 0.5}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for r := range 20 {
				msgs := calls(10+(g*37+r*11)%200, g*100+r)
				cm, err := adaptkit.Messages(msgs, buildCalls)
				require.NoError(t, err)
				want, err := chitta.Compact(t.Context(), cm, opts)
				require.NoError(t, err)
				out, res, err := adaptkit.CompactBuilt(t.Context(), msgs, opts, buildCalls, nil)
				require.NoError(t, err)
				assert.Equal(t, want.Kept, res.Kept)
				assert.Equal(t, want.Messages, res.Messages)
				require.Len(t, out, len(res.Kept))
				for j, i := range res.Kept {
					assert.Equal(t, msgs[i], out[j])
				}
			}
		})
	}
	wg.Wait()
	_, _, err := adaptkit.CompactBuilt(t.Context(), []call{{text: "ok"}, {text: "bad"}}, opts, buildCalls, nil)
	require.ErrorContains(t, err, "message 1: bad")
}
