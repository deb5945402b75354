package eino_test

import (
	"testing"

	"github.com/cloudwego/eino/schema"

	adapter "github.com/chitta-go/chitta/adapt/eino"
	"github.com/chitta-go/chitta/adapt/internal/adaptbench"
)

// benchConstructors build the benchmark conversations as eino messages: a
// tool call with its arguments as a JSON string.
var benchConstructors = adaptbench.Constructors[*schema.Message]{
	Ask: func(s adaptbench.Step) *schema.Message {
		return schema.UserMessage(s.Text)
	},
	Call: func(s adaptbench.Step) *schema.Message {
		return schema.AssistantMessage("", []schema.ToolCall{{ID: s.ID, Type: "function", Function: schema.FunctionCall{Name: s.Tool, Arguments: s.Args}}})
	},
	Result: func(s adaptbench.Step) *schema.Message {
		return schema.ToolMessage(s.Text, s.ID)
	},
	Answer: func(s adaptbench.Step) *schema.Message {
		return schema.AssistantMessage(s.Text, nil)
	},
}

func benchConversation(n int) []*schema.Message {
	return adaptbench.Conversation(n, benchConstructors)
}

// BenchmarkCompact compares the adapter (conversion included) with
// chitta.Compact on the already converted messages, 1 000 messages, without
// an embedder and with a HashEmbedder.
func BenchmarkCompact(b *testing.B) {
	adaptbench.Compact(b, benchConversation(1000), adapter.Messages, adapter.Compact)
}

// BenchmarkCompactTau is BenchmarkCompact on the first 1 000 messages of
// the tau-bench runs in the shared data (adaptbench.TauSteps).
func BenchmarkCompactTau(b *testing.B) {
	adaptbench.Compact(b, adaptbench.Build(adaptbench.TauSteps(b, 1000), benchConstructors), adapter.Messages, adapter.Compact)
}

// BenchmarkMessages is the conversion alone, into new messages.
func BenchmarkMessages(b *testing.B) {
	adaptbench.Messages(b, benchConversation(1000), adapter.Messages)
}

// BenchmarkCompactorLoop compares the Compactor between compactions
// with chitta.Compactor on the converted messages (see adaptbench.Loop):
// 1 000 messages and four more each call; run it with -benchtime <N>x,
// N <= 4096.
func BenchmarkCompactorLoop(b *testing.B) {
	adaptbench.Loop(b, benchConversation(adaptbench.LoopLen(4096)), adapter.Messages, adapter.NewCompactor)
}
