package langchaingo_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
	"github.com/chitta-go/chitta/adapt/langchaingo"
	"github.com/chitta-go/chitta/internal/testkit/wiregen"
)

// unknownPart is a part type the adapter does not know (the embedded
// interface supplies langchaingo's unexported marker method).
type unknownPart struct {
	llms.ContentPart `json:"-"`
	Extra            string `json:"extra"`
}

func conversation() []llms.MessageContent {
	return []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "You are a coding agent."),
		{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.TextPart("Compare these"), llms.ImageURLPart("https://x/a.png"), llms.BinaryPart("application/pdf", []byte("%PDF"))}},
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			llms.ToolCall{ID: "c1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "read", Arguments: `{"path":"a.go"}`}},
			llms.ToolCall{ID: "c2", Type: "function", FunctionCall: &llms.FunctionCall{Name: "read", Arguments: `{"path":"b.go"}`}},
		}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "c1", Name: "read", Content: "package a " + strings.Repeat("x ", 40)}}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "c2", Name: "read", Content: "package b"}}},
		llms.TextParts(llms.ChatMessageTypeAI, "Both are packages."),
		{Role: llms.ChatMessageTypeGeneric, Parts: []llms.ContentPart{unknownPart{Extra: "kept as json"}}},
		llms.TextParts(llms.ChatMessageTypeHuman, "Which one is bigger?"),
	}
}

func TestMessages(t *testing.T) {
	t.Parallel()
	msgs, err := langchaingo.Messages(conversation())
	require.NoError(t, err)
	require.Len(t, msgs, 8)
	assert.Equal(t, chitta.RoleSystem, msgs[0].Role)
	assert.Equal(t, chitta.RoleUser, msgs[1].Role)
	assert.Equal(t, "Compare these\n[image]\n[document]", msgs[1].Content)
	assert.Equal(t, chitta.RoleAssistant, msgs[2].Role)
	assert.Equal(t, []string{"c1", "c2"}, msgs[2].ToolCallIDs)
	assert.Equal(t, "read {\"path\":\"a.go\"}\nread {\"path\":\"b.go\"}", msgs[2].Content)
	assert.Equal(t, []string{"c1"}, msgs[3].ToolResultIDs)
	assert.Equal(t, chitta.RoleUser, msgs[6].Role)
	assert.Contains(t, msgs[6].Content, "kept as json")

	_, err = langchaingo.Messages([]llms.MessageContent{{Role: "robot"}})
	require.ErrorIs(t, err, chitta.ErrInvalidMessages)
	assert.Contains(t, err.Error(), "message 0")
}

func TestCompactKeepsPairsAndValues(t *testing.T) {
	t.Parallel()
	adapttest.KeepsPairsAndValues(t, conversation, langchaingo.Compact, []int{2, 3, 4})
}

func Example() {
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "What port does config.yaml set?"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{ID: "c1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "read_file", Arguments: `{"path":"config.yaml"}`}}}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "c1", Name: "read_file", Content: "port: 8080"}}},
		llms.TextParts(llms.ChatMessageTypeAI, "It sets port 8080."),
		llms.TextParts(llms.ChatMessageTypeHuman, "Thanks. Now open the README."),
	}
	out, res, err := langchaingo.Compact(context.Background(), msgs, &chitta.Options{TargetRatio: 0.8})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(out), res.Kept)
	// Output: 4 [0 1 2 4]
}

// TestMessagesCachedContent: parts wrapped in a CachedContent (prompt
// caching) are read as the parts they cache, text and tool linkage alike,
// by the adapter and by chitta.ParseMessages of langchaingo's JSON of them
// ({"ContentPart": part, "cache_control": …}), and the conversation stays
// valid on the wire after a masked compaction.
func TestMessagesCachedContent(t *testing.T) {
	t.Parallel()
	cache := &llms.CacheControl{Type: "ephemeral"}
	msgs := []llms.MessageContent{
		{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.WithCacheControl(llms.TextPart("Read a.go"), cache)}},
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.WithCacheControl(llms.ToolCall{ID: "c1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "read", Arguments: `{"path":"a.go"}`}}, cache)}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.WithCacheControl(llms.ToolCallResponse{ToolCallID: "c1", Name: "read", Content: "package a " + strings.Repeat("x ", 80)}, cache)}},
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.TextPart("It is package a."), llms.WithCacheControl(llms.ImageURLPart("https://x/a.png"), cache)}},
		llms.TextParts(llms.ChatMessageTypeHuman, "Thanks."),
	}
	cm := adapttest.MatchesParse(t, msgs, langchaingo.Messages)
	assert.Equal(t, []string{"c1"}, cm[1].ToolCallIDs)
	assert.Equal(t, []string{"c1"}, cm[2].ToolResultIDs)
	assert.Equal(t, "It is package a.\n[image]", cm[3].Content)
	out, res, err := langchaingo.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: 1, Mask: &chitta.MaskOptions{MaxResultTokens: 20}})
	require.NoError(t, err)
	require.Equal(t, 1, res.Stats.Masked, "the response is cut")
	adapttest.ValidWire(t, out, "the returned values")
}

// TestMessagesNilPartAsParsed: a nil part, which encoding/json writes as
// null, is skipped by the adapter and by chitta.ParseMessages alike (the
// parser refused the whole conversation before).
func TestMessagesNilPartAsParsed(t *testing.T) {
	t.Parallel()
	msgs := []llms.MessageContent{
		{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{nil, llms.TextPart("list the files")}},
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.TextPart("done"), nil}},
	}
	cm := adapttest.MatchesParse(t, msgs, langchaingo.Messages)
	assert.Equal(t, "list the files", cm[0].Content)
	assert.Equal(t, "done", cm[1].Content)
}

// Random valid langchaingo conversations (parallel calls answered in one
// tool message or one each, reused IDs) stay valid through Compact and the
// Compactor.
func TestWireProperties(t *testing.T) {
	t.Parallel()
	adapttest.Wire(t, "langchaingo", wiregen.Options{}, 150, langchaingo.Compact, langchaingo.NewCompactor, langchaingo.Messages)
}
