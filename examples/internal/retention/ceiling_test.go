package retention

import (
	"testing"

	"github.com/chitta-go/chitta"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNeededCeiling(t *testing.T) {
	t.Parallel()
	// Groups (tokens, needed messages): the prompt 0 (4, 0); A = 1–2 (4, 2);
	// B = 3–4 (20, 1); C = 5 (3, 1); D = 6 (3, 1); the latest step E = 7–8
	// (8, 1). 42 tokens. chitta pins the prompt and E (12 tokens, 1 needed).
	msgs := []chitta.Message{
		{Role: chitta.RoleUser, Content: wordText(4)},
		{Role: chitta.RoleAssistant, Content: wordText(2), ToolCallIDs: []string{"a"}},
		{Role: chitta.RoleTool, Content: wordText(2), ToolResultIDs: []string{"a"}},
		{Role: chitta.RoleAssistant, Content: wordText(2), ToolCallIDs: []string{"b"}},
		{Role: chitta.RoleTool, Content: wordText(18), ToolResultIDs: []string{"b"}},
		{Role: chitta.RoleAssistant, Content: wordText(3)},
		{Role: chitta.RoleAssistant, Content: wordText(3)},
		{Role: chitta.RoleAssistant, Content: wordText(2), ToolCallIDs: []string{"c"}},
		{Role: chitta.RoleTool, Content: wordText(6), ToolResultIDs: []string{"c"}},
	}
	needed := []int{1, 2, 3, 5, 6, 8}
	tests := []struct {
		name   string
		ratio  float64
		pinned bool
		want   int
	}{
		// Budget 21, 9 left after the pins: A and C (or D) fit, 3 + E's 1.
		{"pinned", 0.5, true, 4},
		// Budget 21: A, C, D and E (18 tokens); B never fits beside them.
		{"free", 0.5, false, 5},
		// Budget 8 is below the pins' 12: only what they hold.
		{"pins over budget", 0.2, true, 1},
		// Budget 8: A and C (7 tokens) beat E alone (8 tokens, 1 needed).
		{"free small budget", 0.2, false, 3},
		{"everything", 1, true, len(needed)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			task := Task{Messages: msgs, Query: "fix", Ratio: tt.ratio}
			got, err := NeededCeiling(t.Context(), Env{Tokens: wordTokens}, task, needed, tt.pinned)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	// No method keeps more than the ceiling on the same budget.
	for _, m := range []Method{Recency{}, Chitta{}, Chitta{Label: "r", RelevanceReserve: 0.5, Lexical: 0.3}} {
		for _, ratio := range []float64{0.2, 0.5, 0.8} {
			task := Task{Messages: msgs, Query: "fix", Ratio: ratio}
			out, err := m.Select(t.Context(), Env{Tokens: wordTokens}, task, 0)
			require.NoError(t, err)
			kept := 0
			for _, i := range needed {
				if out.Kept[i] {
					kept++
				}
			}
			ceiling, err := NeededCeiling(t.Context(), Env{Tokens: wordTokens}, task, needed, false)
			require.NoError(t, err)
			if out.Result == nil || !out.Result.Stats.OverBudget {
				assert.LessOrEqual(t, kept, ceiling, "%s at %v", m.Name(), ratio)
			}
		}
	}
}
