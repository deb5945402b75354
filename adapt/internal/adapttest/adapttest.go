// Package adapttest holds the checks every SDK adapter's tests share. It
// is test tooling above the library: only the adapters' _test.go files
// import it.
package adapttest

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"github.com/chitta-go/chitta"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// CompactFunc is an adapter's Compact.
type CompactFunc[T any] func(ctx context.Context, msgs []T, opts *chitta.Options) ([]T, *chitta.Result, error)

// KeepsPairsAndValues compacts conversation() with compact at several
// ratios and checks that every returned value is the input value at its
// kept index (reflect.DeepEqual), that each group of indices (a call with
// its results) is kept or dropped as a whole, and that the input is not
// modified. conversation must build a fresh, equal conversation each call.
func KeepsPairsAndValues[T any](t *testing.T, conversation func() []T, compact CompactFunc[T], groups ...[]int) {
	t.Helper()
	in := conversation()
	for _, ratio := range []float64{0.05, 0.3, 0.6, 1} {
		out, res, err := compact(t.Context(), in, &chitta.Options{TargetRatio: ratio})
		require.NoError(t, err)
		require.Len(t, out, len(res.Kept))
		kept := map[int]bool{}
		for j, i := range res.Kept {
			kept[i] = true
			assert.True(t, reflect.DeepEqual(in[i], out[j]), "ratio %v: kept value %d is the input's", ratio, i)
		}
		for _, g := range groups {
			for _, i := range g[1:] {
				assert.Equal(t, kept[g[0]], kept[i], "ratio %v: message %d is kept with %d (one tool-call group)", ratio, i, g[0])
			}
		}
	}
	assert.True(t, reflect.DeepEqual(conversation(), in), "input not modified")
}

// MessagesFunc is an adapter's Messages.
type MessagesFunc[T any] func(msgs []T) ([]chitta.Message, error)

// Fingerprint returns a SHA-256 (hex) of everything messages gives for
// msgs (each message's role, content and tool IDs, length-prefixed), for
// a test to pin against the value recorded before a change to the
// conversion: any change in its output changes the fingerprint. It also
// checks that compact, called twice at each of four ratios (the second
// call reuses a pooled builder), returns exactly what chitta.Compact
// returns on those messages (Kept, Messages) and the values of msgs at
// the kept indices.
func Fingerprint[T any](t *testing.T, msgs []T, messages MessagesFunc[T], compact CompactFunc[T]) string {
	t.Helper()
	cm, err := messages(msgs)
	require.NoError(t, err)
	require.Len(t, cm, len(msgs))
	h := sha256.New()
	field := func(s string) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	for _, m := range cm {
		field(string(m.Role))
		field(m.Content)
		for _, ids := range [][]string{m.ToolCallIDs, m.ToolResultIDs} {
			field(strconv.Itoa(len(ids)))
			for _, id := range ids {
				field(id)
			}
		}
		field(string(m.Raw))
	}
	for _, ratio := range []float64{0.05, 0.3, 0.6, 1} {
		opts := &chitta.Options{TargetRatio: ratio}
		want, err := chitta.Compact(t.Context(), cm, opts)
		require.NoError(t, err)
		for range 2 {
			out, res, err := compact(t.Context(), msgs, opts)
			require.NoError(t, err)
			require.Equal(t, want.Kept, res.Kept, "ratio %v", ratio)
			require.Equal(t, want.Messages, res.Messages, "ratio %v", ratio)
			require.Len(t, out, len(res.Kept))
			for j, i := range res.Kept {
				require.True(t, reflect.DeepEqual(msgs[i], out[j]), "ratio %v: kept value %d", ratio, i)
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// MatchesParse checks that messages(vals) gives, message by message, the
// role, content and tool IDs that chitta.ParseMessages reads from the
// SDK's own encoding/json of vals (the adapter and the parser follow the
// same rules), and returns the adapter's messages.
func MatchesParse[T any](t *testing.T, vals []T, messages MessagesFunc[T]) []chitta.Message {
	t.Helper()
	cm, err := messages(vals)
	require.NoError(t, err)
	data, err := json.Marshal(vals)
	require.NoError(t, err)
	parsed, err := chitta.ParseMessages(data)
	require.NoError(t, err, "the SDK's JSON reads back: %s", data)
	require.Len(t, parsed, len(cm))
	for i := range cm {
		assert.Equal(t, parsed[i].Role, cm[i].Role, "message %d: role as chitta.ParseMessages reads it", i)
		assert.Equal(t, parsed[i].Content, cm[i].Content, "message %d: content as chitta.ParseMessages reads it", i)
		assert.Equal(t, parsed[i].ToolCallIDs, cm[i].ToolCallIDs, "message %d: call IDs as chitta.ParseMessages reads them", i)
		assert.Equal(t, parsed[i].ToolResultIDs, cm[i].ToolResultIDs, "message %d: result IDs as chitta.ParseMessages reads them", i)
	}
	return cm
}

// Pinned is a conversation whose [Fingerprint] a test pins.
type Pinned[T any] struct {
	Name string
	Msgs func(t *testing.T) []T // may skip t (data not found)
	Want string                 // the fingerprint recorded before the conversion last changed
}

// CheckFingerprints runs [Fingerprint] on each conversation in a subtest
// and checks it against the pinned value.
func CheckFingerprints[T any](t *testing.T, messages MessagesFunc[T], compact CompactFunc[T], pinned ...Pinned[T]) {
	t.Helper()
	for _, p := range pinned {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, p.Want, Fingerprint(t, p.Msgs(t), messages, compact), "the conversion's output changed")
		})
	}
}

// KeptValues checks that out holds in[i] for each i in kept, in order
// (require.Equal), and that every call of out, converted with messages,
// has its result in out and vice versa (see [Paired]).
func KeptValues[T any](t *testing.T, in []T, kept []int, out []T, messages MessagesFunc[T]) {
	t.Helper()
	require.Len(t, out, len(kept))
	for j, i := range kept {
		require.Equal(t, in[i], out[j], "out[%d] is the caller's value %d", j, i)
	}
	conv, err := messages(out)
	require.NoError(t, err)
	Paired(t, conv)
}

// SameKept checks that compact (an adapter's Compact) keeps the same
// indices of vals as chitta.Compact keeps of chitta.ParseMessages on the
// SDK's own encoding/json of vals, and marks the same messages masked,
// at several budgets (nothing but the pins fitting, then ratios) with
// and without Mask, words counting as tokens: the adapter and the parser
// follow the same rules (the tool-search rule included).
func SameKept[T any](t *testing.T, vals []T, compact CompactFunc[T]) {
	t.Helper()
	data, err := json.Marshal(vals)
	require.NoError(t, err)
	parsed, err := chitta.ParseMessages(data)
	require.NoError(t, err, "the SDK's JSON reads back: %s", data)
	require.Len(t, parsed, len(vals))
	for _, budget := range []chitta.Options{{MaxTokens: 1}, {TargetRatio: 0.3}, {TargetRatio: 0.6}, {TargetRatio: 0.9}} {
		for _, mask := range []*chitta.MaskOptions{nil, {}, {KeepRecent: 1, MinTokens: 5}} {
			opts := budget
			opts.Tokens, opts.Mask = chitta.TokenCounterFunc(chitta.CountWords), mask
			want, err := chitta.Compact(t.Context(), parsed, &opts)
			require.NoError(t, err)
			_, got, err := compact(t.Context(), vals, &opts)
			require.NoError(t, err)
			assert.Equal(t, want.Kept, got.Kept, "budget %+v, mask %+v: kept as chitta.Compact keeps the JSON", budget, mask)
			if len(want.Scores) == len(got.Scores) {
				for i := range want.Scores {
					assert.Equal(t, want.Scores[i].Masked, got.Scores[i].Masked, "budget %+v, mask %+v: message %d masked", budget, mask, i)
					assert.Equal(t, want.Scores[i].Pinned, got.Scores[i].Pinned, "budget %+v, mask %+v: message %d pinned", budget, mask, i)
				}
			}
		}
	}
}
