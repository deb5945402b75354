package openai_test

import (
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/chitta-go/chitta/adapt/internal/adaptbench"
	adapter "github.com/chitta-go/chitta/adapt/openai"
)

// chatConstructors build the benchmark conversations as chat messages: a
// function tool call with its arguments as the JSON string the API carries.
var chatConstructors = adaptbench.Constructors[openai.ChatCompletionMessageParamUnion]{
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
}

func benchChat(n int) []openai.ChatCompletionMessageParamUnion {
	return adaptbench.Conversation(n, chatConstructors)
}

// responsesConstructors build the benchmark conversations as Responses
// input items: messages, function_call and function_call_output.
var responsesConstructors = adaptbench.Constructors[responses.ResponseInputItemUnionParam]{
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
}

func benchResponses(n int) []responses.ResponseInputItemUnionParam {
	return adaptbench.Conversation(n, responsesConstructors)
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

// BenchmarkCompactTau is BenchmarkCompact on the first 1 000 messages of
// the tau-bench runs in the shared data (adaptbench.TauSteps).
func BenchmarkCompactTau(b *testing.B) {
	adaptbench.Compact(b, adaptbench.Build(adaptbench.TauSteps(b, 1000), chatConstructors), adapter.Messages, adapter.Compact)
}

// BenchmarkCompactResponsesTau is BenchmarkCompactResponses on the same
// tau-bench messages.
func BenchmarkCompactResponsesTau(b *testing.B) {
	adaptbench.Compact(b, adaptbench.Build(adaptbench.TauSteps(b, 1000), responsesConstructors), adapter.ResponsesMessages, adapter.CompactResponses)
}

// BenchmarkMessages is the chat conversion alone, into new messages.
func BenchmarkMessages(b *testing.B) {
	adaptbench.Messages(b, benchChat(1000), adapter.Messages)
}

// BenchmarkResponsesMessages is the Responses conversion alone.
func BenchmarkResponsesMessages(b *testing.B) {
	adaptbench.Messages(b, benchResponses(1000), adapter.ResponsesMessages)
}

// BenchmarkCompactorLoop compares the chat Compactor between compactions
// with chitta.Compactor on the converted messages (see adaptbench.Loop):
// 1 000 messages and four more each call; run it with -benchtime <N>x,
// N <= 4096.
func BenchmarkCompactorLoop(b *testing.B) {
	adaptbench.Loop(b, benchChat(adaptbench.LoopLen(4096)), adapter.Messages, adapter.NewCompactor)
}

// BenchmarkResponsesCompactorLoop is BenchmarkCompactorLoop for Responses
// input items.
func BenchmarkResponsesCompactorLoop(b *testing.B) {
	adaptbench.Loop(b, benchResponses(adaptbench.LoopLen(4096)), adapter.ResponsesMessages, adapter.NewResponsesCompactor)
}

// BenchmarkCompactorLoopTau is BenchmarkCompactorLoop on the tau-bench
// runs in the shared data (adaptbench.TauSteps).
func BenchmarkCompactorLoopTau(b *testing.B) {
	adaptbench.Loop(b, adaptbench.Build(adaptbench.TauSteps(b, adaptbench.LoopLen(4096)), chatConstructors), adapter.Messages, adapter.NewCompactor)
}
