package eino_test

import (
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	adapter "github.com/chitta-go/chitta/adapt/eino"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
)

// TestMessagesMultiContentAsParsed: ReasoningContent and the parts of
// MultiContent, UserInputMultiContent and AssistantGenMultiContent are
// read alike by the adapter and by chitta.ParseMessages of eino's JSON of
// them, and the conversation stays valid on the wire after a masked
// compaction.
func TestMessagesMultiContentAsParsed(t *testing.T) {
	t.Parallel()
	msgs := []*schema.Message{
		schema.SystemMessage("You are a coding agent."),
		{Role: schema.User, UserInputMultiContent: []schema.MessageInputPart{
			{Type: schema.ChatMessagePartTypeText, Text: "Compare these"},
			{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageInputImage{}},
			{Type: schema.ChatMessagePartTypeFileURL, File: &schema.MessageInputFile{}},
			{Type: schema.ChatMessagePartTypeAudioURL, Audio: &schema.MessageInputAudio{}},
		}},
		{Role: schema.Assistant, ReasoningContent: "read both", ToolCalls: []schema.ToolCall{
			{ID: "c1", Type: "function", Function: schema.FunctionCall{Name: "read", Arguments: `{"path":"a.go"}`}},
		}},
		//lint:ignore SA1019 MultiContent is deprecated, but callers still set it and the adapter reads it
		{Role: schema.Tool, ToolCallID: "c1", ToolName: "read", Content: "package a", MultiContent: []schema.ChatMessagePart{
			{Type: schema.ChatMessagePartTypeText, Text: strings.Repeat("func f() {} ", 40)},
			//lint:ignore SA1019 as above
			{Type: schema.ChatMessagePartTypeImageURL, ImageURL: &schema.ChatMessageImageURL{URL: "https://x/a.png"}},
			//lint:ignore SA1019 as above
			{Type: schema.ChatMessagePartTypeVideoURL, VideoURL: &schema.ChatMessageVideoURL{URL: "https://x/a.mp4"}},
		}},
		{Role: schema.Assistant, Content: "Both differ.", ReasoningContent: "compare sizes", AssistantGenMultiContent: []schema.MessageOutputPart{
			{Type: schema.ChatMessagePartTypeText, Text: "see the chart"},
			{Type: schema.ChatMessagePartTypeImageURL, Image: &schema.MessageOutputImage{}},
			{Type: "chart", Text: "bars"},
		}},
		schema.UserMessage("Which one is bigger?"),
	}
	cm := adapttest.MatchesParse(t, msgs, adapter.Messages)
	assert.Equal(t, "Compare these\n[image]\n[document]\n[media]", cm[1].Content)
	assert.Equal(t, "read both\nread {\"path\":\"a.go\"}", cm[2].Content)
	assert.Equal(t, "compare sizes\nBoth differ.\nsee the chart\n[image]\nchart {\"type\":\"chart\",\"text\":\"bars\"}", cm[4].Content)
	out, res, err := adapter.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: 1, Mask: &chitta.MaskOptions{MaxResultTokens: 20}})
	require.NoError(t, err)
	require.Equal(t, 1, res.Stats.Masked, "the tool output is cut")
	adapttest.ValidWire(t, out, "the returned values")
}
