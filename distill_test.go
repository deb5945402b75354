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
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/chittatest"
)

func TestClassifyNovel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		role chitta.Role
		text string
		want string
	}{
		{"user", "No, that is WRONG, the port is 8080", chitta.KindCorrection},
		{"user", "That’s not what I asked for", chitta.KindCorrection},
		{"user", "Actually, use the staging cluster", chitta.KindCorrection},
		{"user", "the timeout should be 30s", chitta.KindCorrection},
		{"assistant", "I made a mistake in the migration", chitta.KindCorrection},
		{"user", "I prefer tabs over spaces", chitta.KindPreference},
		{"user", "From now on run the linter first", chitta.KindPreference},
		{"user", "please don't push to main", chitta.KindPreference},
		{"user", "Every time you deploy, tag the release", chitta.KindHabit},
		{"user", "Our convention is kebab-case file names", chitta.KindHabit},
		{"assistant", "The fix is to close the body before returning", chitta.KindWisdom},
		{"assistant", "It fails because the cache is stale", chitta.KindWisdom},
		{"assistant", "IMPORTANT: never log the token", chitta.KindWisdom},
		{"user", "It fails because the cache is stale", chitta.KindFact}, // wisdom is assistant-only
		{"assistant", "We used the standard library and pattern matching", chitta.KindFact},
		{"user", "the wrongful-termination case", chitta.KindFact},       // "wrong" is not a whole word
		{"user", "mistakes were made", chitta.KindFact},                  // neither is "mistake"
		{"assistant", "Habits form; the habitual path", chitta.KindFact}, // nor "habit"
		{"user", "habit: run tests", chitta.KindHabit},
		{"tool", "error: wrong argument", chitta.KindCorrection},
		{"assistant", "Actually,the comma needs a space", chitta.KindFact},
		{"user", "ran the deploy", chitta.KindFact},
		// Phrases match across any run of white space.
		{"user", "Every\ntime you deploy, tag the release", chitta.KindHabit},
		{"user", "From now  on run the linter first", chitta.KindPreference},
		{"user", "Actually,\nuse the staging cluster", chitta.KindCorrection},
		{"assistant", "the\tfix is a retry", chitta.KindWisdom},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, chitta.ClassifyNovel(tt.role, tt.text), "%s: %q", tt.role, tt.text)
	}
}

func TestDistillNovel(t *testing.T) {
	t.Parallel()
	long := func(s string) string { return s + " " + strings.Repeat("padding words here ", 3) }
	covered := long("the cluster runs on kubernetes version one point thirty")
	msgs := []chitta.Message{
		msg(chitta.RoleSystem, "system prompt that is long enough to be distilled if it were not system"),
		msg(chitta.RoleUser, long("No, that is wrong: the database is postgres fifteen")),
		msg(chitta.RoleAssistant, long("The fix is to retry the request because the server drops idle connections")),
		msg(chitta.RoleUser, "too short to keep"),
		msg(chitta.RoleUser, covered),
		msg(chitta.RoleAssistant, long("We ran the deployment script and it printed ok")),
		msg(chitta.RoleUser, "what next? "+strings.Repeat("x", 30)),
	}
	store := &chittatest.Store{Memories: []chitta.Memory{{ID: "known", Vector: chittatest.SeededVector(covered, 16)}}}
	res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{
		Embedder: chittatest.SeededEmbedder{Dims: 16}, Store: store, DistillNovel: true, MaxTokens: 1, KeepLast: 1, Tokens: words,
	})
	require.NoError(t, err)
	require.NoError(t, res.DistillErr)
	assert.Equal(t, []int{0, 6}, res.Kept)
	assert.InDelta(t, 1.0, res.Scores[4].Coverage, 1e-6)

	got := map[int]string{}
	for _, d := range res.Distilled {
		got[d.Index] = d.Kind
		assert.Equal(t, chitta.MemoryID(d.Kind, d.Text), d.ID)
	}
	assert.Equal(t, map[int]string{1: chitta.KindCorrection, 2: chitta.KindWisdom, 5: chitta.KindFact}, got,
		"dropped, long enough, not covered")
	assert.Equal(t, 3, res.Stats.Distilled)
	assert.Equal(t, map[string]int{"correction": 1, "wisdom": 1, "fact": 1}, res.Stats.DistilledKinds)

	require.Len(t, store.Memories, 4)
	m := store.Memories[1]
	assert.Equal(t, "[distill-on-drop:user] "+strings.TrimSpace(msgs[1].Content), m.Text)
	assert.Equal(t, chitta.KindCorrection, m.Kind)
	assert.InDelta(t, 0.5+0.25*(1-res.Scores[1].Coverage), m.Confidence, 1e-12)
	assert.Equal(t, chittatest.SeededVector(msgs[1].Content, 16), m.Vector)
	assert.Contains(t, m.Source, "message 1")
	assert.False(t, m.CreatedAt.IsZero())

	// Selection never changes because of distillation.
	plain, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Embedder: chittatest.SeededEmbedder{Dims: 16}, Store: &chittatest.Store{Memories: store.Memories[:1]}, MaxTokens: 1, KeepLast: 1, Tokens: words})
	require.NoError(t, err)
	assert.Equal(t, plain.Kept, res.Kept)
}

func TestDistillThresholdAndRequirements(t *testing.T) {
	t.Parallel()
	text := "a dropped message that is certainly longer than forty characters"
	other := "the newest message, kept by KeepLast, also long enough to matter"
	msgs := []chitta.Message{msg(chitta.RoleUser, text), msg(chitta.RoleUser, other)}
	// A memory at cosine ~0.6 to the dropped message.
	v := chittatest.SeededVector(text, 8)
	w := chittatest.SeededVector("unrelated", 8)
	mix := make([]float32, 8)
	for i := range mix {
		mix[i] = 0.75*v[i] + 0.5*w[i]
	}
	for _, tt := range []struct {
		name      string
		threshold float64
		want      int
	}{{"default 0.5: covered", 0, 0}, {"0.99: novel", 0.99, 1}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			store := &chittatest.Store{Memories: []chitta.Memory{{ID: "m", Vector: mix}}}
			res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Embedder: chittatest.SeededEmbedder{Dims: 8}, Store: store,
				DistillNovel: true, NovelThreshold: tt.threshold, KeepLast: 1, MaxTokens: 1})
			require.NoError(t, err)
			cov := res.Scores[0].Coverage
			require.Greater(t, cov, 0.5)
			require.Less(t, cov, 0.99)
			assert.Len(t, res.Distilled, tt.want)
		})
	}
	// No store or no embedder: nothing happens, no error.
	res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Embedder: chittatest.SeededEmbedder{Dims: 8}, DistillNovel: true, KeepLast: 1, MaxTokens: 1})
	require.NoError(t, err)
	assert.Empty(t, res.Distilled)
	store := &chittatest.Store{}
	res, err = chitta.Compact(t.Context(), msgs, &chitta.Options{Store: store, DistillNovel: true, KeepLast: 1, MaxTokens: 1})
	require.NoError(t, err)
	assert.Empty(t, res.Distilled)
	assert.Empty(t, store.Memories)
}

func TestDistillStoreErrorIsReported(t *testing.T) {
	t.Parallel()
	boom := errors.New("read-only store")
	msgs := []chitta.Message{msg(chitta.RoleUser, strings.Repeat("novel words ", 10)), msg(chitta.RoleUser, "kept")}
	res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Embedder: chittatest.SeededEmbedder{Dims: 8},
		Store: &chittatest.Store{AddErr: boom}, DistillNovel: true, KeepLast: 1, MaxTokens: 1})
	require.NoError(t, err, "distillation failures are not fatal")
	require.ErrorIs(t, res.DistillErr, boom)
	assert.Contains(t, res.DistillErr.Error(), "distill message 0")
	assert.Empty(t, res.Distilled)
	assert.Equal(t, []int{1}, res.Kept)
}

func TestDistillTextCutsOnRuneBoundary(t *testing.T) {
	t.Parallel()
	content := strings.Repeat("é", 599) + "日本語" + "\xff tail"
	msgs := []chitta.Message{msg(chitta.RoleAssistant, content), msg(chitta.RoleUser, "kept")}
	store := &chittatest.Store{}
	res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Embedder: chittatest.SeededEmbedder{Dims: 8},
		Store: store, DistillNovel: true, KeepLast: 1, MaxTokens: 1})
	require.NoError(t, err)
	require.Len(t, res.Distilled, 1)
	txt := res.Distilled[0].Text
	assert.True(t, utf8.ValidString(txt))
	body := strings.TrimPrefix(txt, "[distill-on-drop:assistant] ")
	assert.Equal(t, chitta.DistillMaxRunes, utf8.RuneCountInString(body))
	assert.Equal(t, strings.Repeat("é", 599)+"日", body)
}

func TestRecordEpisode(t *testing.T) {
	t.Parallel()
	st := chitta.Stats{BeforeTokens: 48200, AfterTokens: 18600, DroppedPct: 61.41078838174274, CoveredDroppedPct: 38.04}
	want := "[pre-compact] Memory-aware compaction: 48200→18600 tokens (61.4% dropped, 38.0% of dropped tokens memory-covered). Session: abc"
	assert.Equal(t, want, chitta.EpisodeText(st, "abc"))

	store := &chittatest.Store{}
	m, err := chitta.RecordEpisode(t.Context(), store, chittatest.SeededEmbedder{Dims: 8}, st, "abc")
	require.NoError(t, err)
	assert.Equal(t, want, m.Text)
	assert.Equal(t, chitta.KindEpisode, m.Kind)
	assert.InDelta(t, 0.7, m.Confidence, 0)
	assert.Equal(t, chittatest.SeededVector(want, 8), m.Vector)
	require.Len(t, store.Memories, 1)
	assert.Equal(t, m.ID, store.Memories[0].ID)
	m.Vector[0]++ // the caller owns the returned Memory; the store keeps its own
	assert.Equal(t, chittatest.SeededVector(want, 8), store.Memories[0].Vector)

	_, err = chitta.RecordEpisode(t.Context(), nil, chittatest.SeededEmbedder{Dims: 8}, st, "abc")
	require.ErrorIs(t, err, chitta.ErrInvalidOption)
	_, err = chitta.RecordEpisode(t.Context(), store, chitta.EmbedderFunc(func(ctx context.Context, s []string) ([][]float32, error) {
		return nil, errors.New("offline")
	}), st, "abc")
	require.ErrorContains(t, err, "embed episode: offline")
}

func TestCoveredDroppedPct(t *testing.T) {
	t.Parallel()
	a, b, c := text("a", 10), text("b", 30), text("c", 5)
	store := &chittatest.Store{Memories: []chitta.Memory{{ID: "a", Vector: chittatest.SeededVector(a, 8)}}}
	msgs := []chitta.Message{msg(chitta.RoleUser, a), msg(chitta.RoleUser, b), msg(chitta.RoleUser, c)}
	res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Embedder: chittatest.SeededEmbedder{Dims: 8}, Store: store, KeepLast: 1, MaxTokens: 1, Tokens: words})
	require.NoError(t, err)
	// Dropped: a (10 tokens, covered) and b (30 tokens, novel).
	assert.InDelta(t, 25.0, res.Stats.CoveredDroppedPct, 1e-9)
}

func TestRecordEpisodeBadEmbedding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		vecs [][]float32
	}{
		{"no vector", nil},
		{"two vectors", [][]float32{{1, 0}, {0, 1}}},
		{"empty vector", [][]float32{{}}},
		{"NaN", [][]float32{{float32(math.NaN()), 1}}},
		{"Inf", [][]float32{{float32(math.Inf(1)), 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			store := &chittatest.Store{}
			emb := chitta.EmbedderFunc(func(context.Context, []string) ([][]float32, error) { return tt.vecs, nil })
			_, err := chitta.RecordEpisode(t.Context(), store, emb, chitta.Stats{}, "s")
			require.ErrorIs(t, err, chitta.ErrInvalidEmbedding, "an unusable embedder answer is ErrInvalidEmbedding, as for CachedEmbedder")
			require.ErrorIs(t, err, chitta.ErrInvalidVector, "kept for callers of the first release")
			assert.Empty(t, store.Memories)
		})
	}
}

// pickyStore is a chittatest.Store whose Add fails for the memories fail
// picks, and whose Recall runs onRecall first; it counts the Adds.
type pickyStore struct {
	chittatest.Store
	fail     func(chitta.Memory) bool
	onRecall func(k int) error
	failErr  func() error // the error of a failed Add; nil: "disk full"
	adds     int
}

func (s *pickyStore) Add(ctx context.Context, m chitta.Memory) error {
	s.adds++
	if s.fail != nil && s.fail(m) {
		if s.failErr != nil {
			return s.failErr()
		}
		return errors.New("disk full")
	}
	return s.Store.Add(ctx, m)
}

func (s *pickyStore) Recall(ctx context.Context, q []float32, k int) ([]chitta.Hit, error) {
	if s.onRecall != nil {
		if err := s.onRecall(k); err != nil {
			return nil, err
		}
	}
	return s.Store.Recall(ctx, q, k)
}

// TestDistillFailedWriteFreesItsSlot: a memory the store fails to write
// does not use up a DistillMax slot; the next most novel candidate gets
// it. A store that refuses every write is asked DistillMax times, not once
// per candidate.
func TestDistillFailedWriteFreesItsSlot(t *testing.T) {
	t.Parallel()
	var msgs []chitta.Message
	for i := range 6 {
		msgs = append(msgs, msg(chitta.RoleUser, fmt.Sprintf("The staging cluster %d runs the billing service behind the eu-west load balancer", i)+strings.Repeat(" extra", i)))
	}
	msgs = append(msgs, msg(chitta.RoleUser, "next"))
	tests := []struct {
		name     string
		fail     func(chitta.Memory) bool
		want     []int
		wantAdds int
	}{
		{"no failure", nil, []int{4, 5}, 2},
		{"the most novel fails", func(m chitta.Memory) bool { return strings.HasSuffix(m.Source, "message 5") }, []int{3, 4}, 3},
		{"every write fails", func(chitta.Memory) bool { return true }, nil, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			store := &pickyStore{fail: tt.fail}
			res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Embedder: chittatest.SeededEmbedder{Dims: 32},
				Store: store, DistillNovel: true, DistillMax: 2, KeepLast: 1, MaxTokens: 1})
			require.NoError(t, err)
			var got []int
			for _, d := range res.Distilled {
				got = append(got, d.Index)
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantAdds, store.adds)
			assert.Len(t, store.Memories, len(tt.want))
			if tt.fail == nil {
				assert.NoError(t, res.DistillErr)
			} else {
				assert.ErrorContains(t, res.DistillErr, "distill message 5: disk full")
			}
		})
	}
}

// TestDistillCancelledIsNoStoreFailure: a ctx cancelled while distilling
// ends it with ctx's error, which is not logged as a failed duplicate
// check or store write.
func TestDistillCancelledIsNoStoreFailure(t *testing.T) {
	t.Parallel()
	msgs := []chitta.Message{
		msg(chitta.RoleUser, strings.Repeat("novel words about the billing cluster ", 3)),
		msg(chitta.RoleUser, strings.Repeat("other words about the staging network ", 3)),
		msg(chitta.RoleUser, "kept"),
	}
	for _, during := range []string{"duplicate check", "store write"} {
		t.Run(during, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			store := &pickyStore{}
			if during == "duplicate check" {
				store.onRecall = func(k int) error {
					if k == 1 { // distillation's duplicate check; coverage asks for more
						cancel()
						return ctx.Err()
					}
					return nil
				}
			} else {
				store.fail = func(chitta.Memory) bool { cancel(); return true }
				store.failErr = ctx.Err
			}
			var logs bytes.Buffer
			res, err := chitta.Compact(ctx, msgs, &chitta.Options{Embedder: chittatest.SeededEmbedder{Dims: 8},
				Store: store, DistillNovel: true, KeepLast: 1, MaxTokens: 1,
				Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			require.NoError(t, err)
			require.ErrorIs(t, res.DistillErr, context.Canceled)
			assert.Empty(t, res.Distilled)
			assert.NotContains(t, logs.String(), "failed", "a done ctx is no store failure")
		})
	}
}

// TestDistillStopsWhenTheStoreIsDown: with no DistillMax cap, a store
// whose writes (or duplicate checks) all fail is asked distillFailStreak
// (3) times, not once per candidate, and the error says how many
// candidates were not tried; a store that fails now and then is still
// asked for every candidate.
func TestDistillStopsWhenTheStoreIsDown(t *testing.T) {
	t.Parallel()
	var msgs []chitta.Message
	for i := range 10 {
		msgs = append(msgs, msg(chitta.RoleUser, fmt.Sprintf("Cluster %d in region %d runs service number %d behind balancer %d", i, i*7, i*13, i*31)))
	}
	msgs = append(msgs, msg(chitta.RoleUser, "next"))
	checkFails := func(k int) error {
		if k == 1 { // distillation's duplicate check; coverage asks for more
			return errors.New("connection refused")
		}
		return nil
	}
	tests := []struct {
		name                string
		store               *pickyStore
		wantAdds, wantNoted int
		wantErr             string
	}{
		{"every write fails", &pickyStore{fail: func(chitta.Memory) bool { return true }}, 3, 0,
			"stopped after 3 failed store calls in a row, 7 candidates not tried"},
		{"every duplicate check fails", &pickyStore{onRecall: checkFails}, 0, 0,
			"stopped after 3 failed store calls in a row, 7 candidates not tried"},
		{"every other write fails", &pickyStore{fail: func(m chitta.Memory) bool {
			var i int
			_, err := fmt.Sscanf(m.Source[strings.LastIndex(m.Source, " ")+1:], "%d", &i)
			return err == nil && i%2 == 0
		}}, 10, 5, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Embedder: chittatest.SeededEmbedder{Dims: 32},
				Store: tt.store, DistillNovel: true, KeepLast: 1, MaxTokens: 1})
			require.NoError(t, err)
			assert.Equal(t, tt.wantAdds, tt.store.adds)
			assert.Len(t, res.Distilled, tt.wantNoted)
			require.Error(t, res.DistillErr)
			if tt.wantErr != "" {
				assert.ErrorContains(t, res.DistillErr, tt.wantErr)
				assert.ErrorIs(t, res.DistillErr, chitta.ErrDistillStopped)
			} else {
				assert.NotContains(t, res.DistillErr.Error(), "stopped after")
				assert.NotErrorIs(t, res.DistillErr, chitta.ErrDistillStopped)
			}
		})
	}
}

// TestDistillSameTextOnce: two dropped messages whose first
// DistillMaxRunes runes agree (a log read twice, its tails differing) give
// one memory text and so one MemoryID; their vectors, of the whole
// messages, need not be near-duplicates. DistillNovel records the memory
// once, for the more novel message, and the other does not take a
// DistillMax slot. On main both were written, the second Add replacing
// the first (store 1 memory, Distilled 2 with the same ID, Stats.Distilled
// 2) and, with DistillMax 2, the twins took both slots: message 0 was not
// distilled.
func TestDistillSameTextOnce(t *testing.T) {
	t.Parallel()
	head := strings.Repeat("the build log says the linker ran out of memory again ", 12) // > DistillMaxRunes
	require.Greater(t, utf8.RuneCountInString(head), chitta.DistillMaxRunes)
	msgs := []chitta.Message{
		msg(chitta.RoleUser, "The staging cluster runs the billing service behind the eu-west load balancer"),
		msg(chitta.RoleTool, head+"first tail"),
		msg(chitta.RoleTool, head+"second tail"),
		msg(chitta.RoleUser, "next"),
	}
	for _, tt := range []struct {
		max  int
		want []int
	}{{0, []int{0, 2}}, {2, []int{0, 2}}, {1, []int{2}}} {
		t.Run(fmt.Sprint("DistillMax=", tt.max), func(t *testing.T) {
			t.Parallel()
			store := &pickyStore{}
			res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Embedder: chittatest.SeededEmbedder{Dims: 32},
				Store: store, DistillNovel: true, DistillMax: tt.max, KeepLast: 1, MaxTokens: 1})
			require.NoError(t, err)
			require.NoError(t, res.DistillErr)
			var got []int
			ids := map[string]bool{}
			for _, d := range res.Distilled {
				got = append(got, d.Index)
				ids[d.ID] = true
			}
			assert.Equal(t, tt.want, got)
			assert.Len(t, ids, len(res.Distilled), "one entry per memory")
			assert.Len(t, store.Memories, len(tt.want))
			assert.Equal(t, len(tt.want), store.adds, "one write per memory")
			assert.Equal(t, len(tt.want), res.Stats.Distilled)
		})
	}
}

// TestDistillSameTextOnceMasked: two masked tool results with one memory
// text are distilled once, and both placeholders still name the memory,
// which the store holds. On main both were written (Distilled listed the
// one memory twice); recording it once without reading Distilled by ID
// would have rewritten message 2's placeholder without the ID.
func TestDistillSameTextOnceMasked(t *testing.T) {
	t.Parallel()
	head := strings.Repeat("the build log says the linker ran out of memory again ", 12)
	quote := func(s string) string {
		b, err := json.Marshal(s)
		require.NoError(t, err)
		return string(b)
	}
	in, err := chitta.ParseMessages([]byte(`[{"role":"user","content":"build it"},
{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"read_file","arguments":"{}"}},{"id":"c3","type":"function","function":{"name":"read_file","arguments":"{}"}}]},
{"role":"tool","tool_call_id":"c1","content":` + quote(head+"first tail") + `},
{"role":"tool","tool_call_id":"c2","content":` + quote(head+"second tail") + `},
{"role":"tool","tool_call_id":"c3","content":"short recent"},
{"role":"user","content":"next"}]`))
	require.NoError(t, err)
	store := &pickyStore{}
	res, err := chitta.Compact(t.Context(), in, &chitta.Options{TargetRatio: 1, Tokens: words, Embedder: chittatest.SeededEmbedder{Dims: 16},
		Store: store, DistillNovel: true, Mask: &chitta.MaskOptions{KeepRecent: 1}})
	require.NoError(t, err)
	require.NoError(t, res.DistillErr)
	require.Len(t, res.Distilled, 1)
	d := res.Distilled[0]
	assert.Equal(t, 3, d.Index, "the later of the two, equally novel")
	assert.Equal(t, 1, store.adds)
	require.Len(t, store.Memories, 1)
	assert.Equal(t, d.ID, store.Memories[0].ID)
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5}, res.Kept)
	for _, i := range []int{2, 3} {
		assert.Equal(t, "[chitta: read_file output elided (134 tokens); excerpt in memory "+d.ID+"]", res.Messages[i].Content, "message %d", i)
	}
	assert.Equal(t, 2, res.Stats.Masked)
}
