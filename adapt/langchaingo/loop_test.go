package langchaingo_test

import (
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/chitta-go/chitta/adapt/internal/adaptbench"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
	"github.com/chitta-go/chitta/adapt/langchaingo"
)

// TestCompactorLoop runs growing conversations through the Compactor as
// an agent loop would (see adapttest.Loop): the synthetic session of
// adapttest.LoopSteps and parallelTools.
func TestCompactorLoop(t *testing.T) {
	t.Parallel()
	steps := func() []llms.MessageContent { return adaptbench.Build(adapttest.LoopSteps(160), benchConstructors) }
	for name, conv := range map[string]func() []llms.MessageContent{"steps": steps, "parallelTools": parallelTools} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			adapttest.Loop(t, conv, langchaingo.NewCompactor, langchaingo.Messages, langchaingo.Compact)
		})
	}
}
