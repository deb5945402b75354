package retention

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/chitta-go/chitta"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// toolConversation builds a random conversation with system prompt, user
// and assistant turns, and tool calls (some parallel) with their results.
func toolConversation(rng *rand.Rand, n int) []chitta.Message {
	words := []string{"flight", "reservation", "user", "cancel", "refund", "baggage", "seat", "upgrade", "card", "date"}
	text := func() string {
		k := 1 + rng.IntN(12)
		s := ""
		for i := range k {
			if i > 0 {
				s += " "
			}
			s += words[rng.IntN(len(words))]
		}
		return s
	}
	msgs := []chitta.Message{{Role: chitta.RoleSystem, Content: "policy " + text()}}
	call := 0
	for len(msgs) < n {
		switch rng.IntN(4) {
		case 0:
			msgs = append(msgs, chitta.Message{Role: chitta.RoleUser, Content: text()})
		case 1:
			msgs = append(msgs, chitta.Message{Role: chitta.RoleAssistant, Content: text()})
		default:
			k := 1 + rng.IntN(3) // parallel calls
			a := chitta.Message{Role: chitta.RoleAssistant, Content: text()}
			var results []chitta.Message
			for range k {
				id := fmt.Sprintf("call_%d", call)
				call++
				a.ToolCallIDs = append(a.ToolCallIDs, id)
				results = append(results, chitta.Message{Role: chitta.RoleTool, Content: text(), ToolResultIDs: []string{id}})
			}
			msgs = append(msgs, a)
			msgs = append(msgs, results...)
		}
	}
	return msgs
}

// TestPackMatchesCompact checks that pack, given units ranked by chitta's
// own scores, keeps exactly what chitta.Compact keeps: the baselines share
// chitta's grouping, budget and first-fit rule.
func TestPackMatchesCompact(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	emb := &bagEmbedder{dims: 64}
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 1))
		msgs := toolConversation(rng, 5+rng.IntN(60))
		ratio := 0.1 + 0.8*rng.Float64()
		res, err := chitta.Compact(ctx, msgs, &chitta.Options{Query: "refund card", TargetRatio: ratio, Embedder: emb, Tokens: wordTokens})
		require.NoError(t, err)
		us := units(res.Scores)
		for k := range us {
			us[k].score = -1
			for _, i := range us[k].members {
				us[k].score = max(us[k].score, res.Scores[i].Score)
			}
		}
		slices.SortFunc(us, func(a, b unit) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(b.last, a.last)) })
		kept := pack(res.Scores, res.Stats.TargetTokens, us)
		for i := range msgs {
			assert.Equal(t, slices.Contains(res.Kept, i), kept[i], "seed %d message %d", seed, i)
		}
	}
}

// TestBaselinesKeepPairsAndBudget checks every method on random tool
// conversations: pairs are never broken and the budget is respected.
func TestBaselinesKeepPairsAndBudget(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	env := Env{Embedder: &bagEmbedder{dims: 64}, Tokens: wordTokens}
	methods := []Method{Chitta{}, Chitta{Label: "chitta-free", FreeSelection: true}, Chitta{Label: "chitta-norm", Rescale: true}, Recency{}, Random{Seed: 3}}
	for seed := range uint64(25) {
		rng := rand.New(rand.NewPCG(seed, 2))
		msgs := toolConversation(rng, 10+rng.IntN(50))
		task := Task{Messages: msgs, Query: "cancel flight", Ratio: 0.2 + 0.6*rng.Float64()}
		total := 0
		for _, m := range msgs {
			total += chitta.CountWords(m.Content)
		}
		budget := int(task.Ratio * float64(total))
		for _, m := range methods {
			for run := range m.Runs() {
				out, err := m.Select(ctx, env, task, run)
				require.NoError(t, err)
				require.Len(t, out.Kept, len(msgs))
				intact, touched := Pairs(msgs, out.Kept)
				assert.Equal(t, touched, intact, "%s seed %d run %d broke a pair", m.Name(), seed, run)
				assert.True(t, out.Kept[0], "%s dropped the system prompt", m.Name())
				used := 0
				for i, k := range out.Kept {
					if k {
						used += out.Tokens[i]
					}
				}
				// chitta pins the live turn, which may exceed the budget
				// (and then says so).
				if out.Tokens[0] <= budget && (out.Result == nil || !out.Result.Stats.OverBudget) {
					assert.LessOrEqual(t, used, budget, "%s seed %d over budget", m.Name(), seed)
				}
			}
		}
	}
}

func TestRecencyKeepsNewestThatFit(t *testing.T) {
	t.Parallel()
	msgs := []chitta.Message{
		{Role: chitta.RoleSystem, Content: "s s"},                                   // 2, pinned
		{Role: chitta.RoleUser, Content: "a a a"},                                   // 3
		{Role: chitta.RoleAssistant, Content: "b", ToolCallIDs: []string{"1", "2"}}, // 1 ┐
		{Role: chitta.RoleTool, Content: "c c", ToolResultIDs: []string{"1"}},       // 2 ├ unit of 5
		{Role: chitta.RoleTool, Content: "d d", ToolResultIDs: []string{"2"}},       // 2 ┘
		{Role: chitta.RoleAssistant, Content: "e e e e e e"},                        // 6
		{Role: chitta.RoleUser, Content: "f f"},                                     // 2
	}
	// 18 tokens in all; the budget is floor(ratio × 18).
	tests := []struct {
		ratio float64
		want  []int
	}{
		{0.2, []int{0}},                 // budget 3: only the system prompt fits
		{0.25, []int{0, 6}},             // budget 4: system 2 + f 2
		{0.5, []int{0, 2, 3, 4, 6}},     // budget 9: f, e does not fit (10), the tool unit (5) does, a does not
		{0.65, []int{0, 5, 6}},          // budget 11: f, e (10), then neither the unit (15) nor a (13)
		{0.8, []int{0, 1, 5, 6}},        // budget 14: f, e, a (13); the unit (18) does not fit
		{1, []int{0, 1, 2, 3, 4, 5, 6}}, // everything
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.ratio), func(t *testing.T) {
			t.Parallel()
			out, err := Recency{}.Select(t.Context(), Env{Tokens: wordTokens}, Task{Messages: msgs, Ratio: tt.ratio}, 0)
			require.NoError(t, err)
			assert.Equal(t, tt.want, keptIndices(out.Kept))
		})
	}
}

func TestRandomIsSeededAndVaries(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	rng := rand.New(rand.NewPCG(9, 9))
	msgs := toolConversation(rng, 80)
	task := Task{Messages: msgs, Ratio: 0.3}
	env := Env{Tokens: wordTokens}
	r := Random{Seed: 42}
	assert.Equal(t, 5, r.Runs())
	a, err := r.Select(ctx, env, task, 0)
	require.NoError(t, err)
	b, err := r.Select(ctx, env, task, 0)
	require.NoError(t, err)
	c, err := r.Select(ctx, env, task, 1)
	require.NoError(t, err)
	assert.Equal(t, a.Kept, b.Kept, "same seed and run, same selection")
	assert.NotEqual(t, a.Kept, c.Kept, "another run, another selection")
}

func TestMinMax(t *testing.T) {
	t.Parallel()
	f := minMax([]float64{0.2, 0.4, 0.6})
	assert.InDelta(t, 0, f(0.2), 1e-12)
	assert.InDelta(t, 0.5, f(0.4), 1e-12)
	assert.InDelta(t, 1, f(0.6), 1e-12)
	assert.InDelta(t, 0.5, minMax([]float64{0.3, 0.3})(0.3), 1e-12)
	assert.InDelta(t, 0.5, minMax(nil)(0.9), 1e-12)
}

func TestChittaErrors(t *testing.T) {
	t.Parallel()
	msgs := []chitta.Message{{Role: chitta.RoleUser, Content: "hi"}}
	for _, m := range []Method{Chitta{}, Recency{}, Random{}} {
		_, err := m.Select(t.Context(), Env{}, Task{Messages: msgs, Ratio: 2}, 0)
		require.ErrorIs(t, err, chitta.ErrInvalidTargetRatio, m.Name())
	}
}

func TestLastAssistantText(t *testing.T) {
	t.Parallel()
	msgs := []chitta.Message{
		{Role: chitta.RoleAssistant, Content: "I will update reservation JG7FMM next."},
		{Role: chitta.RoleUser, Content: "ok"},
		{Role: chitta.RoleAssistant, Content: "lookup", ToolCallIDs: []string{"1"}},
		{Role: chitta.RoleTool, Content: "{}", ToolResultIDs: []string{"1"}},
	}
	assert.Equal(t, "I will update reservation JG7FMM next.", lastAssistantText(msgs))
	assert.Empty(t, lastAssistantText(msgs[1:]))
	// The plan joins the query: with it, the turn naming JG7FMM scores a
	// higher semantic term than with the user's query alone.
	env := Env{Embedder: &bagEmbedder{dims: 256}, Tokens: wordTokens}
	task := Task{Messages: msgs, Query: "ok", Ratio: 1}
	plain, err := Chitta{}.Select(t.Context(), env, task, 0)
	require.NoError(t, err)
	plan, err := Chitta{PlanQuery: true}.Select(t.Context(), env, task, 0)
	require.NoError(t, err)
	assert.Greater(t, plan.Result.Scores[0].Semantic, plain.Result.Scores[0].Semantic)
}

// TestRecencyLiveKeepsLiveTurn checks that recency-live keeps the live
// turn chitta pins, charged first, where recency drops it.
func TestRecencyLiveKeepsLiveTurn(t *testing.T) {
	t.Parallel()
	// Groups (tokens): the prompt 0 (4); A = 1–2 (4); C = 3–4 (3); the
	// latest step B = 5–6 (32). 43 tokens. chitta pins the prompt and B
	// (the live turn, 36 tokens).
	msgs := []chitta.Message{
		{Role: chitta.RoleUser, Content: wordText(4)},
		{Role: chitta.RoleAssistant, Content: wordText(2), ToolCallIDs: []string{"a"}},
		{Role: chitta.RoleTool, Content: wordText(2), ToolResultIDs: []string{"a"}},
		{Role: chitta.RoleAssistant, Content: wordText(1), ToolCallIDs: []string{"c"}},
		{Role: chitta.RoleTool, Content: wordText(2), ToolResultIDs: []string{"c"}},
		{Role: chitta.RoleAssistant, Content: wordText(2), ToolCallIDs: []string{"b"}},
		{Role: chitta.RoleTool, Content: wordText(30), ToolResultIDs: []string{"b"}},
	}
	tests := []struct {
		name          string
		ratio         float64
		recency, live []int
	}{
		// Budget 12: B does not fit, so recency keeps C, A and the prompt;
		// the live turn alone exceeds the budget and is all recency-live keeps.
		{"live turn over budget", 0.3, []int{0, 1, 2, 3, 4}, []int{0, 5, 6}},
		// Budget 40: recency keeps B, C and A and drops the prompt;
		// recency-live keeps the pins (36), then C; A no longer fits.
		{"live turn within budget", 0.95, []int{1, 2, 3, 4, 5, 6}, []int{0, 3, 4, 5, 6}},
		{"everything", 1, []int{0, 1, 2, 3, 4, 5, 6}, []int{0, 1, 2, 3, 4, 5, 6}},
	}
	keptOf := func(out Outcome) []int {
		var kept []int
		for i, k := range out.Kept {
			if k {
				kept = append(kept, i)
			}
		}
		return kept
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			env := Env{Tokens: wordTokens}
			task := Task{Messages: msgs, Query: "fix", Ratio: tt.ratio}
			rec, err := Recency{}.Select(ctx, env, task, 0)
			require.NoError(t, err)
			assert.Equal(t, tt.recency, keptOf(rec), "recency")
			live, err := RecencyLive{}.Select(ctx, env, task, 0)
			require.NoError(t, err)
			assert.Equal(t, tt.live, keptOf(live), "recency-live")
			// Here it keeps every message the default chitta compaction pins.
			def, err := Chitta{}.Select(ctx, env, task, 0)
			require.NoError(t, err)
			for i, s := range def.Result.Scores {
				if s.Pinned {
					assert.True(t, live.Kept[i], "message %d, pinned by chitta", i)
				}
			}
		})
	}
}
