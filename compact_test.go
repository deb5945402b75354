package chitta_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/chittatest"
)

// words counts whitespace-separated words: a token counter that makes
// budgets easy to compute by hand.
var words = chitta.TokenCounterFunc(func(s string) int { return len(strings.Fields(s)) })

func msg(role chitta.Role, content string) chitta.Message {
	return chitta.Message{Role: role, Content: content}
}

// text returns a string of n distinct words starting with tag.
func text(tag string, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = tag
	}
	return strings.Join(w, " ")
}

func TestCompactScoresWithoutEmbedder(t *testing.T) {
	t.Parallel()
	msgs := []chitta.Message{
		msg(chitta.RoleSystem, "sys"),
		msg(chitta.RoleUser, "u"),
		msg(chitta.RoleAssistant, "a"),
		msg(chitta.RoleTool, "t"),
		msg("function", "f"),
		msg("tool_result", "r"),
	}
	res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: 1})
	require.NoError(t, err)
	// Five non-system messages: recency 0.1, 0.325, 0.55, 0.775, 1.0.
	want := []struct {
		structural, recency, score float64
	}{
		{2.0, 0, 0},
		{1.0, 0.1, 1.0 * (0.3*0.1 + 0.4*0.5 + 0.3)},
		{0.8, 0.325, 0.8 * (0.3*0.325 + 0.4*0.5 + 0.3)},
		{0.5, 0.55, 0.5 * (0.3*0.55 + 0.4*0.5 + 0.3)},
		{0.5, 0.775, 0.5 * (0.3*0.775 + 0.4*0.5 + 0.3)},
		{0.5, 1.0, 0.5 * (0.3*1.0 + 0.4*0.5 + 0.3)},
	}
	require.Len(t, res.Scores, len(msgs))
	for i, w := range want {
		s := res.Scores[i]
		assert.Equal(t, i, s.Index)
		assert.InDelta(t, w.structural, s.Structural, 1e-12, "structural %d", i)
		assert.InDelta(t, w.recency, s.Recency, 1e-12, "recency %d", i)
		assert.InDelta(t, w.score, s.Score, 1e-12, "score %d", i)
		if i > 0 {
			assert.InDelta(t, 0.5, s.Semantic, 0, "neutral semantic %d", i)
			assert.Zero(t, s.Coverage)
		}
	}
	assert.True(t, res.Scores[0].Pinned)
	assert.False(t, res.Stats.Embedding)
}

func TestCompactLoneMessageRecency(t *testing.T) {
	t.Parallel()
	res, err := chitta.Compact(t.Context(), []chitta.Message{msg(chitta.RoleSystem, "s"), msg(chitta.RoleUser, "only")}, nil)
	require.NoError(t, err)
	assert.InDelta(t, 1.0, res.Scores[1].Recency, 0)
	assert.InDelta(t, 0.3*1+0.4*0.5+0.3, res.Scores[1].Score, 1e-12)
}

func TestCompactSemanticAndCoverage(t *testing.T) {
	t.Parallel()
	s2 := float32(math.Sqrt2 / 2)
	emb := &chittatest.TableEmbedder{Vectors: map[string][]float32{
		"query":    {1, 0, 0},
		"same":     {2, 0, 0},  // cosine 1
		"diagonal": {1, 1, 0},  // cosine √2/2
		"opposite": {-1, 0, 0}, // cosine −1 → clamped to 0
		"ortho":    {0, 0, 5},  // cosine 0
		"zero":     {0, 0, 0},  // no direction → neutral, no coverage
	}}
	store := &chittatest.Store{Memories: []chitta.Memory{
		{ID: "m1", Vector: []float32{0, 0, 1}},   // covers "ortho" fully
		{ID: "m2", Vector: []float32{s2, s2, 0}}, // covers "diagonal" fully, "same" at √2/2
		{ID: "m3", Vector: []float32{-1, 0, 0}},  // covers "opposite"
		{ID: "m4", Vector: []float32{-1, -1, 0}}, // never among the best
	}}
	msgs := []chitta.Message{
		msg(chitta.RoleUser, "same"),
		msg(chitta.RoleUser, "diagonal"),
		msg(chitta.RoleUser, "opposite"),
		msg(chitta.RoleUser, "ortho"),
		msg(chitta.RoleUser, "zero"),
		msg(chitta.RoleUser, "   "),
	}
	res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Query: "query", Embedder: emb, Store: store, TargetRatio: 1})
	require.NoError(t, err)
	assert.True(t, res.Stats.Embedding)

	wantSem := []float64{1, math.Sqrt2 / 2, 0, 0, 0.5, 0.5}
	wantCov := []float64{math.Sqrt2 / 2, 1, 1, 1, 0, 0}
	for i := range msgs {
		s := res.Scores[i]
		assert.InDelta(t, wantSem[i], s.Semantic, 1e-6, "semantic %d", i)
		assert.InDelta(t, wantCov[i], s.Coverage, 1e-6, "coverage %d", i)
		want := 1.0 * (0.3*s.Recency + 0.4*wantSem[i] + 0.3*(1-wantCov[i]))
		assert.InDelta(t, want, s.Score, 1e-6, "score %d", i)
	}
	// One batched Embed call with every non-empty message and the query;
	// the blank message is not sent.
	require.Equal(t, 1, emb.CallCount())
	assert.Equal(t, []string{"same", "diagonal", "opposite", "ortho", "zero", "query"}, emb.Calls[0])
	// The zero vector is not sent to the store.
	assert.Equal(t, 4, store.Recalls)
}

// batchStore implements BatchRecaller and counts calls.
type batchStore struct {
	chittatest.Store
	batches int
	k       int
}

func (b *batchStore) RecallBatch(ctx context.Context, vecs [][]float32, k int) ([][]chitta.Hit, error) {
	b.batches++
	b.k = k
	out := make([][]chitta.Hit, len(vecs))
	for i, v := range vecs {
		h, err := b.Store.Recall(ctx, v, k)
		if err != nil {
			return nil, err
		}
		out[i] = h
	}
	return out, nil
}

func TestCompactUsesBatchRecall(t *testing.T) {
	t.Parallel()
	emb := chittatest.SeededEmbedder{Dims: 8}
	msgs := []chitta.Message{msg(chitta.RoleUser, "a b c"), msg(chitta.RoleAssistant, "d e f")}
	st := &batchStore{}
	v := chittatest.SeededVector("a b c", 8)
	require.NoError(t, st.Add(t.Context(), chitta.Memory{ID: "x", Vector: v}))
	res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Embedder: emb, Store: st})
	require.NoError(t, err)
	assert.Equal(t, 1, st.batches)
	assert.Equal(t, chitta.CoverageNeighbours, st.k)
	assert.InDelta(t, 1.0, res.Scores[0].Coverage, 1e-6)
}

func TestCompactBudget(t *testing.T) {
	t.Parallel()
	// Without an embedder the score order of equal-weight user messages is
	// their recency, newest first.
	tests := []struct {
		name  string
		msgs  []chitta.Message
		opts  chitta.Options
		kept  []int
		after int
	}{
		{
			name: "greedy by score until the target",
			msgs: []chitta.Message{msg(chitta.RoleUser, text("a", 10)), msg(chitta.RoleUser, text("b", 10)), msg(chitta.RoleUser, text("c", 10)), msg(chitta.RoleUser, text("d", 10))},
			opts: chitta.Options{TargetRatio: 0.5}, // 20 of 40
			kept: []int{2, 3}, after: 20,
		},
		{
			name: "first fit skips a message that does not fit and takes a smaller one",
			msgs: []chitta.Message{msg(chitta.RoleUser, text("a", 5)), msg(chitta.RoleUser, text("b", 30)), msg(chitta.RoleUser, text("c", 10))},
			opts: chitta.Options{TargetRatio: 0.4}, // floor(0.4·45) = 18
			kept: []int{0, 2}, after: 15,
		},
		{
			name: "floor of ratio times before",
			msgs: []chitta.Message{msg(chitta.RoleUser, text("a", 3)), msg(chitta.RoleUser, text("b", 3)), msg(chitta.RoleUser, text("c", 4))},
			opts: chitta.Options{TargetRatio: 0.69}, // floor(6.9) = 6: c (4) fits, b (3) does not, a (3) does not
			kept: []int{2}, after: 4,
		},
		{
			name: "MaxTokens replaces the ratio",
			msgs: []chitta.Message{msg(chitta.RoleUser, text("a", 10)), msg(chitta.RoleUser, text("b", 10)), msg(chitta.RoleUser, text("c", 10))},
			opts: chitta.Options{TargetRatio: 0.05, MaxTokens: 20},
			kept: []int{1, 2}, after: 20,
		},
		{
			name: "system is charged first and bypasses the budget",
			msgs: []chitta.Message{msg(chitta.RoleSystem, text("s", 8)), msg(chitta.RoleUser, text("a", 4)), msg(chitta.RoleUser, text("b", 4)), msg(chitta.RoleUser, text("c", 4))},
			opts: chitta.Options{TargetRatio: 0.6}, // floor(0.6·20) = 12: system 8 + c 4
			kept: []int{0, 3}, after: 12,
		},
		{
			name: "system alone over budget keeps only the live turn",
			msgs: []chitta.Message{msg(chitta.RoleSystem, text("s", 10)), msg(chitta.RoleDeveloper, text("d", 5)), msg(chitta.RoleUser, text("a", 1))},
			opts: chitta.Options{TargetRatio: 0.5},
			kept: []int{0, 1, 2}, after: 16,
		},
		{
			name: "FreeSelection: system alone over budget drops everything else",
			msgs: []chitta.Message{msg(chitta.RoleSystem, text("s", 10)), msg(chitta.RoleDeveloper, text("d", 5)), msg(chitta.RoleUser, text("a", 1))},
			opts: chitta.Options{TargetRatio: 0.5, FreeSelection: true},
			kept: []int{0, 1}, after: 15,
		},
		{
			name: "KeepLast keeps the newest even beyond the budget",
			msgs: []chitta.Message{msg(chitta.RoleUser, text("a", 1)), msg(chitta.RoleUser, text("b", 30)), msg(chitta.RoleUser, text("c", 30))},
			opts: chitta.Options{TargetRatio: 0.05, KeepLast: 2},
			kept: []int{1, 2}, after: 60,
		},
		{
			name: "ratio 1 keeps everything",
			msgs: []chitta.Message{msg(chitta.RoleUser, text("a", 3)), msg(chitta.RoleAssistant, text("b", 3)), msg(chitta.RoleTool, text("c", 3))},
			opts: chitta.Options{TargetRatio: 1},
			kept: []int{0, 1, 2}, after: 9,
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
			assert.Equal(t, tt.after, res.Stats.AfterTokens)
			assert.Len(t, res.Messages, len(tt.kept))
			assert.Equal(t, len(tt.msgs)-len(tt.kept), res.Stats.Dropped)
			for i, k := range res.Kept {
				assert.Equal(t, tt.msgs[k], res.Messages[i])
			}
		})
	}
}

// TestCompactBudgetDecimalRatio checks target = floor(ratio × before) for
// decimal ratios whose float64 product falls an ulp short of the integer
// (0.29 × 100 = 28.999999999999996 in float64).
func TestCompactBudgetDecimalRatio(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ratio  float64
		before int
		want   int
	}{
		{0.29, 100, 29},
		{0.35, 180, 63},
		{0.57, 100, 57},
		{0.5, 7, 3},
		{0.05, 19, 0},
		{0.4, 1000, 400},
		{1, 37, 37},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%v×%d", tt.ratio, tt.before), func(t *testing.T) {
			t.Parallel()
			res, err := chitta.Compact(t.Context(), []chitta.Message{msg(chitta.RoleUser, text("w", tt.before))},
				&chitta.Options{TargetRatio: tt.ratio, Tokens: words})
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.Stats.TargetTokens)
		})
	}
}

func TestCompactOverBudgetStats(t *testing.T) {
	t.Parallel()
	msgs := []chitta.Message{msg(chitta.RoleSystem, text("s", 10)), msg(chitta.RoleUser, text("a", 10)), msg(chitta.RoleAssistant, text("b", 10))}
	res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: 0.25, Tokens: words})
	require.NoError(t, err)
	st := res.Stats
	assert.True(t, st.OverBudget)
	assert.Equal(t, 7, st.TargetTokens)
	assert.Equal(t, 30, st.BeforeTokens)
	assert.Equal(t, 30, st.AfterTokens, "the live turn (user and reply) is pinned")
	assert.Equal(t, 0, st.Dropped)
	assert.Equal(t, 3, st.Kept)
	assert.Zero(t, st.DroppedPct)

	res, err = chitta.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: 0.25, Tokens: words, FreeSelection: true})
	require.NoError(t, err)
	st = res.Stats
	assert.True(t, st.OverBudget)
	assert.Equal(t, 10, st.AfterTokens)
	assert.Equal(t, 2, st.Dropped)
	assert.Equal(t, 1, st.Kept)
	assert.InDelta(t, 100*20/30.0, st.DroppedPct, 1e-12)
}

func TestCompactTiesBreakByRecency(t *testing.T) {
	t.Parallel()
	// Equal scores: the same vector for both messages, the same role,
	// recency neutralised by a RoleWeights of 0 (all scores 0).
	msgs := []chitta.Message{msg("note", text("a", 5)), msg("note", text("b", 5)), msg("note", text("c", 5))}
	res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: 0.4, Tokens: words, RoleWeights: map[chitta.Role]float64{"note": 0}})
	require.NoError(t, err)
	for _, s := range res.Scores {
		assert.Zero(t, s.Score)
	}
	assert.Equal(t, []int{2}, res.Kept, "the latest of equal scores wins")
}

func TestCompactToolUnits(t *testing.T) {
	t.Parallel()
	call := chitta.Message{Role: chitta.RoleAssistant, Content: text("call", 5), ToolCallIDs: []string{"c1", "c2"}}
	r1 := chitta.Message{Role: chitta.RoleTool, Content: text("r1", 5), ToolResultIDs: []string{"c1"}}
	r2 := chitta.Message{Role: chitta.RoleTool, Content: text("r2", 5), ToolResultIDs: []string{"c2"}}
	orphan := chitta.Message{Role: chitta.RoleTool, Content: text("orphan", 2), ToolResultIDs: []string{"gone"}}
	msgs := []chitta.Message{msg(chitta.RoleUser, text("u", 5)), call, r1, r2, orphan, msg(chitta.RoleUser, text("last", 5))}

	t.Run("unit is kept whole when it fits", func(t *testing.T) {
		t.Parallel()
		// Heavy tool results: orphan (2 tokens) ranks first, then the
		// unit (score of its best member r2, cost 15), which fits whole;
		// neither user message fits after that.
		// FreeSelection: the greedy rule alone, without the live turn.
		res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{MaxTokens: 20, Tokens: words, RoleWeights: map[chitta.Role]float64{chitta.RoleTool: 2}, FreeSelection: true})
		require.NoError(t, err)
		assert.InDelta(t, 2*(0.3*0.64+0.4*0.5+0.3), res.Scores[3].Score, 1e-12)
		assert.Greater(t, res.Scores[3].Score, res.Scores[5].Score)
		assert.Greater(t, res.Scores[5].Score, res.Scores[1].Score, "the call alone scores below the last user turn")
		assert.Equal(t, []int{1, 2, 3, 4}, res.Kept)
		assert.Equal(t, 17, res.Stats.AfterTokens)
		for _, i := range []int{1, 2, 3} {
			assert.Equal(t, 1, res.Scores[i].Unit)
		}
		assert.Equal(t, 4, res.Scores[4].Unit)
	})
	t.Run("unit is dropped whole when its sum does not fit", func(t *testing.T) {
		t.Parallel()
		res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{MaxTokens: 14, Tokens: words})
		require.NoError(t, err)
		assert.Equal(t, []int{0, 4, 5}, res.Kept)
	})
	t.Run("KeepLast on a result keeps its call", func(t *testing.T) {
		t.Parallel()
		res, err := chitta.Compact(t.Context(), msgs[:4], &chitta.Options{MaxTokens: 1, KeepLast: 1, Tokens: words, FreeSelection: true})
		require.NoError(t, err)
		assert.Equal(t, []int{1, 2, 3}, res.Kept)
		assert.True(t, res.Scores[1].Pinned)
	})
}

func TestCompactAnthropicToolResultWeighsAsTool(t *testing.T) {
	t.Parallel()
	msgs := []chitta.Message{
		{Role: chitta.RoleAssistant, Content: "x", ToolCallIDs: []string{"t"}},
		{Role: chitta.RoleUser, Content: "y", ToolResultIDs: []string{"t"}},
	}
	res, err := chitta.Compact(t.Context(), msgs, nil)
	require.NoError(t, err)
	assert.InDelta(t, 0.5, res.Scores[1].Structural, 0)
}

func TestCompactRoleWeights(t *testing.T) {
	t.Parallel()
	msgs := []chitta.Message{msg(chitta.RoleUser, "u"), msg("critic", "c"), msg("function", "f")}
	_, err := chitta.Compact(t.Context(), msgs, nil)
	var me *chitta.MessageError
	require.ErrorAs(t, err, &me)
	require.ErrorIs(t, err, chitta.ErrUnknownRole)
	assert.Equal(t, 1, me.Index)
	assert.Contains(t, err.Error(), `"critic"`)

	res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{RoleWeights: map[chitta.Role]float64{"critic": 0.3, chitta.RoleUser: 2, chitta.RoleTool: 0.1}})
	require.NoError(t, err)
	assert.InDelta(t, 2.0, res.Scores[0].Structural, 0)
	assert.InDelta(t, 0.3, res.Scores[1].Structural, 0)
	assert.InDelta(t, 0.1, res.Scores[2].Structural, 0, "function follows the tool weight")
}

func TestCompactInvalidOptions(t *testing.T) {
	t.Parallel()
	msgs := []chitta.Message{msg(chitta.RoleUser, "hello")}
	tests := []struct {
		name    string
		opts    chitta.Options
		target  error
		mention string
	}{
		{"ratio NaN", chitta.Options{TargetRatio: math.NaN()}, chitta.ErrInvalidTargetRatio, "NaN"},
		{"ratio +Inf", chitta.Options{TargetRatio: math.Inf(1)}, chitta.ErrInvalidTargetRatio, "+Inf"},
		{"ratio -Inf", chitta.Options{TargetRatio: math.Inf(-1)}, chitta.ErrInvalidTargetRatio, "-Inf"},
		{"ratio too small", chitta.Options{TargetRatio: 0.04}, chitta.ErrInvalidTargetRatio, "0.05–1"},
		{"ratio negative", chitta.Options{TargetRatio: -0.5}, chitta.ErrInvalidTargetRatio, "TargetRatio -0.5"},
		{"ratio too large", chitta.Options{TargetRatio: 1.01}, chitta.ErrInvalidTargetRatio, "TargetRatio 1.01"},
		{"negative MaxTokens", chitta.Options{MaxTokens: -1}, chitta.ErrInvalidOption, "MaxTokens -1"},
		{"negative KeepLast", chitta.Options{KeepLast: -2}, chitta.ErrInvalidOption, "KeepLast -2"},
		{"NovelThreshold above 1", chitta.Options{NovelThreshold: 1.5}, chitta.ErrInvalidOption, "NovelThreshold 1.5"},
		{"NovelThreshold NaN", chitta.Options{NovelThreshold: math.NaN()}, chitta.ErrInvalidOption, "NovelThreshold NaN"},
		{"negative weight", chitta.Options{RoleWeights: map[chitta.Role]float64{"user": -1}}, chitta.ErrInvalidOption, `RoleWeights["user"]`},
		{"infinite weight", chitta.Options{RoleWeights: map[chitta.Role]float64{"x": math.Inf(1)}}, chitta.ErrInvalidOption, `RoleWeights["x"]`},
		{"system weight", chitta.Options{RoleWeights: map[chitta.Role]float64{"system": 1}}, chitta.ErrInvalidOption, "always kept"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := chitta.Compact(t.Context(), msgs, &tt.opts)
			require.ErrorIs(t, err, tt.target)
			assert.Contains(t, err.Error(), tt.mention)
		})
	}
	for _, r := range []float64{0.05, 1, 0.4, 0} {
		_, err := chitta.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: r})
		assert.NoError(t, err, "ratio %v", r)
	}
}

func TestCompactEmptyInput(t *testing.T) {
	t.Parallel()
	for _, in := range [][]chitta.Message{nil, {}} {
		res, err := chitta.Compact(t.Context(), in, &chitta.Options{Embedder: chittatest.SeededEmbedder{Dims: 4}})
		require.NoError(t, err)
		assert.Empty(t, res.Messages)
		assert.Empty(t, res.Kept)
		assert.Empty(t, res.Scores)
		assert.Equal(t, chitta.Stats{}, res.Stats)
	}
}

func TestCompactDegradesOnBadEmbedder(t *testing.T) {
	t.Parallel()
	msgs := []chitta.Message{msg(chitta.RoleUser, "one"), msg(chitta.RoleAssistant, "two")}
	tests := []struct {
		name string
		emb  chitta.EmbedderFunc
		log  string
	}{
		{"error", func(context.Context, []string) ([][]float32, error) { return nil, errors.New("boom") }, "boom"},
		{"too few vectors", func(context.Context, []string) ([][]float32, error) { return [][]float32{{1}}, nil }, "got 1 vectors for 3 texts"},
		{"mismatched dims", func(context.Context, []string) ([][]float32, error) {
			return [][]float32{{1, 0}, {1, 0, 0}, {1, 0}}, nil
		}, "vector 1 has 3 dimensions, want 2"},
		{"empty vector", func(context.Context, []string) ([][]float32, error) { return [][]float32{{}, {}, {}}, nil }, "vector 0 is empty"},
		{"NaN", func(context.Context, []string) ([][]float32, error) {
			return [][]float32{{1, 0}, {float32(math.NaN()), 0}, {1, 0}}, nil
		}, "NaN or infinite"},
		{"all zero", func(context.Context, []string) ([][]float32, error) {
			return [][]float32{{0, 0}, {0, 0}, {0, 0}}, nil
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			logger := slog.New(slog.NewTextHandler(&buf, nil))
			store := &chittatest.Store{}
			res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Query: "q", Embedder: tt.emb, Store: store, Logger: logger})
			require.NoError(t, err)
			assert.False(t, res.Stats.Embedding)
			for _, s := range res.Scores {
				assert.InDelta(t, 0.5, s.Semantic, 0)
				assert.Zero(t, s.Coverage)
			}
			assert.Zero(t, store.Recalls)
			if tt.log != "" {
				assert.Contains(t, buf.String(), tt.log)
				assert.Contains(t, buf.String(), "level=WARN")
			}
		})
	}
}

func TestCompactRecallErrorIsLogged(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	store := &chittatest.Store{Err: errors.New("disk on fire")}
	res, err := chitta.Compact(t.Context(), []chitta.Message{msg(chitta.RoleUser, "x")},
		&chitta.Options{Embedder: chittatest.SeededEmbedder{Dims: 4}, Store: store, Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	require.NoError(t, err)
	assert.True(t, res.Stats.Embedding)
	assert.Zero(t, res.Scores[0].Coverage)
	assert.Contains(t, buf.String(), "disk on fire")
}

func TestCompactCancelled(t *testing.T) {
	t.Parallel()
	msgs := []chitta.Message{msg(chitta.RoleUser, "x"), msg(chitta.RoleUser, "y")}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := chitta.Compact(ctx, msgs, nil)
	require.ErrorIs(t, err, context.Canceled)

	// Cancelled while embedding: the embedder's error is not mistaken for a
	// degradable failure.
	ctx2, cancel2 := context.WithCancel(t.Context())
	emb := chitta.EmbedderFunc(func(ctx context.Context, _ []string) ([][]float32, error) {
		cancel2()
		return nil, ctx.Err()
	})
	_, err = chitta.Compact(ctx2, msgs, &chitta.Options{Embedder: emb})
	require.ErrorIs(t, err, context.Canceled)
}

func TestCompactNegativeTokenCount(t *testing.T) {
	t.Parallel()
	three := []chitta.Message{msg(chitta.RoleSystem, "s"), msg(chitta.RoleUser, "x"), msg(chitta.RoleUser, "y")}
	tests := []struct {
		name    string
		msgs    []chitta.Message
		count   func(string) int
		wantMsg string
	}{
		{"negative", three[1:2], func(string) int { return -1 }, "message 0"},
		// Counts that overflow int when summed would make before_tokens
		// negative and the budget meaningless.
		{"total overflows int", three, func(string) int { return math.MaxInt/2 + 1 }, "message 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := chitta.Compact(t.Context(), tt.msgs, &chitta.Options{Tokens: chitta.TokenCounterFunc(tt.count)})
			require.ErrorIs(t, err, chitta.ErrInvalidTokenCount)
			assert.Nil(t, res)
			assert.Contains(t, err.Error(), tt.wantMsg)
		})
	}
}

func TestCompactReturnsRawVerbatim(t *testing.T) {
	t.Parallel()
	in := `[{"role":"system","content":"be brief"},
	  {"role":"user",   "content":"hi  there",  "extra": {"keep": [1, 2]}},
	  {"role":"assistant","content":[{"type":"text","text":"hello"}],"x":1}]`
	msgs, err := chitta.ParseMessages([]byte(in))
	require.NoError(t, err)
	res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: 1})
	require.NoError(t, err)
	out, err := json.Marshal(res.Messages)
	require.NoError(t, err)
	var want, got []json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(in), &want))
	require.NoError(t, json.Unmarshal(out, &got))
	require.Len(t, got, 3)
	for i := range want {
		var wb bytes.Buffer
		require.NoError(t, json.Compact(&wb, want[i]))
		assert.Equal(t, wb.String(), string(got[i]), "message %d", i)
		assert.Equal(t, string(want[i]), string(res.Messages[i].Raw), "Raw is byte-for-byte")
	}
}

func TestCompactLargeInputs(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("word ", 2<<20) // 10 MB
	msgs := []chitta.Message{msg(chitta.RoleUser, big), msg(chitta.RoleUser, "\xff\xfe invalid \xc3"), msg(chitta.RoleAssistant, "ok")}
	res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Embedder: chittatest.SeededEmbedder{Dims: 16}})
	require.NoError(t, err)
	assert.Equal(t, (2<<20)*13/10, res.Scores[0].Tokens)
	assert.Equal(t, []int{1, 2}, res.Kept)

	n := 100_000
	if testing.Short() {
		n = 10_000
	}
	many := make([]chitta.Message, n)
	for i := range many {
		many[i] = msg([]chitta.Role{chitta.RoleUser, chitta.RoleAssistant}[i%2], "message number "+strings.Repeat("x", i%7))
	}
	res, err = chitta.Compact(t.Context(), many, nil)
	require.NoError(t, err)
	assert.LessOrEqual(t, res.Stats.AfterTokens, res.Stats.TargetTokens)
	assert.Len(t, res.Scores, n)
}

func TestCompactRescale(t *testing.T) {
	t.Parallel()
	emb := &chittatest.TableEmbedder{Vectors: map[string][]float32{
		"q": {1, 0}, "a": {1, 3}, "b": {1, 1}, "c": {0, 1},
	}}
	store := &chittatest.Store{Memories: []chitta.Memory{{ID: "m", Vector: []float32{0, 1}}}}
	msgs := []chitta.Message{msg(chitta.RoleUser, "a"), msg(chitta.RoleUser, "b"), msg(chitta.RoleUser, "c")}
	plain, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Query: "q", Embedder: emb, Store: store})
	require.NoError(t, err)
	res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Query: "q", Embedder: emb, Store: store, Rescale: true})
	require.NoError(t, err)
	// Raw terms: semantic = cos to q, coverage = cos to m.
	semA, semB := 1/math.Sqrt(10), math.Sqrt2/2
	covA, covB := 3/math.Sqrt(10), math.Sqrt2/2
	sem := []float64{semA, semB, 0}
	cov := []float64{covA, covB, 1}
	for i := range msgs {
		assert.InDelta(t, sem[i], res.Scores[i].Semantic, 1e-6, "raw semantic reported")
		assert.InDelta(t, cov[i], res.Scores[i].Coverage, 1e-6, "raw coverage reported")
		assert.InDelta(t, plain.Scores[i].Semantic, res.Scores[i].Semantic, 1e-12)
	}
	// Rescaled over the call: semantic range [0, semB], coverage range [covB, 1].
	rs := func(x, lo, hi float64) float64 { return (x - lo) / (hi - lo) }
	for i, s := range res.Scores {
		want := 0.3*s.Recency + 0.4*rs(sem[i], 0, semB) + 0.3*(1-rs(cov[i], covB, 1))
		assert.InDelta(t, want, s.Score, 1e-6, "score %d", i)
	}
	// A constant term becomes 0.5: without an embedder both are constant.
	flat, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Rescale: true})
	require.NoError(t, err)
	for _, s := range flat.Scores {
		assert.InDelta(t, 0.3*s.Recency+0.4*0.5+0.3*0.5, s.Score, 1e-12)
	}
}

func TestCompactCoverageFilter(t *testing.T) {
	t.Parallel()
	emb := &chittatest.TableEmbedder{Vectors: map[string][]float32{
		"deploy": {1, 0},
		"tests":  {0, 1},
	}}
	store := &chittatest.Store{Memories: []chitta.Memory{
		{ID: "e", Kind: chitta.KindEpisode, Vector: []float32{1, 0}}, // covers "deploy", but is an episode
		{ID: "b", Kind: chitta.KindBrief, Vector: []float32{0, 1}},   // covers "tests", but is a brief
	}}
	msgs := []chitta.Message{msg(chitta.RoleUser, "deploy"), msg(chitta.RoleUser, "tests")}
	tests := []struct {
		name   string
		filter *chitta.KindFilter
		want   []float64
	}{
		{"nil ignores episodes and briefs", nil, []float64{0, 0}},
		{"empty filter counts every kind", &chitta.KindFilter{}, []float64{1, 1}},
		{"include episodes only", &chitta.KindFilter{Include: []string{chitta.KindEpisode}}, []float64{1, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Embedder: emb, Store: store, TargetRatio: 1, CoverageFilter: tt.filter})
			require.NoError(t, err)
			for i, w := range tt.want {
				assert.InDelta(t, w, res.Scores[i].Coverage, 1e-6, "coverage %d", i)
			}
		})
	}
}

// An embedder whose vectors are huge (float32 squares overflow) or tiny
// (they underflow) still gives them a direction: cosine is scale-free, so
// Compact must score them as it scores the same vectors at unit scale.
func TestCompactExtremeVectorScale(t *testing.T) {
	t.Parallel()
	base := map[string][]float32{
		"query": {1, 0, 0},
		"same":  {2, 0, 0},
		"diag":  {1, 1, 0},
		"ortho": {0, 0, 3},
	}
	msgs := []chitta.Message{msg(chitta.RoleUser, "same"), msg(chitta.RoleAssistant, "diag"), msg(chitta.RoleUser, "ortho")}
	run := func(t *testing.T, scale float32) *chitta.Result {
		vecs := map[string][]float32{}
		for k, v := range base {
			w := make([]float32, len(v))
			for i := range v {
				w[i] = v[i] * scale
			}
			vecs[k] = w
		}
		store, err := chitta.NewHNSWStore(3, nil)
		require.NoError(t, err)
		require.NoError(t, store.Add(t.Context(), chitta.Memory{ID: "m", Kind: chitta.KindFact, Vector: []float32{0, 0, scale}}))
		res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{
			Query: "query", Embedder: &chittatest.TableEmbedder{Vectors: vecs}, Store: store, TargetRatio: 1,
		})
		require.NoError(t, err)
		return res
	}
	want := run(t, 1)
	require.True(t, want.Stats.Embedding)
	for _, tt := range []struct {
		name  string
		scale float32
	}{{"huge", 1e20}, {"tiny", 1e-30}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := run(t, tt.scale)
			assert.True(t, got.Stats.Embedding, "vectors of scale %g carry a direction", tt.scale)
			for i := range msgs {
				assert.InDelta(t, want.Scores[i].Semantic, got.Scores[i].Semantic, 1e-6, "semantic %d", i)
				assert.InDelta(t, want.Scores[i].Coverage, got.Scores[i].Coverage, 1e-6, "coverage %d", i)
				assert.InDelta(t, want.Scores[i].Score, got.Scores[i].Score, 1e-6, "score %d", i)
			}
		})
	}
}
