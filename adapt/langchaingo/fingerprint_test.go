package langchaingo_test

import (
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/chitta-go/chitta/adapt/internal/adaptbench"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
	"github.com/chitta-go/chitta/adapt/langchaingo"
)

// TestFingerprint pins everything Messages gives (roles, texts, tool IDs)
// for the tests' conversation and both benchmark conversations, so that a
// change to the conversion that alters its output fails; Compact must
// return what chitta.Compact returns on those messages.
func TestFingerprint(t *testing.T) {
	t.Parallel()
	adapttest.CheckFingerprints(t, langchaingo.Messages, langchaingo.Compact,
		adapttest.Pinned[llms.MessageContent]{Name: "tests", Msgs: func(*testing.T) []llms.MessageContent { return conversation() }, Want: "b3e96401cd3d81e00bce97f2ec7d3b9471c4018cac3fc111bc6c55e0b7ab43cb"},
		adapttest.Pinned[llms.MessageContent]{Name: "bench", Msgs: func(*testing.T) []llms.MessageContent { return benchConversation(1000) }, Want: "d3450ac3105745a8575c627cfc6d6ea7a3905720c2d9bf4508ba3a66e7105b53"},
		adapttest.Pinned[llms.MessageContent]{Name: "tau", Msgs: func(t *testing.T) []llms.MessageContent {
			return adaptbench.Build(adaptbench.TauSteps(t, 1000), benchConstructors)
		}, Want: "2de1bd4fdecf0ace37485d8c459e2456e54f9310b832c715e8f4f082689171bc"},
	)
}
