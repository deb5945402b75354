package openai_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
	adapter "github.com/chitta-go/chitta/adapt/openai"
)

var fileText = strings.Repeat("line of file content here ", 60)

// toolChat: two legacy function calls, then 10 turns of a call answered
// by a tool message (text, or content parts every third turn).
func toolChat() []openai.ChatCompletionMessageParamUnion {
	var msgs []openai.ChatCompletionMessageParamUnion
	for i := range 2 {
		asst := openai.AssistantMessage("")
		//lint:ignore SA1019 the legacy shape is what this test masks
		asst.OfAssistant.FunctionCall = openai.ChatCompletionAssistantMessageParamFunctionCall{Name: "lookup", Arguments: fmt.Sprintf(`{"k":%d}`, i)}
		//lint:ignore SA1019 the legacy shape is what this test masks
		fn := openai.ChatCompletionMessageParamUnion{OfFunction: &openai.ChatCompletionFunctionMessageParam{Name: "lookup", Content: openai.String(fileText)}}
		msgs = append(msgs, openai.UserMessage("look it up"), asst, fn)
	}
	for i := range 10 {
		id := fmt.Sprintf("c%d", i)
		name := "read_file"
		if i%2 == 1 {
			name = "grep"
		}
		asst := openai.AssistantMessage("")
		asst.OfAssistant.ToolCalls = []openai.ChatCompletionMessageToolCallUnionParam{{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
			ID: id, Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: name, Arguments: fmt.Sprintf(`{"path":"f%d.go"}`, i)},
		}}}
		tool := openai.ToolMessage(fileText, id)
		if i%3 == 2 {
			tool = openai.ToolMessage([]openai.ChatCompletionContentPartTextParam{{Text: "part one " + fileText}, {Text: "part two"}}, id)
		}
		msgs = append(msgs, openai.UserMessage(fmt.Sprintf("Show me file %d", i)), asst, tool)
	}
	return append(msgs, openai.UserMessage("Summarise."))
}

// nameOfCall maps call IDs to tool names.
func nameOfCall(msgs []openai.ChatCompletionMessageParamUnion) map[string]string {
	names := map[string]string{}
	for _, m := range msgs {
		if m.OfAssistant != nil {
			for _, tc := range m.OfAssistant.ToolCalls {
				names[tc.OfFunction.ID] = tc.OfFunction.Function.Name
			}
		}
	}
	return names
}

func TestCompactMasks(t *testing.T) {
	t.Parallel()
	for _, tc := range append(adapttest.MaskCases("grep"), adapttest.MaskCase{Name: "keep recent 1", Opts: &chitta.Options{TargetRatio: 0.3, Mask: &chitta.MaskOptions{KeepRecent: 1}}}) {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			in, out, res := adapttest.Masked(t, toolChat, adapter.Compact, adapter.Messages, tc.Opts)
			adapttest.ValidWire(t, out, "the returned values")
			require.Positive(t, res.Stats.Masked)
			names := nameOfCall(in)
			legacy := 0
			for j, i := range res.Kept {
				if !res.Scores[i].Masked {
					continue
				}
				if in[i].OfFunction != nil {
					legacy++
					assert.Equal(t, in[i].OfFunction.Name, out[j].OfFunction.Name)
					assert.Contains(t, out[j].OfFunction.Content.Value, chitta.MaskPrefix+"lookup output")
					continue
				}
				o, g := in[i].OfTool, out[j].OfTool
				require.NotNil(t, g)
				assert.NotSame(t, o, g)
				assert.Equal(t, o.ToolCallID, g.ToolCallID)
				assert.Nil(t, g.Content.OfArrayOfContentParts)
				name := names[o.ToolCallID]
				assert.NotEqual(t, tc.Exclude, name)
				assert.True(t, strings.HasPrefix(g.Content.OfString.Value, chitta.MaskPrefix+name+" output ") ||
					strings.Contains(g.Content.OfString.Value, "\n"+chitta.MaskPrefix+name+" output cut"), "names the tool: %q", g.Content.OfString.Value)
			}
			if tc.Exclude == "" && tc.Opts.TargetRatio < 1 {
				assert.Positive(t, legacy, "legacy function messages are masked too")
			}
		})
	}
}

// responsesItems: function_call / function_call_output turns, custom tool
// calls, and shell calls whose shell_call_output this adapter cannot
// rewrite (so chitta never masks it).
func responsesItems() []responses.ResponseInputItemUnionParam {
	var items []responses.ResponseInputItemUnionParam
	for i := range 6 {
		fc, cc, sc := fmt.Sprintf("call_f%d", i), fmt.Sprintf("call_c%d", i), fmt.Sprintf("call_s%d", i)
		items = append(items,
			responses.ResponseInputItemParamOfMessage(fmt.Sprintf("Fix bug %d", i), responses.EasyInputMessageRoleUser),
			responses.ResponseInputItemParamOfReasoning(fmt.Sprintf("rs_%d", i), []responses.ResponseReasoningItemSummaryParam{{Text: "read, patch, run"}}),
			responses.ResponseInputItemParamOfFunctionCall(fmt.Sprintf(`{"path":"f%d.go"}`, i), fc, "read_file"),
			output(fc, fileText),
			responses.ResponseInputItemParamOfCustomToolCall(cc, "*** patch "+fmt.Sprint(i), "apply_patch"),
			responses.ResponseInputItemParamOfCustomToolCallOutput(cc, "applied: "+fileText),
			responses.ResponseInputItemParamOfShellCall(responses.ResponseInputItemShellCallActionParam{Commands: []string{"go test ./..."}}, sc),
			responses.ResponseInputItemParamOfShellCallOutput(sc, []responses.ResponseFunctionShellCallOutputContentParam{{Stdout: fileText}}),
		)
	}
	return append(items, responses.ResponseInputItemParamOfMessage("Done?", responses.EasyInputMessageRoleUser))
}

func TestCompactResponsesMasks(t *testing.T) {
	t.Parallel()
	for _, opts := range []*chitta.Options{
		{TargetRatio: 0.3, Mask: &chitta.MaskOptions{}},
		{TargetRatio: 0.5, Mask: &chitta.MaskOptions{Actions: chitta.ActionsOff}},
		{TargetRatio: 1, Mask: &chitta.MaskOptions{MaxResultTokens: 60}},
	} {
		in, out, res := adapttest.Masked(t, responsesItems, adapter.CompactResponses, adapter.ResponsesMessages, opts)
		adapttest.ValidWire(t, out, "the returned values")
		require.Positive(t, res.Stats.Masked)
		custom := 0
		for j, i := range res.Kept {
			if !res.Scores[i].Masked {
				continue
			}
			switch {
			case in[i].OfFunctionCallOutput != nil:
				g := out[j].OfFunctionCallOutput
				assert.Equal(t, in[i].OfFunctionCallOutput.CallID, g.CallID)
				assert.Contains(t, g.Output.OfString.Value, chitta.MaskPrefix+"read_file output")
			case in[i].OfCustomToolCallOutput != nil:
				custom++
				g := out[j].OfCustomToolCallOutput
				assert.Equal(t, in[i].OfCustomToolCallOutput.CallID, g.CallID)
				assert.Contains(t, g.Output.OfString.Value, chitta.MaskPrefix+"apply_patch output")
			default:
				t.Errorf("item %d: only function and custom tool outputs are masked", i)
			}
		}
		assert.Positive(t, custom, "custom tool outputs are masked")
	}
}

// A chat that reuses one call ID each turn, every call answered (valid
// for OpenAI), stays valid through a masking Compactor, whose
// Result.Messages keep the synthetic Raw of mask mode: tool_use blocks
// without an input object, which chitta.Validate does not take for
// Anthropic's tool_use IDs (those must be unique).
func TestCompactorMaskReusedIDValid(t *testing.T) {
	t.Parallel()
	var msgs []openai.ChatCompletionMessageParamUnion
	for i := range 4 {
		asst := openai.AssistantMessage("")
		asst.OfAssistant.ToolCalls = []openai.ChatCompletionMessageToolCallUnionParam{{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
			ID: "call_0", Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: "read_file", Arguments: fmt.Sprintf(`{"path":"f%d.go"}`, i)},
		}}}
		msgs = append(msgs, openai.UserMessage(fmt.Sprintf("Show me file %d", i)), asst, openai.ToolMessage(fileText, "call_0"), openai.AssistantMessage("done"))
	}
	c, err := adapter.NewCompactor(&chitta.Options{Mask: &chitta.MaskOptions{}}, chitta.Policy{MaxTokens: 1500, TargetTokens: 1400})
	require.NoError(t, err)
	_, res, err := c.Compact(t.Context(), msgs)
	require.NoError(t, err)
	require.Positive(t, res.Stats.Masked, "some results are masked")
	calls := 0
	for _, m := range res.Messages {
		if len(m.ToolCallIDs) > 0 {
			calls++
			require.Contains(t, string(m.Raw), `"type":"tool_use","id":"call_0"`, "the mask-mode Raw")
		}
	}
	require.Greater(t, calls, 1, "the reused ID is kept in more than one turn")
	assert.NoError(t, chitta.Validate(res.Messages))
}
