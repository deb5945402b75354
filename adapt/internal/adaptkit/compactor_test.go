package adaptkit_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/internal/adaptkit"
)

// turn is a toy SDK message for the Compactor: a text of a role, a tool
// call (tool with args, ID id) or a tool's output for the call id.
type turn struct {
	role     chitta.Role
	text, id string
	tool     string
	args     map[string]any
	meta     string // not converted, as an SDK-only field (a cache breakpoint)
}

func buildTurns(b *adaptkit.Builder, msgs []turn) error {
	for i, m := range msgs {
		switch {
		case m.role == "":
			return fmt.Errorf("message %d: no role", i)
		case m.tool != "":
			b.CallMessage(m.role, m.id, m.tool, m.args)
		case m.id != "":
			b.ResultMessage(m.role, m.id, m.text)
		default:
			b.Message(m.role, m.text)
		}
	}
	return nil
}

// rewriteTurn replaces a tool output's text.
func rewriteTurn(m turn, texts []string) (turn, bool) {
	if m.id == "" || m.tool != "" || len(texts) != 1 {
		return m, false
	}
	if texts[0] != "" {
		m.text = texts[0]
	}
	return m, true
}

// session is an agent session of n messages, its tool outputs long
// enough to be masked; seed varies its texts.
func session(n, seed int) []turn {
	msgs := make([]turn, n)
	for i := range msgs {
		id := fmt.Sprintf("s%d_%d", seed, i/4)
		switch i % 4 {
		case 0:
			msgs[i] = turn{role: chitta.RoleUser, text: fmt.Sprintf("step %d of session %d: check package p%d", i, seed, i%7)}
		case 1:
			msgs[i] = turn{role: chitta.RoleAssistant, id: id, tool: "bash", args: map[string]any{"cmd": fmt.Sprintf("go test ./p%d", i%7)}}
		case 2:
			msgs[i] = turn{role: chitta.RoleTool, id: id, text: fmt.Sprintf("--- FAIL: TestX%d %s", i, strings.Repeat(fmt.Sprintf("line %d of the log ", seed), 30))}
		default:
			msgs[i] = turn{role: chitta.RoleAssistant, text: fmt.Sprintf("p%d fixed in session %d", i%7, seed)}
		}
	}
	return msgs
}

// maskMessages converts msgs in mask mode, as the Compactor does with
// Options.Mask set (synthetic Raw included), in new memory.
func maskMessages(msgs []turn) []chitta.Message {
	var b adaptkit.Builder
	b.StartMask(len(msgs))
	if err := buildTurns(&b, msgs); err != nil {
		panic(err)
	}
	return b.Finish()
}

// TestCompactorMatchesChitta runs a growing session through the typed
// Compactor and through chitta.Compactor on the same conversations
// converted by unpooled builders: every call must give the same Result
// (Kept, Messages with their Raw, Compacted) and, for each kept index,
// the caller's value, or with masking the rewritten one, which converts
// to the Content chitta returned. Between compactions the values are the
// previous call's followed by the new ones.
func TestCompactorMatchesChitta(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts *chitta.Options
	}{
		{"plain", &chitta.Options{}},
		{"mask", &chitta.Options{Mask: &chitta.MaskOptions{}}},
		{"mask cut", &chitta.Options{Mask: &chitta.MaskOptions{MaxResultTokens: 40}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := chitta.Policy{MaxTokens: 3000, TargetTokens: 1500}
			typed, err := adaptkit.NewCompactor(tc.opts, p, buildTurns, rewriteTurn)
			require.NoError(t, err)
			ref, err := chitta.NewCompactor(tc.opts, p)
			require.NoError(t, err)
			full := session(240, 1)
			prev := []turn{}
			compactions, maskedBetween := 0, 0
			for n := 4; n <= len(full); n += 4 {
				edited := false
				switch n {
				case 120: // an SDK-only field changes: the conversation still extends the last one
					for k := range full {
						full[k].meta = "moved"
					}
					edited = true
				case 160: // an edited history: both Compactors start afresh
					full[0].text += " (edited)"
					edited = true
				}
				msgs := slices.Clone(full[:n])
				out, res, err := typed.Compact(t.Context(), msgs)
				require.NoError(t, err)
				cm := maskMessages(msgs)
				if tc.opts.Mask == nil {
					cm, err = adaptkit.Messages(msgs, buildTurns)
					require.NoError(t, err)
				}
				want, err := ref.Compact(t.Context(), cm)
				require.NoError(t, err)
				require.Equal(t, want.Kept, res.Kept, "n=%d", n)
				require.Equal(t, want.Messages, res.Messages, "n=%d", n)
				require.Equal(t, want.Stats, res.Stats, "n=%d", n)
				require.Len(t, out, len(res.Kept))
				for j, i := range res.Kept {
					if res.Messages[j].Content == cm[i].Content {
						assert.Equal(t, msgs[i], out[j], "n=%d: kept %d is the caller's", n, i)
						continue
					}
					require.Contains(t, res.Messages[j].Content, chitta.MaskPrefix, "n=%d: only masking changes a message", n)
					back, err := adaptkit.Messages(out[j:j+1], buildTurns)
					require.NoError(t, err)
					assert.Equal(t, res.Messages[j].Content, back[0].Content, "n=%d: message %d rewritten as chitta masked it", n, i)
					assert.Equal(t, msgs[i].meta, out[j].meta, "n=%d: message %d rewritten from the caller's value of this call", n, i)
					if !res.Stats.Compacted {
						maskedBetween++
					}
				}
				if res.Stats.Compacted {
					compactions++
				} else if !edited {
					require.Equal(t, prev, out[:len(prev)], "n=%d: the previous survivors", n)
					require.Equal(t, msgs[n-4:], out[len(prev):], "n=%d: then the new values", n)
				}
				assert.Equal(t, full[:n], msgs, "n=%d: the caller's values are not modified", n)
				prev = out
			}
			assert.Greater(t, compactions, 1)
			if tc.opts.Mask != nil {
				assert.Positive(t, maskedBetween, "masked values stay masked between compactions")
			}
		})
	}
}

// snapshot is a deep copy of msgs: strings, ID slices and Raw in new
// memory.
func snapshot(msgs []chitta.Message) []chitta.Message {
	out := make([]chitta.Message, len(msgs))
	for i, m := range msgs {
		out[i] = chitta.Message{
			Role: m.Role, Content: strings.Clone(m.Content),
			ToolCallIDs: slices.Clone(m.ToolCallIDs), ToolResultIDs: slices.Clone(m.ToolResultIDs),
			Raw: slices.Clone(m.Raw),
		}
	}
	return out
}

// TestCompactorNoAliasing: the chitta Compactor keeps the converted
// messages of the last call, and a Result between compactions shares its
// Messages with later ones; the pooled Builders that converted them are
// reused, meanwhile, by other conversations (other Compactors, Compact
// calls) running at once. Nothing they reuse may show through: each
// Result's Messages stay what they were when returned, a call between
// compactions returns them again unchanged as its prefix, and the
// extended conversation is recognised (no compaction) every time.
func TestCompactorNoAliasing(t *testing.T) {
	t.Parallel()
	for _, mask := range []bool{false, true} {
		t.Run(fmt.Sprintf("mask=%v", mask), func(t *testing.T) {
			t.Parallel()
			opts := &chitta.Options{}
			if mask {
				opts.Mask = &chitta.MaskOptions{}
			}
			var wg sync.WaitGroup
			for g := range 6 {
				wg.Go(func() {
					c, err := adaptkit.NewCompactor(opts, chitta.Policy{MaxTokens: 1 << 20}, buildTurns, rewriteTurn)
					require.NoError(t, err)
					full := session(120, g)
					var results []*chitta.Result
					var snaps [][]chitta.Message
					for n := 20; n <= len(full); n += 5 {
						// Another conversation on the same pools, in between.
						_, _, err := adaptkit.CompactBuilt(t.Context(), session(n+g, 100+n), opts, buildTurns, rewriteTurn)
						require.NoError(t, err)
						out, res, err := c.Compact(t.Context(), full[:n])
						require.NoError(t, err)
						assert.False(t, res.Stats.Compacted, "n=%d: the extended conversation is recognised", n)
						assert.Equal(t, full[:n], out)
						if k := len(snaps); k > 0 {
							assert.Equal(t, len(snaps[k-1]), res.Stats.StablePrefix, "n=%d", n)
							assert.Equal(t, snaps[k-1], res.Messages[:len(snaps[k-1])], "n=%d: the previous survivors, unchanged", n)
						}
						results, snaps = append(results, res), append(snaps, snapshot(res.Messages))
					}
					for k, res := range results {
						assert.Equal(t, snaps[k], res.Messages, "result %d unchanged since returned", k)
					}
				})
			}
			wg.Wait()
		})
	}
}

func TestCompactorErrors(t *testing.T) {
	t.Parallel()
	var zero adaptkit.Compactor[turn]
	_, _, err := zero.Compact(t.Context(), session(4, 0))
	require.ErrorIs(t, err, chitta.ErrInvalidOption)
	_, err = adaptkit.NewCompactor(nil, chitta.Policy{}, buildTurns, rewriteTurn)
	require.ErrorIs(t, err, chitta.ErrInvalidOption)
	c, err := adaptkit.NewCompactor(nil, chitta.Policy{MaxTokens: 100}, buildTurns, rewriteTurn)
	require.NoError(t, err)
	_, _, err = c.Compact(t.Context(), []turn{{role: chitta.RoleUser, text: "a"}, {}})
	require.ErrorContains(t, err, "message 1: no role")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, _, err = c.Compact(ctx, session(4, 0))
	require.ErrorIs(t, err, context.Canceled)
}
