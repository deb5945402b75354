package retention

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/chittatest"
)

// blindConversation has two sessions of four 4-word turns. Observations
// cite turn 1 (session 1) and turn 5 (session 2); questions cite turn 0,
// turns 2 and 6, and (category 5) turn 7.
func blindConversation() Conversation {
	texts := []string{
		"alpha bravo charlie delta", "echo foxtrot golf hotel", "india juliet kilo lima", "mike november oscar papa",
		"quebec romeo sierra tango", "uniform victor whiskey xray", "alpha yankee zulu one", "two three four five",
	}
	c := Conversation{ID: "blind", DiaIDs: []string{"D1:1", "D1:2", "D1:3", "D1:4", "D2:1", "D2:2", "D2:3", "D2:4"}}
	for i, t := range texts {
		role := chitta.RoleUser
		if i%2 == 1 {
			role = chitta.RoleAssistant
		}
		c.Messages = append(c.Messages, chitta.Message{Role: role, Content: t})
	}
	c.Observations = []Observation{{Text: "echo foxtrot golf hotel", Cites: []int{1}}, {Text: "uniform victor whiskey xray", Cites: []int{5}}}
	c.Questions = []Question{
		{Text: "alpha?", Category: 4, Evidence: []int{0}},
		{Text: "india and yankee?", Category: 1, Evidence: []int{2, 6}},
		{Text: "two?", Category: 5, Evidence: []int{7}},
	}
	return c
}

func TestConversationBoundaries(t *testing.T) {
	t.Parallel()
	c := blindConversation()
	assert.Equal(t, []Boundary{
		{End: 4, Query: "alpha bravo charlie delta\nindia juliet kilo lima"},
		{End: 8, Query: "quebec romeo sierra tango\nalpha yankee zulu one"},
	}, c.Boundaries())
	assert.Empty(t, (&Conversation{}).Boundaries())
}

func TestEvaluatorLoCoMoBlind(t *testing.T) {
	t.Parallel()
	var stores []*chittatest.Store
	e := &Evaluator{
		Env:     Env{Embedder: &bagEmbedder{dims: 1024}, Tokens: wordTokens},
		Methods: []Method{Recency{}},
		Ratios:  []float64{0.5},
		NewStore: func(int) (chitta.MemoryStore, error) {
			s := &chittatest.Store{}
			stores = append(stores, s)
			return s, nil
		},
	}
	require.NoError(t, e.LoCoMoBlind(t.Context(), []Conversation{blindConversation()}))
	// Boundary 1 (16 tokens, budget 8): recency keeps turns 2 and 3; of
	// the evidence in the prefix, question 1's turn 0 is lost and question
	// 2's turn 2 kept; question 3 has no evidence yet. Boundary 2 (budget
	// 16) keeps turns 4–7: turn 0 lost, turn 2 lost, turn 6 kept; question
	// 3's turn 7 kept. Pooled 1–4: 2 of 5, all uncovered.
	pool := e.Results.Tally(LoCoMoBlind, "recency", 0.5, 0)
	assert.InDelta(t, 0.4, pool.Get(EvidenceRecall).Value(-1), 1e-12)
	assert.InDelta(t, 0.4, pool.Get(UncoveredRecall).Value(-1), 1e-12)
	assert.Equal(t, 5.0, pool.Get(EvidenceRecall).Den)
	assert.Equal(t, 2, pool.Get(MsPerCompaction).N, "one compaction per boundary")
	adv := e.Results.Tally(LoCoMoBlind, "recency", 0.5, 5).Get(EvidenceRecall)
	assert.InDelta(t, 1, adv.Value(-1), 1e-12)
	assert.Equal(t, 1.0, adv.Den, "scored only after its session")
	// Memory at each boundary: only the observations of earlier turns.
	require.Len(t, stores, 2)
	assert.Len(t, stores[0].Memories, 1)
	assert.Len(t, stores[1].Memories, 2)
	assert.NotEmpty(t, e.Results.Notes[LoCoMoBlind])
}
