package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/anthropic"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
	"github.com/chitta-go/chitta/internal/testkit/wiregen"
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
	fetched := sdk.WebFetchToolResultBlockParamContentUnion{OfRequestWebFetchResultBlock: &sdk.WebFetchBlockParam{URL: "https://go.dev",
		Content: sdk.DocumentBlockParam{Source: sdk.DocumentBlockParamSourceUnion{OfText: &sdk.PlainTextSourceParam{Data: "<b>Go</b> is an open source language & more"}}}}}
	msgs := []sdk.MessageParam{
		sdk.NewUserMessage(sdk.NewTextBlock("What is Go?")),
		sdk.NewAssistantMessage(
			sdk.ContentBlockParamUnion{OfServerToolUse: &sdk.ServerToolUseBlockParam{ID: "srv_1", Name: "web_fetch", Input: map[string]any{"url": "https://go.dev"}}},
			sdk.ContentBlockParamUnion{OfWebFetchToolResult: &sdk.WebFetchToolResultBlockParam{ToolUseID: "srv_1", Content: fetched}},
			sdk.NewTextBlock("An open source language."),
		),
		sdk.NewUserMessage(sdk.NewTextBlock("Thanks.")),
	}
	// chitta.ParseMessages of the SDK's JSON reads a server tool result
	// alike: its linkage, and its JSON.
	cm := adapttest.MatchesParse(t, msgs, anthropic.Messages)
	assert.Equal(t, []string{"srv_1"}, cm[1].ToolCallIDs)
	assert.Equal(t, []string{"srv_1"}, cm[1].ToolResultIDs)
	assert.Contains(t, cm[1].Content, `web_fetch {"url":"https://go.dev"}`)
	assert.Contains(t, cm[1].Content, `"tool_use_id":"srv_1"`, "a server tool result is scored by its JSON")
	out, _, err := anthropic.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: 1, Mask: &chitta.MaskOptions{MaxResultTokens: 5}})
	require.NoError(t, err)
	adapttest.ValidWire(t, out, "the returned values")
}

// TestMessagesSearchResult: a search_result block, in a message or in a
// tool_result, is scored by its title, source and text blocks, as
// chitta.ParseMessages reads the SDK's JSON of it, and masking its result
// keeps the conversation valid on the wire.
func TestMessagesSearchResult(t *testing.T) {
	t.Parallel()
	search := func(title, source string, texts ...string) *sdk.SearchResultBlockParam {
		s := &sdk.SearchResultBlockParam{Title: title, Source: source}
		for _, x := range texts {
			s.Content = append(s.Content, sdk.TextBlockParam{Text: x})
		}
		return s
	}
	r := sdk.NewToolResultBlock("tu_1", "", false)
	r.OfToolResult.Content = []sdk.ToolResultBlockParamContentUnion{
		{OfText: &sdk.TextBlockParam{Text: "2 hits"}},
		{OfSearchResult: search("Runbook", "kb://runbook/7", "restart the pod", strings.Repeat("then check the logs ", 60))},
		{OfSearchResult: search("Old runbook", "kb://runbook/2")},
	}
	msgs := []sdk.MessageParam{
		sdk.NewUserMessage(sdk.ContentBlockParamUnion{OfSearchResult: search("Go 1.26", "https://go.dev/doc", "release notes", "new GC")}, sdk.NewTextBlock("Summarise, then search the runbooks")),
		sdk.NewAssistantMessage(sdk.NewToolUseBlock("tu_1", map[string]any{"q": "pod restart"}, "search_kb")),
		sdk.NewUserMessage(r),
		sdk.NewAssistantMessage(sdk.NewTextBlock("Restart the pod.")),
		sdk.NewUserMessage(sdk.NewTextBlock("Done. What next?")),
	}
	cm, err := anthropic.Messages(msgs)
	require.NoError(t, err)
	assert.Equal(t, "Go 1.26\nhttps://go.dev/doc\nrelease notes\nnew GC\nSummarise, then search the runbooks", cm[0].Content)
	assert.True(t, strings.HasPrefix(cm[2].Content, "2 hits\nRunbook\nkb://runbook/7\nrestart the pod\nthen check"), cm[2].Content)
	assert.True(t, strings.HasSuffix(cm[2].Content, "\nOld runbook\nkb://runbook/2"), cm[2].Content)
	wire, err := json.Marshal(msgs)
	require.NoError(t, err)
	parsed, err := chitta.ParseMessages(wire)
	require.NoError(t, err)
	require.Len(t, parsed, len(cm))
	for i := range cm {
		assert.Equal(t, parsed[i].Content, cm[i].Content, "message %d as chitta.ParseMessages reads it", i)
		assert.Equal(t, parsed[i].ToolCallIDs, cm[i].ToolCallIDs, "message %d", i)
		assert.Equal(t, parsed[i].ToolResultIDs, cm[i].ToolResultIDs, "message %d", i)
	}
	out, res, err := anthropic.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: 1, Mask: &chitta.MaskOptions{MaxResultTokens: 20}})
	require.NoError(t, err)
	require.Equal(t, 1, res.Stats.Masked, "the search results are cut")
	adapttest.ValidWire(t, out, "the returned values")
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

// TestMessagesWebSearchResults: a web_search_tool_result's
// web_search_result blocks are scored by their title and URL (never by
// their JSON, whose encrypted_content is long opaque base64), as
// chitta.ParseMessages reads the SDK's JSON of them, and the conversation
// stays valid on the wire after a masked compaction.
func TestMessagesWebSearchResults(t *testing.T) {
	t.Parallel()
	result := func(title, url string) sdk.WebSearchResultBlockParam {
		return sdk.WebSearchResultBlockParam{Title: title, URL: url, EncryptedContent: strings.Repeat("EqgfCioIARgBIiQ3", 8)}
	}
	msgs := []sdk.MessageParam{
		sdk.NewUserMessage(sdk.NewTextBlock("What is new in Go 1.26?")),
		sdk.NewAssistantMessage(
			sdk.ContentBlockParamUnion{OfServerToolUse: &sdk.ServerToolUseBlockParam{ID: "srv_1", Name: "web_search", Input: map[string]any{"query": "go 1.26"}}},
			sdk.ContentBlockParamUnion{OfWebSearchToolResult: &sdk.WebSearchToolResultBlockParam{ToolUseID: "srv_1", Content: sdk.WebSearchToolResultBlockParamContentUnion{
				OfWebSearchToolResultBlockItem: []sdk.WebSearchResultBlockParam{result("Go 1.26 Release Notes", "https://go.dev/doc/go1.26"), result("Go blog", "https://go.dev/blog")},
			}}},
			sdk.NewTextBlock("Go 1.26 has a new GC."),
		),
		sdk.NewUserMessage(sdk.NewTextBlock("Search again.")),
		sdk.NewAssistantMessage(
			sdk.ContentBlockParamUnion{OfServerToolUse: &sdk.ServerToolUseBlockParam{ID: "srv_2", Name: "web_search", Input: map[string]any{"query": "go 1.27"}}},
			sdk.ContentBlockParamUnion{OfWebSearchToolResult: &sdk.WebSearchToolResultBlockParam{ToolUseID: "srv_2", Content: sdk.NewWebSearchToolRequestError(sdk.WebSearchToolResultErrorCodeMaxUsesExceeded)}},
		),
		sdk.NewUserMessage(sdk.NewTextBlock("Thanks.")),
	}
	cm := adapttest.MatchesParse(t, msgs, anthropic.Messages)
	assert.Equal(t, "web_search {\"query\":\"go 1.27\"}\nmax_uses_exceeded", cm[3].Content, "an error reads as its code")
	assert.Equal(t, "web_search {\"query\":\"go 1.26\"}\nGo 1.26 Release Notes\nhttps://go.dev/doc/go1.26\nGo blog\nhttps://go.dev/blog\nGo 1.26 has a new GC.", cm[1].Content)
	assert.Equal(t, []string{"srv_1"}, cm[1].ToolCallIDs)
	assert.Equal(t, []string{"srv_1"}, cm[1].ToolResultIDs)
	out, _, err := anthropic.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: 0.5, Mask: &chitta.MaskOptions{MaxResultTokens: 5}})
	require.NoError(t, err)
	adapttest.ValidWire(t, out, "the returned values")
}

// TestMessagesToolReference: a tool search result's tool_reference blocks
// read as the names of the tools they load, as chitta.ParseMessages reads
// them (the parser dropped them before, the adapter scored their JSON).
func TestMessagesToolReference(t *testing.T) {
	t.Parallel()
	ref := func(name string) sdk.ToolResultBlockParamContentUnion {
		return sdk.ToolResultBlockParamContentUnion{OfToolReference: &sdk.ToolReferenceBlockParam{ToolName: name}}
	}
	msgs := []sdk.MessageParam{
		sdk.NewUserMessage(sdk.NewTextBlock("Open a task for the flaky test.")),
		sdk.NewAssistantMessage(sdk.NewToolUseBlock("toolu_s", map[string]any{"query": "select:TaskCreate"}, "ToolSearch")),
		sdk.NewUserMessage(sdk.ContentBlockParamUnion{OfToolResult: &sdk.ToolResultBlockParam{ToolUseID: "toolu_s", Content: []sdk.ToolResultBlockParamContentUnion{ref("TaskCreate"), ref("TaskList")}}}),
	}
	cm := adapttest.MatchesParse(t, msgs, anthropic.Messages)
	assert.Equal(t, "TaskCreate\nTaskList", cm[2].Content)
	assert.Equal(t, []string{"toolu_s"}, cm[2].ToolResultIDs)
}

// Random valid Anthropic conversations (parallel calls, thinking, server
// tools answered in their message or by the next response, reused IDs) stay valid through Compact and the Compactor.
func TestWireProperties(t *testing.T) {
	t.Parallel()
	adapttest.Wire(t, "anthropic", wiregen.Options{NoMCP: true}, 150, anthropic.Compact, anthropic.NewCompactor, anthropic.Messages)
}

// Messages keeps a tool_use ID a conversation reuses as often as its
// blocks give it (in ToolCallIDs, in one message or in two), so that
// chitta.Validate refuses it as the API does ("tool_use ids must be
// unique"), and a tool_use answered twice ("each tool_use must have a
// single result"), at the message the SDK's own JSON gives.
func TestMessagesReusedToolUseID(t *testing.T) {
	t.Parallel()
	use := func() sdk.ContentBlockParamUnion {
		return sdk.NewToolUseBlock("toolu_1", map[string]any{"path": "a.go"}, "read_file")
	}
	result := sdk.NewUserMessage(sdk.NewToolResultBlock("toolu_1", "package a", false))
	prompt := sdk.NewUserMessage(sdk.NewTextBlock("read a.go"))
	for _, tc := range []struct {
		name  string
		msgs  []sdk.MessageParam
		index int
		field string
		calls []string // the ToolCallIDs of message index
	}{
		{"in one message", []sdk.MessageParam{prompt, sdk.NewAssistantMessage(use(), use()), result}, 1, "ToolCallIDs", []string{"toolu_1", "toolu_1"}},
		{"in two messages", []sdk.MessageParam{prompt, sdk.NewAssistantMessage(use()), result, sdk.NewAssistantMessage(use()), result}, 3, "ToolCallIDs", []string{"toolu_1"}},
		{"answered twice", []sdk.MessageParam{prompt, sdk.NewAssistantMessage(use()), result, result}, 3, "ToolResultIDs", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			msgs, err := anthropic.Messages(tc.msgs)
			require.NoError(t, err)
			assert.Equal(t, tc.calls, msgs[tc.index].ToolCallIDs)
			for _, err := range []error{chitta.Validate(msgs), wireValidate(t, tc.msgs)} {
				require.ErrorIs(t, err, chitta.ErrInvalidConversation)
				var me *chitta.MessageError
				require.ErrorAs(t, err, &me)
				assert.Equal(t, tc.index, me.Index)
				assert.Equal(t, tc.field, me.Field)
				assert.Contains(t, err.Error(), `"toolu_1"`)
			}
		})
	}
}

// wireValidate is chitta.Validate of msgs as the SDK's JSON reads back.
func wireValidate(t *testing.T, msgs []sdk.MessageParam) error {
	t.Helper()
	data, err := json.Marshal(msgs)
	require.NoError(t, err)
	parsed, err := chitta.ParseMessages(data)
	require.NoError(t, err)
	return chitta.Validate(parsed)
}

// Programmatic tool calling: the code a server_tool_use runs calls client
// tools over several responses, and only the last one carries the server
// tool's result. The Compactor keeps the server call while it waits, with
// and without masking (whose synthetic Raw has a server_tool_use block),
// so that every result is valid when the input is (on 91354d8 the server
// call was dropped at the second client result, and the result appended
// next answered no call).
func TestCompactorServerCallAcrossSteps(t *testing.T) {
	t.Parallel()
	caller := `,"caller":{"type":"code_execution_20250825","tool_id":"srvtoolu_01"}`
	words := chitta.TokenCounterFunc(func(s string) int { return len(strings.Fields(s)) })
	for _, rows := range [][2]int{{5, 5}, {40, 5}, {80, 5}, {40, 40}} {
		data := `[
{"role":"user","content":[{"type":"text","text":"an old question"}]},
{"role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("answer ", 120) + `"}]},
{"role":"user","content":[{"type":"text","text":"sum the sales of every region"}]},
{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_01","name":"code_execution","input":{"code":"sum(query(r) for r in regions)"}},{"type":"tool_use","id":"toolu_A","name":"query","input":{"region":"east"}` + caller + `}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_A","content":"` + strings.Repeat("row ", rows[0]) + `"}]},
{"role":"assistant","content":[{"type":"tool_use","id":"toolu_B","name":"query","input":{"region":"west"}` + caller + `}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_B","content":"` + strings.Repeat("row ", rows[1]) + `"}]},
{"role":"assistant","content":[{"type":"code_execution_tool_result","tool_use_id":"srvtoolu_01","content":{"type":"code_execution_result","stdout":"42","stderr":"","return_code":0,"content":[]}},{"type":"text","text":"42"}]}]`
		var msgs []sdk.MessageParam
		require.NoError(t, json.Unmarshal([]byte(data), &msgs))
		for _, mask := range []*chitta.MaskOptions{nil, {}} {
			c, err := anthropic.NewCompactor(&chitta.Options{Tokens: words, Mask: mask}, chitta.Policy{MaxTokens: 100, TargetTokens: 10})
			require.NoError(t, err)
			for end := 1; end <= len(msgs); end++ {
				what := fmt.Sprintf("rows %v, mask %v, %d messages", rows, mask != nil, end)
				in, err := anthropic.Messages(msgs[:end])
				require.NoError(t, err)
				out, _, err := c.Compact(t.Context(), msgs[:end])
				require.NoError(t, err, what)
				got, err := anthropic.Messages(out)
				require.NoError(t, err, what)
				if chitta.Validate(in) == nil {
					require.NoError(t, chitta.Validate(got), what)
				}
			}
		}
	}
}
