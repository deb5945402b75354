package genai_test

import (
	"testing"

	"google.golang.org/genai"

	adapter "github.com/chitta-go/chitta/adapt/genai"
	"github.com/chitta-go/chitta/adapt/internal/adaptbench"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
)

// TestFingerprint pins everything Messages gives (roles, texts, tool IDs)
// for the tests' conversation and both benchmark conversations, so that a
// change to the conversion that alters its output fails; Compact must
// return what chitta.Compact returns on those messages.
func TestFingerprint(t *testing.T) {
	t.Parallel()
	adapttest.CheckFingerprints(t, adapter.Messages, adapter.Compact,
		adapttest.Pinned[*genai.Content]{Name: "tests", Msgs: func(*testing.T) []*genai.Content { return conversation() }, Want: "a02b9fd1e6932e57fcbdc7c89c4112e1f0c680c2036dec93f160bbc6e1b870da"},
		adapttest.Pinned[*genai.Content]{Name: "bench", Msgs: func(*testing.T) []*genai.Content { return benchConversation(1000) }, Want: "2077ba138f59cf53702e7019851fc56ca88192867523834bce405614091f111a"},
		adapttest.Pinned[*genai.Content]{Name: "tau", Msgs: func(t *testing.T) []*genai.Content {
			return adaptbench.Build(adaptbench.TauSteps(t, 1000), benchConstructors)
		}, Want: "e3cb78da7882a5a4be0a3bdc40ef3eda7276b6960423cc7be1e5702c72420bc5"},
	)
}
