package anthropic_test

import (
	"fmt"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/chitta-go/chitta/adapt/anthropic"
	"github.com/chitta-go/chitta/adapt/internal/adaptbench"
)

// benchConversation is n messages: user text, assistant tool_use, user
// tool_result, assistant text, repeating.
func benchConversation(n int) []sdk.MessageParam {
	msgs := make([]sdk.MessageParam, n)
	for i := range msgs {
		id := fmt.Sprintf("tu_%d", i/4)
		switch i % 4 {
		case 0:
			msgs[i] = sdk.NewUserMessage(sdk.NewTextBlock(fmt.Sprintf("step %d: check the build output of package p%d and fix what fails", i, i%17)))
		case 1:
			msgs[i] = sdk.NewAssistantMessage(sdk.NewToolUseBlock(id, map[string]any{"cmd": fmt.Sprintf("go test ./p%d", i%17)}, "bash"))
		case 2:
			msgs[i] = sdk.NewUserMessage(sdk.NewToolResultBlock(id, fmt.Sprintf("--- FAIL: TestX%d (0.00s)\n    x_test.go:%d: got %d want %d", i, i%90, i, i+1), false))
		default:
			msgs[i] = sdk.NewAssistantMessage(sdk.NewTextBlock(fmt.Sprintf("The failure in p%d is an off-by-one; fixed.", i%17)))
		}
	}
	return msgs
}

// BenchmarkCompact compares the adapter (conversion included) with
// chitta.Compact on the already converted messages, 1 000 messages, without
// an embedder and with a HashEmbedder.
func BenchmarkCompact(b *testing.B) {
	adaptbench.Compact(b, benchConversation(1000), anthropic.Messages, anthropic.Compact)
}

// BenchmarkMessages is the conversion alone, into new messages.
func BenchmarkMessages(b *testing.B) {
	adaptbench.Messages(b, benchConversation(1000), anthropic.Messages)
}
