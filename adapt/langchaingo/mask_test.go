package langchaingo_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
	"github.com/chitta-go/chitta/adapt/langchaingo"
)

var fileText = strings.Repeat("line of file content here ", 60)

// parallelTools: each ai turn calls read and grep; one tool message
// answers both with two ToolCallResponse parts (grep's inside a
// CachedContent every other turn) after a text part.
func parallelTools() []llms.MessageContent {
	var msgs []llms.MessageContent
	for i := range 8 {
		a, b := fmt.Sprintf("a%d", i), fmt.Sprintf("b%d", i)
		var grep llms.ContentPart = llms.ToolCallResponse{ToolCallID: b, Name: "grep", Content: "matches: " + fileText}
		if i%2 == 1 {
			grep = llms.CachedContent{ContentPart: grep}
		}
		msgs = append(msgs,
			llms.TextParts(llms.ChatMessageTypeHuman, fmt.Sprintf("Look into bug %d", i)),
			llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
				llms.ToolCall{ID: a, Type: "function", FunctionCall: &llms.FunctionCall{Name: "read", Arguments: fmt.Sprintf(`{"path":"f%d.go"}`, i)}},
				llms.ToolCall{ID: b, Type: "function", FunctionCall: &llms.FunctionCall{Name: "grep", Arguments: fmt.Sprintf(`{"q":"BUG-%d"}`, i)}},
			}},
			llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
				llms.TextPart("two results"),
				llms.ToolCallResponse{ToolCallID: a, Name: "read", Content: fileText},
				grep,
			}},
		)
	}
	return append(msgs, llms.TextParts(llms.ChatMessageTypeHuman, "What is the fix?"))
}

// response returns part p as a ToolCallResponse (unwrapping a cache).
func response(t *testing.T, p llms.ContentPart) llms.ToolCallResponse {
	t.Helper()
	if c, ok := p.(llms.CachedContent); ok {
		p = c.ContentPart
	}
	r, ok := p.(llms.ToolCallResponse)
	require.True(t, ok, "%T", p)
	return r
}

func TestCompactMasks(t *testing.T) {
	t.Parallel()
	for _, tc := range adapttest.MaskCases("read") {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			in, out, res := adapttest.Masked(t, parallelTools, langchaingo.Compact, langchaingo.Messages, tc.Opts)
			require.Positive(t, res.Stats.Masked)
			for j, i := range res.Kept {
				if !res.Scores[i].Masked {
					continue
				}
				o, g := in[i].Parts, out[j].Parts
				require.Len(t, g, 3)
				assert.Equal(t, o[0], g[0], "message %d: the text part is kept", i)
				_, cached := o[2].(llms.CachedContent)
				_, stillCached := g[2].(llms.CachedContent)
				assert.Equal(t, cached, stillCached, "message %d: a cached response stays cached", i)
				for k := 1; k < 3; k++ {
					or, gr := response(t, o[k]), response(t, g[k])
					assert.Equal(t, or.ToolCallID, gr.ToolCallID)
					assert.Equal(t, or.Name, gr.Name)
					if or.Content == gr.Content {
						continue
					}
					assert.NotEqual(t, tc.Exclude, or.Name)
					assert.Contains(t, gr.Content, chitta.MaskPrefix+or.Name+" output", "message %d part %d names the tool", i, k)
				}
			}
		})
	}
}

// TestCompactMaskCallWithoutFunction: a ToolCall without a FunctionCall
// (an ID only) before a call to grep in the same message does not take
// grep's place: grep's result is named grep in its placeholder and
// ExcludeTools ["grep"] keeps it whole, at every ratio.
func TestCompactMaskCallWithoutFunction(t *testing.T) {
	t.Parallel()
	conv := func() []llms.MessageContent {
		return []llms.MessageContent{
			llms.TextParts(llms.ChatMessageTypeHuman, "Find the bug"),
			{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
				llms.ToolCall{ID: "bare", Type: "function"},
				llms.ToolCall{ID: "g", Type: "function", FunctionCall: &llms.FunctionCall{Name: "grep", Arguments: `{"q":"BUG"}`}},
				llms.ToolCall{ID: "r", Type: "function", FunctionCall: &llms.FunctionCall{Name: "read", Arguments: `{"path":"a.go"}`}},
			}},
			{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "bare", Content: "bare: " + fileText}}},
			{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "g", Name: "grep", Content: "matches: " + fileText}}},
			{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "r", Name: "read", Content: fileText}}},
			llms.TextParts(llms.ChatMessageTypeHuman, "And now?"),
			llms.TextParts(llms.ChatMessageTypeAI, "Looking."),
			llms.TextParts(llms.ChatMessageTypeHuman, "Well?"),
			llms.TextParts(llms.ChatMessageTypeAI, "Found it."),
		}
	}
	masked := 0
	for _, ratio := range []float64{0.3, 0.5, 0.6, 0.8} {
		opts := &chitta.Options{TargetRatio: ratio, Mask: &chitta.MaskOptions{MinTokens: 1, ExcludeTools: []string{"grep"}}}
		in, out, res := adapttest.Masked(t, conv, langchaingo.Compact, langchaingo.Messages, opts)
		for j, i := range res.Kept {
			if in[i].Role != llms.ChatMessageTypeTool {
				continue
			}
			o, g := response(t, in[i].Parts[0]), response(t, out[j].Parts[0])
			if o.ToolCallID == "g" {
				assert.Equal(t, o, g, "ratio %v: grep's result is excluded from masking", ratio)
			}
			if o.ToolCallID == "r" && res.Scores[i].Masked {
				masked++
				assert.Contains(t, g.Content, chitta.MaskPrefix+"read output", "ratio %v: read's placeholder names read", ratio)
			}
		}
	}
	assert.Positive(t, masked, "read's result is masked at some ratio")
}

// randomParallelTools draws a conversation that answers every call:
// prompts, plain answers, and ai turns of one to three parallel calls
// (some after a text part, some cached; with IDs, or without as
// langchaingo's googleai and vertex providers make them, paired by
// position, or with IDs answered by responses without) answered by one
// tool message of
// all the responses (after a text part, before an image, now and then) or
// by a tool or function message each (some responses cached), of texts of
// 0 to 120 pieces among them blank ones and non-ASCII ones.
func randomParallelTools(r *rand.Rand) []llms.MessageContent {
	text := func() string { return adapttest.RandomText(r) }
	cached := func(p llms.ContentPart) llms.ContentPart {
		if r.IntN(4) == 0 {
			return llms.CachedContent{ContentPart: p}
		}
		return p
	}
	out := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeSystem, "You are a coding agent.")}
	id := 0
	for range 2 + r.IntN(10) {
		out = append(out, llms.TextParts(llms.ChatMessageTypeHuman, "q "+text()))
		if r.IntN(3) == 0 {
			out = append(out, llms.TextParts(llms.ChatMessageTypeAI, "a "+text()))
			continue
		}
		var calls, responses []llms.ContentPart
		if r.IntN(2) == 0 {
			calls = append(calls, llms.TextPart("thinking "+text()))
		}
		ids := r.IntN(3) // 0: calls and responses, 1: none (googleai, vertex), 2: calls only
		for range 1 + r.IntN(3) {
			id++
			cid, name := fmt.Sprintf("c%d", id), []string{"read", "grep", "ls"}[r.IntN(3)]
			call, response := llms.ToolCall{ID: cid, Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: `{"q":"x"}`}}, llms.ToolCallResponse{ToolCallID: cid, Name: name, Content: text()}
			if ids == 1 {
				call.ID = ""
			}
			if ids > 0 {
				response.ToolCallID = ""
			}
			calls = append(calls, cached(call))
			responses = append(responses, cached(response))
		}
		out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: calls})
		if r.IntN(3) == 0 {
			if r.IntN(2) == 0 {
				responses = append([]llms.ContentPart{llms.TextPart("results " + text())}, responses...)
			}
			if r.IntN(3) == 0 {
				responses = append(responses, llms.ImageURLContent{URL: "https://x/y.png"})
			}
			out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: responses})
			continue
		}
		for _, p := range responses {
			role := llms.ChatMessageTypeTool
			if r.IntN(5) == 0 {
				role = llms.ChatMessageTypeFunction
			}
			out = append(out, llms.MessageContent{Role: role, Parts: []llms.ContentPart{p}})
		}
	}
	return append(out, llms.TextParts(llms.ChatMessageTypeHuman, "What is the fix?"))
}

// TestCompactMaskProperty: random conversations of parallel calls,
// answered together or apart, stay valid, counted and paired through
// masking (see adapttest.MaskProperty).
func TestCompactMaskProperty(t *testing.T) {
	t.Parallel()
	adapttest.MaskProperty(t, 150, randomParallelTools, langchaingo.Compact, langchaingo.Messages, func(m llms.MessageContent) []string {
		var out []string
		for _, p := range m.Parts {
			if c, ok := p.(llms.CachedContent); ok {
				p = c.ContentPart
			}
			if r, ok := p.(llms.ToolCallResponse); ok {
				out = append(out, r.Content)
			}
		}
		return out
	})
}
