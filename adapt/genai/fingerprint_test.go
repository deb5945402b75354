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
		adapttest.Pinned[*genai.Content]{Name: "tests", Msgs: func(*testing.T) []*genai.Content { return conversation() }, Want: "810313d54b932796ffbaa593888aec1c79ea5faba407ee6e8fbc2d2c8568ccc0"},
		adapttest.Pinned[*genai.Content]{Name: "bench", Msgs: func(*testing.T) []*genai.Content { return benchConversation(1000) }, Want: "2077ba138f59cf53702e7019851fc56ca88192867523834bce405614091f111a"},
		adapttest.Pinned[*genai.Content]{Name: "tau", Msgs: func(t *testing.T) []*genai.Content {
			return adaptbench.Build(adaptbench.TauSteps(t, 1000), benchConstructors)
		}, Want: "c177ea8480af74569375029f3137e85a9bdb085451da4812d146e807b8df895a"},
	)
}
