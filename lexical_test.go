package chitta_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// oldMatchConversation is a chat whose first turn answers the query exactly,
// followed by many recent turns about other things.
func oldMatchConversation() []chitta.Message {
	msgs := []chitta.Message{
		msg(chitta.RoleSystem, "you are a helpful assistant"),
		msg(chitta.RoleUser, "before I forget, a long note from the migration last year: we moved the build agents, renamed the staging "+
			"buckets, rotated most tokens, archived the old wiki pages, cleaned the monitoring dashboards, retired the "+
			"cron host, and the deploy key lives in vault under secret/prod/deployKey; the rest of the notes are in the shared drive"),
	}
	topics := []string{"lunch menu options", "weekend hiking trail", "coffee grinder settings", "holiday photos album", "guitar chord practice"}
	for i := range 40 {
		msgs = append(msgs, msg(chitta.RoleUser, fmt.Sprintf("we talked about the %s again, turn %d of the chat", topics[i%len(topics)], i)))
	}
	return msgs
}

func TestCompactRelevanceReserveKeepsOldExactMatch(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	msgs := oldMatchConversation()
	base := chitta.Options{Query: "where does the deploy key live in vault", TargetRatio: 0.3, Embedder: chitta.NewHashEmbedder(0), Tokens: words}
	def, err := chitta.Compact(ctx, msgs, &base)
	require.NoError(t, err)
	require.False(t, def.Scores[1].Kept, "premise: the formula alone drops the old exact match")

	for _, lex := range []float64{0, 0.3} {
		opts := base
		opts.RelevanceReserve, opts.Lexical = 0.5, lex
		res, err := chitta.Compact(ctx, msgs, &opts)
		require.NoError(t, err)
		assert.True(t, res.Scores[1].Kept, "lexical %v: the reserve keeps the old exact match", lex)
		assert.LessOrEqual(t, res.Stats.AfterTokens, res.Stats.TargetTokens)
		if lex == 0 {
			for i := range res.Scores {
				a, b := def.Scores[i], res.Scores[i]
				a.Kept, b.Kept, a.Pinned, b.Pinned = false, false, false, false // selection, not score
				assert.Equal(t, a, b, "score %d unchanged by the reserve", i)
			}
		}
	}
}

func TestCompactLexicalMixesBM25(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	msgs := oldMatchConversation()
	base := chitta.Options{Query: "deploy key vault", Embedder: chitta.NewHashEmbedder(0)}
	cos, err := chitta.Compact(ctx, msgs, &base)
	require.NoError(t, err)
	opts := base
	opts.Lexical = 1
	lex, err := chitta.Compact(ctx, msgs, &opts)
	require.NoError(t, err)
	assert.InDelta(t, 1, lex.Scores[1].Semantic, 1e-12, "Lexical 1: semantic is BM25 normalised by the best turn")
	opts.Lexical = 0.3
	mix, err := chitta.Compact(ctx, msgs, &opts)
	require.NoError(t, err)
	for _, i := range []int{1, 2, 10} {
		want := 0.7*cos.Scores[i].Semantic + 0.3*lex.Scores[i].Semantic
		assert.InDelta(t, want, mix.Scores[i].Semantic, 1e-12, "turn %d: 0.7·cosine + 0.3·BM25", i)
	}
}

func TestCompactReserveAndLexicalWithoutQuery(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	msgs := oldMatchConversation()
	for _, base := range []chitta.Options{
		{TargetRatio: 0.3},
		{TargetRatio: 0.3, Embedder: chitta.NewHashEmbedder(0)},
		{TargetRatio: 0.3, Embedder: chitta.NewHashEmbedder(0), Query: " \n"},
		{TargetRatio: 0.3, Query: "deploy key"}, // a query without an embedder has no cosine
	} {
		def, err := chitta.Compact(ctx, msgs, &base)
		require.NoError(t, err)
		opts := base
		opts.RelevanceReserve, opts.Lexical = 1, 1
		got, err := chitta.Compact(ctx, msgs, &opts)
		require.NoError(t, err)
		assert.Equal(t, def, got, "%+v: identical to the default", base)
	}
}

func TestCompactReserveOptionValidation(t *testing.T) {
	t.Parallel()
	msgs := []chitta.Message{msg(chitta.RoleUser, "hello")}
	tests := []struct {
		name    string
		opts    chitta.Options
		mention string
	}{
		{"reserve negative", chitta.Options{RelevanceReserve: -0.1}, "RelevanceReserve -0.1, want 0 (off) to 1"},
		{"reserve above 1", chitta.Options{RelevanceReserve: 1.5}, "RelevanceReserve 1.5"},
		{"reserve NaN", chitta.Options{RelevanceReserve: math.NaN()}, "RelevanceReserve NaN"},
		{"reserve +Inf", chitta.Options{RelevanceReserve: math.Inf(1)}, "RelevanceReserve +Inf"},
		{"lexical negative", chitta.Options{Lexical: -1}, "Lexical -1, want 0 (off) to 1"},
		{"lexical above 1", chitta.Options{Lexical: 1.01}, "Lexical 1.01"},
		{"lexical NaN", chitta.Options{Lexical: math.NaN()}, "Lexical NaN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := chitta.Compact(t.Context(), msgs, &tt.opts)
			require.ErrorIs(t, err, chitta.ErrInvalidOption)
			assert.Contains(t, err.Error(), tt.mention)
		})
	}
	for _, v := range []float64{0, 0.5, 1} {
		_, err := chitta.Compact(t.Context(), msgs, &chitta.Options{RelevanceReserve: v, Lexical: v})
		assert.NoError(t, err, "value %v", v)
	}
}

// TestCompactPresetConcurrentSharedCache runs the preset from several
// goroutines over one small CachedEmbedder (so that entries, and the
// lexical passes cached in them, are evicted while others read them) and
// checks, under -race, that every result equals the one computed with the
// plain HashEmbedder, where every lexical pass is computed afresh.
func TestCompactPresetConcurrentSharedCache(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	convs := randomConversations(15, 10)
	he := chitta.NewHashEmbedder(64)
	preset := chitta.Options{Query: "fix the parseConfig error", TargetRatio: 0.3, RelevanceReserve: 0.5, Lexical: 0.3}
	want := make([]*chitta.Result, len(convs))
	for i, msgs := range convs {
		o := preset
		o.Embedder = he
		var err error
		want[i], err = chitta.Compact(ctx, msgs, &o)
		require.NoError(t, err)
	}
	shared := preset
	shared.Embedder = chitta.NewCachedEmbedder(he, 16)
	compactConcurrently(t, convs, want, &shared, 3)
}

// A message without a vector (an assistant turn whose only content is a
// tool call, with no text) has the formula's neutral Semantic, 0.5, which
// is no similarity to the query: it claims nothing of the relevance
// reserve. It claimed 0.5 (above most cosines), so its tool group took the
// reserve ahead of the old exact match.
func TestCompactReserveIgnoresMessagesWithoutVector(t *testing.T) {
	t.Parallel()
	msgs := oldMatchConversation()
	group := []chitta.Message{
		{Role: chitta.RoleAssistant, ToolCallIDs: []string{"c1"}},
		{Role: chitta.RoleTool, Content: strings.Repeat("lunch menu options for the team outing ", 5), ToolResultIDs: []string{"c1"}},
	}
	msgs = slices.Insert(msgs, 2, group...)
	opts := chitta.Options{Query: "where does the deploy key live in vault", TargetRatio: 0.3, Embedder: chitta.NewHashEmbedder(0), Tokens: words,
		RelevanceReserve: 0.5}
	res, err := chitta.Compact(t.Context(), msgs, &opts)
	require.NoError(t, err)
	assert.Equal(t, 0.5, res.Scores[2].Semantic, "premise: the call has no vector")
	require.Less(t, res.Scores[1].Semantic, 0.5, "premise: the exact match's cosine is below the neutral 0.5")
	assert.True(t, res.Scores[1].Kept, "the reserve keeps the old exact match")
	assert.False(t, res.Scores[2].Kept, "the group without a match does not take the reserve")
}
