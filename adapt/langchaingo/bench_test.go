package langchaingo_test

import (
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/chitta-go/chitta/adapt/internal/adaptbench"
	"github.com/chitta-go/chitta/adapt/langchaingo"
)

// benchConstructors build the benchmark conversations as langchaingo
// messages: a tool call with its arguments as a JSON string, the result as
// a tool call response.
var benchConstructors = adaptbench.Constructors[llms.MessageContent]{
	Ask: func(s adaptbench.Step) llms.MessageContent {
		return llms.TextParts(llms.ChatMessageTypeHuman, s.Text)
	},
	Call: func(s adaptbench.Step) llms.MessageContent {
		return llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{ID: s.ID, Type: "function", FunctionCall: &llms.FunctionCall{Name: s.Tool, Arguments: s.Args}}}}
	},
	Result: func(s adaptbench.Step) llms.MessageContent {
		return llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: s.ID, Name: s.Tool, Content: s.Text}}}
	},
	Answer: func(s adaptbench.Step) llms.MessageContent {
		return llms.TextParts(llms.ChatMessageTypeAI, s.Text)
	},
}

func benchConversation(n int) []llms.MessageContent {
	return adaptbench.Conversation(n, benchConstructors)
}

// BenchmarkCompact compares the adapter (conversion included) with
// chitta.Compact on the already converted messages, 1 000 messages, without
// an embedder and with a HashEmbedder.
func BenchmarkCompact(b *testing.B) {
	adaptbench.Compact(b, benchConversation(1000), langchaingo.Messages, langchaingo.Compact)
}

// BenchmarkCompactTau is BenchmarkCompact on the first 1 000 messages of
// the tau-bench runs in the shared data (adaptbench.TauSteps).
func BenchmarkCompactTau(b *testing.B) {
	adaptbench.Compact(b, adaptbench.Build(adaptbench.TauSteps(b, 1000), benchConstructors), langchaingo.Messages, langchaingo.Compact)
}

// BenchmarkMessages is the conversion alone, into new messages.
func BenchmarkMessages(b *testing.B) {
	adaptbench.Messages(b, benchConversation(1000), langchaingo.Messages)
}

// BenchmarkCompactorLoop compares the Compactor between compactions
// with chitta.Compactor on the converted messages (see adaptbench.Loop):
// 1 000 messages and four more each call; run it with -benchtime <N>x,
// N <= 4096.
func BenchmarkCompactorLoop(b *testing.B) {
	adaptbench.Loop(b, benchConversation(adaptbench.LoopLen(4096)), langchaingo.Messages, langchaingo.NewCompactor)
}
