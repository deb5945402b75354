package adapttest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// Count is how the mask checks count a message: the tokens of its Content
// under tc (EstimateTokens when nil) plus its framing when tc is a
// chitta.FramingCounter, plus its MediaTokens, as chitta counts a message.
func Count(tc chitta.TokenCounter, m *chitta.Message) int {
	if tc == nil {
		return chitta.EstimateTokens(m.Content) + m.MediaTokens
	}
	n := tc.CountTokens(m.Content) + m.MediaTokens
	if fc, ok := tc.(chitta.FramingCounter); ok {
		n += fc.FramingTokens(m)
	}
	return n
}

// Masked compacts conversation() with compact and opts (opts.Mask set),
// and checks what masking through an adapter promises:
//   - the input is not modified (deep-equal to a fresh conversation());
//   - every kept value that chitta did not mask is the input's value at
//     its index (reflect.DeepEqual), converted again to the same Content;
//   - every masked one is a new value that messages converts again without
//     error, whose Content holds a chitta placeholder or cut marker, has
//     the same words as the Content chitta gives it (Result.Messages),
//     counts exactly its TurnScore.Tokens, never more than the input value,
//     and keeps its tool linkage (as many call and result IDs);
//   - Stats.Masked is the number of masked values, and the re-counted
//     tokens of every returned value sum to Stats.AfterTokens exactly (the
//     bound the adapters document: 0 for a counter of words, such as
//     EstimateTokens), which is within the budget (TargetRatio × the
//     original tokens) unless the pinned messages alone exceed it;
//   - pairs are intact: every result ID of the returned values is issued
//     by a call among them and every call ID is answered among them (the
//     conversation must answer every call).
//
// It returns the input, the values and the Result for the caller's own
// checks.
func Masked[T any](t *testing.T, conversation func() []T, compact CompactFunc[T], messages MessagesFunc[T], opts *chitta.Options) (in, out []T, res *chitta.Result) {
	t.Helper()
	require.NotNil(t, opts.Mask)
	in = conversation()
	out, res, err := compact(t.Context(), in, opts)
	require.NoError(t, err)
	require.True(t, reflect.DeepEqual(conversation(), in), "input not modified")
	require.Len(t, out, len(res.Kept))
	orig, err := messages(in)
	require.NoError(t, err)
	got, err := messages(out)
	require.NoError(t, err, "the returned values convert again")
	masked, sum := 0, 0
	for j, i := range res.Kept {
		s := res.Scores[i]
		n := Count(opts.Tokens, &got[j])
		sum += n
		assert.Nil(t, res.Messages[j].Raw, "message %d: Result.Messages hold no synthetic Raw", i)
		if !s.Masked {
			assert.True(t, reflect.DeepEqual(in[i], out[j]), "message %d: an unmasked value is the caller's", i)
			assert.Equal(t, orig[i].Content, got[j].Content, "message %d", i)
			continue
		}
		masked++
		assert.False(t, reflect.DeepEqual(in[i], out[j]), "message %d: a masked value is rewritten", i)
		assert.Contains(t, got[j].Content, chitta.MaskPrefix, "message %d", i)
		assert.Equal(t, strings.Fields(res.Messages[j].Content), strings.Fields(got[j].Content), "message %d: the words chitta counted", i)
		assert.Equal(t, s.Tokens, n, "message %d: re-counted tokens", i)
		assert.LessOrEqual(t, n, Count(opts.Tokens, &orig[i]), "message %d: masking never grows a message", i)
		assert.Len(t, got[j].ToolCallIDs, len(orig[i].ToolCallIDs), "message %d", i)
		assert.Len(t, got[j].ToolResultIDs, len(orig[i].ToolResultIDs), "message %d", i)
	}
	assert.Equal(t, res.Stats.Masked, masked, "Stats.Masked")
	assert.Equal(t, res.Stats.AfterTokens, sum, "Stats.AfterTokens is what the returned values count")
	if budget := int(opts.TargetRatio * float64(res.Stats.BeforeTokens)); opts.MaxTokens == 0 && !pinnedOver(res, budget) {
		assert.LessOrEqual(t, sum, budget, "the returned values fit the budget")
	}
	Paired(t, got)
	return in, out, res
}

// ValidWire checks that vals, as the SDK's own encoding/json renders them
// (the JSON its client sends), read back with chitta.ParseMessages as a
// conversation a provider accepts (chitta.Validate): every call answered,
// every result after its call, a user turn first.
func ValidWire[T any](t *testing.T, vals []T, what string) {
	t.Helper()
	data, err := json.Marshal(vals)
	require.NoError(t, err, "%s marshal", what)
	msgs, err := chitta.ParseMessages(data)
	require.NoError(t, err, "%s: the SDK's JSON reads back", what)
	require.Len(t, msgs, len(vals), what)
	assert.NoError(t, chitta.Validate(msgs), "%s: a provider accepts it: %s", what, data)
}

// pinnedOver reports whether the pinned messages alone count more than
// budget (chitta then returns them anyway).
func pinnedOver(res *chitta.Result, budget int) bool {
	n := 0
	for _, s := range res.Scores {
		if s.Pinned {
			n += s.Tokens
		}
	}
	return n > budget
}

// Paired checks that every result ID of msgs is issued by a call in msgs
// and every call ID is answered in msgs.
func Paired(t *testing.T, msgs []chitta.Message) {
	t.Helper()
	var calls, results []string
	for _, m := range msgs {
		calls = append(calls, m.ToolCallIDs...)
		results = append(results, m.ToolResultIDs...)
	}
	for _, id := range results {
		assert.True(t, slices.Contains(calls, id), "result %q has its call", id)
	}
	for _, id := range calls {
		assert.True(t, slices.Contains(results, id), "call %q has its result", id)
	}
}

// MaskCase is one options case of an adapter's masking test.
type MaskCase struct {
	Name    string
	Opts    *chitta.Options
	Exclude string // the tool whose results Opts excludes from masking, if any
}

// MaskCases returns the cases every adapter's masking test runs: the
// defaults at ratio 0.3, ExcludeTools of exclude at 0.3, and a
// MaxResultTokens cut (60) of every result, the recent ones too, at 1.
func MaskCases(exclude string) []MaskCase {
	return []MaskCase{
		{"defaults", &chitta.Options{TargetRatio: 0.3, Mask: &chitta.MaskOptions{}}, ""},
		{"exclude " + exclude, &chitta.Options{TargetRatio: 0.3, Mask: &chitta.MaskOptions{ExcludeTools: []string{exclude}}}, exclude},
		{"cut recent", &chitta.Options{TargetRatio: 1, Mask: &chitta.MaskOptions{MaxResultTokens: 60}}, ""},
	}
}

// MaskProperty runs [Masked] on trials conversations drawn by gen (which
// must answer every call it makes, and draw the same conversation from
// the same seed) under random masking options: ratio, KeepRecent,
// MinTokens, MaxResultTokens, ListValues, Actions and Restore. results
// returns the text of each tool result of a value, in order, as the
// adapter scores it; for every masked value no result counts more tokens
// (EstimateTokens) than it did in the input value when Actions is
// ActionsOff. (With the other Actions, chitta's degraded form of a
// message masks every result of it, small ones too, when that makes the
// message smaller: a result smaller than its placeholder then grows while
// the message shrinks. That is chitta's rule, per message, not the
// adapters'; [Masked] checks it.)
func MaskProperty[T any](t *testing.T, trials int, gen func(rng *rand.Rand) []T, compact CompactFunc[T], messages MessagesFunc[T], results func(T) []string) {
	t.Helper()
	masked := 0
	for trial := range trials {
		rng := rand.New(rand.NewPCG(23, uint64(trial)))
		opts := &chitta.Options{
			TargetRatio: []float64{0.1, 0.2, 0.3, 0.5, 1}[rng.IntN(5)],
			Mask: &chitta.MaskOptions{
				KeepRecent:      rng.IntN(4),
				MinTokens:       []int{0, 20, 200}[rng.IntN(3)],
				MaxResultTokens: []int{0, 0, 40, 200}[rng.IntN(4)],
				ListValues:      []int{-1, 0, 3}[rng.IntN(3)],
				Actions:         chitta.MaskActions(rng.IntN(4)),
				Restore:         rng.IntN(4) == 0,
			},
		}
		seed := rng.Uint64()
		conv := func() []T { return gen(rand.New(rand.NewPCG(seed, 29))) }
		in, out, res := Masked(t, conv, compact, messages, opts)
		ValidWire(t, out, fmt.Sprintf("trial %d", trial))
		for j, i := range res.Kept {
			if !res.Scores[i].Masked {
				continue
			}
			masked++
			before, after := results(in[i]), results(out[j])
			require.Len(t, after, len(before), "trial %d message %d: as many results", trial, i)
			for k := range before {
				if opts.Mask.Actions != chitta.ActionsOff {
					break
				}
				assert.LessOrEqual(t, chitta.EstimateTokens(after[k]), chitta.EstimateTokens(before[k]), "trial %d message %d result %d never grows", trial, i, k)
			}
		}
	}
	assert.Positive(t, masked, "some trial masks")
}

// RandomText returns a text for the property tests' generated messages: 0
// to 119 pieces drawn by r, blank and non-ASCII ones among them, each
// followed by a space.
func RandomText(r *rand.Rand) string {
	pieces := []string{"alpha", "beta", "  ", "", "ünï", "line\n", `{"k":1}`, "x"}
	var b strings.Builder
	for range r.IntN(120) {
		b.WriteString(pieces[r.IntN(len(pieces))])
		b.WriteByte(' ')
	}
	return b.String()
}
