package genai_test

import (
	"testing"

	"google.golang.org/genai"

	adapter "github.com/chitta-go/chitta/adapt/genai"
	"github.com/chitta-go/chitta/adapt/internal/adaptbench"
)

// benchConversation is adaptbench.Conversation(n) as genai contents: the
// function call's Args and the function response's Response ({"output":
// text}) are maps, as the SDK types them.
func benchConversation(n int) []*genai.Content {
	return adaptbench.Conversation(n, adaptbench.Constructors[*genai.Content]{
		Ask: func(s adaptbench.Step) *genai.Content {
			return genai.NewContentFromText(s.Text, genai.RoleUser)
		},
		Call: func(s adaptbench.Step) *genai.Content {
			return genai.NewContentFromParts([]*genai.Part{{FunctionCall: &genai.FunctionCall{ID: s.ID, Name: s.Tool, Args: map[string]any{"cmd": s.Cmd}}}}, genai.RoleModel)
		},
		Result: func(s adaptbench.Step) *genai.Content {
			return genai.NewContentFromParts([]*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: s.ID, Name: "bash", Response: map[string]any{"output": s.Text}}}}, genai.RoleUser)
		},
		Answer: func(s adaptbench.Step) *genai.Content {
			return genai.NewContentFromText(s.Text, genai.RoleModel)
		},
	})
}

// BenchmarkCompact compares the adapter (conversion included) with
// chitta.Compact on the already converted messages, 1 000 messages, without
// an embedder and with a HashEmbedder.
func BenchmarkCompact(b *testing.B) {
	adaptbench.Compact(b, benchConversation(1000), adapter.Messages, adapter.Compact)
}

// BenchmarkMessages is the conversion alone, into new messages.
func BenchmarkMessages(b *testing.B) {
	adaptbench.Messages(b, benchConversation(1000), adapter.Messages)
}
