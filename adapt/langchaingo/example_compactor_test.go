package langchaingo_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/langchaingo"
)

// An agent loop calls the Compactor before every model call with the
// whole conversation so far. The first call compacts (the conversation is
// over MaxTokens); the second, two messages later, returns the first call's
// values followed by the new ones, so the prompt's prefix, and the
// provider's prompt cache, stay as they were.
func ExampleCompactor() {
	c, err := langchaingo.NewCompactor(nil, chitta.Policy{MaxTokens: 150, TargetTokens: 100})
	if err != nil {
		fmt.Println(err)
		return
	}
	call := func(id, cmd string) llms.MessageContent {
		return llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{
			ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: "bash", Arguments: cmd},
		}}}
	}
	result := func(id, out string) llms.MessageContent {
		return llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: id, Name: "bash", Content: out}}}
	}
	log := "FAIL TestParse: " + strings.Repeat("unexpected token near line 12 ", 12)
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "You are a coding agent."),
		llms.TextParts(llms.ChatMessageTypeHuman, "The parser tests fail; fix them."),
		call("c1", `{"cmd":"go test ./parser"}`), result("c1", log),
		call("c2", `{"cmd":"go test ./parser"}`), result("c2", log),
		llms.TextParts(llms.ChatMessageTypeAI, "Fixed the tokenizer; the tests pass."),
		llms.TextParts(llms.ChatMessageTypeHuman, "Now update the changelog."),
	}
	ctx := context.Background()
	out, res, err := c.Compact(ctx, msgs)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("call 1: %d messages, sent %v, compacted %v\n", len(msgs), res.Kept, res.Stats.Compacted)

	msgs = append(msgs, call("c3", `{"cmd":"git diff CHANGELOG.md"}`), result("c3", "+ parser: fix tokenizer"))
	next, res, err := c.Compact(ctx, msgs)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("call 2: %d messages, sent %v, compacted %v, stable prefix %d\n", len(msgs), res.Kept, res.Stats.Compacted, res.Stats.StablePrefix)
	fmt.Println("call 1's values first:", reflect.DeepEqual(out, next[:len(out)]))
	// Output:
	// call 1: 8 messages, sent [0 1 6 7], compacted true
	// call 2: 10 messages, sent [0 1 6 7 8 9], compacted false, stable prefix 4
	// call 1's values first: true
}
