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
		adapttest.Pinned[*genai.Content]{Name: "tests", Msgs: func(*testing.T) []*genai.Content { return conversation() }, Want: "f868b23907398e9e64aab7d2400dcd338384a7e8aa3ff89a877af5f1b160fff4"},
		adapttest.Pinned[*genai.Content]{Name: "bench", Msgs: func(*testing.T) []*genai.Content { return benchConversation(1000) }, Want: "6d47716721d3030f39b64fd814e7587c2dc357527f1ddd6d30d9561342a2fb0f"},
		adapttest.Pinned[*genai.Content]{Name: "tau", Msgs: func(t *testing.T) []*genai.Content {
			return adaptbench.Build(adaptbench.TauSteps(t, 1000), benchConstructors)
		}, Want: "26817d02fbd7849f6b11a6bac4d0f9dd62978c08a38dc4ebf2e0aec1e4d35c67"},
	)
}
