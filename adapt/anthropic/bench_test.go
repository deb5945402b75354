package anthropic_test

import (
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/chitta-go/chitta/adapt/anthropic"
	"github.com/chitta-go/chitta/adapt/internal/adaptbench"
)

// benchConstructors build the benchmark conversations as anthropic
// messages: the tool_use input is a map[string]any, as a caller building it
// in Go has it.
var benchConstructors = adaptbench.Constructors[sdk.MessageParam]{
	Ask: func(s adaptbench.Step) sdk.MessageParam {
		return sdk.NewUserMessage(sdk.NewTextBlock(s.Text))
	},
	Call: func(s adaptbench.Step) sdk.MessageParam {
		return sdk.NewAssistantMessage(sdk.NewToolUseBlock(s.ID, s.Input, s.Tool))
	},
	Result: func(s adaptbench.Step) sdk.MessageParam {
		return sdk.NewUserMessage(sdk.NewToolResultBlock(s.ID, s.Text, false))
	},
	Answer: func(s adaptbench.Step) sdk.MessageParam {
		return sdk.NewAssistantMessage(sdk.NewTextBlock(s.Text))
	},
}

func benchConversation(n int) []sdk.MessageParam {
	return adaptbench.Conversation(n, benchConstructors)
}

// BenchmarkCompact compares the adapter (conversion included) with
// chitta.Compact on the already converted messages, 1 000 messages, without
// an embedder and with a HashEmbedder.
func BenchmarkCompact(b *testing.B) {
	adaptbench.Compact(b, benchConversation(1000), anthropic.Messages, anthropic.Compact)
}

// BenchmarkCompactTau is BenchmarkCompact on the first 1 000 messages of
// the tau-bench runs in the shared data (adaptbench.TauSteps).
func BenchmarkCompactTau(b *testing.B) {
	adaptbench.Compact(b, adaptbench.Build(adaptbench.TauSteps(b, 1000), benchConstructors), anthropic.Messages, anthropic.Compact)
}

// BenchmarkMessages is the conversion alone, into new messages.
func BenchmarkMessages(b *testing.B) {
	adaptbench.Messages(b, benchConversation(1000), anthropic.Messages)
}

// BenchmarkCompactorLoop compares the Compactor between compactions
// with chitta.Compactor on the converted messages (see adaptbench.Loop):
// 1 000 messages and four more each call; run it with -benchtime <N>x,
// N <= 4096.
func BenchmarkCompactorLoop(b *testing.B) {
	adaptbench.Loop(b, benchConversation(adaptbench.LoopLen(4096)), anthropic.Messages, anthropic.NewCompactor)
}

// BenchmarkCompactorLoopTau is BenchmarkCompactorLoop on the tau-bench
// runs in the shared data (adaptbench.TauSteps).
func BenchmarkCompactorLoopTau(b *testing.B) {
	adaptbench.Loop(b, adaptbench.Build(adaptbench.TauSteps(b, adaptbench.LoopLen(4096)), benchConstructors), anthropic.Messages, anthropic.NewCompactor)
}
