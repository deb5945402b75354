package genai_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/chitta-go/chitta"
	adapter "github.com/chitta-go/chitta/adapt/genai"
)

// turnFault returns the index in out of the first content that breaks
// one of the Gemini API's turn rules, and the rule, or -1: the first
// content is a user turn; a function-call turn comes right after a user
// turn (a prompt or a function response); a function-response turn comes
// right after a function-call turn.
func turnFault(out []*genai.Content) (int, string) {
	has := func(c *genai.Content, call bool) bool {
		for _, p := range c.Parts {
			if call && p.FunctionCall != nil || !call && p.FunctionResponse != nil {
				return true
			}
		}
		return false
	}
	for j, c := range out {
		switch {
		case j == 0 && c.Role != genai.RoleUser:
			return j, "the first content is not a user turn"
		case has(c, true) && (j == 0 || out[j-1].Role == genai.RoleModel):
			return j, "a function call right after a model turn"
		case has(c, false) && (j == 0 || !has(out[j-1], true)):
			return j, "a function response not right after its call"
		}
	}
	return -1, ""
}

// randomTurns returns a conversation the Gemini API accepts: a prompt,
// then model text or function-call turns (one or two parallel calls, the
// responses in the next content), each model text answered by a prompt,
// and now and then two prompts in a row; every text of 1 to 40 words.
func randomTurns(r *rand.Rand) []*genai.Content {
	text := func() string { return strings.Repeat("word ", 1+r.IntN(40)) }
	out := []*genai.Content{genai.NewContentFromText(text(), genai.RoleUser)}
	for range 3 + r.IntN(25) {
		if out[len(out)-1].Role == genai.RoleModel {
			out = append(out, genai.NewContentFromText(text(), genai.RoleUser))
		} else if r.IntN(2) == 0 {
			var calls, responses []*genai.Part
			for k := range 1 + r.IntN(2) {
				calls = append(calls, genai.NewPartFromFunctionCall(fmt.Sprintf("f%d", k), map[string]any{"q": text()}))
				responses = append(responses, genai.NewPartFromFunctionResponse(fmt.Sprintf("f%d", k), map[string]any{"output": text()}))
			}
			out = append(out, genai.NewContentFromParts(calls, genai.RoleModel), genai.NewContentFromParts(responses, genai.RoleUser))
		} else {
			out = append(out, genai.NewContentFromText(text(), genai.RoleModel))
		}
		if out[len(out)-1].Role == genai.RoleUser && r.IntN(4) == 0 {
			out = append(out, genai.NewContentFromText(text(), genai.RoleUser))
		}
	}
	return out
}

// TestCompactTurnRules: whatever the budget, scoring, KeepLast or masking,
// Compact and the Compactor return conversations the Gemini API accepts
// when given one: the result starts with a user turn, every function call
// follows a user turn, every function response its call. In particular a
// prompt pinned because the first kept content was a call group (the group
// itself not pinned, so a later round may drop it) leaves the prompt
// first, which any turn may follow.
func TestCompactTurnRules(t *testing.T) {
	t.Parallel()
	emb := chitta.NewHashEmbedder(0)
	for seed := range 1500 {
		r := rand.New(rand.NewPCG(uint64(seed), 12))
		in := randomTurns(r)
		j, rule := turnFault(in)
		require.Equal(t, -1, j, "seed %d: the input breaks no rule (%s)", seed, rule)
		o := &chitta.Options{TargetRatio: []float64{0.05, 0.1, 0.2, 0.3, 0.5}[r.IntN(5)], KeepLast: r.IntN(3), Tokens: chitta.TokenCounterFunc(chitta.CountWords)}
		if r.IntN(2) == 0 {
			o.Embedder, o.Query = emb, "word"
		}
		if r.IntN(3) == 0 {
			o.Mask = &chitta.MaskOptions{}
		}
		out, res, err := adapter.Compact(t.Context(), in, o)
		require.NoError(t, err)
		j, rule = turnFault(out)
		assert.Equal(t, -1, j, "seed %d, Compact: %s (kept %v)", seed, rule, res.Kept)

		c, err := adapter.NewCompactor(o, chitta.Policy{MaxTokens: 10 + r.IntN(200)})
		require.NoError(t, err)
		_, _, err = c.Compact(t.Context(), in[:1+r.IntN(len(in))])
		require.NoError(t, err)
		out, res, err = c.Compact(t.Context(), in)
		require.NoError(t, err)
		j, rule = turnFault(out)
		assert.Equal(t, -1, j, "seed %d, Compactor: %s (kept %v)", seed, rule, res.Kept)
	}
}
