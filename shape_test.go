package chitta_test

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

func TestCompactProviderValidRules(t *testing.T) {
	t.Parallel()
	sys := msg(chitta.RoleSystem, text("s", 4))
	u := func(tag string, n int) chitta.Message { return msg(chitta.RoleUser, text(tag, n)) }
	a := func(tag string, n int) chitta.Message { return msg(chitta.RoleAssistant, text(tag, n)) }
	callA := chitta.Message{Role: chitta.RoleAssistant, Content: text("call", 3), ToolCallIDs: []string{"c1"}}
	resA := chitta.Message{Role: chitta.RoleTool, Content: text("res", 3), ToolResultIDs: []string{"c1"}}
	callB := chitta.Message{Role: chitta.RoleAssistant, Content: text("callb", 3), ToolCallIDs: []string{"c2"}}
	resB := chitta.Message{Role: chitta.RoleUser, Content: text("resb", 3), ToolResultIDs: []string{"c2"}} // Anthropic
	tests := []struct {
		name     string
		msgs     []chitta.Message
		opts     chitta.Options
		kept     []int
		freeKept []int // the same call with FreeSelection
		over     bool
	}{
		{
			// The report: a large final user message was dropped.
			name:     "a large last user message is kept",
			msgs:     []chitta.Message{u("q", 5), a("r", 5), u("log", 40)},
			opts:     chitta.Options{MaxTokens: 12},
			kept:     []int{2},
			freeKept: []int{0, 1},
			over:     true,
		},
		{
			name:     "three messages never come back empty",
			msgs:     []chitta.Message{u("q", 10), a("r", 10), u("q2", 10)},
			opts:     chitta.Options{TargetRatio: 0.05},
			kept:     []int{2},
			freeKept: []int{},
			over:     true,
		},
		{
			name:     "the live turn is the last user message and every reply after it",
			msgs:     []chitta.Message{sys, u("q", 5), a("r", 5), u("q2", 8), a("r2", 5), a("r3", 5)},
			opts:     chitta.Options{MaxTokens: 19},
			kept:     []int{0, 3, 4, 5},
			freeKept: []int{0, 3, 5},
			over:     true,
		},
		{
			// Heavy assistant replies: the greedy pick is q3 (pinned), r2,
			// r. The first, r, needs the user message q before it, which
			// is pinned and charged; r no longer fits after that.
			name:     "the result starts with a user turn",
			msgs:     []chitta.Message{u("q", 5), a("r", 5), u("q2", 5), a("r2", 5), u("q3", 2)},
			opts:     chitta.Options{MaxTokens: 12, RoleWeights: map[chitta.Role]float64{chitta.RoleAssistant: 3}},
			kept:     []int{0, 3, 4},
			freeKept: []int{1, 3, 4},
		},
		{
			name:     "system messages do not count as the first message",
			msgs:     []chitta.Message{sys, u("q", 5), a("r", 5), u("q2", 2)},
			opts:     chitta.Options{MaxTokens: 11, RoleWeights: map[chitta.Role]float64{chitta.RoleAssistant: 3}},
			kept:     []int{0, 1, 3},
			freeKept: []int{0, 2, 3},
		},
		{
			// A tool loop: the prompt that started it and the latest step
			// (result with its call) are pinned; the steps between compete.
			name:     "in a tool loop the prompt and the latest step are kept",
			msgs:     []chitta.Message{u("task", 3), callA, resA, callB, resB},
			opts:     chitta.Options{MaxTokens: 6},
			kept:     []int{0, 3, 4},
			freeKept: []int{3, 4},
			over:     true,
		},
		{
			name:     "an assistant reply after the latest step is part of the live turn",
			msgs:     []chitta.Message{u("task", 3), callA, resA, a("done", 3)},
			opts:     chitta.Options{MaxTokens: 3},
			kept:     []int{0, 1, 2, 3},
			freeKept: []int{3},
			over:     true,
		},
		{
			name:     "without any input message the last message is the live turn",
			msgs:     []chitta.Message{sys, a("r", 5), a("r2", 5)},
			opts:     chitta.Options{MaxTokens: 4},
			kept:     []int{0, 2},
			freeKept: []int{0},
			over:     true,
		},
		{
			name:     "no user turn before the first kept message: nothing to add",
			msgs:     []chitta.Message{a("r", 5), u("q", 5), a("r2", 1)},
			opts:     chitta.Options{MaxTokens: 20},
			kept:     []int{0, 1, 2},
			freeKept: []int{0, 1, 2},
		},
		{
			// A custom role first: the greedy pick note, r2, r leaves out
			// q; the assistant replies still need the user turn before
			// them, and r no longer fits.
			name:     "a custom role first still gets a user turn before the assistant",
			msgs:     []chitta.Message{msg("note", text("n", 1)), u("q", 1), a("r", 1), a("r2", 1), u("q2", 1)},
			opts:     chitta.Options{MaxTokens: 4, RoleWeights: map[chitta.Role]float64{"note": 5, chitta.RoleAssistant: 3}},
			kept:     []int{0, 1, 3, 4},
			freeKept: []int{0, 2, 3, 4},
		},
		{
			// A Responses reasoning item followed by a developer message
			// (or a compaction item): ParseMessages links the item after
			// the reasoning to it, so the developer message carries its
			// result, and the reasoning must stay with it.
			name: "a call whose result a system message carries is kept",
			msgs: []chitta.Message{u("q", 3), {Role: chitta.RoleAssistant, Content: text("plan", 5), ToolCallIDs: []string{"reasoning@1"}},
				{Role: chitta.RoleDeveloper, Content: text("d", 2), ToolResultIDs: []string{"reasoning@1"}}, u("q2", 2), a("r2", 2)},
			opts:     chitta.Options{MaxTokens: 8},
			kept:     []int{0, 1, 2, 3, 4},
			freeKept: []int{2, 3, 4},
			over:     true,
		},
		{
			name: "a result of a call a system message issues is kept",
			msgs: []chitta.Message{{Role: chitta.RoleSystem, Content: text("s", 2), ToolCallIDs: []string{"c"}}, u("q", 3),
				{Role: chitta.RoleTool, Content: text("res", 5), ToolResultIDs: []string{"c"}}, u("q2", 2), a("r2", 2)},
			opts:     chitta.Options{MaxTokens: 8},
			kept:     []int{0, 1, 2, 3, 4},
			freeKept: []int{0, 3, 4},
			over:     true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := tt.opts
			o.Tokens = words
			res, err := chitta.Compact(t.Context(), tt.msgs, &o)
			require.NoError(t, err)
			assert.Equal(t, tt.kept, res.Kept)
			assert.Equal(t, tt.over, res.Stats.OverBudget)
			if chitta.Validate(tt.msgs) == nil {
				assert.NoError(t, chitta.Validate(res.Messages))
			}
			o.FreeSelection = true
			free, err := chitta.Compact(t.Context(), tt.msgs, &o)
			require.NoError(t, err)
			assert.Equal(t, tt.freeKept, free.Kept, "FreeSelection")
		})
	}
}

// validConversation is a random conversation that passes Validate:
// randomConversation without its orphan results, a user message first
// when it would open with an assistant, and sometimes a custom role.
func validConversation(r *rand.Rand) []chitta.Message {
	var msgs []chitta.Message
	for _, m := range randomConversation(r) {
		if slices.Contains(m.ToolResultIDs, "missing") {
			continue
		}
		if r.IntN(30) == 0 {
			msgs = append(msgs, msg("note", "a note"))
		}
		msgs = append(msgs, m)
	}
	if chitta.Validate(msgs) != nil {
		msgs = append([]chitta.Message{msg(chitta.RoleUser, "start")}, msgs...)
	}
	return msgs
}

// expectedSelection follows the selection rules from the package
// documentation over Compact's own scores and units: pin system and
// developer messages, KeepLast, and (unless free) the live turn; fill
// greedily by score (ties: later first), first fit; then, unless free,
// while the first kept message is not a user turn, pin the nearest user
// turn before it (or before the first kept assistant message) and refill.
func expectedSelection(msgs []chitta.Message, scores []chitta.TurnScore, target, keepLast int, free bool) []int {
	isPrompt := func(i int) bool { return msgs[i].Role == chitta.RoleUser && len(msgs[i].ToolResultIDs) == 0 }
	var nonSys []int
	for i, m := range msgs {
		if !m.Role.Pinned() {
			nonSys = append(nonSys, i)
		}
	}
	pinned := map[int]bool{} // unit → pinned
	for _, i := range nonSys[max(0, len(nonSys)-keepLast):] {
		pinned[scores[i].Unit] = true
	}
	if !free && len(nonSys) > 0 {
		last, prompt := nonSys[len(nonSys)-1], -1
		for _, i := range slices.Backward(nonSys) {
			m := msgs[i]
			if m.Role == chitta.RoleUser || m.Role == chitta.RoleTool || len(m.ToolResultIDs) > 0 {
				last = i
				break
			}
		}
		for _, i := range nonSys {
			if isPrompt(i) {
				prompt = i
			}
			if i >= last {
				pinned[scores[i].Unit] = true
			}
		}
		if prompt >= 0 {
			pinned[scores[prompt].Unit] = true
		}
	}
	type unit struct {
		first, last, cost int
		score             float64
	}
	byFirst := map[int]*unit{}
	var units []*unit
	for _, i := range nonSys {
		u := byFirst[scores[i].Unit]
		if u == nil {
			u = &unit{first: scores[i].Unit, score: scores[i].Score}
			byFirst[u.first] = u
			units = append(units, u)
		}
		u.last, u.cost, u.score = i, u.cost+scores[i].Tokens, max(u.score, scores[i].Score)
	}
	slices.SortStableFunc(units, func(a, b *unit) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(b.last, a.last)
	})
	var kept map[int]bool // unit → kept
	fill := func() {
		kept = map[int]bool{}
		used := 0
		for i, m := range msgs {
			if m.Role.Pinned() || pinned[scores[i].Unit] {
				used += scores[i].Tokens
			}
		}
		for _, u := range units {
			if pinned[u.first] {
				kept[u.first] = true
			} else if used+u.cost <= target {
				kept[u.first], used = true, used+u.cost
			}
		}
	}
	promptBefore := func(k int) int {
		for j := k - 1; j >= 0; j-- {
			if isPrompt(j) {
				return j
			}
		}
		return -1
	}
	for fill(); !free; fill() {
		first := -1
		for _, i := range nonSys {
			if kept[scores[i].Unit] {
				first = i
				break
			}
		}
		if first < 0 || isPrompt(first) {
			break
		}
		q := promptBefore(first)
		for _, i := range nonSys {
			if q >= 0 || isPrompt(i) && kept[scores[i].Unit] {
				break
			}
			if msgs[i].Role == chitta.RoleAssistant && kept[scores[i].Unit] {
				q = promptBefore(i)
			}
		}
		if q < 0 {
			break
		}
		pinned[scores[q].Unit] = true
	}
	out := []int{}
	for i, m := range msgs {
		if m.Role.Pinned() || kept[scores[i].Unit] {
			out = append(out, i)
		}
	}
	return out
}

func TestCompactProviderValidProperties(t *testing.T) {
	t.Parallel()
	for seed := range uint64(400) {
		r := rand.New(rand.NewPCG(seed, 10))
		msgs := validConversation(r)
		require.NoError(t, chitta.Validate(msgs), "seed %d: the generator gives valid input", seed)
		opts := randomOptions(r)
		opts.RelevanceReserve = 0 // expectedSelection models the formula's fill alone
		opts.RoleWeights = map[chitta.Role]float64{"note": 0.7}
		opts.FreeSelection = r.IntN(4) == 0
		res, err := chitta.Compact(t.Context(), msgs, opts)
		require.NoError(t, err, "seed %d", seed)
		checkInvariants(t, msgs, res)
		want := expectedSelection(msgs, res.Scores, res.Stats.TargetTokens, opts.KeepLast, opts.FreeSelection)
		require.Equal(t, want, res.Kept, "seed %d: the greedy selection around the pinned units", seed)
		if opts.FreeSelection {
			continue
		}
		require.NoError(t, chitta.Validate(res.Messages), "seed %d", seed)
		// The live turn, from the last user message or tool result on, is
		// kept; so is the last user turn; the result is never empty.
		last := -1
		for i, m := range msgs {
			if !m.Role.Pinned() && (m.Role == chitta.RoleUser || len(m.ToolResultIDs) > 0) {
				last = i
			}
			if m.Role == chitta.RoleUser && len(m.ToolResultIDs) == 0 {
				require.True(t, res.Scores[i].Kept || slices.ContainsFunc(msgs[i+1:], func(m chitta.Message) bool {
					return m.Role == chitta.RoleUser && len(m.ToolResultIDs) == 0
				}), "seed %d: the last user turn %d is kept", seed, i)
			}
		}
		for i := max(last, 0); i < len(msgs); i++ {
			require.True(t, res.Scores[i].Kept, "seed %d: live-turn message %d kept", seed, i)
		}
		nonSys := slices.ContainsFunc(msgs, func(m chitta.Message) bool { return !m.Role.Pinned() })
		keptNonSys := slices.ContainsFunc(res.Messages, func(m chitta.Message) bool { return !m.Role.Pinned() })
		require.Equal(t, nonSys, keptNonSys, "seed %d: never empty", seed)
	}
}
