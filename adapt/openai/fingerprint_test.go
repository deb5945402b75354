package openai_test

import (
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/chitta-go/chitta/adapt/internal/adaptbench"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
	adapter "github.com/chitta-go/chitta/adapt/openai"
)

// TestFingerprint pins everything Messages gives (roles, texts, tool IDs)
// for the tests' conversation and both benchmark conversations, so that a
// change to the conversion that alters its output fails; Compact must
// return what chitta.Compact returns on those messages.
func TestFingerprint(t *testing.T) {
	t.Parallel()
	adapttest.CheckFingerprints(t, adapter.Messages, adapter.Compact,
		adapttest.Pinned[openai.ChatCompletionMessageParamUnion]{Name: "tests", Msgs: func(*testing.T) []openai.ChatCompletionMessageParamUnion { return chat() }, Want: "63755a89efc716c7e3953e5fb67b6988ccab07d538c3c039e6881d68456da0ae"},
		adapttest.Pinned[openai.ChatCompletionMessageParamUnion]{Name: "bench", Msgs: func(*testing.T) []openai.ChatCompletionMessageParamUnion { return benchChat(1000) }, Want: "d3450ac3105745a8575c627cfc6d6ea7a3905720c2d9bf4508ba3a66e7105b53"},
		adapttest.Pinned[openai.ChatCompletionMessageParamUnion]{Name: "tau", Msgs: func(t *testing.T) []openai.ChatCompletionMessageParamUnion {
			return adaptbench.Build(adaptbench.TauSteps(t, 1000), chatConstructors)
		}, Want: "2de1bd4fdecf0ace37485d8c459e2456e54f9310b832c715e8f4f082689171bc"},
	)
}

// TestFingerprintResponses pins everything ResponsesMessages gives (roles, texts, tool IDs)
// for the tests' conversation and both benchmark conversations, so that a
// change to the conversion that alters its output fails; CompactResponses must
// return what chitta.Compact returns on those messages.
func TestFingerprintResponses(t *testing.T) {
	t.Parallel()
	adapttest.CheckFingerprints(t, adapter.ResponsesMessages, adapter.CompactResponses,
		adapttest.Pinned[responses.ResponseInputItemUnionParam]{Name: "tests", Msgs: func(*testing.T) []responses.ResponseInputItemUnionParam { return items() }, Want: "186779b6d1a2f9e2b52d89fb8b52e77101891198e1cfceb3350549fc95a8806e"},
		adapttest.Pinned[responses.ResponseInputItemUnionParam]{Name: "bench", Msgs: func(*testing.T) []responses.ResponseInputItemUnionParam { return benchResponses(1000) }, Want: "d3450ac3105745a8575c627cfc6d6ea7a3905720c2d9bf4508ba3a66e7105b53"},
		adapttest.Pinned[responses.ResponseInputItemUnionParam]{Name: "tau", Msgs: func(t *testing.T) []responses.ResponseInputItemUnionParam {
			return adaptbench.Build(adaptbench.TauSteps(t, 1000), responsesConstructors)
		}, Want: "2de1bd4fdecf0ace37485d8c459e2456e54f9310b832c715e8f4f082689171bc"},
	)
}
