package anthropic_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/anthropic"
)

// An agent loop calls the Compactor before every model call with the
// whole conversation so far. The first call compacts (the conversation
// is over MaxTokens); the second, two messages later, returns the first
// call's survivors followed by the two new messages: the prompt's prefix
// is unchanged, so the provider's prompt cache is read, not written again.
func ExampleCompactor() {
	c, err := anthropic.NewCompactor(nil, chitta.Policy{MaxTokens: 150, TargetTokens: 100})
	if err != nil {
		fmt.Println(err)
		return
	}
	log := "FAIL TestParse: " + strings.Repeat("unexpected token near line 12 ", 12)
	msgs := []sdk.MessageParam{
		sdk.NewUserMessage(sdk.NewTextBlock("The parser tests fail; fix them.")),
		sdk.NewAssistantMessage(sdk.NewToolUseBlock("tu_1", map[string]any{"cmd": "go test ./parser"}, "bash")),
		sdk.NewUserMessage(sdk.NewToolResultBlock("tu_1", log, false)),
		sdk.NewAssistantMessage(sdk.NewToolUseBlock("tu_2", map[string]any{"cmd": "go test ./parser"}, "bash")),
		sdk.NewUserMessage(sdk.NewToolResultBlock("tu_2", log, false)),
		sdk.NewAssistantMessage(sdk.NewTextBlock("Fixed the tokenizer; the tests pass.")),
		sdk.NewUserMessage(sdk.NewTextBlock("Now update the changelog.")),
	}
	out, res, err := c.Compact(context.Background(), msgs)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("call 1: %d messages, sent %d %v, compacted %v\n", len(msgs), len(out), res.Kept, res.Stats.Compacted)

	msgs = append(msgs,
		sdk.NewAssistantMessage(sdk.NewToolUseBlock("tu_3", map[string]any{"path": "CHANGELOG.md"}, "edit_file")),
		sdk.NewUserMessage(sdk.NewToolResultBlock("tu_3", "ok", false)),
	)
	next, res, err := c.Compact(context.Background(), msgs)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("call 2: %d messages, sent %d %v, compacted %v, stable prefix %d\n", len(msgs), len(next), res.Kept, res.Stats.Compacted, res.Stats.StablePrefix)
	fmt.Println("call 1's values first:", reflect.DeepEqual(out, next[:len(out)]))
	// Output:
	// call 1: 7 messages, sent 3 [0 5 6], compacted true
	// call 2: 9 messages, sent 5 [0 5 6 7 8], compacted false, stable prefix 3
	// call 1's values first: true
}
