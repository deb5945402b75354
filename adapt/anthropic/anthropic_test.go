package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/anthropic"
)

func conversation() []sdk.MessageParam {
	return []sdk.MessageParam{
		sdk.NewUserMessage(sdk.NewTextBlock("Compare the configs"), sdk.NewImageBlockBase64("image/png", "iVBORw0KGgo=")),
		sdk.NewAssistantMessage(
			sdk.NewThinkingBlock("sig", "read both files"),
			sdk.NewToolUseBlock("tu_1", map[string]any{"path": "a.yaml"}, "read_file"),
			sdk.NewToolUseBlock("tu_2", map[string]any{"path": "b.yaml"}, "read_file"),
		),
		sdk.NewUserMessage(sdk.NewToolResultBlock("tu_1", "port: 80 "+strings.Repeat("filler ", 40), false), sdk.NewToolResultBlock("tu_2", "port: 81", false)),
		sdk.NewAssistantMessage(sdk.NewTextBlock("a.yaml uses port 80, b.yaml port 81.")),
		sdk.NewUserMessage(sdk.NewTextBlock("Which one is right?")),
	}
}

func TestMessages(t *testing.T) {
	t.Parallel()
	msgs, err := anthropic.Messages(conversation())
	require.NoError(t, err)
	require.Len(t, msgs, 5)
	assert.Equal(t, chitta.RoleUser, msgs[0].Role)
	assert.Equal(t, "Compare the configs\n[image]", msgs[0].Content)
	assert.Equal(t, "read both files\nread_file {\"path\":\"a.yaml\"}\nread_file {\"path\":\"b.yaml\"}", msgs[1].Content)
	assert.Equal(t, []string{"tu_1", "tu_2"}, msgs[1].ToolCallIDs)
	assert.Equal(t, []string{"tu_1", "tu_2"}, msgs[2].ToolResultIDs)
	_, err = anthropic.Messages([]sdk.MessageParam{{}})
	require.ErrorIs(t, err, chitta.ErrInvalidMessages)
}

func TestCompactKeepsPairsAndValues(t *testing.T) {
	t.Parallel()
	adapttest.KeepsPairsAndValues(t, conversation, anthropic.Compact, []int{1, 2})
}

func TestMessagesServerToolsAndUnknownBlocks(t *testing.T) {
	t.Parallel()
	msgs := []sdk.MessageParam{
		sdk.NewAssistantMessage(
			sdk.ContentBlockParamUnion{OfServerToolUse: &sdk.ServerToolUseBlockParam{ID: "srv_1", Name: "web_search", Input: map[string]any{"query": "go 1.26"}}},
			sdk.ContentBlockParamUnion{OfWebSearchToolResult: &sdk.WebSearchToolResultBlockParam{ToolUseID: "srv_1"}},
		),
		sdk.NewUserMessage(sdk.ContentBlockParamUnion{OfSearchResult: &sdk.SearchResultBlockParam{Source: "https://go.dev", Title: "Go", Content: []sdk.TextBlockParam{{Text: "release notes"}}}}),
	}
	cm, err := anthropic.Messages(msgs)
	require.NoError(t, err)
	assert.Equal(t, []string{"srv_1"}, cm[0].ToolCallIDs)
	assert.Equal(t, []string{"srv_1"}, cm[0].ToolResultIDs)
	assert.Contains(t, cm[0].Content, `web_search {"query":"go 1.26"}`)
	assert.Contains(t, cm[1].Content, "release notes", "an unknown block is scored by its JSON")
}

// TestMessagesDocumentInToolResult: a document returned in a tool_result
// is scored as "[document]", as a document block elsewhere in a message is
// and as chitta.ParseMessages reads the SDK's JSON of it, never by its
// JSON, whose base64 data an exact tokenizer would count as tens of
// thousands of tokens.
func TestMessagesDocumentInToolResult(t *testing.T) {
	t.Parallel()
	data := strings.Repeat("JVBERi0xLjQKJcfsj6IKNSAwIG9iago8PC9MZW5ndGgg", 200)
	r := sdk.NewToolResultBlock("tu_1", "", false)
	r.OfToolResult.Content = []sdk.ToolResultBlockParamContentUnion{
		{OfText: &sdk.TextBlockParam{Text: "the report"}},
		{OfDocument: &sdk.DocumentBlockParam{Source: sdk.DocumentBlockParamSourceUnion{OfBase64: &sdk.Base64PDFSourceParam{Data: data}}}},
	}
	msgs := []sdk.MessageParam{
		sdk.NewUserMessage(sdk.NewTextBlock("Fetch the report")),
		sdk.NewAssistantMessage(sdk.NewToolUseBlock("tu_1", map[string]any{"name": "q3.pdf"}, "fetch")),
		sdk.NewUserMessage(r),
	}
	cm, err := anthropic.Messages(msgs)
	require.NoError(t, err)
	assert.Equal(t, "the report\n[document]", cm[2].Content)
	assert.Equal(t, []string{"tu_1"}, cm[2].ToolResultIDs)
	wire, err := json.Marshal(msgs)
	require.NoError(t, err)
	parsed, err := chitta.ParseMessages(wire)
	require.NoError(t, err)
	assert.Equal(t, parsed[2].Content, cm[2].Content, "as chitta.ParseMessages reads it")
}

func Example() {
	msgs := []sdk.MessageParam{
		sdk.NewUserMessage(sdk.NewTextBlock("What port does config.yaml set?")),
		sdk.NewAssistantMessage(sdk.NewToolUseBlock("tu_1", map[string]any{"path": "config.yaml"}, "read_file")),
		sdk.NewUserMessage(sdk.NewToolResultBlock("tu_1", "port: 8080", false)),
		sdk.NewAssistantMessage(sdk.NewTextBlock("It sets port 8080.")),
		sdk.NewUserMessage(sdk.NewTextBlock("Thanks. Now open the README.")),
	}
	out, res, err := anthropic.Compact(context.Background(), msgs, &chitta.Options{TargetRatio: 0.8})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(out), res.Kept)
	// Output: 4 [0 1 2 4]
}
