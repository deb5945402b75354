package chitta_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/chittatest"
)

func TestIsFiller(t *testing.T) {
	t.Parallel()
	tests := []struct {
		role chitta.Role
		text string
		want bool
	}{
		{chitta.RoleAssistant, "Great! Now let me update the tests accordingly.", true},
		{chitta.RoleAssistant, "Perfect. I'll run the whole suite next and report back.", true},
		{chitta.RoleAssistant, "Let me check the configuration loader once more.", true},
		{chitta.RoleAssistant, "You’re right, let me take another look at that.", true},
		{chitta.RoleAssistant, "Okay", true},
		{chitta.RoleAssistant, "OK, I'll take care of that for you right away.", true}, // an opener in capitals
		{chitta.RoleAssistant, "OK.", true},
		{chitta.RoleAssistant, "Sure! Let me check the API docs again.", true},                              // an acronym is no identifier
		{chitta.RoleAssistant, "Sure, let me check the other callers, e.g. the loader and the hook.", true}, // an abbreviation
		{chitta.RoleAssistant, "OK, I'll rerun the slow ones (i.e., the integration suite) next.", true},
		{chitta.RoleAssistant, "Let me look at the loader, a.k.a. the reader, once more.", true},
		{chitta.RoleAssistant, "Got it. E.g. the hook needs the same change as well.", true},
		{chitta.RoleAssistant, "Let me check e.g. config.yaml before the rest.", false},        // an abbreviation and a file name
		{chitta.RoleAssistant, "Let me look at HTTPServer in the hook.", false},                // mixed case
		{chitta.RoleAssistant, "Let me run `go test ./...` first.", false},                     // a code span
		{chitta.RoleAssistant, "Let me open internal/scan/dots.go and read it.", false},        // a path
		{chitta.RoleAssistant, "Great, the p99 latency dropped to 40 ms.", false},              // a number
		{chitta.RoleAssistant, "Let me look at parseFlags in the hook.", false},                // an identifier
		{chitta.RoleAssistant, "Let me look at max_tokens in the request.", false},             // snake_case
		{chitta.RoleAssistant, "Goodness, the retry loop never backs off at all here.", false}, // not the word "good"
		{chitta.RoleAssistant, "The retry loop never backs off, so the server throttles us.", false},
		{chitta.RoleUser, "Great, let me think about it.", false}, // users are never filler
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, chitta.IsFiller(tt.role, tt.text), "%s: %q", tt.role, tt.text)
	}
}

// distillCase compacts msgs (all dropped but the last) over store with
// DistillNovel and returns the indices distilled.
func distillCase(t *testing.T, msgs []chitta.Message, store chitta.MemoryStore, opts chitta.Options) []int {
	t.Helper()
	if opts.Embedder == nil {
		opts.Embedder = chittatest.SeededEmbedder{Dims: 32}
	}
	opts.Store, opts.DistillNovel, opts.MaxTokens, opts.KeepLast = store, true, 1, 1
	res, err := chitta.Compact(t.Context(), msgs, &opts)
	require.NoError(t, err)
	require.NoError(t, res.DistillErr)
	var got []int
	for _, d := range res.Distilled {
		got = append(got, d.Index)
	}
	return got
}

func TestDistillFilters(t *testing.T) {
	t.Parallel()
	fact := func(i int) string {
		return fmt.Sprintf("The staging cluster %d runs the billing service behind the eu-west load balancer", i)
	}
	t.Run("filler is skipped", func(t *testing.T) {
		t.Parallel()
		msgs := []chitta.Message{
			msg(chitta.RoleAssistant, "Great! Now let me update the remaining tests and check everything again."),
			msg(chitta.RoleAssistant, fact(1)),
			msg(chitta.RoleUser, "next"),
		}
		assert.Equal(t, []int{1}, distillCase(t, msgs, &chittatest.Store{}, chitta.Options{}))
	})
	t.Run("near-duplicate of a stored memory of any kind", func(t *testing.T) {
		t.Parallel()
		store := &chittatest.Store{Memories: []chitta.Memory{{ID: "ep", Kind: chitta.KindEpisode, Vector: chittatest.SeededVector(fact(1), 32)}}}
		msgs := []chitta.Message{msg(chitta.RoleAssistant, fact(1)), msg(chitta.RoleAssistant, fact(2)), msg(chitta.RoleUser, "next")}
		assert.Equal(t, []int{1}, distillCase(t, msgs, store, chitta.Options{}),
			"an episode does not count as coverage, but a duplicate of it is not distilled")
	})
	t.Run("near-duplicates within one call", func(t *testing.T) {
		t.Parallel()
		msgs := []chitta.Message{msg(chitta.RoleAssistant, fact(1)), msg(chitta.RoleUser, fact(1)+" again"), msg(chitta.RoleUser, "next")}
		got := distillCase(t, msgs, &chittatest.Store{}, chitta.Options{Embedder: chitta.NewHashEmbedder(256)})
		assert.Equal(t, []int{1}, got, "the later of two near-duplicates is kept")
		got = distillCase(t, msgs[1:], &chittatest.Store{}, chitta.Options{Embedder: chitta.NewHashEmbedder(256)})
		assert.Equal(t, []int{0}, got, "alone it is distilled")
	})
	t.Run("DistillMax keeps the most novel", func(t *testing.T) {
		t.Parallel()
		var msgs []chitta.Message
		for i := range 6 {
			msgs = append(msgs, msg(chitta.RoleUser, fact(i)+strings.Repeat(" extra", i)))
		}
		msgs = append(msgs, msg(chitta.RoleUser, "next"))
		all := distillCase(t, msgs, &chittatest.Store{}, chitta.Options{})
		require.Len(t, all, 6)
		got := distillCase(t, msgs, &chittatest.Store{}, chitta.Options{DistillMax: 2})
		assert.Len(t, got, 2)
		assert.Equal(t, []int{4, 5}, got, "equal coverage: the later messages first, stored in message order")
	})
	t.Run("DistillSkip vetoes", func(t *testing.T) {
		t.Parallel()
		msgs := []chitta.Message{msg(chitta.RoleUser, fact(1)), msg(chitta.RoleUser, fact(2)), msg(chitta.RoleUser, "next")}
		var asked []int
		got := distillCase(t, msgs, &chittatest.Store{}, chitta.Options{DistillSkip: func(i int, m chitta.Message) bool {
			asked = append(asked, i)
			return strings.Contains(m.Content, "cluster 1 ")
		}})
		assert.Equal(t, []int{1}, got)
		assert.ElementsMatch(t, []int{0, 1}, asked)
	})
	t.Run("negative DistillMax", func(t *testing.T) {
		t.Parallel()
		_, err := chitta.Compact(t.Context(), []chitta.Message{msg(chitta.RoleUser, "x")}, &chitta.Options{DistillMax: -1})
		require.ErrorIs(t, err, chitta.ErrInvalidOption)
		assert.Contains(t, err.Error(), "DistillMax -1")
	})
}
