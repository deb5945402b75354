package retention

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// TestRescaleMatchesReference checks chitta.Options.Rescale against an
// independent re-ranking of Compact's plain score breakdown (the way the
// chitta-norm variant was first computed here), packed with the baselines'
// first-fit rule.
func TestRescaleMatchesReference(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	env := Env{Embedder: &bagEmbedder{dims: 64}, Tokens: wordTokens}
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 9))
		msgs := toolConversation(rng, 10+rng.IntN(50))
		// FreeSelection: the reference packs with the plain first-fit rule.
		opts := &chitta.Options{Query: "cancel flight", TargetRatio: 0.2 + 0.6*rng.Float64(), Embedder: env.Embedder, Tokens: env.Tokens, FreeSelection: true}
		plain, err := chitta.Compact(ctx, msgs, opts)
		require.NoError(t, err)
		want := pack(plain.Scores, plain.Stats.TargetTokens, rescaledOrder(plain.Scores))
		opts.Rescale = true
		res, err := chitta.Compact(ctx, msgs, opts)
		require.NoError(t, err)
		got := make([]bool, len(msgs))
		for _, i := range res.Kept {
			got[i] = true
		}
		assert.Equal(t, want, got, "seed %d", seed)
	}
}

// rescaledOrder ranks the units by the chitta formula with the semantic and
// coverage terms min–max rescaled over the unpinned messages (a constant
// term becomes its neutral 0.5), ties broken newest first as chitta does.
func rescaledOrder(scores []chitta.TurnScore) []unit {
	var sem, cov []float64
	for _, s := range scores {
		if !s.Pinned {
			sem = append(sem, s.Semantic)
			cov = append(cov, s.Coverage)
		}
	}
	semScale, covScale := minMax(sem), minMax(cov)
	us := units(scores)
	for k := range us {
		u := &us[k]
		u.score = -1
		for _, i := range u.members {
			s := scores[i]
			v := s.Structural * (0.3*s.Recency + 0.4*semScale(s.Semantic) + 0.3*(1-covScale(s.Coverage)))
			u.score = max(u.score, v)
		}
	}
	slices.SortFunc(us, func(a, b unit) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(b.last, a.last)
	})
	return us
}

// minMax returns the function mapping xs's range onto [0, 1]; a constant
// (or empty) range maps to 0.5.
func minMax(xs []float64) func(float64) float64 {
	if len(xs) == 0 {
		return func(float64) float64 { return 0.5 }
	}
	lo, hi := slices.Min(xs), slices.Max(xs)
	if hi-lo < 1e-12 {
		return func(float64) float64 { return 0.5 }
	}
	return func(x float64) float64 { return (x - lo) / (hi - lo) }
}
