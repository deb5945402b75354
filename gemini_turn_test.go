package chitta_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// geminiDroppedPrompt is genai Content JSON that the Gemini API accepts:
// a model text turn, then a prompt, then a function-call turn. The middle
// prompt is long and scores below the call group, so a budget that fits
// the rest but not it used to drop it, leaving the model text right
// before the function call, which the API rejects ("function call turn
// comes immediately after a user turn or after a function response
// turn").
func geminiDroppedPrompt() string {
	long := strings.Repeat("word ", 60)
	return `[{"role":"user","parts":[{"text":"plan the trip"}]},
{"role":"model","parts":[{"text":"which city"}]},
{"role":"user","parts":[{"text":"` + long + `"}]},
{"role":"model","parts":[{"functionCall":{"name":"flights","args":{"to":"NRT"}}}]},
{"role":"user","parts":[{"functionResponse":{"name":"flights","response":{"output":"three flights"}}}]},
{"role":"model","parts":[{"text":"found three"}]},
{"role":"user","parts":[{"text":"book the first"}]}]`
}

// TestCompactGeminiCallAfterPrompt: in genai Content JSON, a kept
// function-call turn that a dropped prompt separated from an earlier kept
// model turn keeps that prompt too (and stays kept itself), so that the
// result passes Validate; OpenAI messages of the same layout, where a
// tool call may follow an assistant message, are compacted as before.
func TestCompactGeminiCallAfterPrompt(t *testing.T) {
	t.Parallel()
	msgs, err := chitta.ParseMessages([]byte(geminiDroppedPrompt()))
	require.NoError(t, err)
	require.NoError(t, chitta.Validate(msgs), "the input is valid")
	opts := &chitta.Options{MaxTokens: 30, Tokens: chitta.TokenCounterFunc(chitta.CountWords)}
	res, err := chitta.Compact(t.Context(), msgs, opts)
	require.NoError(t, err)
	require.NoError(t, chitta.Validate(res.Messages), "kept %v", res.Kept)
	assert.Equal(t, []int{2, 3, 4, 6}, res.Kept, "the prompt before the call is kept, and so is the call group")
	assert.True(t, res.Scores[2].Pinned, "the prompt the call needs is pinned")
	assert.True(t, res.Scores[3].Pinned && res.Scores[4].Pinned, "the call group is pinned with it")
	assert.True(t, res.Stats.OverBudget)

	// The same layout in OpenAI form: no such rule, the prompt is dropped.
	openai := []chitta.Message{
		msg(chitta.RoleUser, msgs[0].Content), msg(chitta.RoleAssistant, msgs[1].Content), msg(chitta.RoleUser, msgs[2].Content),
		toolCall(msgs[3].Content, "c1"), {Role: chitta.RoleTool, Content: msgs[4].Content, ToolResultIDs: []string{"c1"}},
		msg(chitta.RoleAssistant, msgs[5].Content), msg(chitta.RoleUser, msgs[6].Content),
	}
	res, err = chitta.Compact(t.Context(), openai, opts)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 3, 4, 5, 6}, res.Kept, "OpenAI: the assistant text may precede the call")
	require.NoError(t, chitta.Validate(res.Messages))

	// Options.GeminiTurns applies the rule to messages built in Go.
	res, err = chitta.Compact(t.Context(), openai, &chitta.Options{MaxTokens: 30, Tokens: opts.Tokens, GeminiTurns: true})
	require.NoError(t, err)
	assert.Equal(t, []int{2, 3, 4, 6}, res.Kept)
}

// TestValidateGeminiCallTurn: in genai Content JSON a function-call turn
// must come right after a user turn or a function response; other shapes
// (and messages built in Go) may have a call right after assistant text.
func TestValidateGeminiCallTurn(t *testing.T) {
	t.Parallel()
	const (
		user   = `{"role":"user","parts":[{"text":"go on"}]}`
		text   = `{"role":"model","parts":[{"text":"thinking aloud"}]}`
		call   = `{"role":"model","parts":[{"text":"let me look"},{"functionCall":{"name":"ls","args":{}}}]}`
		resp   = `{"role":"user","parts":[{"functionResponse":{"name":"ls","response":{"output":"a.go"}}}]}`
		callA  = `{"role":"model","parts":[{"functionCall":{"id":"a","name":"ls","args":{}}}]}`
		callB  = `{"role":"model","parts":[{"functionCall":{"id":"b","name":"ls","args":{}}}]}`
		respAB = `{"role":"user","parts":[{"functionResponse":{"id":"a","name":"ls","response":{}}},{"functionResponse":{"id":"b","name":"ls","response":{}}}]}`
		system = `{"role":"system","content":"rules"}`
		oaText = `{"role":"assistant","content":"thinking aloud"}`
		oaCall = `{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"ls","arguments":"{}"}}]}`
		oaTool = `{"role":"tool","tool_call_id":"c","content":"a.go"}`
		lcText = `{"role":"ai","parts":[{"type":"text","text":"thinking aloud"}]}`
		lcCall = `{"role":"ai","parts":[{"type":"tool_call","tool_call":{"id":"c","type":"function","function":{"name":"ls","arguments":"{}"}}}]}`
		lcTool = `{"role":"tool","parts":[{"type":"tool_response","tool_response":{"tool_call_id":"c","name":"ls","content":"a.go"}}]}`
	)
	cases := []struct {
		name  string
		msgs  []string
		index int // -1: valid
	}{
		{"call after a prompt", []string{user, text, user, call, resp, text}, -1},
		{"call after a function response", []string{user, call, resp, call, resp}, -1},
		{"call after a prompt after a system message", []string{user, text, system, user, call, resp}, -1},
		{"call right after model text", []string{user, text, call, resp}, 2},
		{"call right after model text, a system message between", []string{user, text, system, call, resp}, 3},
		{"call right after a call", []string{user, callA, callB, respAB}, 2},
		{"call first", []string{call, resp, user}, 0},
		{"genai call after OpenAI assistant text", []string{user, oaText, call, resp}, 2},
		{"OpenAI call after assistant text", []string{user, oaText, oaCall, oaTool}, -1},
		{"langchaingo call after ai text", []string{user, lcText, lcCall, lcTool}, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			msgs, err := chitta.ParseMessages([]byte("[" + strings.Join(tc.msgs, ",") + "]"))
			require.NoError(t, err)
			err = chitta.Validate(msgs)
			if tc.index < 0 {
				require.NoError(t, err)
				return
			}
			requireFault(t, err, tc.index, "role")
			// Built in Go (Raw nil), the same messages are not checked.
			for i := range msgs {
				msgs[i].Raw = nil
			}
			if tc.index > 0 {
				require.NoError(t, chitta.Validate(msgs))
			}
		})
	}
}

// TestParseGenaiStreamedTurn: the SDK's Chat records a streamed reply as
// one model Content a chunk, so ID-less parallel calls may sit in model
// Contents one after another; they are one turn, which the responses
// without IDs after them answer in order. Each Content was read as a turn
// of its own: both responses answered the last call, the first call none.
func TestParseGenaiStreamedTurn(t *testing.T) {
	t.Parallel()
	msgs, err := chitta.ParseMessages([]byte(`[
 {"role":"user","parts":[{"text":"weather in paris and rome"}]},
 {"role":"model","parts":[{"functionCall":{"name":"weather","args":{"city":"paris"}}}]},
 {"role":"model","parts":[{"text":" "}]},
 {"role":"model","parts":[{"functionCall":{"name":"weather","args":{"city":"rome"}}}]},
 {"role":"user","parts":[{"functionResponse":{"name":"weather","response":{"output":"sunny"}}},{"functionResponse":{"name":"weather","response":{"output":"rain"}}}]},
 {"role":"model","parts":[{"functionCall":{"name":"forecast","args":{"city":"oslo"}}}]},
 {"role":"user","parts":[{"text":"never mind; paris?"}]},
 {"role":"model","parts":[{"text":"Checking."}]},
 {"role":"model","parts":[{"functionCall":{"name":"forecast","args":{"city":"paris"}}}]},
 {"role":"user","parts":[{"functionResponse":{"name":"forecast","response":{"output":"storms"}}}]}
]`))
	require.NoError(t, err)
	assert.Equal(t, []string{"functionCall@1.0", "functionCall@3.0"}, msgs[4].ToolResultIDs)
	assert.Equal(t, []string{"functionCall@8.0"}, msgs[9].ToolResultIDs, "a text-only model Content after a user turn starts no turn of calls")
}
