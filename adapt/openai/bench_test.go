package openai_test

import (
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/chitta-go/chitta/adapt/internal/adaptbench"
	adapter "github.com/chitta-go/chitta/adapt/openai"
)

// benchChat is adaptbench.Conversation(n) as chat messages: a function
// tool call with its arguments as the JSON string the API carries.
func benchChat(n int) []openai.ChatCompletionMessageParamUnion {
	return adaptbench.Conversation(n, adaptbench.Constructors[openai.ChatCompletionMessageParamUnion]{
		Ask: func(s adaptbench.Step) openai.ChatCompletionMessageParamUnion {
			return openai.UserMessage(s.Text)
		},
		Call: func(s adaptbench.Step) openai.ChatCompletionMessageParamUnion {
			m := openai.AssistantMessage("")
			m.OfAssistant.ToolCalls = []openai.ChatCompletionMessageToolCallUnionParam{{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
				ID: s.ID, Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: s.Tool, Arguments: s.Args},
			}}}
			return m
		},
		Result: func(s adaptbench.Step) openai.ChatCompletionMessageParamUnion {
			return openai.ToolMessage(s.Text, s.ID)
		},
		Answer: func(s adaptbench.Step) openai.ChatCompletionMessageParamUnion {
			return openai.AssistantMessage(s.Text)
		},
	})
}

// benchResponses is adaptbench.Conversation(n) as Responses input items:
// messages, function_call and function_call_output.
func benchResponses(n int) []responses.ResponseInputItemUnionParam {
	return adaptbench.Conversation(n, adaptbench.Constructors[responses.ResponseInputItemUnionParam]{
		Ask: func(s adaptbench.Step) responses.ResponseInputItemUnionParam {
			return responses.ResponseInputItemParamOfMessage(s.Text, responses.EasyInputMessageRoleUser)
		},
		Call: func(s adaptbench.Step) responses.ResponseInputItemUnionParam {
			return responses.ResponseInputItemParamOfFunctionCall(s.Args, s.ID, s.Tool)
		},
		Result: func(s adaptbench.Step) responses.ResponseInputItemUnionParam {
			return output(s.ID, s.Text)
		},
		Answer: func(s adaptbench.Step) responses.ResponseInputItemUnionParam {
			return responses.ResponseInputItemParamOfMessage(s.Text, responses.EasyInputMessageRoleAssistant)
		},
	})
}

// BenchmarkCompact compares the chat adapter (conversion included) with
// chitta.Compact on the already converted messages, 1 000 messages, without
// an embedder and with a HashEmbedder.
func BenchmarkCompact(b *testing.B) {
	adaptbench.Compact(b, benchChat(1000), adapter.Messages, adapter.Compact)
}

// BenchmarkCompactResponses is BenchmarkCompact for Responses input items.
func BenchmarkCompactResponses(b *testing.B) {
	adaptbench.Compact(b, benchResponses(1000), adapter.ResponsesMessages, adapter.CompactResponses)
}

// BenchmarkMessages is the chat conversion alone, into new messages.
func BenchmarkMessages(b *testing.B) {
	adaptbench.Messages(b, benchChat(1000), adapter.Messages)
}

// BenchmarkResponsesMessages is the Responses conversion alone.
func BenchmarkResponsesMessages(b *testing.B) {
	adaptbench.Messages(b, benchResponses(1000), adapter.ResponsesMessages)
}
