package eino_test

import (
	"testing"

	"github.com/cloudwego/eino/schema"

	adapter "github.com/chitta-go/chitta/adapt/eino"
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
		adapttest.Pinned[*schema.Message]{Name: "tests", Msgs: func(*testing.T) []*schema.Message { return conversation() }, Want: "0c6b9d9e59094b2339b84a3d2f218c165b9b1b51f21dc673c62c79a473fd0cbe"},
		adapttest.Pinned[*schema.Message]{Name: "bench", Msgs: func(*testing.T) []*schema.Message { return benchConversation(1000) }, Want: "d3450ac3105745a8575c627cfc6d6ea7a3905720c2d9bf4508ba3a66e7105b53"},
		adapttest.Pinned[*schema.Message]{Name: "tau", Msgs: func(t *testing.T) []*schema.Message {
			return adaptbench.Build(adaptbench.TauSteps(t, 1000), benchConstructors)
		}, Want: "2de1bd4fdecf0ace37485d8c459e2456e54f9310b832c715e8f4f082689171bc"},
	)
}
