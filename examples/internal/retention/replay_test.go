package retention

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// chat is a five-turn chat of two-word messages; calls are made with the
// prefixes of length 1 and 3 (before each assistant message) and 5 (the
// probe).
func chat() Replayed {
	var msgs []chitta.Message
	for i, w := range []string{"a", "b", "c", "d", "e"} {
		role := chitta.RoleUser
		if i%2 == 1 {
			role = chitta.RoleAssistant
		}
		msgs = append(msgs, chitta.Message{Role: role, Content: w + " " + w})
	}
	return Replayed{Name: "chat", Messages: msgs, Probes: []Probe{{At: 5, Evidence: []int{0, 4}}}}
}

func TestReplayByHand(t *testing.T) {
	t.Parallel()
	cfg := ReplayConfig{Env: Env{Tokens: wordTokens}, Window: 6, Target: 3, Strategies: []string{StrategyNone, StrategyCompactor, StrategyRecency}}
	stats, err := Replay(t.Context(), cfg, []Replayed{chat()})
	require.NoError(t, err)
	require.Len(t, stats, 3)

	// No compaction: contexts [0], [0 1 2], [0 1 2 3 4] (2, 6, 10 tokens),
	// each extending the previous one (hits 0, 2, 6).
	none := stats[0]
	assert.Equal(t, StrategyNone, none.Strategy)
	assert.Equal(t, 3, none.Calls)
	assert.Equal(t, 0, none.Compactions)
	assert.Equal(t, 18, none.PromptTokens)
	assert.Equal(t, 8, none.CachedTokens)
	assert.InDelta(t, 1.25*2+(0.1*2+1.25*4)+(0.1*6+1.25*4), none.Billed, 1e-9)
	assert.Equal(t, 1, none.OverWindow)
	assert.Equal(t, 10, none.MaxPrompt)
	assert.InDelta(t, 1, none.Retention.Value(-1), 1e-12)

	// Compactor (6 → 3): the first two calls append; the third (10 tokens)
	// compacts to the live turn, message 4, which alone fills 2 of 3
	// tokens: nothing shared with the previous context.
	c := stats[1]
	assert.Equal(t, 3, c.Calls)
	assert.Equal(t, 1, c.Compactions)
	assert.Equal(t, 2+6+2, c.PromptTokens)
	assert.Equal(t, 2, c.CachedTokens)
	assert.InDelta(t, 1.25*2+(0.1*2+1.25*4)+1.25*2, c.Billed, 1e-9)
	assert.Equal(t, 0, c.OverWindow)
	assert.InDelta(t, 0.5, c.Retention.Value(-1), 1e-12, "message 4 kept, message 0 not")

	// Recency at 6: the third call keeps the newest that fit: 4, 3, 2.
	r := stats[2]
	assert.Equal(t, 1, r.Compactions)
	assert.Equal(t, 2+6+6, r.PromptTokens)
	assert.Equal(t, 2, r.CachedTokens)
	assert.InDelta(t, 0.5, r.Retention.Value(-1), 1e-12)
	assert.InDelta(t, float64(2)/14, r.CacheShare(), 1e-12)
}

// TestReplayCompactorMatchesStats checks the replay's cache accounting
// against the Compactor's own Stats over a longer chat.
func TestReplayCompactorMatchesStats(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	var msgs []chitta.Message
	for i := range 120 {
		role := chitta.RoleUser
		if i%2 == 1 {
			role = chitta.RoleAssistant
		}
		msgs = append(msgs, chitta.Message{Role: role, Content: strings.Repeat(fmt.Sprintf("w%d ", i%7), 3+i%11)})
	}
	s := Replayed{Name: "long", Messages: msgs}
	env := Env{Embedder: &bagEmbedder{dims: 32}, Tokens: wordTokens}
	stats, err := Replay(ctx, ReplayConfig{Env: env, Window: 200, Strategies: []string{StrategyCompactor, StrategyEveryTurn}}, []Replayed{s})
	require.NoError(t, err)

	c, err := chitta.NewCompactor(&chitta.Options{Embedder: env.Embedder, Tokens: env.Tokens}, chitta.Policy{MaxTokens: 200})
	require.NoError(t, err)
	var prompt, cached, compacted int
	var billed float64
	for _, at := range callPoints(s) {
		res, err := c.Compact(ctx, msgs[:at])
		require.NoError(t, err)
		prompt += res.Stats.AfterTokens
		cached += res.Stats.CachedTokens
		billed += res.Stats.BilledInput
		if res.Stats.Compacted {
			compacted++
		}
	}
	require.Positive(t, compacted)
	assert.Equal(t, prompt, stats[0].PromptTokens)
	assert.Equal(t, cached, stats[0].CachedTokens)
	assert.InDelta(t, billed, stats[0].Billed, 1e-6)
	assert.Equal(t, compacted, stats[0].Compactions)
	assert.Greater(t, stats[0].CacheShare(), stats[1].CacheShare(), "water marks keep the cache warm")
	assert.Less(t, stats[0].Billed, stats[1].Billed)
}

func TestReplayConfigErrors(t *testing.T) {
	t.Parallel()
	_, err := Replay(t.Context(), ReplayConfig{Window: 1}, nil)
	require.ErrorIs(t, err, ErrInvalidConfig)
	_, err = Replay(t.Context(), ReplayConfig{Window: 10, Strategies: []string{"bogus"}}, []Replayed{chat()})
	require.ErrorIs(t, err, ErrInvalidConfig)
	_, err = Replay(t.Context(), ReplayConfig{Window: 10, Target: 10, Strategies: []string{StrategyCompactor}}, []Replayed{chat()})
	require.ErrorIs(t, err, ErrInvalidConfig)
}

func TestLoCoMoReplays(t *testing.T) {
	t.Parallel()
	c := coveredConversation()
	c.DiaIDs = []string{"D1:1", "D1:2", "D2:1", "D2:2", "D3:1", "D3:2"}
	c.Questions = append(c.Questions, Question{Text: "q", Category: 2, Evidence: []int{2}}, Question{Text: "none", Category: 1})
	end := LoCoMoReplays([]Conversation{c}, false)[0]
	// Category 5 and evidence-less questions are left out.
	assert.Equal(t, []Probe{{At: 6, Evidence: []int{0, 2, 4}}, {At: 6, Evidence: []int{2}}}, end.Probes)
	assert.Empty(t, end.Query)
	session := LoCoMoReplays([]Conversation{c}, true)[0]
	assert.Equal(t, []Probe{{At: 6, Evidence: []int{0, 2, 4}}, {At: 4, Evidence: []int{2}}}, session.Probes)
	assert.Equal(t, []int{1, 3, 4, 5, 6}, callPoints(session))
}

func TestTauReplays(t *testing.T) {
	t.Parallel()
	run := loadTauFixture(t)
	s := TauReplays([]Run{run})[0]
	assert.NotEmpty(t, s.Query)
	cuts, _ := run.Cuts()
	require.NotEmpty(t, s.Probes)
	for _, p := range s.Probes {
		assert.True(t, func() bool {
			for _, c := range cuts {
				if c.Index == p.At {
					return true
				}
			}
			return false
		}(), "probe at a gold action's call")
		for _, v := range p.Values {
			for _, m := range run.Messages[:p.At] {
				assert.False(t, m.Role.Pinned() && strings.Contains(m.Content, v), "%q is in the system prompt", v)
			}
		}
	}
}

func TestLoadSWEAgent(t *testing.T) {
	t.Parallel()
	in := `{"environment": "x", "history": [
		{"role": "system", "content": "sys", "agent": "main"},
		{"role": "user", "content": [{"type": "text", "text": "fix the bug"}]},
		{"role": "assistant", "content": "look", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]},
		{"role": "tool", "content": "out", "tool_call_ids": ["c1"]}]}`
	s, err := LoadSWEAgent("t.traj.json", strings.NewReader(in))
	require.NoError(t, err)
	require.Len(t, s.Messages, 4)
	assert.Equal(t, "fix the bug", s.Query)
	assert.Equal(t, []string{"c1"}, s.Messages[3].ToolResultIDs)
	require.NoError(t, chitta.Validate(s.Messages))

	for _, bad := range []string{`{`, `{"history": 3}`, `{"history": [{"role": 5}]}`} {
		_, err := LoadSWEAgent("bad", strings.NewReader(bad))
		require.ErrorIs(t, err, ErrInvalidData, bad)
	}
}
