package genai_test

import (
	"fmt"
	"testing"

	"google.golang.org/genai"

	adapter "github.com/chitta-go/chitta/adapt/genai"
	"github.com/chitta-go/chitta/adapt/internal/adaptbench"
)

// benchConversation is n contents: user text, model function call, user
// function response, model text, repeating (the shape of the anthropic
// adapter's benchmark).
func benchConversation(n int) []*genai.Content {
	msgs := make([]*genai.Content, n)
	for i := range msgs {
		switch i % 4 {
		case 0:
			msgs[i] = genai.NewContentFromText(fmt.Sprintf("step %d: check the build output of package p%d and fix what fails", i, i%17), genai.RoleUser)
		case 1:
			msgs[i] = genai.NewContentFromParts([]*genai.Part{{FunctionCall: &genai.FunctionCall{ID: fmt.Sprintf("fc_%d", i/4), Name: "bash", Args: map[string]any{"cmd": fmt.Sprintf("go test ./p%d", i%17)}}}}, genai.RoleModel)
		case 2:
			msgs[i] = genai.NewContentFromParts([]*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: fmt.Sprintf("fc_%d", i/4), Name: "bash", Response: map[string]any{"output": fmt.Sprintf("--- FAIL: TestX%d (0.00s)\n    x_test.go:%d: got %d want %d", i, i%90, i, i+1)}}}}, genai.RoleUser)
		default:
			msgs[i] = genai.NewContentFromText(fmt.Sprintf("The failure in p%d is an off-by-one; fixed.", i%17), genai.RoleModel)
		}
	}
	return msgs
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
