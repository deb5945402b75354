package genai_test

import (
	"testing"

	"google.golang.org/genai"

	adapter "github.com/chitta-go/chitta/adapt/genai"
	"github.com/chitta-go/chitta/adapt/internal/adaptbench"
)

// benchConstructors build the benchmark conversations as genai contents:
// the function call's Args and the function response's Response ({"output":
// text}) are maps, as the SDK types them.
var benchConstructors = adaptbench.Constructors[*genai.Content]{
	Ask: func(s adaptbench.Step) *genai.Content {
		return genai.NewContentFromText(s.Text, genai.RoleUser)
	},
	Call: func(s adaptbench.Step) *genai.Content {
		return genai.NewContentFromParts([]*genai.Part{{FunctionCall: &genai.FunctionCall{ID: s.ID, Name: s.Tool, Args: s.Input}}}, genai.RoleModel)
	},
	Result: func(s adaptbench.Step) *genai.Content {
		return genai.NewContentFromParts([]*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: s.ID, Name: s.Tool, Response: map[string]any{"output": s.Text}}}}, genai.RoleUser)
	},
	Answer: func(s adaptbench.Step) *genai.Content {
		return genai.NewContentFromText(s.Text, genai.RoleModel)
	},
}

func benchConversation(n int) []*genai.Content {
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
