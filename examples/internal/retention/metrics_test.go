package retention

import (
	"testing"

	"github.com/chitta-go/chitta"
	"github.com/stretchr/testify/assert"
)

// parallelCalls is an assistant turn issuing two calls at once, each with
// its own result, then a lone call whose result is missing from the input.
var parallelCalls = []chitta.Message{
	{Role: chitta.RoleUser, Content: "check both"},
	{Role: chitta.RoleAssistant, Content: "calls", ToolCallIDs: []string{"a", "b"}},
	{Role: chitta.RoleTool, Content: "result a", ToolResultIDs: []string{"a"}},
	{Role: chitta.RoleTool, Content: "result b", ToolResultIDs: []string{"b"}},
	{Role: chitta.RoleAssistant, Content: "call c", ToolCallIDs: []string{"c"}},
}

func TestPairs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name            string
		kept            []bool
		intact, touched int
	}{
		{"nothing kept", []bool{true, false, false, false, false}, 0, 0},
		{"whole group kept", []bool{false, true, true, true, false}, 2, 2},
		{"one result dropped", []bool{false, true, true, false, false}, 1, 2},
		{"call dropped, results kept", []bool{false, false, true, true, false}, 0, 2},
		{"orphan call kept alone", []bool{false, false, false, false, true}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			intact, touched := Pairs(parallelCalls, tt.kept)
			assert.Equal(t, tt.intact, intact)
			assert.Equal(t, tt.touched, touched)
		})
	}
}

// reusedIDs has two different calls sharing the ID "x", as tau-bench
// trajectories do.
var reusedIDs = []chitta.Message{
	{Role: chitta.RoleAssistant, Content: "lookup", ToolCallIDs: []string{"x"}},
	{Role: chitta.RoleTool, Content: "first result", ToolResultIDs: []string{"x"}},
	{Role: chitta.RoleAssistant, Content: "calculate", ToolCallIDs: []string{"x"}},
	{Role: chitta.RoleTool, Content: "second result", ToolResultIDs: []string{"x"}},
}

func TestPairsReusedIDs(t *testing.T) {
	t.Parallel()
	intact, touched := Pairs(reusedIDs, []bool{true, true, false, false})
	assert.Equal(t, 1, intact)
	assert.Equal(t, 1, touched, "the second result does not answer the first call")
	intact, touched = Pairs(reusedIDs, []bool{true, false, false, true})
	assert.Equal(t, 0, intact)
	assert.Equal(t, 2, touched)
	// Every method keeps the reused-ID groups whole.
	for _, m := range []Method{Chitta{}, Recency{}, Random{Seed: 2}} {
		for _, ratio := range []float64{0.3, 0.5, 0.7} {
			out, err := m.Select(t.Context(), Env{Embedder: &bagEmbedder{dims: 16}, Tokens: wordTokens}, Task{Messages: reusedIDs, Ratio: ratio}, 0)
			if assert.NoError(t, err) {
				intact, touched := Pairs(reusedIDs, out.Kept)
				assert.Equal(t, touched, intact, "%s at %v", m.Name(), ratio)
			}
		}
	}
}

func TestAddPairsEmptyIsWhole(t *testing.T) {
	t.Parallel()
	var r Results
	tally := r.Tally(Tau, "m", 0.5, 0)
	addPairs(tally, parallelCalls, []bool{true, false, false, false, false})
	rows := r.Rows()
	if assert.Len(t, rows, 1) {
		assert.Equal(t, PairIntegrity, rows[0].Metric)
		assert.InDelta(t, 1, rows[0].Value, 1e-12, "no pair touched: nothing broken")
	}
	addPairs(tally, parallelCalls, []bool{false, true, true, false, false})
	assert.InDelta(t, 0.5, r.Rows()[0].Value, 1e-12)
}

func TestAddEvidence(t *testing.T) {
	t.Parallel()
	// Six turns of 4 tokens; turns 0 and 3 are cited by an observation.
	covered := []bool{true, false, false, true, false, false}
	tokens := []int{4, 4, 4, 4, 4, 4}
	tests := []struct {
		name     string
		evidence []int
		kept     []bool
		want     map[string]float64
	}{
		{
			name:     "covered evidence dropped, uncovered kept",
			evidence: []int{0, 2},
			kept:     []bool{false, false, true, false, true, false},
			want: map[string]float64{
				EvidenceRecall: 0.5, KeptOrCoveredRecall: 1, UncoveredRecall: 1,
				AllEvidenceKept: 0, CoveredTokenShare: 0,
			},
		},
		{
			name:     "all kept, half the budget on covered turns",
			evidence: []int{0, 2},
			kept:     []bool{true, false, true, false, false, false},
			want: map[string]float64{
				EvidenceRecall: 1, KeptOrCoveredRecall: 1, UncoveredRecall: 1,
				AllEvidenceKept: 1, CoveredTokenShare: 0.5,
			},
		},
		{
			name:     "only covered evidence, none kept",
			evidence: []int{3},
			kept:     []bool{false, false, false, false, true, true},
			want: map[string]float64{
				EvidenceRecall: 0, KeptOrCoveredRecall: 1, AllEvidenceKept: 0, CoveredTokenShare: 0,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var tally Tally
			addEvidence(&tally, tt.evidence, covered, Outcome{Kept: tt.kept, Tokens: tokens})
			for m, want := range tt.want {
				assert.InDelta(t, want, tally.Get(m).Value(-1), 1e-12, m)
			}
			if _, ok := tt.want[UncoveredRecall]; !ok {
				assert.Zero(t, tally.Get(UncoveredRecall).N, "no uncovered evidence: nothing to measure")
			}
		})
	}
}

func TestFracAndTally(t *testing.T) {
	t.Parallel()
	var tally Tally
	assert.Equal(t, Frac{}, tally.Get(EvidenceRecall))
	tally.Add(EvidenceRecall, 1, 2)
	tally.Add(EvidenceRecall, 3, 4)
	f := tally.Get(EvidenceRecall)
	assert.Equal(t, 2, f.N)
	assert.InDelta(t, 4.0/6, f.Value(-1), 1e-12)
	assert.InDelta(t, -1, Frac{}.Value(-1), 1e-12)
}
