package eino_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	adapter "github.com/chitta-go/chitta/adapt/eino"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
	"github.com/chitta-go/chitta/internal/testkit/wiregen"
)

func conversation() []*schema.Message {
	return []*schema.Message{
		schema.SystemMessage("You are a coding agent."),
		{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{
			{Type: schema.ChatMessagePartTypeText, Text: "Compare these"},
			{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{}},
		}},
		schema.AssistantMessage("", []schema.ToolCall{
			{ID: "c1", Type: "function", Function: schema.FunctionCall{Name: "read", Arguments: `{"path":"a.go"}`}},
			{ID: "c2", Type: "function", Function: schema.FunctionCall{Name: "read", Arguments: `{"path":"b.go"}`}},
		}),
		schema.ToolMessage("package a "+strings.Repeat("x ", 40), "c1"),
		schema.ToolMessage("package b", "c2"),
		{Role: schema.Assistant, Content: "Both are packages.", ReasoningContent: "compare sizes"},
		schema.UserMessage("Which one is bigger?"),
	}
}

func TestMessages(t *testing.T) {
	t.Parallel()
	msgs, err := adapter.Messages(conversation())
	require.NoError(t, err)
	require.Len(t, msgs, 7)
	assert.Equal(t, "Compare these\n[image]", msgs[1].Content)
	assert.Equal(t, []string{"c1", "c2"}, msgs[2].ToolCallIDs)
	assert.Equal(t, "read {\"path\":\"a.go\"}\nread {\"path\":\"b.go\"}", msgs[2].Content)
	assert.Equal(t, []string{"c2"}, msgs[4].ToolResultIDs)
	assert.Equal(t, chitta.RoleTool, msgs[4].Role)
	assert.Equal(t, "compare sizes\nBoth are packages.", msgs[5].Content)
	_, err = adapter.Messages([]*schema.Message{nil})
	require.ErrorIs(t, err, chitta.ErrInvalidMessages)
}

func TestCompactKeepsPairsAndValues(t *testing.T) {
	t.Parallel()
	in := conversation()
	for _, ratio := range []float64{0.05, 0.3, 0.6, 1} {
		out, res, err := adapter.Compact(t.Context(), in, &chitta.Options{TargetRatio: ratio})
		require.NoError(t, err)
		require.Len(t, out, len(res.Kept))
		kept := map[int]bool{}
		for j, i := range res.Kept {
			kept[i] = true
			assert.Same(t, in[i], out[j], "ratio %v: kept value %d is the input's pointer", ratio, i)
		}
		assert.Equal(t, kept[2], kept[3], "ratio %v", ratio)
		assert.Equal(t, kept[2], kept[4], "ratio %v", ratio)
	}
}

func TestMessageModifier(t *testing.T) {
	t.Parallel()
	in := conversation()
	below := adapter.MessageModifier(&chitta.Options{TargetRatio: 0.3}, 1_000_000)
	assert.Equal(t, in, below(t.Context(), in), "below the trigger: unchanged")
	above := adapter.MessageModifier(&chitta.Options{TargetRatio: 0.3}, 10)
	out := above(t.Context(), in)
	assert.Less(t, len(out), len(in))
	assert.Same(t, in[0], out[0], "system message kept")

	var logs bytes.Buffer
	bad := adapter.MessageModifier(&chitta.Options{TargetRatio: 3, Logger: slog.New(slog.NewTextHandler(&logs, nil))}, 0)
	assert.Equal(t, in, bad(t.Context(), in), "on error: unchanged")
	assert.Contains(t, logs.String(), "target ratio")
}

func Example() {
	msgs := []*schema.Message{
		schema.UserMessage("What port does config.yaml set?"),
		schema.AssistantMessage("", []schema.ToolCall{{ID: "c1", Type: "function", Function: schema.FunctionCall{Name: "read_file", Arguments: `{"path":"config.yaml"}`}}}),
		schema.ToolMessage("port: 8080", "c1"),
		schema.AssistantMessage("It sets port 8080.", nil),
		schema.UserMessage("Thanks. Now open the README."),
	}
	// As react.AgentConfig{MessageModifier: adapter.MessageModifier(opts, 100_000)}:
	modify := adapter.MessageModifier(&chitta.Options{TargetRatio: 0.8}, 0)
	for _, m := range modify(context.Background(), msgs) {
		fmt.Printf("%s %q\n", m.Role, m.Content)
	}
	// Output:
	// user "What port does config.yaml set?"
	// assistant ""
	// tool "port: 8080"
	// user "Thanks. Now open the README."
}

// Random valid OpenAI-shaped conversations (parallel calls, reused IDs)
// stay valid through Compact and the Compactor.
func TestWireProperties(t *testing.T) {
	t.Parallel()
	adapttest.Wire(t, "openai", wiregen.Options{NoLegacy: true}, 150, adapter.Compact, adapter.NewCompactor, adapter.Messages)
}

// A part of a type the adapter does not know is scored by its JSON, as the
// other adapters score one: by its type and text alone, what its Extra
// held (a custom part's payload) went unscored.
func TestMessagesUnknownPartByJSON(t *testing.T) {
	t.Parallel()
	const custom schema.ChatMessagePartType = "citation"
	msgs, err := adapter.Messages([]*schema.Message{
		//lint:ignore SA1019 MultiContent is deprecated, but callers still set it and the adapter reads it
		{Role: schema.User, MultiContent: []schema.ChatMessagePart{{Type: custom, Text: "see", FileURL: &schema.ChatMessageFileURL{URL: "https://x.test/zebra.pdf"}}}},
		{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{{Type: custom, Text: "see", Extra: map[string]any{"source": "zebra handbook"}}}},
		{Role: schema.Assistant, AssistantGenMultiContent: []schema.MessageOutputPart{{Type: custom, Text: "see", Extra: map[string]any{"source": "okapi atlas"}}}},
	})
	require.NoError(t, err)
	require.Len(t, msgs, 3)
	for i, want := range []string{"zebra.pdf", "zebra handbook", "okapi atlas"} {
		assert.Contains(t, msgs[i].Content, want, "message %d", i)
		assert.True(t, strings.HasPrefix(msgs[i].Content, "citation {"), "message %d: its type, then its JSON: %q", i, msgs[i].Content)
		assert.Contains(t, msgs[i].Content, `"see"`, "message %d: its text", i)
	}
}
