package chitta_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/chittatest"
)

// cancellingEmbedder embeds with next, but the first Embed after arm
// cancels the call's context (through the cancel func given to arm) and
// fails as a done context does: a compaction cancelled midway.
type cancellingEmbedder struct {
	next   chitta.Embedder
	cancel atomic.Pointer[context.CancelFunc]
}

func (e *cancellingEmbedder) arm(cancel context.CancelFunc) { e.cancel.Store(&cancel) }

func (e *cancellingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if f := e.cancel.Swap(nil); f != nil {
		(*f)()
		return nil, ctx.Err()
	}
	return e.next.Embed(ctx, texts)
}

// TestCompactorFailedCallsLeaveNoTrace: a Compactor whose session is
// interleaved with failing calls (a message with an unknown role, a done
// context, a compaction cancelled while it embeds) answers every other
// call exactly as one that never saw the failures: same messages, indices
// and stats (cache figures included), across compactions, masking, edited
// history and Reset.
func TestCompactorFailedCallsLeaveNoTrace(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	newOpts := func(e chitta.Embedder, mask bool) *chitta.Options {
		opts := compactorOptions()
		opts.Embedder = e
		if mask {
			opts.Mask = &chitta.MaskOptions{KeepRecent: 1, MinTokens: 5}
		}
		return opts
	}
	midway := 0 // compactions cancelled while embedding
	for seed := range uint64(60) {
		r := rand.New(rand.NewPCG(seed, 18))
		p := chitta.Policy{MaxTokens: 100 + r.IntN(300)}
		if seed%3 == 0 {
			p.Horizon = 1 + r.IntN(10)
		}
		ce := &cancellingEmbedder{next: chittatest.SeededEmbedder{Dims: 8}}
		noisy, err := chitta.NewCompactor(newOpts(ce, seed%2 == 0), p)
		require.NoError(t, err)
		clean, err := chitta.NewCompactor(newOpts(chittatest.SeededEmbedder{Dims: 8}, seed%2 == 0), p)
		require.NoError(t, err)
		msgs := []chitta.Message{msg(chitta.RoleSystem, "you are a coding agent")}
		for step := range 60 {
			msgs = append(msgs, agentStep(r, step)...)
			in := msgs
			var got *chitta.Result
			switch r.IntN(10) {
			case 0:
				_, err := noisy.Compact(ctx, append(append([]chitta.Message{}, in...), msg("stranger", "x")))
				require.ErrorIs(t, err, chitta.ErrUnknownRole)
			case 1:
				done, cancel := context.WithCancel(ctx)
				cancel()
				_, err := noisy.Compact(done, in)
				require.ErrorIs(t, err, context.Canceled)
			case 2, 3:
				// Fails only if this call compacts (and embeds something
				// new); a call that appends succeeds and counts.
				call, cancel := context.WithCancel(ctx)
				ce.arm(cancel)
				res, err := noisy.Compact(call, in)
				if ce.cancel.Swap(nil) == nil {
					require.ErrorIs(t, err, context.Canceled, "seed %d step %d", seed, step)
					midway++
				} else {
					require.NoError(t, err)
					got = res
				}
				cancel()
			case 4:
				if len(in) > 4 {
					in = append([]chitta.Message{}, in...)
					in[len(in)-3].Content += " edited"
				}
			case 5:
				noisy.Reset()
				clean.Reset()
			}
			if got == nil {
				got, err = noisy.Compact(ctx, in)
				require.NoError(t, err)
			}
			want, err := clean.Compact(ctx, in)
			require.NoError(t, err)
			what := fmt.Sprintf("seed %d step %d", seed, step)
			require.Equal(t, want.Stats, got.Stats, what)
			require.Equal(t, want.Kept, got.Kept, what)
			require.Equal(t, want.Messages, got.Messages, what)
		}
	}
	require.Greater(t, midway, 20, "compactions cancelled midway")
}
