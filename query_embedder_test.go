package chitta_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/chittatest"
)

// prefixed is an asymmetric embedder: it embeds prefix+text with a
// SeededEmbedder, as llamacpp's Queries() prepends QueryPrefix.
func prefixed(prefix string, dims int) chitta.EmbedderFunc {
	return func(ctx context.Context, texts []string) ([][]float32, error) {
		in := make([]string, len(texts))
		for i, t := range texts {
			in[i] = prefix + t
		}
		return chittatest.SeededEmbedder{Dims: dims}.Embed(ctx, in)
	}
}

// TestCompactQueryEmbedderEmbedsOnlyTheQuery: with QueryEmbedder set, the
// query goes to it alone, in one call of one text, and no message does;
// the messages go to Embedder without the query.
func TestCompactQueryEmbedderEmbedsOnlyTheQuery(t *testing.T) {
	t.Parallel()
	msgs := []chitta.Message{
		msg(chitta.RoleSystem, "be brief"),
		msg(chitta.RoleUser, "the config file fails to parse"),
		msg(chitta.RoleAssistant, "line 3 has a tab"),
		msg(chitta.RoleUser, ""),
		msg(chitta.RoleUser, "fix it please"),
	}
	const query = "fix the config error"
	docs := &chittatest.CountingEmbedder{Next: chittatest.SeededEmbedder{Dims: 8}}
	queries := &chittatest.CountingEmbedder{Next: prefixed("query: ", 8)}
	res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Query: query, Embedder: docs, QueryEmbedder: queries})
	require.NoError(t, err)
	require.True(t, res.Stats.Embedding)

	assert.Equal(t, 1, docs.Calls())
	assert.Equal(t, []string{msgs[1].Content, msgs[2].Content, msgs[4].Content}, docs.Texts(), "messages only")
	assert.Equal(t, 1, queries.Calls())
	assert.Equal(t, []string{query}, queries.Texts(), "the query only")

	// Semantic is the cosine to the query embedder's vector.
	qv := chittatest.SeededVector("query: "+query, 8)
	for _, i := range []int{1, 2, 4} {
		want := max(0, trueCosine(chittatest.SeededVector(msgs[i].Content, 8), qv))
		assert.InDelta(t, want, res.Scores[i].Semantic, 1e-6, "message %d", i)
	}
	assert.InDelta(t, 0.5, res.Scores[3].Semantic, 0, "an empty message has no embedding")
}

// TestCompactQueryEmbedderChangesSemantic: the query's vector decides
// which message is relevant. The document embedding of the query is the
// first message's vector and the query embedding the second's, so the
// first message is the match without QueryEmbedder and the second with it.
func TestCompactQueryEmbedderChangesSemantic(t *testing.T) {
	t.Parallel()
	a, b := []float32{1, 0, 0}, []float32{0, 1, 0}
	const query = "which test failed?"
	docs := &chittatest.TableEmbedder{Vectors: map[string][]float32{"alpha": a, "beta": b, query: a}}
	queries := &chittatest.TableEmbedder{Vectors: map[string][]float32{query: b}}
	msgs := []chitta.Message{msg(chitta.RoleUser, "alpha"), msg(chitta.RoleUser, "beta")}

	sym, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Query: query, Embedder: docs})
	require.NoError(t, err)
	assert.InDelta(t, 1, sym.Scores[0].Semantic, 1e-6)
	assert.InDelta(t, 0, sym.Scores[1].Semantic, 1e-6)

	asym, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Query: query, Embedder: docs, QueryEmbedder: queries})
	require.NoError(t, err)
	assert.InDelta(t, 0, asym.Scores[0].Semantic, 1e-6)
	assert.InDelta(t, 1, asym.Scores[1].Semantic, 1e-6)
	assert.Equal(t, [][]string{{"alpha", "beta", query}, {"alpha", "beta"}}, docs.Calls, "the second call leaves the query out")
	assert.Equal(t, [][]string{{query}}, queries.Calls)
}

// TestCompactQueryEmbedderSameAsEmbedder: a QueryEmbedder that embeds like
// Embedder gives the Result of no QueryEmbedder (today's single call) on
// random conversations and options, including a CachedEmbedder with
// Lexical, a Store and distillation.
func TestCompactQueryEmbedderSameAsEmbedder(t *testing.T) {
	t.Parallel()
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 11))
		msgs := randomConversation(r)
		opts := randomOptions(r)
		opts.QueryEmbedder = nil
		if seed%3 == 0 {
			opts.Embedder, opts.Query = chitta.NewHashEmbedder(64), "config error test"
		}
		if opts.Embedder == nil {
			continue
		}
		with := *opts
		with.QueryEmbedder = opts.Embedder
		if seed%2 == 0 { // the cached path (shared vectors, lexical entries)
			opts.Embedder, with.Embedder = chitta.NewCachedEmbedder(opts.Embedder, 0), chitta.NewCachedEmbedder(opts.Embedder, 0)
		}
		if seed%5 == 0 {
			opts.DistillNovel, opts.Store = true, &chittatest.Store{}
			with.DistillNovel, with.Store = true, &chittatest.Store{}
		}
		want, err := chitta.Compact(t.Context(), msgs, opts)
		require.NoError(t, err, "seed %d", seed)
		got, err := chitta.Compact(t.Context(), msgs, &with)
		require.NoError(t, err, "seed %d", seed)
		require.Equal(t, want, got, "seed %d", seed)
	}
}

// TestCompactQueryEmbedderNil: without a QueryEmbedder the query is the
// last text of the one Embed call, as before QueryEmbedder existed.
func TestCompactQueryEmbedderNil(t *testing.T) {
	t.Parallel()
	docs := &chittatest.CountingEmbedder{Next: chittatest.SeededEmbedder{Dims: 8}}
	msgs := []chitta.Message{msg(chitta.RoleUser, "one"), msg(chitta.RoleAssistant, "two")}
	_, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Query: "q", Embedder: docs})
	require.NoError(t, err)
	assert.Equal(t, 1, docs.Calls())
	assert.Equal(t, []string{"one", "two", "q"}, docs.Texts())
}

// TestCompactQueryEmbedderNotCalled: no query, a blank query, no
// Embedder, no message with text, or no message with a usable embedding:
// the QueryEmbedder is never called.
func TestCompactQueryEmbedderNotCalled(t *testing.T) {
	t.Parallel()
	zero := chitta.EmbedderFunc(func(_ context.Context, texts []string) ([][]float32, error) {
		return make([][]float32, len(texts)), nil // never called with no texts
	})
	msgs := []chitta.Message{msg(chitta.RoleUser, "one"), msg(chitta.RoleAssistant, "two")}
	for _, tc := range []struct {
		name     string
		msgs     []chitta.Message
		query    string
		embedder chitta.Embedder
		embedded bool
	}{
		{"no query", msgs, "", chittatest.SeededEmbedder{Dims: 4}, true},
		{"blank query", msgs, " \n\t", chittatest.SeededEmbedder{Dims: 4}, true},
		{"no embedder", msgs, "q", nil, false},
		{"no text", []chitta.Message{msg(chitta.RoleUser, " ")}, "q", chittatest.SeededEmbedder{Dims: 4}, false},
		{"zero vectors", msgs, "q", zero, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			queries := &chittatest.CountingEmbedder{Next: chittatest.SeededEmbedder{Dims: 4}}
			res, err := chitta.Compact(t.Context(), tc.msgs, &chitta.Options{Query: tc.query, Embedder: tc.embedder, QueryEmbedder: queries})
			require.NoError(t, err)
			assert.Zero(t, queries.Calls())
			assert.Equal(t, tc.embedded, res.Stats.Embedding)
			for _, s := range res.Scores {
				assert.InDelta(t, 0.5, s.Semantic, 0)
			}
		})
	}
}

// configTurns is a three-message conversation about a config file that
// fails to parse.
func configTurns() []chitta.Message {
	return []chitta.Message{
		msg(chitta.RoleUser, "the config file fails to parse"),
		msg(chitta.RoleAssistant, "line 3 has a tab"),
		msg(chitta.RoleUser, "fix it please"),
	}
}

// TestCompactQueryEmbedderDegrades: a QueryEmbedder that fails or returns
// an unusable vector, or one of another dimension than the messages',
// leaves the messages' embeddings (coverage included): the Result is the
// one without a query, and a warning names the cause. A zero query
// vector is no query, silently, as from Embedder.
func TestCompactQueryEmbedderDegrades(t *testing.T) {
	t.Parallel()
	msgs := configTurns()
	store := &chittatest.Store{Memories: []chitta.Memory{{ID: "m", Vector: chittatest.SeededVector(msgs[1].Content, 8)}}}
	seeded := chittatest.SeededEmbedder{Dims: 8}
	fixed := func(v []float32) chitta.EmbedderFunc {
		return func(_ context.Context, texts []string) ([][]float32, error) {
			return [][]float32{v}, nil
		}
	}
	base := chitta.Options{Embedder: seeded, Store: store, Lexical: 0.5, RelevanceReserve: 0.5, TargetRatio: 0.5}
	want, err := chitta.Compact(t.Context(), msgs, &base)
	require.NoError(t, err)
	require.True(t, want.Stats.Embedding)
	require.Positive(t, want.Scores[1].Coverage)

	for _, tc := range []struct {
		name    string
		queries chitta.Embedder
		log     string // "" means no warning
	}{
		{"error", &chittatest.CountingEmbedder{Err: errors.New("model not loaded")}, "query embedder failed"},
		{"nil func", chitta.EmbedderFunc(nil), "query embedder failed"},
		{"dimension", chittatest.SeededEmbedder{Dims: 4}, "QueryEmbedder gave 4 dimensions, Embedder 8"},
		{"two vectors", &chittatest.CountingEmbedder{Next: seeded, Corrupt: func(v [][]float32) [][]float32 { return append(v, v[0]) }}, "got 2 vectors for 1 texts"},
		{"empty vector", fixed([]float32{}), "vector 0 is empty"},
		{"NaN", fixed([]float32{float32(math.NaN()), 0, 0, 0, 0, 0, 0, 0}), "NaN"},
		{"cached dimension", chitta.NewCachedEmbedder(chittatest.SeededEmbedder{Dims: 3}, 0), "QueryEmbedder gave 3 dimensions, Embedder 8"},
		{"zero vector", fixed(make([]float32, 8)), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			opts := base
			opts.Query, opts.QueryEmbedder, opts.Logger = "fix the config error", tc.queries, slog.New(slog.NewTextHandler(&buf, nil))
			got, err := chitta.Compact(t.Context(), msgs, &opts)
			require.NoError(t, err)
			assert.Equal(t, want, got)
			if tc.log == "" {
				assert.Empty(t, buf.String())
				return
			}
			assert.Contains(t, buf.String(), "level=WARN")
			assert.Contains(t, buf.String(), "scoring without the query")
			assert.Contains(t, buf.String(), tc.log)
		})
	}
}

// TestCompactQueryEmbedderCancelled: a ctx done while the query is
// embedded is Compact's error, not a degradation.
func TestCompactQueryEmbedderCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	queries := chitta.EmbedderFunc(func(ctx context.Context, texts []string) ([][]float32, error) {
		cancel()
		return nil, ctx.Err()
	})
	msgs := []chitta.Message{msg(chitta.RoleUser, "one"), msg(chitta.RoleAssistant, "two")}
	_, err := chitta.Compact(ctx, msgs, &chitta.Options{Query: "q", Embedder: chittatest.SeededEmbedder{Dims: 4}, QueryEmbedder: queries})
	require.ErrorIs(t, err, context.Canceled)
}

// TestCompactorQueryEmbedder: a Compactor sends the query to the
// QueryEmbedder, caches its vector (the Compactor's Query is fixed: one
// call over every compaction) and never sends it a message.
func TestCompactorQueryEmbedder(t *testing.T) {
	t.Parallel()
	const query = "fix the config error"
	docs := &chittatest.CountingEmbedder{Next: chittatest.SeededEmbedder{Dims: 8}}
	queries := &chittatest.CountingEmbedder{Next: prefixed("query: ", 8)}
	c, err := chitta.NewCompactor(&chitta.Options{Query: query, Embedder: docs, QueryEmbedder: queries}, chitta.Policy{MaxTokens: 40})
	require.NoError(t, err)
	var conv []chitta.Message
	compactions := 0
	for i := range 12 {
		conv = append(conv, msg(chitta.RoleUser, text("u", i+5)), msg(chitta.RoleAssistant, text("a", i+5)))
		res, err := c.Compact(t.Context(), conv)
		require.NoError(t, err)
		if res.Stats.Compacted {
			compactions++
			require.True(t, res.Stats.Embedding)
		}
	}
	require.GreaterOrEqual(t, compactions, 2)
	assert.Equal(t, 1, queries.Calls())
	assert.Equal(t, []string{query}, queries.Texts())
	assert.NotContains(t, docs.Texts(), query)

	// The same through Compact with the same options: the Compactor's
	// scores are Compact's.
	want, err := chitta.Compact(t.Context(), conv, &chitta.Options{Query: query, Embedder: docs, QueryEmbedder: queries, MaxTokens: 20})
	require.NoError(t, err)
	c.Reset()
	got, err := c.Compact(t.Context(), conv)
	require.NoError(t, err)
	require.True(t, got.Stats.Compacted)
	assert.Equal(t, want.Scores, got.Scores)
	assert.Equal(t, want.Kept, got.Kept)
}

// TestCompactQueryEmbedderScaleFree: a QueryEmbedder's vector whose
// components are so large or so small that their float32 squares
// overflow or underflow still has a direction, as the Embedder's vectors
// of that scale do: the scores are those of the same vector at unit
// scale, not those without a query.
func TestCompactQueryEmbedderScaleFree(t *testing.T) {
	t.Parallel()
	msgs := configTurns()
	const query = "fix the config error"
	run := func(t *testing.T, scale float32) *chitta.Result {
		t.Helper()
		queries := chitta.EmbedderFunc(func(context.Context, []string) ([][]float32, error) {
			v := chittatest.SeededVector(query, 8)
			for i := range v {
				v[i] *= scale
			}
			return [][]float32{v}, nil
		})
		res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{
			Query: query, Embedder: chittatest.SeededEmbedder{Dims: 8}, QueryEmbedder: queries, TargetRatio: 1,
		})
		require.NoError(t, err)
		return res
	}
	want := run(t, 1)
	require.True(t, want.Stats.Embedding)
	require.NotEqual(t, 0.5, want.Scores[0].Semantic, "the query is used at unit scale")
	for _, tt := range []struct {
		name  string
		scale float32
	}{{"huge", 1e20}, {"tiny", 1e-20}, {"tinier", 1e-30}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := run(t, tt.scale)
			for i := range msgs {
				assert.InDelta(t, want.Scores[i].Semantic, got.Scores[i].Semantic, 1e-6, "semantic %d", i)
				assert.InDelta(t, want.Scores[i].Score, got.Scores[i].Score, 1e-6, "score %d", i)
			}
		})
	}
}
