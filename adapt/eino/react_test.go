package eino_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	adapter "github.com/chitta-go/chitta/adapt/eino"
)

// scriptedModel is an eino ToolCallingChatModel that calls read_file on
// each of steps files, one call per model call, then answers; it records
// the messages each call is given. It is safe for concurrent use.
type scriptedModel struct {
	steps int
	mu    sync.Mutex
	seen  [][]*schema.Message
}

func (m *scriptedModel) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen = append(m.seen, in)
	// the step: by the ID of the last tool message (always kept), not by
	// counting the (compacted) input's calls
	step := 0
	if last := in[len(in)-1]; last.Role == schema.Tool {
		_, _ = fmt.Sscanf(last.ToolCallID, "call-%d", &step)
		step++
	}
	if step >= m.steps {
		return schema.AssistantMessage(fmt.Sprintf("done after %d steps", step), nil), nil
	}
	return schema.AssistantMessage("", []schema.ToolCall{{ID: fmt.Sprintf("call-%d", step), Type: "function",
		Function: schema.FunctionCall{Name: "read_file", Arguments: fmt.Sprintf(`{"path":"f%d.go"}`, step)}}}), nil
}

func (m *scriptedModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	out, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{out}), nil
}

func (m *scriptedModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	return m, nil
}

type readArgs struct {
	Path string `json:"path"`
}

func readTool(t *testing.T) tool.BaseTool {
	rt, err := utils.InferTool("read_file", "reads a file", func(_ context.Context, a readArgs) (string, error) {
		return "package " + strings.TrimSuffix(a.Path, ".go") + "\n" + strings.Repeat("func f() { return } ", 80), nil
	})
	require.NoError(t, err)
	return rt
}

// TestReactAgent runs eino's ReAct agent (flow/agent/react, of the eino
// version go.mod pins) with the package's MessageModifier, as its
// MessageModifier (one agent, so one modifier, serving concurrent runs)
// and as its MessageRewriter, and with a Compactor's: every model call
// gets a conversation that starts with the system prompt, in which every
// tool message follows the call it answers and every call is answered,
// and the last call of each run gets a compacted one.
func TestReactAgent(t *testing.T) {
	t.Parallel()
	const steps = 12
	opts := &chitta.Options{TargetRatio: 0.4, Mask: &chitta.MaskOptions{}}
	packaged := func() func(context.Context, []*schema.Message) []*schema.Message {
		return adapter.MessageModifier(opts, 1000)
	}
	compactor := func() func(context.Context, []*schema.Message) []*schema.Message {
		c, err := adapter.NewCompactor(nil, chitta.Policy{MaxTokens: 1500})
		require.NoError(t, err)
		return c.MessageModifier()
	}
	cases := []struct {
		name     string
		modifier func() func(context.Context, []*schema.Message) []*schema.Message
		rewriter bool
		runs     int
	}{
		{"MessageModifier", packaged, false, 4},
		{"MessageModifier as MessageRewriter", packaged, true, 1},
		{"Compactor", compactor, false, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := &scriptedModel{steps: steps}
			cfg := &react.AgentConfig{ToolCallingModel: m, MaxStep: 4*steps + 4,
				ToolsConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{readTool(t)}}}
			if tc.rewriter {
				cfg.MessageRewriter = tc.modifier()
			} else {
				cfg.MessageModifier = tc.modifier()
			}
			agent, err := react.NewAgent(t.Context(), cfg)
			require.NoError(t, err)
			var wg sync.WaitGroup
			outs := make([]*schema.Message, tc.runs)
			errs := make([]error, tc.runs)
			for r := range tc.runs {
				wg.Go(func() {
					outs[r], errs[r] = agent.Generate(t.Context(), []*schema.Message{
						schema.SystemMessage("You are a coding agent."),
						schema.UserMessage(fmt.Sprintf("Run %d: read the files one by one, then summarise them.", r)),
					})
				})
			}
			wg.Wait()
			for r := range tc.runs {
				require.NoError(t, errs[r])
				assert.Contains(t, outs[r].Content, fmt.Sprintf("done after %d steps", steps))
			}
			require.Len(t, m.seen, tc.runs*(steps+1))
			lasts, compacted := 0, 0
			for k, in := range m.seen {
				assert.Equal(t, schema.System, in[0].Role, "call %d: the system prompt first", k)
				issued, answered := map[string]bool{}, map[string]bool{}
				masked := 0
				for _, msg := range in {
					for _, c := range msg.ToolCalls {
						issued[c.ID] = true
					}
					if msg.Role == schema.Tool {
						assert.True(t, issued[msg.ToolCallID], "call %d: tool message %s after its call", k, msg.ToolCallID)
						answered[msg.ToolCallID] = true
					}
					if strings.HasPrefix(msg.Content, chitta.MaskPrefix) {
						masked++
					}
				}
				for id := range issued {
					assert.True(t, answered[id], "call %d: call %s answered", k, id)
				}
				if in[len(in)-1].ToolCallID == fmt.Sprintf("call-%d", steps-1) { // a run's last call
					lasts++
					if len(in) < 2+2*steps || masked > 0 {
						compacted++
					}
				}
			}
			assert.Equal(t, tc.runs, lasts)
			assert.Equal(t, tc.runs, compacted, "the last call of each run gets a compacted conversation")
		})
	}
}
