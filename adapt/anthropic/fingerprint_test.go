package anthropic_test

import (
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/chitta-go/chitta/adapt/anthropic"
	"github.com/chitta-go/chitta/adapt/internal/adaptbench"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
)

// TestFingerprint pins everything Messages gives (roles, texts, tool IDs)
// for the tests' conversation and both benchmark conversations, so that a
// change to the conversion that alters its output fails; Compact must
// return what chitta.Compact returns on those messages.
func TestFingerprint(t *testing.T) {
	t.Parallel()
	adapttest.CheckFingerprints(t, anthropic.Messages, anthropic.Compact,
		adapttest.Pinned[sdk.MessageParam]{Name: "tests", Msgs: func(*testing.T) []sdk.MessageParam { return conversation() }, Want: "198803e914641db9d16aae0da14b430e257f4f25d0a182b06fe23c092743ccc5"},
		adapttest.Pinned[sdk.MessageParam]{Name: "bench", Msgs: func(*testing.T) []sdk.MessageParam { return benchConversation(1000) }, Want: "2077ba138f59cf53702e7019851fc56ca88192867523834bce405614091f111a"},
		adapttest.Pinned[sdk.MessageParam]{Name: "tau", Msgs: func(t *testing.T) []sdk.MessageParam {
			return adaptbench.Build(adaptbench.TauSteps(t, 1000), benchConstructors)
		}, Want: "e3cb78da7882a5a4be0a3bdc40ef3eda7276b6960423cc7be1e5702c72420bc5"},
	)
}
