package openai_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/openai/openai-go/v3"

	"github.com/chitta-go/chitta"
	adapter "github.com/chitta-go/chitta/adapt/openai"
)

// An agent loop calls the Compactor before every model call with the
// whole conversation so far. The first call compacts (the conversation
// is over MaxTokens); the second, two messages later, returns the first
// call's survivors followed by the two new messages: the prompt's prefix
// is unchanged, so the provider's prompt cache is read, not written again.
func ExampleCompactor() {
	c, err := adapter.NewCompactor(nil, chitta.Policy{MaxTokens: 150, TargetTokens: 100})
	if err != nil {
		fmt.Println(err)
		return
	}
	call := func(id, cmd string) openai.ChatCompletionMessageParamUnion {
		m := openai.AssistantMessage("")
		m.OfAssistant.ToolCalls = []openai.ChatCompletionMessageToolCallUnionParam{{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
			ID: id, Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: "bash", Arguments: cmd},
		}}}
		return m
	}
	log := "FAIL TestParse: " + strings.Repeat("unexpected token near line 12 ", 12)
	msgs := []openai.ChatCompletionMessageParamUnion{
		openai.SystemMessage("You are a coding agent."),
		openai.UserMessage("The parser tests fail; fix them."),
		call("call_1", `{"cmd":"go test ./parser"}`),
		openai.ToolMessage(log, "call_1"),
		call("call_2", `{"cmd":"go test ./parser"}`),
		openai.ToolMessage(log, "call_2"),
		openai.AssistantMessage("Fixed the tokenizer; the tests pass."),
		openai.UserMessage("Now update the changelog."),
	}
	out, res, err := c.Compact(context.Background(), msgs)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("call 1: %d messages, sent %d %v, compacted %v\n", len(msgs), len(out), res.Kept, res.Stats.Compacted)

	msgs = append(msgs, call("call_3", `{"cmd":"git diff CHANGELOG.md"}`), openai.ToolMessage("+ parser: fix tokenizer", "call_3"))
	next, res, err := c.Compact(context.Background(), msgs)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("call 2: %d messages, sent %d %v, compacted %v, stable prefix %d\n", len(msgs), len(next), res.Kept, res.Stats.Compacted, res.Stats.StablePrefix)
	fmt.Println("call 1's values first:", reflect.DeepEqual(out, next[:len(out)]))
	// Output:
	// call 1: 8 messages, sent 4 [0 1 6 7], compacted true
	// call 2: 10 messages, sent 6 [0 1 6 7 8 9], compacted false, stable prefix 4
	// call 1's values first: true
}
