package eino_test

import (
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/chitta-go/chitta/adapt/eino"
	"github.com/chitta-go/chitta/adapt/internal/adaptbench"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
)

// TestCompactorLoop runs growing conversations through the Compactor as
// an agent loop would (see adapttest.Loop): the synthetic session of
// adapttest.LoopSteps and toolTurns.
func TestCompactorLoop(t *testing.T) {
	t.Parallel()
	steps := func() []*schema.Message { return adaptbench.Build(adapttest.LoopSteps(160), benchConstructors) }
	for name, conv := range map[string]func() []*schema.Message{"steps": steps, "toolTurns": toolTurns} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			adapttest.Loop(t, conv, eino.NewCompactor, eino.Messages, eino.Compact)
		})
	}
}
