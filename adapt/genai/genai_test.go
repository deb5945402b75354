package genai_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/chitta-go/chitta"
	adapter "github.com/chitta-go/chitta/adapt/genai"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
	"github.com/chitta-go/chitta/internal/testkit/wiregen"
)

func conversation() []*genai.Content {
	return []*genai.Content{
		genai.NewContentFromParts([]*genai.Part{genai.NewPartFromText("Plan a trip"), genai.NewPartFromBytes([]byte{0x89, 'P'}, "image/png")}, genai.RoleUser),
		genai.NewContentFromParts([]*genai.Part{
			{Text: "two lookups", Thought: true},
			genai.NewPartFromFunctionCall("flights", map[string]any{"to": "NRT"}),
			genai.NewPartFromFunctionCall("hotels", map[string]any{"city": "Tokyo"}),
		}, genai.RoleModel),
		genai.NewContentFromParts([]*genai.Part{
			genai.NewPartFromFunctionResponse("flights", map[string]any{"n": 3, "pad": strings.Repeat("x ", 40)}),
			genai.NewPartFromFunctionResponse("hotels", map[string]any{"n": 5}),
		}, genai.RoleUser),
		genai.NewContentFromParts([]*genai.Part{{FunctionCall: &genai.FunctionCall{ID: "id-1", Name: "book", Args: map[string]any{}}}}, genai.RoleModel),
		genai.NewContentFromParts([]*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: "id-1", Name: "book", Response: map[string]any{"ok": true}}}, genai.NewPartFromURI("gs://b/f.pdf", "application/pdf")}, genai.RoleUser),
		genai.NewContentFromText("Booked.", genai.RoleModel),
		genai.NewContentFromParts([]*genai.Part{{VideoMetadata: &genai.VideoMetadata{FPS: genai.Ptr(2.0)}}}, genai.RoleUser),
		genai.NewContentFromText("Thanks, what next?", genai.RoleUser),
	}
}

func TestMessages(t *testing.T) {
	t.Parallel()
	msgs, err := adapter.Messages(conversation())
	require.NoError(t, err)
	require.Len(t, msgs, 8)
	assert.Equal(t, "Plan a trip\n[image]", msgs[0].Content)
	assert.Equal(t, chitta.RoleAssistant, msgs[1].Role)
	assert.Equal(t, "two lookups\nflights {\"to\":\"NRT\"}\nhotels {\"city\":\"Tokyo\"}", msgs[1].Content)
	assert.Equal(t, []string{"functionCall@1.1", "functionCall@1.2"}, msgs[1].ToolCallIDs)
	assert.Equal(t, []string{"functionCall@1.1", "functionCall@1.2"}, msgs[2].ToolResultIDs, "paired by position")
	assert.Equal(t, []string{"id-1"}, msgs[3].ToolCallIDs)
	assert.Equal(t, []string{"id-1"}, msgs[4].ToolResultIDs)
	assert.Contains(t, msgs[4].Content, "[document]")
	assert.Contains(t, msgs[6].Content, "videoMetadata", "an unknown part is scored by its JSON")

	for _, bad := range [][]*genai.Content{{nil}, {{Role: "robot"}}} {
		_, err = adapter.Messages(bad)
		require.ErrorIs(t, err, chitta.ErrInvalidMessages)
		assert.Contains(t, err.Error(), "message 0")
	}
}

func TestCompactKeepsPairsAndValues(t *testing.T) {
	t.Parallel()
	adapttest.KeepsPairsAndValues(t, conversation, adapter.Compact, []int{1, 2}, []int{3, 4})
}

func Example() {
	msgs := []*genai.Content{
		genai.NewContentFromText("What port does config.yaml set?", genai.RoleUser),
		genai.NewContentFromFunctionCall("read_file", map[string]any{"path": "config.yaml"}, genai.RoleModel),
		genai.NewContentFromFunctionResponse("read_file", map[string]any{"content": "port: 8080"}, genai.RoleUser),
		genai.NewContentFromText("It sets port 8080.", genai.RoleModel),
		genai.NewContentFromText("Thanks. Now open the README.", genai.RoleUser),
	}
	out, res, err := adapter.Compact(context.Background(), msgs, &chitta.Options{TargetRatio: 0.8})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(out), res.Kept)
	// Output: 4 [0 1 2 4]
}

// Random valid genai conversations (parallel calls with and without IDs,
// code execution parts, reused IDs) stay valid through Compact and the
// Compactor.
func TestWireProperties(t *testing.T) {
	t.Parallel()
	adapttest.Wire(t, "genai", wiregen.Options{}, 150, adapter.Compact, adapter.NewCompactor, adapter.Messages)
}
