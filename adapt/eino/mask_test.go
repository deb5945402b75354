package eino_test

import (
	"fmt"
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
