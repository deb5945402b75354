package openai_test

import (
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/chitta-go/chitta/adapt/internal/adaptbench"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
	adapter "github.com/chitta-go/chitta/adapt/openai"
)

// TestCompactorLoop runs growing chat conversations through the
// Compactor as an agent loop would (see adapttest.Loop): the synthetic
// session of adapttest.LoopSteps and toolChat.
func TestCompactorLoop(t *testing.T) {
	t.Parallel()
	steps := func() []openai.ChatCompletionMessageParamUnion {
		return adaptbench.Build(adapttest.LoopSteps(160), chatConstructors)
	}
	for name, conv := range map[string]func() []openai.ChatCompletionMessageParamUnion{"steps": steps, "toolChat": toolChat} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			adapttest.Loop(t, conv, adapter.NewCompactor, adapter.Messages, adapter.Compact)
		})
	}
}

// TestResponsesCompactorLoop is TestCompactorLoop for Responses input
// items: the synthetic session and responsesItems.
func TestResponsesCompactorLoop(t *testing.T) {
	t.Parallel()
	steps := func() []responses.ResponseInputItemUnionParam {
		return adaptbench.Build(adapttest.LoopSteps(160), responsesConstructors)
	}
	for name, conv := range map[string]func() []responses.ResponseInputItemUnionParam{"steps": steps, "responsesItems": responsesItems} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			adapttest.Loop(t, conv, adapter.NewResponsesCompactor, adapter.ResponsesMessages, adapter.CompactResponses)
		})
	}
}
