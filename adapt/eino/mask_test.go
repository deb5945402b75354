package eino_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	adapter "github.com/chitta-go/chitta/adapt/eino"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
)

var fileText = strings.Repeat("line of file content here ", 60)

// toolTurns: parallel calls answered by tool messages, every third one
// with its output in UserInputMultiContent parts.
func toolTurns() []*schema.Message {
	var msgs []*schema.Message
	for i := range 8 {
		a, b := fmt.Sprintf("a%d", i), fmt.Sprintf("b%d", i)
		grep := schema.ToolMessage("matches: "+fileText, b, schema.WithToolName("grep"))
		if i%3 == 2 {
			grep.Content = ""
			grep.UserInputMultiContent = []schema.MessageInputPart{{Type: schema.ChatMessagePartTypeText, Text: "matches: " + fileText}, {Type: schema.ChatMessagePartTypeText, Text: "end"}}
		}
		msgs = append(msgs,
			schema.UserMessage(fmt.Sprintf("Look into bug %d", i)),
			schema.AssistantMessage("", []schema.ToolCall{
				{ID: a, Type: "function", Function: schema.FunctionCall{Name: "read", Arguments: fmt.Sprintf(`{"path":"f%d.go"}`, i)}},
				{ID: b, Type: "function", Function: schema.FunctionCall{Name: "grep", Arguments: fmt.Sprintf(`{"q":"BUG-%d"}`, i)}},
			}),
			schema.ToolMessage(fileText, a, schema.WithToolName("read")),
			grep,
		)
	}
	return append(msgs, schema.UserMessage("What is the fix?"))
}

func TestCompactMasks(t *testing.T) {
	t.Parallel()
	for _, tc := range adapttest.MaskCases("grep") {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			in, out, res := adapttest.Masked(t, toolTurns, adapter.Compact, adapter.Messages, tc.Opts)
			adapttest.ValidWire(t, out, "the returned values")
			require.Positive(t, res.Stats.Masked)
			for j, i := range res.Kept {
				if !res.Scores[i].Masked {
					assert.Same(t, in[i], out[j])
					continue
				}
				o, g := in[i], out[j]
				require.NotSame(t, o, g)
				assert.Equal(t, o.ToolCallID, g.ToolCallID)
				assert.Equal(t, o.ToolName, g.ToolName)
				assert.Nil(t, g.UserInputMultiContent)
				assert.NotEqual(t, tc.Exclude, o.ToolName)
				assert.Contains(t, g.Content, chitta.MaskPrefix+o.ToolName+" output", "message %d names the tool", i)
			}
		})
	}
}

// TestMessageModifierMasks: the modifier passes Mask through.
func TestMessageModifierMasks(t *testing.T) {
	t.Parallel()
	in := toolTurns()
	out := adapter.MessageModifier(&chitta.Options{TargetRatio: 0.3, Mask: &chitta.MaskOptions{}}, 0)(t.Context(), in)
	n := 0
	for _, m := range out {
		if strings.HasPrefix(m.Content, chitta.MaskPrefix) {
			n++
		}
	}
	assert.Positive(t, n)
	assert.Equal(t, toolTurns(), in, "input not modified")
}

// randomToolTurns draws a conversation that answers every call: prompts,
// plain answers, and assistant turns of one to three parallel calls (with
// or without Content and ReasoningContent) answered by tool messages whose
// output is Content alone or with parts (UserInputMultiContent with an
// image, MultiContent, AssistantGenMultiContent with an unknown type),
// some with ReasoningContent, of texts of 0 to 120 pieces among them
// blank ones and non-ASCII ones.
func randomToolTurns(r *rand.Rand) []*schema.Message {
	text := func() string { return adapttest.RandomText(r) }
	out := []*schema.Message{schema.SystemMessage("You are a coding agent.")}
	id := 0
	for range 2 + r.IntN(10) {
		out = append(out, schema.UserMessage("q "+text()))
		if r.IntN(3) == 0 {
			out = append(out, &schema.Message{Role: schema.Assistant, Content: "a " + text(), ReasoningContent: text()})
			continue
		}
		call := &schema.Message{Role: schema.Assistant}
		if r.IntN(2) == 0 {
			call.Content = text()
		}
		if r.IntN(2) == 0 {
			call.ReasoningContent = text()
		}
		var results []*schema.Message
		for range 1 + r.IntN(3) {
			id++
			cid, name := fmt.Sprintf("c%d", id), []string{"read", "grep", "ls"}[r.IntN(3)]
			call.ToolCalls = append(call.ToolCalls, schema.ToolCall{ID: cid, Type: "function", Function: schema.FunctionCall{Name: name, Arguments: `{"q":"x"}`}})
			res := schema.ToolMessage(text(), cid, schema.WithToolName(name))
			switch r.IntN(5) {
			case 0:
				res.UserInputMultiContent = []schema.MessageInputPart{{Type: schema.ChatMessagePartTypeText, Text: text()}, {Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{}}}
			case 1:
				//lint:ignore SA1019 MultiContent is deprecated, but callers still set it and the adapter reads it
				res.MultiContent = []schema.ChatMessagePart{{Type: schema.ChatMessagePartTypeText, Text: text()}}
			case 2:
				res.ReasoningContent = text()
			case 3:
				res.AssistantGenMultiContent = []schema.MessageOutputPart{{Type: schema.ChatMessagePartTypeText, Text: text()}, {Type: "chart", Text: text()}}
			}
			results = append(results, res)
		}
		out = append(append(out, call), results...)
	}
	return append(out, schema.UserMessage("What is the fix?"))
}

// TestCompactMaskProperty: random conversations of tool messages with and
// without parts stay valid, counted and paired through masking (see
// adapttest.MaskProperty).
func TestCompactMaskProperty(t *testing.T) {
	t.Parallel()
	adapttest.MaskProperty(t, 150, randomToolTurns, adapter.Compact, adapter.Messages, func(m *schema.Message) []string {
		if m.ToolCallID == "" {
			return nil
		}
		c := *m
		c.ReasoningContent = "" // not the tool's output
		cm, err := adapter.Messages([]*schema.Message{&c})
		require.NoError(t, err)
		return []string{cm[0].Content}
	})
}
