package adapttest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/chittatest"
	"github.com/chitta-go/chitta/internal/testkit/wiregen"
)

// wireOptions draws the options of one [Wire] trial: budgets, KeepLast,
// the relevance reserve and lexical mix with an embedder and query, a
// store, and masking.
func wireOptions(r *rand.Rand) *chitta.Options {
	o := &chitta.Options{TargetRatio: []float64{0, 0.05, 0.2, 0.5, 1}[r.IntN(5)], KeepLast: r.IntN(3)}
	if r.IntN(4) == 0 {
		o.MaxTokens = 1 + r.IntN(150)
	}
	if r.IntN(2) == 0 {
		o.Embedder, o.Query = chittatest.SeededEmbedder{Dims: 8}, "fix the config error"
		o.RelevanceReserve, o.Lexical = []float64{0, 0.5}[r.IntN(2)], []float64{0, 0.3}[r.IntN(2)]
	}
	if r.IntN(3) == 0 {
		o.Store = &chittatest.Store{Memories: []chitta.Memory{{ID: "m", Vector: chittatest.SeededVector("mem", 8)}}}
	}
	if r.IntN(2) == 0 {
		o.Mask = &chitta.MaskOptions{KeepRecent: r.IntN(3), MinTokens: []int{0, 1, 20}[r.IntN(3)], MaxResultTokens: []int{0, 5, 40}[r.IntN(3)],
			Actions: chitta.MaskActions(r.IntN(4)), Restore: r.IntN(3) == 0}
	}
	return o
}

// Wire checks an adapter on trials random conversations in format (see
// wiregen.Formats; gen.Pending is drawn), each read into SDK values by
// encoding/json (which must keep every call and result) and converted by
// messages with the linkage chitta.ParseMessages reads from their SDK
// JSON. It runs the adapter's Compact under random options, and its
// Compactor (newCompactor) fed the conversation cut anywhere, growing.
// For every result it checks that the returned values are the input
// values at Result.Kept (masked ones aside, which carry chitta's
// placeholder), that they convert to the linkage of the input messages,
// and that their SDK JSON passes chitta.Validate whenever the input's
// does.
func Wire[T any, C Looper[T]](t *testing.T, format string, gen wiregen.Options, trials int, compact CompactFunc[T], newCompactor func(*chitta.Options, chitta.Policy) (C, error), messages MessagesFunc[T]) {
	t.Helper()
	valid := 0
	for trial := range trials {
		r := rand.New(rand.NewPCG(uint64(trial), 31))
		gen.Pending = r.IntN(6) == 0
		data := wiregen.Conversation(r, format, gen)
		var in []T
		require.NoError(t, json.Unmarshal([]byte(data), &in), "trial %d: %s", trial, data)
		what := fmt.Sprintf("trial %d", trial)
		wireRead(t, data, in, what)
		wireMatches(t, in, messages, what)
		ok := wireValid(t, in, what) == nil
		if ok {
			valid++
		}
		opts := wireOptions(r)
		out, res, err := compact(t.Context(), in, opts)
		require.NoError(t, err, what)
		wireCheck(t, in, out, res, ok, messages, what, data)

		c, err := newCompactor(opts, chitta.Policy{MaxTokens: 2 + r.IntN(300)})
		require.NoError(t, err)
		for end := 0; end < len(in); {
			end = min(len(in), end+1+r.IntN(4))
			out, res, err := c.Compact(t.Context(), in[:end])
			step := fmt.Sprintf("%s, %d messages", what, end)
			require.NoError(t, err, step)
			wireCheck(t, in[:end], out, res, wireValid(t, in[:end], step) == nil, messages, step, data)
		}
	}
	assert.Greater(t, valid, trials/2, "most conversations are valid")
}

// wireRead checks that vals, read from data, keep its messages and their
// tool linkage in their SDK JSON (the SDK read every block).
func wireRead[T any](t *testing.T, data string, vals []T, what string) {
	t.Helper()
	want, err := chitta.ParseMessages([]byte(data))
	require.NoError(t, err, what)
	b, err := json.Marshal(vals)
	require.NoError(t, err, what)
	got, err := chitta.ParseMessages(b)
	require.NoError(t, err, "%s: %s", what, b)
	require.Len(t, got, len(want), what)
	for i := range want {
		require.Equal(t, want[i].ToolCallIDs, got[i].ToolCallIDs, "%s: the SDK reads message %d's calls: %s", what, i, want[i].Raw)
		require.Equal(t, want[i].ToolResultIDs, got[i].ToolResultIDs, "%s: the SDK reads message %d's results: %s", what, i, want[i].Raw)
	}
}

// wireMatches checks that messages converts vals with the roles and tool
// linkage chitta.ParseMessages reads from their SDK JSON, so that the
// adapter groups the calls and results Validate pairs.
func wireMatches[T any](t *testing.T, vals []T, messages MessagesFunc[T], what string) {
	t.Helper()
	cm, err := messages(vals)
	require.NoError(t, err, what)
	b, err := json.Marshal(vals)
	require.NoError(t, err, what)
	parsed, err := chitta.ParseMessages(b)
	require.NoError(t, err, what)
	require.Len(t, cm, len(parsed), what)
	for i := range cm {
		require.Equal(t, parsed[i].Role, cm[i].Role, "%s: message %d: %s", what, i, parsed[i].Raw)
		require.Equal(t, parsed[i].ToolCallIDs, cm[i].ToolCallIDs, "%s: message %d: %s", what, i, parsed[i].Raw)
		require.Equal(t, parsed[i].ToolResultIDs, cm[i].ToolResultIDs, "%s: message %d: %s", what, i, parsed[i].Raw)
	}
}

// wireValid is chitta.Validate of vals as their SDK JSON reads.
func wireValid[T any](t *testing.T, vals []T, what string) error {
	t.Helper()
	b, err := json.Marshal(vals)
	require.NoError(t, err, what)
	msgs, err := chitta.ParseMessages(b)
	require.NoError(t, err, "%s: %s", what, b)
	return chitta.Validate(msgs)
}

// wireCheck checks one result of [Wire].
func wireCheck[T any](t *testing.T, in, out []T, res *chitta.Result, valid bool, messages MessagesFunc[T], what, data string) {
	t.Helper()
	require.Len(t, out, len(res.Kept), what)
	cm, err := messages(in)
	require.NoError(t, err, what)
	got, err := messages(out)
	require.NoError(t, err, "%s: the returned values convert", what)
	for j, i := range res.Kept {
		if j > 0 {
			require.Greater(t, i, res.Kept[j-1], what)
		}
		assert.Equal(t, wiregen.NamedIDs(cm[i].ToolCallIDs), wiregen.NamedIDs(got[j].ToolCallIDs), "%s: message %d", what, i)
		// A Responses reasoning item's reply may extend over a dropped
		// item that ended it.
		assert.Subset(t, wiregen.NamedIDs(got[j].ToolResultIDs), wiregen.NamedIDs(cm[i].ToolResultIDs), "%s: message %d", what, i)
		assert.Equal(t, cm[i].OpensWithThinking, got[j].OpensWithThinking, "%s: message %d", what, i)
		if !reflect.DeepEqual(in[i], out[j]) {
			assert.Contains(t, got[j].Content, chitta.MaskPrefix, "%s: message %d, not the caller's value, is masked", what, i)
		}
	}
	if valid && TurnOpensWithThinking(cm) {
		assert.True(t, TurnOpensWithThinking(got), "%s: the live turn still opens with its thinking block (kept %v)", what, res.Kept)
	}
	if valid {
		if err := wireValid(t, out, what); err != nil {
			t.Fatalf("%s: the result of a valid conversation is invalid: %v\nkept %v of %s", what, err, res.Kept, data)
		}
	}
}

// TurnOpensWithThinking reports whether the first assistant message after
// the last prompt (a user message without tool results) opens with a
// thinking block, as Anthropic wants of the last turn with thinking on.
func TurnOpensWithThinking(msgs []chitta.Message) bool {
	from := 0
	for i, m := range msgs {
		if m.Role == chitta.RoleUser && len(m.ToolResultIDs) == 0 {
			from = i + 1
		}
	}
	for _, m := range msgs[from:] {
		if m.Role == chitta.RoleAssistant {
			return m.OpensWithThinking
		}
	}
	return false
}
