package chitta_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/chittatest"
)

// agentStep returns the messages one step of an agent loop appends: a user
// prompt, an assistant reply, or a tool call with its results (OpenAI or
// Anthropic form, sometimes parallel). Every step leaves the conversation
// valid.
func agentStep(r *rand.Rand, step int) []chitta.Message {
	vocab := []string{"deploy", "config", "parseConfig", "error", "the", "test", "fix", "user", "memory", "go", "build", "ok", "flight", "cancel"}
	say := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = vocab[r.IntN(len(vocab))]
		}
		return strings.Join(w, " ")
	}
	switch k := r.IntN(10); {
	case k < 2 || step == 0:
		return []chitta.Message{msg(chitta.RoleUser, say(1+r.IntN(30)))}
	case k < 4:
		return []chitta.Message{msg(chitta.RoleAssistant, say(1+r.IntN(30)))}
	default:
		n := 1 + r.IntN(2)
		call := chitta.Message{Role: chitta.RoleAssistant, Content: say(r.IntN(10))}
		anthropic := r.IntN(2) == 0
		out := []chitta.Message{call}
		for j := range n {
			id := fmt.Sprintf("s%d_%d", step, j)
			out[0].ToolCallIDs = append(out[0].ToolCallIDs, id)
			role := chitta.RoleTool
			if anthropic {
				role = chitta.RoleUser
			}
			out = append(out, chitta.Message{Role: role, Content: say(1 + r.IntN(40)), ToolResultIDs: []string{id}})
		}
		return out
	}
}

func compactorOptions() *chitta.Options {
	store := &chittatest.Store{}
	for i := range 4 {
		store.Memories = append(store.Memories, chitta.Memory{ID: fmt.Sprint(i), Vector: chittatest.SeededVector(fmt.Sprint("mem", i), 8)})
	}
	return &chitta.Options{Embedder: chittatest.SeededEmbedder{Dims: 8}, Store: store, Query: "fix the config error", Tokens: words}
}

func TestCompactorAppendOnlySession(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	for _, p := range []chitta.Policy{
		{MaxTokens: 600},
		{MaxTokens: 900, TargetTokens: 700},
		{MaxTokens: 400, TargetTokens: 100, Horizon: 20},
	} {
		t.Run(fmt.Sprint(p.MaxTokens, "/", p.TargetTokens, "/", p.Horizon), func(t *testing.T) {
			t.Parallel()
			opts := compactorOptions()
			c, err := chitta.NewCompactor(opts, p)
			require.NoError(t, err)
			target := p.TargetTokens
			if target == 0 {
				target = p.MaxTokens / 2
			}
			ref := *opts
			ref.MaxTokens = target

			r := rand.New(rand.NewPCG(uint64(p.MaxTokens), 7))
			msgs := []chitta.Message{msg(chitta.RoleSystem, "you are a coding agent")}
			prev := &chitta.Result{} // before the first call: nothing sent
			prevLen, total := 0, words.CountTokens(msgs[0].Content)
			lastCompaction, compactions := -1, 0
			prevOver := false
			for step := range 200 {
				for _, m := range agentStep(r, step) {
					msgs = append(msgs, m)
					total += words.CountTokens(m.Content)
				}
				res, err := c.Compact(ctx, msgs)
				require.NoError(t, err, "step %d", step)
				require.NoError(t, chitta.Validate(res.Messages), "step %d", step)
				require.Equal(t, total, res.Stats.BeforeTokens, "step %d", step)
				if res.Stats.Compacted {
					want, err := chitta.Compact(ctx, msgs, &ref)
					require.NoError(t, err)
					assert.Equal(t, want.Kept, res.Kept, "step %d", step)
					assert.Equal(t, want.Messages, res.Messages, "step %d", step)
					assert.Equal(t, want.Scores, res.Scores, "step %d", step)
					assert.Equal(t, want.Stats.AfterTokens, res.Stats.AfterTokens, "step %d", step)
					// At most once per MaxTokens − TargetTokens of growth
					// (when the last compaction met its target).
					if lastCompaction >= 0 && !prevOver && p.Horizon == 0 {
						assert.GreaterOrEqual(t, total-lastCompaction, p.MaxTokens-target, "step %d", step)
					}
					lastCompaction, prevOver = total, res.Stats.OverBudget
					compactions++
				} else {
					assert.Nil(t, res.Scores)
					want := append(append([]chitta.Message{}, prev.Messages...), msgs[prevLen:]...)
					assert.Equal(t, want, res.Messages, "step %d: previous survivors + new messages", step)
					wantKept := append([]int{}, prev.Kept...)
					for i := prevLen; i < len(msgs); i++ {
						wantKept = append(wantKept, i)
					}
					assert.Equal(t, wantKept, res.Kept)
					assert.Equal(t, len(prev.Messages), res.Stats.StablePrefix)
					if p.Horizon == 0 {
						assert.LessOrEqual(t, res.Stats.AfterTokens, p.MaxTokens)
					}
				}
				prev, prevLen = res, len(msgs)
			}
			assert.GreaterOrEqual(t, compactions, 3, "the session grows well past MaxTokens")
		})
	}
}

func TestCompactorFirstCallsAppend(t *testing.T) {
	t.Parallel()
	c, err := chitta.NewCompactor(&chitta.Options{Tokens: words}, chitta.Policy{MaxTokens: 10})
	require.NoError(t, err)
	res, err := c.Compact(t.Context(), nil)
	require.NoError(t, err)
	assert.Empty(t, res.Messages)
	assert.NotNil(t, res.Messages)
	msgs := []chitta.Message{msg(chitta.RoleSystem, "s s"), msg(chitta.RoleUser, "a b c")}
	res, err = c.Compact(t.Context(), msgs)
	require.NoError(t, err)
	assert.Equal(t, msgs, res.Messages)
	assert.Equal(t, []int{0, 1}, res.Kept)
	assert.False(t, res.Stats.Compacted)
	assert.Zero(t, res.Stats.StablePrefix)
	assert.Equal(t, 5, res.Stats.AfterTokens)
	assert.Equal(t, 10, res.Stats.TargetTokens)

	// The result shares its array with later ones, capped: the caller's
	// appends go elsewhere.
	mine := append(res.Messages, msg(chitta.RoleAssistant, "not sent"))
	mineKept := append(res.Kept, 99)
	msgs = append(msgs, msg(chitta.RoleAssistant, "d"))
	next, err := c.Compact(t.Context(), msgs)
	require.NoError(t, err)
	assert.Equal(t, msgs, next.Messages)
	assert.Equal(t, []int{0, 1, 2}, next.Kept)
	assert.Equal(t, "not sent", mine[2].Content)
	assert.Equal(t, 99, mineKept[2])
}

func TestCompactorEditedHistoryRestarts(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	r := rand.New(rand.NewPCG(3, 3))
	var msgs []chitta.Message
	for step := range 40 {
		msgs = append(msgs, agentStep(r, step)...)
	}
	p := chitta.Policy{MaxTokens: 300}
	edited := append([]chitta.Message{}, msgs...)
	edited[3].Content += " edited"
	for _, tt := range []struct {
		name  string
		after []chitta.Message
	}{
		{"edited message", edited},
		{"truncated history", msgs[:len(msgs)/2]},
		{"edited and grown", append(append([]chitta.Message{}, edited...), msg(chitta.RoleUser, "more"))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := chitta.NewCompactor(compactorOptions(), p)
			require.NoError(t, err)
			for n := 1; n <= len(msgs); n++ { // a session that compacted on the way
				_, err := c.Compact(ctx, msgs[:n])
				require.NoError(t, err)
			}
			got, err := c.Compact(ctx, tt.after)
			require.NoError(t, err)
			fresh, err := chitta.NewCompactor(compactorOptions(), p)
			require.NoError(t, err)
			want, err := fresh.Compact(ctx, tt.after)
			require.NoError(t, err)
			assert.Equal(t, want.Stats.Compacted, got.Stats.Compacted)
			assert.Equal(t, want.Kept, got.Kept)
			assert.Equal(t, want.Messages, got.Messages)

			// And it carries on from the new conversation.
			next := append(append([]chitta.Message{}, tt.after...), msg(chitta.RoleUser, "next"))
			a, err := c.Compact(ctx, next)
			require.NoError(t, err)
			b, err := fresh.Compact(ctx, next)
			require.NoError(t, err)
			assert.Equal(t, b.Kept, a.Kept)
		})
	}
}

func TestCompactorCacheAccounting(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	c, err := chitta.NewCompactor(&chitta.Options{Tokens: words}, chitta.Policy{MaxTokens: 20, TargetTokens: 10})
	require.NoError(t, err)
	sys := msg(chitta.RoleSystem, text("s", 4))
	msgs := []chitta.Message{sys, msg(chitta.RoleUser, text("a", 4))}

	// The first call writes everything.
	res, err := c.Compact(ctx, msgs)
	require.NoError(t, err)
	st := res.Stats
	assert.Zero(t, st.CachedTokens)
	assert.InDelta(t, 1.25*8, st.BilledInput, 1e-9)
	assert.InDelta(t, 1.25*8, st.BilledFull, 1e-9)
	assert.InDelta(t, 1, st.BilledRatio, 1e-12)

	// Appending reads the previous prompt and writes the new message.
	msgs = append(msgs, msg(chitta.RoleAssistant, text("b", 6)))
	res, err = c.Compact(ctx, msgs)
	require.NoError(t, err)
	st = res.Stats
	assert.False(t, st.Compacted)
	assert.Equal(t, 2, st.StablePrefix)
	assert.Equal(t, 8, st.CachedTokens)
	assert.InDelta(t, 0.1*8+1.25*6, st.BilledInput, 1e-9)
	assert.InDelta(t, st.BilledInput, st.BilledFull, 1e-9)

	// Over 20 tokens: compaction to 10 keeps the system prompt (a cache
	// hit) and the live turn, and rewrites the rest.
	msgs = append(msgs, msg(chitta.RoleUser, text("c", 7)))
	res, err = c.Compact(ctx, msgs)
	require.NoError(t, err)
	st = res.Stats
	require.True(t, st.Compacted)
	assert.Equal(t, []int{0, 3}, res.Kept)
	assert.Equal(t, 1, st.StablePrefix)
	assert.Equal(t, 4, st.CachedTokens)
	assert.InDelta(t, 0.1*4+1.25*7, st.BilledInput, 1e-9)
	assert.InDelta(t, 0.1*14+1.25*7, st.BilledFull, 1e-9)
	assert.InDelta(t, st.BilledInput/st.BilledFull, st.BilledRatio, 1e-12)

	// Custom prices, in units of Input.
	c, err = chitta.NewCompactor(&chitta.Options{Tokens: words}, chitta.Policy{MaxTokens: 20, Pricing: chitta.Pricing{Input: 2, CacheWrite: 2, CacheRead: 1}})
	require.NoError(t, err)
	_, err = c.Compact(ctx, msgs[:2])
	require.NoError(t, err)
	res, err = c.Compact(ctx, msgs[:3])
	require.NoError(t, err)
	assert.InDelta(t, (1*8+2*6)/2.0, res.Stats.BilledInput, 1e-9)
}

func TestCompactorHorizonGate(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	grow := func(c *chitta.Compactor, n int) (compactedAt []int) {
		msgs := []chitta.Message{msg(chitta.RoleSystem, text("s", 10))}
		for i := range n {
			role := chitta.RoleUser
			if i%2 == 1 {
				role = chitta.RoleAssistant
			}
			msgs = append(msgs, msg(role, text(fmt.Sprint("w", i), 10)))
			res, err := c.Compact(ctx, msgs)
			require.NoError(t, err)
			if res.Stats.Compacted {
				compactedAt = append(compactedAt, res.Stats.BeforeTokens)
			}
		}
		return compactedAt
	}
	// Compaction to 100 of a 210-token context costs 1.25 × 90 written
	// against 0.1 × 110 saved per later call: it pays after 11 calls.
	for _, tt := range []struct {
		horizon int
		first   int // context size of the first compaction
	}{
		{0, 210},  // no gate: as soon as it exceeds MaxTokens
		{50, 210}, // pays for itself at once
		{2, 260},  // never pays within 2 calls: only past MaxTokens + HardLimit (50)
	} {
		c, err := chitta.NewCompactor(&chitta.Options{Tokens: words}, chitta.Policy{MaxTokens: 200, TargetTokens: 100, Horizon: tt.horizon})
		require.NoError(t, err)
		at := grow(c, 30)
		require.NotEmpty(t, at, "horizon %d", tt.horizon)
		assert.Equal(t, tt.first, at[0], "horizon %d", tt.horizon)
	}
	c, err := chitta.NewCompactor(&chitta.Options{Tokens: words}, chitta.Policy{MaxTokens: 200, TargetTokens: 100, Horizon: 2, HardLimit: 100})
	require.NoError(t, err)
	assert.Equal(t, 310, grow(c, 30)[0], "HardLimit")
	// No hard limit in practice: MaxTokens + HardLimit overflowed int, so
	// every call past MaxTokens compacted, as if the gate were off.
	c, err = chitta.NewCompactor(&chitta.Options{Tokens: words}, chitta.Policy{MaxTokens: 200, TargetTokens: 100, Horizon: 2, HardLimit: math.MaxInt})
	require.NoError(t, err)
	assert.Empty(t, grow(c, 30), "HardLimit math.MaxInt: the gate alone decides")
}

func TestCompactorSharesCaches(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	emb := &chittatest.CountingEmbedder{Next: chittatest.SeededEmbedder{Dims: 8}}
	counted := 0
	var mu sync.Mutex
	tokens := chitta.TokenCounterFunc(func(s string) int {
		mu.Lock()
		counted++
		mu.Unlock()
		return len(strings.Fields(s))
	})
	c, err := chitta.NewCompactor(&chitta.Options{Embedder: emb, Tokens: tokens}, chitta.Policy{MaxTokens: 200})
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(5, 5))
	var msgs []chitta.Message
	compactions, calls := 0, 0
	for step := range 100 {
		msgs = append(msgs, agentStep(r, step)...)
		before := emb.Calls()
		res, err := c.Compact(ctx, msgs)
		require.NoError(t, err)
		calls++
		if res.Stats.Compacted {
			compactions++
		} else {
			assert.Equal(t, before, emb.Calls(), "step %d: appending embeds nothing", step)
		}
	}
	require.Greater(t, compactions, 2)
	texts := emb.Texts()
	seen := map[string]bool{}
	for _, s := range texts {
		assert.False(t, seen[s], "%q embedded twice", s)
		seen[s] = true
	}
	assert.LessOrEqual(t, counted, len(msgs)+calls, "each message counted about once")
}

func TestCompactorConcurrent(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	c, err := chitta.NewCompactor(compactorOptions(), chitta.Policy{MaxTokens: 300})
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(9, 9))
	var msgs []chitta.Message
	var cuts []int
	for step := range 120 {
		msgs = append(msgs, agentStep(r, step)...)
		cuts = append(cuts, len(msgs))
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := g; k < len(cuts); k += 2 { // overlapping, out of order
				in := msgs[:cuts[k]]
				res, err := c.Compact(ctx, in)
				if !assert.NoError(t, err) {
					return
				}
				assert.NoError(t, chitta.Validate(res.Messages))
				for j, i := range res.Kept {
					assert.Equal(t, in[i], res.Messages[j])
				}
				if !res.Stats.Compacted {
					assert.LessOrEqual(t, res.Stats.AfterTokens, 300)
				}
			}
		}()
	}
	wg.Wait()
	// Serialized: the state is one of the callers', and the next call
	// behaves as for any previous conversation.
	res, err := c.Compact(ctx, msgs)
	require.NoError(t, err)
	assert.LessOrEqual(t, res.Stats.AfterTokens, 300)
}

func TestCompactorErrors(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	for _, tt := range []struct {
		p    chitta.Policy
		want string
	}{
		{chitta.Policy{}, "Policy.MaxTokens 0"},
		{chitta.Policy{MaxTokens: 1}, "Policy.MaxTokens 1"},
		{chitta.Policy{MaxTokens: 100, TargetTokens: 100}, "Policy.TargetTokens 100"},
		{chitta.Policy{MaxTokens: 100, TargetTokens: -1}, "Policy.TargetTokens -1"},
		{chitta.Policy{MaxTokens: 100, Horizon: -1}, "Policy.Horizon -1"},
		{chitta.Policy{MaxTokens: 100, HardLimit: -1}, "Policy.HardLimit -1"},
		{chitta.Policy{MaxTokens: 100, Pricing: chitta.Pricing{CacheRead: math.NaN()}}, "Policy.Pricing.CacheRead NaN"},
		{chitta.Policy{MaxTokens: 100, Pricing: chitta.Pricing{Input: -1}}, "Policy.Pricing.Input -1"},
		// so large that the Stats estimates overflow to +Inf or NaN, which
		// json.Marshal refuses
		{chitta.Policy{MaxTokens: 100, Pricing: chitta.Pricing{CacheRead: 1e308}}, "Policy.Pricing.CacheRead 1e+308, want a finite price in [0, 1e+12]"},
	} {
		_, err := chitta.NewCompactor(nil, tt.p)
		require.ErrorIs(t, err, chitta.ErrInvalidOption, tt.want)
		assert.Contains(t, err.Error(), tt.want)
	}
	_, err := chitta.NewCompactor(&chitta.Options{KeepLast: -1}, chitta.Policy{MaxTokens: 10})
	require.ErrorIs(t, err, chitta.ErrInvalidOption)
	// The budget options the Compactor replaces are still checked, as
	// Compact checks them.
	for _, o := range []chitta.Options{{TargetRatio: math.NaN()}, {TargetRatio: math.Inf(1)}, {TargetRatio: -0.5}} {
		_, err = chitta.NewCompactor(&o, chitta.Policy{MaxTokens: 10})
		require.ErrorIs(t, err, chitta.ErrInvalidTargetRatio, "%v", o.TargetRatio)
		assert.Contains(t, err.Error(), "TargetRatio")
	}
	_, err = chitta.NewCompactor(&chitta.Options{MaxTokens: -1}, chitta.Policy{MaxTokens: 10})
	require.ErrorIs(t, err, chitta.ErrInvalidOption)
	assert.Contains(t, err.Error(), "MaxTokens -1")
	_, err = chitta.NewCompactor(&chitta.Options{TargetRatio: 0.3, MaxTokens: 7}, chitta.Policy{MaxTokens: 10})
	require.NoError(t, err, "valid ones are replaced")

	var zero chitta.Compactor
	_, err = zero.Compact(ctx, nil)
	require.ErrorIs(t, err, chitta.ErrInvalidOption)
	var nilc *chitta.Compactor
	_, err = nilc.Compact(ctx, nil)
	require.ErrorIs(t, err, chitta.ErrInvalidOption)

	// A bad new message fails the call and leaves the state as it was.
	c, err := chitta.NewCompactor(&chitta.Options{Tokens: words}, chitta.Policy{MaxTokens: 100})
	require.NoError(t, err)
	msgs := []chitta.Message{msg(chitta.RoleUser, "a b")}
	_, err = c.Compact(ctx, msgs)
	require.NoError(t, err)
	_, err = c.Compact(ctx, append(msgs, msg("stranger", "x")))
	var me *chitta.MessageError
	require.ErrorAs(t, err, &me)
	require.ErrorIs(t, err, chitta.ErrUnknownRole)
	assert.Equal(t, 1, me.Index)
	res, err := c.Compact(ctx, append(msgs, msg(chitta.RoleAssistant, "c")))
	require.NoError(t, err)
	assert.Equal(t, 1, res.Stats.StablePrefix, "the previous result still counts")

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = c.Compact(cancelled, msgs)
	require.ErrorIs(t, err, context.Canceled)
}

// TestCompactorCalibratedCounter: a Compactor counts with a
// CalibratedCounter as the counter counts after each observation. It used
// to wrap it in a CachedTokenCounter, which kept each content's count from
// before the observation, so that a message the provider billed 500 tokens
// counted about 20 (the stale content count plus the calibrated framing).
func TestCompactorCalibratedCounter(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	cal := chitta.NewCalibratedCounter(nil)
	c, err := chitta.NewCompactor(&chitta.Options{Tokens: cal}, chitta.Policy{MaxTokens: 1 << 20})
	require.NoError(t, err)
	m := chitta.Message{Role: chitta.RoleUser, Content: "please read config.yaml and tell me which port the server listens on"}
	other := chitta.Message{Role: chitta.RoleUser, Content: "an unrelated first question"}
	_, err = c.Compact(ctx, []chitta.Message{m}) // counts m before any observation
	require.NoError(t, err)
	cal.Observe([]chitta.Message{m}, 500)
	// Not an extension of the previous call: every message is counted again.
	msgs := []chitta.Message{other, m}
	res, err := c.Compact(ctx, msgs)
	require.NoError(t, err)
	assert.Equal(t, totalTokens(cal, msgs), res.Stats.BeforeTokens)
	assert.Equal(t, totalTokens(cal, msgs[:1])+500, res.Stats.BeforeTokens)
}

// OpenAI Responses items are one per call: a Compactor called between the
// results of parallel calls keeps the calls still waiting for a result, so
// that the result appended next answers a call it returned, whichever of
// the calls was answered first.
func TestCompactorParallelCallsAnsweredOneByOne(t *testing.T) {
	t.Parallel()
	call := func(id string, words int) string {
		return `{"type":"function_call","call_id":"` + id + `","name":"read","arguments":"` + strings.Repeat("path ", words) + `"}`
	}
	output := func(id string) string {
		return `{"type":"function_call_output","call_id":"` + id + `","output":"found it"}`
	}
	for _, tt := range []struct {
		name  string
		calls []string // the second one waits
		first string   // the output before the compaction
		later string   // the output after it
	}{
		{"in order", []string{call("c1", 1), call("c2", 50)}, output("c1"), output("c2")},
		{"out of order", []string{call("c1", 50), call("c2", 1)}, output("c2"), output("c1")},
		{"a web search between the calls", []string{call("c1", 50), `{"type":"web_search_call","id":"ws","status":"completed","action":{"type":"search","query":"go"}}`, call("c2", 1)}, output("c2"), output("c1")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			items := append([]string{
				`{"role":"user","content":"an old question"}`,
				`{"role":"assistant","content":"` + strings.Repeat("answer ", 60) + `"}`,
				`{"role":"user","content":"fix the build"}`,
			}, append(tt.calls, tt.first, tt.later)...)
			msgs, err := chitta.ParseMessages([]byte("[" + strings.Join(items, ",") + "]"))
			require.NoError(t, err)
			require.NoError(t, chitta.Validate(msgs))
			c, err := chitta.NewCompactor(&chitta.Options{Tokens: words}, chitta.Policy{MaxTokens: 100, TargetTokens: 10})
			require.NoError(t, err)
			n := len(msgs) - 1
			res, err := c.Compact(t.Context(), msgs[:n]) // the later output is still to come
			require.NoError(t, err)
			require.True(t, res.Stats.Compacted)
			assert.Contains(t, res.Kept, 3, "the call waiting for its result is kept")
			assert.Equal(t, []int{n - 2, n - 1}, res.Kept[len(res.Kept)-2:], "with the other call and its result")
			res, err = c.Compact(t.Context(), msgs)
			require.NoError(t, err)
			require.False(t, res.Stats.Compacted)
			assert.NoError(t, chitta.Validate(res.Messages))
		})
	}
}

// Anthropic's programmatic tool calling: the code a server_tool_use runs
// calls client tools (tool_use blocks whose caller is that server tool)
// over several responses, and only the last one carries the server tool's
// result. A Compactor called before it keeps the server call still
// waiting for its result, so that the result appended next answers a call
// it returned.
func TestCompactorServerCallAcrossSteps(t *testing.T) {
	t.Parallel()
	caller := `,"caller":{"type":"code_execution_20250825","tool_id":"srvtoolu_01"}`
	data := `[
{"role":"user","content":[{"type":"text","text":"an old question"}]},
{"role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("answer ", 120) + `"}]},
{"role":"user","content":[{"type":"text","text":"sum the sales of every region"}]},
{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_01","name":"code_execution","input":{"code":"sum(query(r) for r in regions)"}},{"type":"tool_use","id":"toolu_A","name":"query","input":{"region":"east"}` + caller + `}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_A","content":"12 rows"}]},
{"role":"assistant","content":[{"type":"tool_use","id":"toolu_B","name":"query","input":{"region":"west"}` + caller + `}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_B","content":"12 rows"}]},
{"role":"assistant","content":[{"type":"code_execution_tool_result","tool_use_id":"srvtoolu_01","content":{"type":"code_execution_result","stdout":"42","stderr":"","return_code":0,"content":[]}},{"type":"text","text":"42"}]}]`
	// Without Raw (as the typed adapters build messages), by the IDs' forms.
	withAndWithoutRaw(t, "code execution calling two client tools", data, func(t *testing.T, msgs []chitta.Message) {
		n := len(msgs) - 1
		require.NoError(t, chitta.Validate(msgs[:n]))
		require.NoError(t, chitta.Validate(msgs))
		c, err := chitta.NewCompactor(&chitta.Options{Tokens: words}, chitta.Policy{MaxTokens: 100, TargetTokens: 10})
		require.NoError(t, err)
		res, err := c.Compact(t.Context(), msgs[:n]) // the server tool's result is still to come
		require.NoError(t, err)
		require.True(t, res.Stats.Compacted)
		assert.Contains(t, res.Kept, 3, "the server call waiting for its result is kept")
		res, err = c.Compact(t.Context(), msgs)
		require.NoError(t, err)
		require.False(t, res.Stats.Compacted)
		assert.NoError(t, chitta.Validate(res.Messages))
	})
}

// A compaction counts every message again, which a CalibratedCounter that
// observed a call since counts otherwise than when the Compactor first
// saw it: the cache figures use the compaction's counts (and so do the
// calls appending to it).
func TestCompactorCalibratedCounterCompaction(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	cal := chitta.NewCalibratedCounter(words)
	c, err := chitta.NewCompactor(&chitta.Options{Tokens: cal}, chitta.Policy{MaxTokens: 21, TargetTokens: 20})
	require.NoError(t, err)
	sys := chitta.Message{Role: chitta.RoleSystem, Content: text("rule", 20)}
	first, err := c.Compact(ctx, []chitta.Message{sys})
	require.NoError(t, err)
	require.False(t, first.Stats.Compacted)
	require.Equal(t, 20, first.Stats.AfterTokens)
	cal.Observe([]chitta.Message{sys}, 200) // the provider bills it 200 tokens
	msgs := []chitta.Message{sys, msg(chitta.RoleUser, "hi"), msg(chitta.RoleAssistant, "ok"), msg(chitta.RoleUser, "thanks")}
	res, err := c.Compact(ctx, msgs)
	require.NoError(t, err)
	require.True(t, res.Stats.Compacted)
	require.Equal(t, 1, res.Stats.StablePrefix)
	assert.Equal(t, res.Scores[0].Tokens, res.Stats.CachedTokens, "the stable prefix as this compaction counts it")
	assert.Equal(t, totalTokens(cal, msgs), res.Stats.BeforeTokens)
	pr := chitta.Pricing{Input: chitta.DefaultInputPrice, CacheWrite: chitta.DefaultCacheWritePrice, CacheRead: chitta.DefaultCacheReadPrice}
	hit := float64(res.Scores[0].Tokens) // the previous call sent sys
	assert.InDelta(t, pr.CacheRead*hit+pr.CacheWrite*(float64(res.Stats.BeforeTokens)-hit), res.Stats.BilledFull, 1e-9)
}

// TestCompactorCoveredDroppedPctBetweenCompactions: a call between
// compactions returns the last compaction's survivors, so the messages it
// drops are that compaction's, and so is the covered share of their tokens.
func TestCompactorCoveredDroppedPctBetweenCompactions(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	a, b, c := text("a", 10), text("b", 30), text("c", 5)
	store := &chittatest.Store{Memories: []chitta.Memory{{ID: "a", Vector: chittatest.SeededVector(a, 8)}}}
	opts := &chitta.Options{Embedder: chittatest.SeededEmbedder{Dims: 8}, Store: store, KeepLast: 1, Tokens: words}
	comp, err := chitta.NewCompactor(opts, chitta.Policy{MaxTokens: 44, TargetTokens: 1})
	require.NoError(t, err)
	msgs := []chitta.Message{msg(chitta.RoleUser, a), msg(chitta.RoleUser, b), msg(chitta.RoleUser, c)}
	res, err := comp.Compact(ctx, msgs)
	require.NoError(t, err)
	require.True(t, res.Stats.Compacted)
	require.Equal(t, 2, res.Stats.Dropped)
	assert.InDelta(t, 25.0, res.Stats.CoveredDroppedPct, 1e-9, "a (10 tokens, covered) and b (30, novel) dropped")

	msgs = append(msgs, msg(chitta.RoleAssistant, text("d", 2)))
	res, err = comp.Compact(ctx, msgs)
	require.NoError(t, err)
	require.False(t, res.Stats.Compacted)
	require.Equal(t, 2, res.Stats.Dropped, "a and b are still dropped")
	assert.InDelta(t, 25.0, res.Stats.CoveredDroppedPct, 1e-9, "the same tokens are dropped, as covered as they were")

	comp.Reset()
	res, err = comp.Compact(ctx, msgs[2:])
	require.NoError(t, err)
	require.False(t, res.Stats.Compacted)
	require.Zero(t, res.Stats.Dropped)
	assert.Zero(t, res.Stats.CoveredDroppedPct, "nothing dropped")
}
