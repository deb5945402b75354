package eino_test

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
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

// TestCompactorMessageModifier: over a growing conversation the modifier
// returns what Compact of a twin Compactor returns, call for call; on an
// error it returns the input and logs.
func TestCompactorMessageModifier(t *testing.T) {
	t.Parallel()
	full := adaptbench.Build(adapttest.LoopSteps(120), benchConstructors)
	p := chitta.Policy{MaxTokens: 1500}
	c, err := eino.NewCompactor(nil, p)
	require.NoError(t, err)
	twin, err := eino.NewCompactor(nil, p)
	require.NoError(t, err)
	modify := c.MessageModifier()
	compactions := 0
	for n := 4; n <= len(full); n += 4 {
		want, res, err := twin.Compact(t.Context(), full[:n])
		require.NoError(t, err)
		if res.Stats.Compacted {
			compactions++
		}
		assert.Equal(t, want, modify(t.Context(), full[:n]), "n=%d", n)
	}
	assert.Positive(t, compactions)

	var logs bytes.Buffer
	c, err = eino.NewCompactor(&chitta.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}, p)
	require.NoError(t, err)
	bad := []*schema.Message{schema.UserMessage("hi"), {Role: "narrator", Content: "x"}}
	assert.Equal(t, bad, c.MessageModifier()(t.Context(), bad), "on error: unchanged")
	assert.Contains(t, logs.String(), "compaction skipped")
	var zero *eino.Compactor
	assert.Equal(t, bad, zero.MessageModifier()(t.Context(), bad), "a nil Compactor: unchanged")
}
