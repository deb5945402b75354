package anthropic_test

import (
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/chitta-go/chitta/adapt/anthropic"
	"github.com/chitta-go/chitta/adapt/internal/adaptbench"
)

// benchConversation is adaptbench.Conversation(n) as anthropic messages:
// the tool_use input is a map[string]any, as a caller building it in Go
// has it.
func benchConversation(n int) []sdk.MessageParam {
	return adaptbench.Conversation(n, adaptbench.Constructors[sdk.MessageParam]{
		Ask: func(s adaptbench.Step) sdk.MessageParam {
			return sdk.NewUserMessage(sdk.NewTextBlock(s.Text))
		},
		Call: func(s adaptbench.Step) sdk.MessageParam {
			return sdk.NewAssistantMessage(sdk.NewToolUseBlock(s.ID, map[string]any{"cmd": s.Cmd}, s.Tool))
		},
		Result: func(s adaptbench.Step) sdk.MessageParam {
			return sdk.NewUserMessage(sdk.NewToolResultBlock(s.ID, s.Text, false))
		},
		Answer: func(s adaptbench.Step) sdk.MessageParam {
			return sdk.NewAssistantMessage(sdk.NewTextBlock(s.Text))
		},
	})
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
