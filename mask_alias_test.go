package chitta_test

import (
	"math/rand/v2"
	"testing"

	"github.com/chitta-go/chitta"
	"github.com/stretchr/testify/require"
)

// deepCopyMsgs copies every byte a message holds.
func deepCopyMsgs(ms []chitta.Message) []chitta.Message {
	out := make([]chitta.Message, len(ms))
	for i, m := range ms {
		c := m
		c.Raw = append([]byte(nil), m.Raw...)
		c.Content = string([]byte(m.Content))
		c.ToolCallIDs = append([]string(nil), m.ToolCallIDs...)
		c.ToolResultIDs = append([]string(nil), m.ToolResultIDs...)
		out[i] = c
	}
	return out
}

// Masked results are written from pooled per-call scratch and cached forms;
// a Result the caller holds must not change when later calls (other
// conversations, a shared MaskCache, cuts) reuse that memory.
func TestMaskedResultsSurviveLaterCalls(t *testing.T) {
	t.Parallel()
	cache := chitta.NewMaskCache()
	type kept struct {
		res  *chitta.Result
		copy []chitta.Message
	}
	var all []kept
	for k := range 200 {
		r := rand.New(rand.NewPCG(uint64(k), 11))
		in, err := chitta.ParseMessages([]byte(randomWireConversation(r)))
		require.NoError(t, err)
		in = jsonLookups(r, in)
		for _, opts := range []*chitta.Options{
			{TargetRatio: 0.3, Tokens: words, Mask: &chitta.MaskOptions{MinTokens: 1}},
			{TargetRatio: 0.2, Tokens: words, Mask: &chitta.MaskOptions{MinTokens: 1, Cache: cache}},
			{TargetRatio: 0.3, Tokens: words, Mask: &chitta.MaskOptions{MinTokens: 1, MaxResultTokens: 5, Cache: cache}},
		} {
			res, err := chitta.Compact(t.Context(), in, opts)
			require.NoError(t, err)
			all = append(all, kept{res, deepCopyMsgs(res.Messages)})
		}
	}
	for i, k := range all {
		require.Equal(t, k.copy, deepCopyMsgs(k.res.Messages), "result %d changed after later calls", i)
	}
	masked := 0
	for _, k := range all {
		masked += k.res.Stats.Masked
	}
	require.Positive(t, masked, "the conversations must exercise masking")
}
