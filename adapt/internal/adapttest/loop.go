package adapttest

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/internal/adaptbench"
)

// Looper is an adapter's Compactor.
type Looper[T any] interface {
	Compact(ctx context.Context, msgs []T) ([]T, *chitta.Result, error)
}

// LoopSteps is a conversation of n messages for [Loop], of the four kinds
// of adaptbench.Steps, whose tool outputs are long enough (about 200
// tokens) to be masked.
func LoopSteps(n int) []adaptbench.Step {
	steps := adaptbench.Steps(n)
	for i := range steps {
		if steps[i].Kind == adaptbench.Result {
			steps[i].Text += "\n" + strings.Repeat(fmt.Sprintf("ok  \tp%d/sub%d\t0.%03ds\n", i%17, i, i), 20)
		}
	}
	return steps
}

// Loop runs conversation() as an agent loop would run it through an
// adapter's Compactor (made by newCompactor, the adapter's NewCompactor): the whole conversation so far at each call, three
// more messages each time, under a Policy that compacts a few times
// (MaxTokens a third of the whole conversation's tokens, TargetTokens a
// sixth), without masking, with Mask at its defaults, and with a
// MaxResultTokens cut. At every call it checks that:
//   - each returned value is the input value at its kept index
//     (reflect.DeepEqual), or, for a message chitta masked, a rewritten
//     value that messages converts to a Content holding chitta's
//     placeholder;
//   - call/result pairs are intact: a kept result's call is kept, and a
//     kept call's results in the conversation so far are kept;
//   - without masking, the Result (Kept, Messages, Stats) is the one
//     chitta.Compactor gives on messages of the same conversations, index
//     for index; with masking (where the adapter gives chitta its own
//     Raw), a compacting call returns the values and Kept of compact,
//     the adapter's one-shot Compact, with MaxTokens = TargetTokens;
//   - a call that does not compact returns the previous call's values
//     (masked ones still masked, reflect.DeepEqual) followed by the new
//     input values, and its Result.Messages start with the previous
//     Result's;
//
// and at the end that the conversation was compacted more than once,
// masked values were returned between compactions (with masking), and
// the input was not modified. conversation must build a fresh, equal
// conversation on each call, every tool call answered.
func Loop[T any, C Looper[T]](t *testing.T, conversation func() []T, newCompactor func(*chitta.Options, chitta.Policy) (C, error), messages MessagesFunc[T], compact CompactFunc[T]) {
	t.Helper()
	full := conversation()
	cm, err := messages(full)
	require.NoError(t, err)
	total := 0
	for k := range cm {
		total += Count(nil, &cm[k])
	}
	p := chitta.Policy{MaxTokens: total / 3, TargetTokens: total / 6}
	for _, tc := range []struct {
		name string
		opts *chitta.Options
	}{
		{"plain", &chitta.Options{}},
		{"mask", &chitta.Options{Mask: &chitta.MaskOptions{}}},
		{"mask cut", &chitta.Options{Mask: &chitta.MaskOptions{MaxResultTokens: 60}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loop, err := newCompactor(tc.opts, p)
			require.NoError(t, err)
			ref, err := chitta.NewCompactor(tc.opts, p)
			require.NoError(t, err)
			prev := []T{}
			var prevRes *chitta.Result
			compactions, maskedBetween := 0, 0
			for n := 3; n <= len(full); n += 3 {
				msgs := full[:n]
				out, res, err := loop.Compact(t.Context(), msgs)
				require.NoError(t, err, "n=%d", n)
				require.Len(t, out, len(res.Kept), "n=%d", n)
				cm, err := messages(msgs)
				require.NoError(t, err)
				got, err := messages(out)
				require.NoError(t, err, "n=%d: the returned values convert again", n)
				masked := loopValues(t, n, msgs, out, res, cm, got)
				loopPairs(t, n, res.Kept, cm)
				if tc.opts.Mask == nil {
					want, err := ref.Compact(t.Context(), cm)
					require.NoError(t, err)
					require.Equal(t, want.Kept, res.Kept, "n=%d", n)
					require.Equal(t, want.Messages, res.Messages, "n=%d", n)
					require.Equal(t, want.Stats, res.Stats, "n=%d", n)
				}
				if res.Stats.Compacted {
					compactions++
					if tc.opts.Mask != nil {
						o := *tc.opts
						o.MaxTokens = p.TargetTokens
						want, wantRes, err := compact(t.Context(), msgs, &o)
						require.NoError(t, err)
						require.Equal(t, wantRes.Kept, res.Kept, "n=%d", n)
						require.True(t, reflect.DeepEqual(want, out), "n=%d: the one-shot Compact's values", n)
					}
				} else {
					maskedBetween += masked
					require.Len(t, res.Kept, len(prev)+3, "n=%d: previous survivors and the new messages", n)
					require.True(t, reflect.DeepEqual(prev, out[:len(prev)]), "n=%d: the previous call's values", n)
					require.True(t, reflect.DeepEqual(msgs[n-3:], out[len(prev):]), "n=%d: then the new values", n)
					if prevRes != nil {
						require.Equal(t, prevRes.Messages, res.Messages[:len(prevRes.Messages)], "n=%d", n)
					}
				}
				prev, prevRes = out, res
			}
			assert.Greater(t, compactions, 1, "compactions")
			if tc.opts.Mask != nil {
				assert.Positive(t, maskedBetween, "masked values returned between compactions")
			}
			assert.True(t, reflect.DeepEqual(conversation(), full), "input not modified")
		})
	}
}

// loopValues checks each value of out (got converted) against the input
// msgs (cm converted), and returns how many are masked.
func loopValues[T any](t *testing.T, n int, msgs, out []T, res *chitta.Result, cm, got []chitta.Message) int {
	t.Helper()
	masked := 0
	for j, i := range res.Kept {
		if reflect.DeepEqual(msgs[i], out[j]) {
			assert.Equal(t, cm[i].Content, res.Messages[j].Content, "n=%d message %d: an unmasked value, chitta's message unmasked", n, i)
			continue
		}
		masked++
		assert.Contains(t, got[j].Content, chitta.MaskPrefix, "n=%d message %d: a value that is not the caller's is masked", n, i)
		assert.Equal(t, strings.Fields(res.Messages[j].Content), strings.Fields(got[j].Content), "n=%d message %d: the words chitta returned", n, i)
		if res.Scores != nil {
			assert.True(t, res.Scores[i].Masked, "n=%d message %d: masked by chitta", n, i)
		}
	}
	return masked
}

// loopPairs checks that kept, indices into the conversation cm, keeps
// each result with its call and each call with its results in cm.
func loopPairs(t *testing.T, n int, kept []int, cm []chitta.Message) {
	t.Helper()
	in := make([]bool, len(cm))
	for _, i := range kept {
		in[i] = true
	}
	callAt := map[string]int{}
	for i, m := range cm {
		for _, id := range m.ToolCallIDs {
			callAt[id] = i
		}
		for _, id := range m.ToolResultIDs {
			if c, ok := callAt[id]; ok && c != i {
				assert.Equal(t, in[c], in[i], "n=%d: result %d is kept with its call %d", n, i, c)
			}
		}
	}
}
