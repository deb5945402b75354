package genai_test

import (
	"testing"

	sdk "google.golang.org/genai"

	"github.com/chitta-go/chitta/adapt/genai"
	"github.com/chitta-go/chitta/adapt/internal/adaptbench"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
)

// TestCompactorLoop runs growing conversations through the Compactor as
// an agent loop would (see adapttest.Loop): the synthetic session of
// adapttest.LoopSteps and parallel.
func TestCompactorLoop(t *testing.T) {
	t.Parallel()
	steps := func() []*sdk.Content { return adaptbench.Build(adapttest.LoopSteps(160), benchConstructors) }
	for name, conv := range map[string]func() []*sdk.Content{"steps": steps, "parallel": parallel} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			adapttest.Loop(t, conv, genai.NewCompactor, genai.Messages, genai.Compact)
		})
	}
}
