package chitta_test

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/chittatest"
)

// heldMatchConversation is oldMatchConversation with two old turns that
// answer the query: the closer one (index 12) is what the agent's memory
// will hold, the other (index 1) is not.
func heldMatchConversation() []chitta.Message {
	msgs := oldMatchConversation()
	msgs[1] = msg(chitta.RoleUser, "alpha: the deploy key for production lives in vault under the ops team path")
	return slices.Insert(msgs, 12, msg(chitta.RoleUser, "beta: the deploy key for production lives in vault"))
}

func TestCompactReserveSkipsWhatMemoryHolds(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	msgs := heldMatchConversation()
	const alpha, beta = 1, 12
	require.Contains(t, msgs[beta].Content, "beta:")
	emb := chitta.NewHashEmbedder(0)
	held, err := chitta.NewHNSWStore(emb.Dimensions(), nil)
	require.NoError(t, err)
	vecs, err := emb.Embed(ctx, []string{msgs[beta].Content})
	require.NoError(t, err)
	require.NoError(t, held.Add(ctx, chitta.Memory{ID: "m", Text: msgs[beta].Content, Kind: chitta.KindFact, Vector: vecs[0]}))

	tests := []struct {
		name        string
		store       chitta.MemoryStore
		alpha, beta bool // kept
	}{
		{"no store: the reserve keeps the closest match, the fill the newest turns", nil, false, true},
		{"memory holds beta: the reserve keeps alpha, the fill leaves beta last", held, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := &chitta.Options{Query: "where does the deploy key for production live in vault", MaxTokens: 48,
				Embedder: emb, Tokens: words, RelevanceReserve: 0.5, Store: tc.store}
			res, err := chitta.Compact(ctx, msgs, opts)
			require.NoError(t, err)
			require.Greater(t, res.Scores[beta].Semantic, res.Scores[alpha].Semantic, "premise: beta is the closer match")
			assert.Equal(t, tc.alpha, res.Scores[alpha].Kept, "alpha kept")
			assert.Equal(t, tc.beta, res.Scores[beta].Kept, "beta kept")
			assert.LessOrEqual(t, res.Stats.AfterTokens, res.Stats.TargetTokens)
		})
	}
}

// TestCompactReserveFillOrder checks the whole selection with the reserve
// on against a model of it: pinned units, then the reserve (Semantic ×
// (1 − Coverage), 0 for a message without text, first fit within
// RelevanceReserve × the free budget),
// then the rest least covered first, newest first among equals.
func TestCompactReserveFillOrder(t *testing.T) {
	t.Parallel()
	checked := 0
	for seed := range uint64(400) {
		r := rand.New(rand.NewPCG(seed, 15))
		msgs := randomConversation(r)
		opts := randomOptions(r)
		opts.RelevanceReserve = 0.05 + 0.95*r.Float64()
		res, err := chitta.Compact(t.Context(), msgs, opts)
		require.NoError(t, err, "seed %d", seed)
		checkInvariants(t, msgs, res)
		if opts.Query == "" || !res.Stats.Embedding || ignoresQuery(opts) {
			continue // the reserve is off: the formula fills (TestCompactReserveAndLexicalWithoutQuery)
		}
		checked++
		want := expectedReserveSelection(msgs, res.Scores, res.Stats.TargetTokens, opts.RelevanceReserve)
		require.Equal(t, want, res.Kept, "seed %d: pinned, reserve, then least covered and newest", seed)
	}
	require.Greater(t, checked, 100)
}

func expectedReserveSelection(msgs []chitta.Message, scores []chitta.TurnScore, target int, share float64) []int {
	type unit struct {
		members   []int
		cost      int
		last      int
		sim, cov  float64
		pinned    bool
		kept      bool
		firstSeen int
	}
	byFirst := map[int]*unit{}
	var units []*unit
	used := 0
	for i, m := range msgs {
		s := scores[i]
		if m.Role.Pinned() {
			used += s.Tokens
			continue
		}
		u := byFirst[s.Unit]
		if u == nil {
			u = &unit{sim: math.Inf(-1), cov: 1, firstSeen: i}
			byFirst[s.Unit] = u
			units = append(units, u)
		}
		u.members = append(u.members, i)
		u.cost += s.Tokens
		u.last = i
		claim := s.Semantic * (1 - s.Coverage)
		if strings.TrimSpace(m.Content) == "" {
			claim = 0 // no text, no vector: its Semantic is the neutral 0.5, no similarity
		}
		u.sim = max(u.sim, claim)
		u.cov = min(u.cov, s.Coverage)
		u.pinned = u.pinned || s.Pinned
	}
	for _, u := range units {
		if u.pinned {
			u.kept = true
			used += u.cost
		}
	}
	take := func(order []*unit, limit int) {
		for _, u := range order {
			if !u.kept && used+u.cost <= limit {
				u.kept = true
				used += u.cost
			}
		}
	}
	if free := target - used; free > 0 {
		order := slices.Clone(units)
		slices.SortStableFunc(order, func(a, b *unit) int { return cmp.Or(cmp.Compare(b.sim, a.sim), cmp.Compare(b.last, a.last)) })
		take(order, used+int(math.Floor(share*float64(free)*(1+1e-12))))
	}
	order := slices.Clone(units)
	slices.SortStableFunc(order, func(a, b *unit) int { return cmp.Or(cmp.Compare(a.cov, b.cov), cmp.Compare(b.last, a.last)) })
	take(order, target)
	out := []int{}
	for i, m := range msgs {
		if m.Role.Pinned() || byFirst[scores[i].Unit].kept {
			out = append(out, i)
		}
	}
	return out
}

// TestCompactReserveWithinFreeBudget: the reserve never spends more than
// the free budget, however large: the nudge that reads RelevanceReserve ×
// free as the decimal the caller wrote (× (1 + 1e-12)) adds whole tokens
// once free passes 1e12, and would overflow int near math.MaxInt.
func TestCompactReserveWithinFreeBudget(t *testing.T) {
	t.Parallel()
	const big = 1_000_000_000_001 // tokens of each of the two turns
	msgs := []chitta.Message{msg(chitta.RoleUser, "alpha"), msg(chitta.RoleAssistant, "beta")}
	counts := chitta.TokenCounterFunc(func(s string) int {
		if s == "alpha" || s == "beta" {
			return big
		}
		return 0
	})
	emb := &chittatest.TableEmbedder{Vectors: map[string][]float32{
		"alpha": {1, 0}, "beta": {1, 0.1}, "query": {1, 0},
	}}
	opts := &chitta.Options{Query: "query", Embedder: emb, Tokens: counts, FreeSelection: true,
		MaxTokens: 2*big - 2, RelevanceReserve: 1}
	res, err := chitta.Compact(t.Context(), msgs, opts)
	require.NoError(t, err)
	require.Equal(t, 2*big-2, res.Stats.TargetTokens)
	assert.LessOrEqual(t, res.Stats.AfterTokens, res.Stats.TargetTokens)
	assert.Equal(t, []int{0}, res.Kept, "the closer turn, alone: both do not fit")
}
