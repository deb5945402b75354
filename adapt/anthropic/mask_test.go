package anthropic_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/anthropic"
	"github.com/chitta-go/chitta/adapt/internal/adaptkit"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
)

var fileText = strings.Repeat("line of file content here ", 60)

// parallelResults: each turn calls read_file and screenshot in parallel;
// the user message answering them holds a text block, read_file's text
// result and screenshot's result of a text and an image part.
func parallelResults() []sdk.MessageParam {
	var msgs []sdk.MessageParam
	for i := range 8 {
		a, b := fmt.Sprintf("tu_a%d", i), fmt.Sprintf("tu_b%d", i)
		shot := sdk.NewToolResultBlock(b, "", false)
		shot.OfToolResult.Content = []sdk.ToolResultBlockParamContentUnion{
			{OfText: &sdk.TextBlockParam{Text: "screen of " + fileText}},
			{OfImage: &sdk.ImageBlockParam{Source: sdk.ImageBlockParamSourceUnion{OfBase64: &sdk.Base64ImageSourceParam{Data: "iVBORw0KGgo=", MediaType: "image/png"}}}},
		}
		msgs = append(msgs,
			sdk.NewUserMessage(sdk.NewTextBlock(fmt.Sprintf("Check page %d", i))),
			sdk.NewAssistantMessage(
				sdk.NewTextBlock("reading both"),
				sdk.NewToolUseBlock(a, map[string]any{"path": fmt.Sprintf("p%d.html", i)}, "read_file"),
				sdk.NewToolUseBlock(b, map[string]any{"url": fmt.Sprintf("http://x/%d", i)}, "screenshot"),
			),
			sdk.NewUserMessage(sdk.NewTextBlock("here you go"), sdk.NewToolResultBlock(a, fileText, false), shot),
		)
	}
	return append(msgs, sdk.NewUserMessage(sdk.NewTextBlock("What is broken?")))
}

// serial: one tool_result per user message, the fast path.
func serial() []sdk.MessageParam {
	var msgs []sdk.MessageParam
	for i := range 10 {
		id := fmt.Sprintf("tu_%d", i)
		msgs = append(msgs,
			sdk.NewUserMessage(sdk.NewTextBlock(fmt.Sprintf("Show me file %d", i))),
			sdk.NewAssistantMessage(sdk.NewToolUseBlock(id, map[string]any{"path": fmt.Sprintf("f%d.go", i)}, "read_file")),
			sdk.NewUserMessage(sdk.NewToolResultBlock(id, fileText, i%4 == 3)),
		)
	}
	return msgs
}

// toolResults returns the tool_result blocks of m, in order.
func toolResults(m sdk.MessageParam) []*sdk.ToolResultBlockParam {
	var out []*sdk.ToolResultBlockParam
	if m.OfUser != nil {
		for _, b := range m.OfUser.Content {
			if b.OfToolResult != nil {
				out = append(out, b.OfToolResult)
			}
		}
	}
	return out
}

// nameOf maps tool_use IDs to tool names in msgs.
func nameOf(msgs []sdk.MessageParam) map[string]string {
	names := map[string]string{}
	for _, m := range msgs {
		if m.OfAssistant != nil {
			for _, b := range m.OfAssistant.Content {
				if b.OfToolUse != nil {
					names[b.OfToolUse.ID] = b.OfToolUse.Name
				}
			}
		}
	}
	return names
}

func TestCompactMasks(t *testing.T) {
	t.Parallel()
	cases := []adapttest.MaskCase{{Name: "serial", Opts: &chitta.Options{TargetRatio: 0.3, Mask: &chitta.MaskOptions{}}}}
	for _, c := range adapttest.MaskCases("screenshot") {
		cases = append(cases, adapttest.MaskCase{Name: "parallel, text and image, " + c.Name, Opts: c.Opts, Exclude: c.Exclude})
	}
	for _, tc := range cases {
		conv := parallelResults
		if tc.Name == "serial" {
			conv = serial
		}
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			in, out, res := adapttest.Masked(t, conv, anthropic.Compact, anthropic.Messages, tc.Opts)
			adapttest.ValidWire(t, out, "the returned values")
			require.Positive(t, res.Stats.Masked)
			names := nameOf(in)
			rewritten := 0
			for j, i := range res.Kept {
				if !res.Scores[i].Masked {
					continue
				}
				orig, got := in[i].OfUser.Content, out[j].OfUser.Content
				require.Len(t, got, len(orig))
				assert.NotSame(t, &orig[0], &got[0], "message %d: a new content slice", i)
				for k := range got {
					if got[k].OfToolResult == orig[k].OfToolResult {
						assert.Equal(t, orig[k], got[k], "message %d block %d: the caller's", i, k)
						continue
					}
					rewritten++
					r, o := got[k].OfToolResult, orig[k].OfToolResult
					assert.Equal(t, o.ToolUseID, r.ToolUseID)
					assert.Equal(t, o.IsError, r.IsError)
					require.Len(t, r.Content, 1, "one text block")
					require.NotNil(t, r.Content[0].OfText)
					name := names[r.ToolUseID]
					assert.NotEqual(t, tc.Exclude, name, "an excluded tool's result is never rewritten")
					assert.Contains(t, r.Content[0].OfText.Text, chitta.MaskPrefix+name+" output ", "names the tool")
				}
				if len(orig) > 1 {
					assert.Equal(t, orig[0], got[0], "message %d: the text block is kept", i)
				}
			}
			assert.GreaterOrEqual(t, rewritten, res.Stats.Masked)
		})
	}
}

// TestCompactMasksResultsSeparately: in one message, a small result is
// kept whole while the large one beside it is masked.
func TestCompactMasksResultsSeparately(t *testing.T) {
	t.Parallel()
	conv := func() []sdk.MessageParam {
		msgs := parallelResults()
		for i := range msgs {
			if rs := toolResults(msgs[i]); len(rs) == 2 {
				rs[1].Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: "blank page"}}}
			}
		}
		return msgs
	}
	_, out, res := adapttest.Masked(t, conv, anthropic.Compact, anthropic.Messages, &chitta.Options{TargetRatio: 0.3, Mask: &chitta.MaskOptions{Actions: chitta.ActionsOff}})
	adapttest.ValidWire(t, out, "the returned values")
	some := 0
	for j, i := range res.Kept {
		if res.Scores[i].Masked {
			some++
			rs := toolResults(out[j])
			assert.Contains(t, rs[0].Content[0].OfText.Text, "[chitta: read_file output elided")
			assert.Equal(t, "blank page", rs[1].Content[0].OfText.Text)
		}
	}
	assert.Positive(t, some)
}

// randomMessages draws a conversation: user turns, assistant turns of 1
// to 3 parallel tool_use blocks (after a text block sometimes), answered
// in one user message (a text block sometimes first) by tool_result
// blocks of random sizes, some of a text and an image part.
func randomMessages(rng *rand.Rand) []sdk.MessageParam {
	tools := []string{"read_file", "grep", "run"}
	words := func(n int) string { return strings.Repeat(fmt.Sprintf("w%d ", rng.IntN(50)), n) }
	var msgs []sdk.MessageParam
	for turn := range 2 + rng.IntN(8) {
		msgs = append(msgs, sdk.NewUserMessage(sdk.NewTextBlock("ask "+words(1+rng.IntN(5)))))
		var uses, results []sdk.ContentBlockParamUnion
		if rng.IntN(3) == 0 {
			uses = append(uses, sdk.NewTextBlock("calling "+words(1)))
		}
		if rng.IntN(4) == 0 {
			results = append(results, sdk.NewTextBlock("results "+words(1+rng.IntN(3))))
		}
		for k := range 1 + rng.IntN(3) {
			id := fmt.Sprintf("tu_%d_%d", turn, k)
			uses = append(uses, sdk.NewToolUseBlock(id, map[string]any{"arg": words(1)}, tools[rng.IntN(len(tools))]))
			r := sdk.NewToolResultBlock(id, words(rng.IntN(300)), rng.IntN(5) == 0)
			if rng.IntN(4) == 0 {
				r.OfToolResult.Content = append(r.OfToolResult.Content, sdk.ToolResultBlockParamContentUnion{OfImage: &sdk.ImageBlockParam{Source: sdk.ImageBlockParamSourceUnion{OfBase64: &sdk.Base64ImageSourceParam{Data: "iVBORw0KGgo=", MediaType: "image/png"}}}})
			}
			results = append(results, r)
		}
		msgs = append(msgs, sdk.NewAssistantMessage(uses...), sdk.NewUserMessage(results...))
	}
	return append(msgs, sdk.NewUserMessage(sdk.NewTextBlock("done?")))
}

func TestCompactMaskProperty(t *testing.T) {
	t.Parallel()
	adapttest.MaskProperty(t, 150, randomMessages, anthropic.Compact, anthropic.Messages, func(m sdk.MessageParam) []string {
		var out []string
		for _, r := range toolResults(m) {
			var text adaptkit.Text
			for _, c := range r.Content {
				if c.OfText != nil {
					text.Add(c.OfText.Text)
				} else {
					text.Add("[image]")
				}
			}
			out = append(out, text.String())
		}
		return out
	})
}

// TestCompactorMaskServerTool: in mask mode the Compactor's
// Result.Messages carry the synthetic Raw, which named a server tool's
// server_tool_use a client tool_use: Validate then read a web search
// answered in its own message as a client call answered too early, and a
// web search left pending in a turn that calls a client tool as a client
// call without a result, so the Result of a valid conversation failed
// Validate; so did Messages' own output for the second.
func TestCompactorMaskServerTool(t *testing.T) {
	t.Parallel()
	for name, data := range map[string]string{
		"answered in its message": `[{"role":"user","content":"find go"},
{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"go"}},{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[{"type":"web_search_result","title":"Go","url":"https://go.dev","encrypted_content":"e"}]},{"type":"text","text":"found it"}]},
{"role":"user","content":"thanks"}]`,
		"pending beside a client call": `[{"role":"user","content":"find go and read the file"},
{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"go"}},{"type":"tool_use","id":"toolu_1","name":"read","input":{"path":"a.go"}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"package a"}]}]`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var msgs []sdk.MessageParam
			require.NoError(t, json.Unmarshal([]byte(data), &msgs))
			adapttest.ValidWire(t, msgs, "input")
			// Unmasked, the messages have no Raw: Validate judged the
			// pending web search by its ID alone and failed it.
			conv, err := anthropic.Messages(msgs)
			require.NoError(t, err)
			assert.NoError(t, chitta.Validate(conv), "Messages")
			c, err := anthropic.NewCompactor(&chitta.Options{Mask: &chitta.MaskOptions{}}, chitta.Policy{MaxTokens: 1000})
			require.NoError(t, err)
			out, res, err := c.Compact(t.Context(), msgs)
			require.NoError(t, err)
			require.Len(t, out, 3)
			assert.NoError(t, chitta.Validate(res.Messages))
			adapttest.ValidWire(t, out, "returned values")
		})
	}
}
