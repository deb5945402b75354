package anthropic_test

import (
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/chitta-go/chitta/adapt/anthropic"
	"github.com/chitta-go/chitta/adapt/internal/adaptbench"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
)

// TestCompactorLoop runs growing conversations through the Compactor as
// an agent loop would (see adapttest.Loop): the synthetic session of
// adapttest.LoopSteps and parallelResults.
func TestCompactorLoop(t *testing.T) {
	t.Parallel()
	steps := func() []sdk.MessageParam { return adaptbench.Build(adapttest.LoopSteps(160), benchConstructors) }
	for name, conv := range map[string]func() []sdk.MessageParam{"steps": steps, "parallelResults": parallelResults} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			adapttest.Loop(t, conv, anthropic.NewCompactor, anthropic.Messages, anthropic.Compact)
		})
	}
}
