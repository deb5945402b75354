package retention

import (
	"strings"
	"testing"

	"github.com/chitta-go/chitta"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const locomoFixture = `[{
  "sample_id": "conv-x",
  "conversation": {
    "speaker_a": "Ann", "speaker_b": "Bob",
    "session_2_date_time": "1 May 2023",
    "session_2": [
      {"speaker": "Ann", "dia_id": "D2:1", "text": "I adopted a cat."},
      {"speaker": "Bob", "dia_id": "D2:2", "text": "Lovely!", "blip_caption": "a photo of a cat"}
    ],
    "session_1_date_time": "1 April 2023",
    "session_1": [
      {"speaker": "Ann", "dia_id": "D1:1", "text": "Hi Bob."},
      {"speaker": "Bob", "dia_id": "D1:2", "text": "Hi Ann, I paint."}
    ],
    "session_3_date_time": "no session list for this date"
  },
  "qa": [
    {"question": "What does Bob do?", "answer": "paints", "evidence": ["D1:2"], "category": 4},
    {"question": "When did Ann adopt?", "answer": 2023, "evidence": ["D2:1; D1:1", "D9:9"], "category": 2},
    {"question": "Who is Zed?", "adversarial_answer": "nobody", "evidence": ["D"], "category": 5},
    {"question": "Did Bob share a picture?", "adversarial_answer": "no", "evidence": ["D2:2"], "category": 5}
  ],
  "observation": {
    "session_2_observation": {"Ann": [["Ann adopted a cat.", "D2:1"]]},
    "session_1_observation": {"Bob": [["Bob paints.", "D1:2"], ["They greeted.", ["D1:1", "D1:2"]]]}
  }
}]`

func TestLoadLoCoMo(t *testing.T) {
	t.Parallel()
	convs, err := LoadLoCoMo(strings.NewReader(locomoFixture))
	require.NoError(t, err)
	require.Len(t, convs, 1)
	c := convs[0]
	assert.Equal(t, "conv-x", c.ID)
	assert.Equal(t, []string{"D1:1", "D1:2", "D2:1", "D2:2"}, c.DiaIDs, "sessions in numeric order")
	assert.Equal(t, []chitta.Message{
		{Role: chitta.RoleUser, Content: "Ann: Hi Bob."},
		{Role: chitta.RoleAssistant, Content: "Bob: Hi Ann, I paint."},
		{Role: chitta.RoleUser, Content: "Ann: I adopted a cat."},
		{Role: chitta.RoleAssistant, Content: "Bob: Lovely!\n[image: a photo of a cat]"},
	}, c.Messages)
	assert.Equal(t, []Question{
		{Text: "What does Bob do?", Category: 4, Evidence: []int{1}},
		{Text: "When did Ann adopt?", Category: 2, Evidence: []int{0, 2}},
		{Text: "Did Bob share a picture?", Category: 5, Evidence: []int{3}},
	}, c.Questions)
	assert.Equal(t, 2, c.BadEvidence, `"D9:9" and "D"`)
	assert.Equal(t, 1, c.NoEvidence)
	assert.Equal(t, []Observation{
		{Text: "Bob paints.", Cites: []int{1}},
		{Text: "They greeted.", Cites: []int{0, 1}},
		{Text: "Ann adopted a cat.", Cites: []int{2}},
	}, c.Observations)
	assert.Equal(t, []bool{true, true, true, false}, c.Covered())
}

func TestLoadLoCoMoErrors(t *testing.T) {
	t.Parallel()
	const turn = `"session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]`
	for _, tc := range []struct{ in, want string }{
		{``, "locomo: EOF"},
		{`{"not": "a list"}`, "locomo: json"},
		{`[{"conversation": {"speaker_a": 3}}]`, "locomo item 0: speaker_a: want a string"},
		{`[{"conversation": {"session_1": "not turns"}}]`, "locomo item 0: session_1: want a list of turns"},
		{`[{"conversation": {` + turn + `}, "observation": {"session_1_observation": {"A": [["only a fact"]]}}}]`, "want [fact, dia_id]"},
		{`[{"conversation": {` + turn + `}, "observation": {"session_1_observation": {"A": [["fact", 7]]}}}]`, "dia_id: want a string or a list of strings"},
		// An item without turns is not an empty conversation.
		{`[{"conversation": {` + turn + `}}, {"sample_id": "conv-9", "qa": []}]`, `locomo item 1 (sample_id "conv-9"): conversation: required`},
		{`[{"sample_id": "conv-9", "conversation": null}]`, `locomo item 0 (sample_id "conv-9"): conversation: required`},
		{`[{"conversation": {"speaker_a": "A", "session_1_date_time": "1 May"}}]`, "locomo item 0: conversation: no turns"},
		{`[{"conversation": {"session_1": []}}]`, "locomo item 0: conversation: no turns"},
	} {
		_, err := LoadLoCoMo(strings.NewReader(tc.in))
		require.ErrorIs(t, err, ErrInvalidData, tc.in)
		assert.ErrorContains(t, err, tc.want, tc.in)
	}
}

// coveredConversation has six 4-word turns. Turn 0 is evidence that an
// observation states word for word (memory-covered); turns 2 and 4 are
// evidence nothing covers. With one token per word the budget at ratio
// 0.34 is 8 tokens: two turns.
func coveredConversation() Conversation {
	msgs := []chitta.Message{
		{Role: chitta.RoleUser, Content: "alpha bravo charlie delta"},
		{Role: chitta.RoleAssistant, Content: "echo foxtrot golf hotel"},
		{Role: chitta.RoleUser, Content: "india juliet kilo lima"},
		{Role: chitta.RoleAssistant, Content: "mike november oscar papa"},
		{Role: chitta.RoleUser, Content: "quebec romeo sierra tango"},
		{Role: chitta.RoleAssistant, Content: "uniform victor whiskey xray"},
	}
	return Conversation{
		ID:           "fixture",
		Messages:     msgs,
		DiaIDs:       []string{"D1:1", "D1:2", "D1:3", "D1:4", "D1:5", "D1:6"},
		Observations: []Observation{{Text: "alpha bravo charlie delta", Cites: []int{0}}},
		Questions: []Question{
			{Text: "alpha bravo india", Category: 1, Evidence: []int{0, 2, 4}},
			{Text: "whiskey", Category: 5, Evidence: []int{5}},
		},
	}
}

func TestEvaluatorLoCoMo(t *testing.T) {
	t.Parallel()
	e := &Evaluator{
		Env: Env{Embedder: &bagEmbedder{dims: 1024}, Tokens: wordTokens},
		// The chitta figures below follow the greedy rule (FreeSelection):
		// by default the live turn (turns 4 and 5) would fill the whole
		// 8-token budget, as chitta-live shows.
		Methods: []Method{Chitta{FreeSelection: true}, Chitta{Label: "chitta-nomem", NoMemory: true, FreeSelection: true}, Recency{},
			Chitta{Label: "chitta-live"}},
		Ratios:   []float64{0.34},
		NewStore: newSliceStore,
	}
	require.NoError(t, e.LoCoMo(t.Context(), []Conversation{coveredConversation()}))
	got := map[string]float64{}
	for _, r := range e.Results.Rows() {
		if r.Metric != MsPerCompaction {
			got[r.Method+"/"+string(rune('0'+r.Category))+"/"+r.Metric] = r.Value
		}
	}
	// Scores (structural × (0.3·recency + 0.4·semantic + 0.3·(1 − coverage))):
	// with memory, turn 0 (coverage 1) falls to 0.26 and chitta keeps turns
	// 2 (0.55) and 4 (0.55); without memory turn 0 scores 0.56 and is kept
	// with turn 2; recency keeps turns 4 and 5.
	want := map[string]float64{
		"chitta/0/" + EvidenceRecall: 2.0 / 3, "chitta/0/" + KeptOrCoveredRecall: 1, "chitta/0/" + UncoveredRecall: 1,
		"chitta/0/" + CoveredTokenShare: 0, "chitta/0/" + AllEvidenceKept: 0,
		"chitta-nomem/0/" + EvidenceRecall: 2.0 / 3, "chitta-nomem/0/" + KeptOrCoveredRecall: 2.0 / 3, "chitta-nomem/0/" + UncoveredRecall: 0.5,
		"chitta-nomem/0/" + CoveredTokenShare: 0.5, "chitta-nomem/0/" + AllEvidenceKept: 0,
		"recency/0/" + EvidenceRecall: 1.0 / 3, "recency/0/" + KeptOrCoveredRecall: 2.0 / 3, "recency/0/" + UncoveredRecall: 0.5,
		"recency/0/" + CoveredTokenShare: 0, "recency/0/" + AllEvidenceKept: 0,
		"recency/5/" + EvidenceRecall: 1, "recency/5/" + AllEvidenceKept: 1,
		"chitta-live/0/" + EvidenceRecall: 1.0 / 3, "chitta-live/0/" + KeptOrCoveredRecall: 2.0 / 3, "chitta-live/0/" + UncoveredRecall: 0.5,
		"chitta/5/" + EvidenceRecall: 1, "chitta-nomem/5/" + EvidenceRecall: 1,
	}
	for k, v := range want {
		if assert.Contains(t, got, k) {
			assert.InDelta(t, v, got[k], 1e-6, k)
		}
	}
	// Category 1 rows repeat the pooled ones; category 5 stays out of the pool.
	assert.InDelta(t, got["chitta-nomem/0/"+UncoveredRecall], got["chitta-nomem/1/"+UncoveredRecall], 1e-12)
	assert.NotEmpty(t, e.Results.Notes[LoCoMo])
}

func TestEvaluatorConfig(t *testing.T) {
	t.Parallel()
	good := Evaluator{Env: Env{Embedder: &bagEmbedder{dims: 8}}, Methods: []Method{Recency{}}, Ratios: []float64{0.5}, NewStore: newSliceStore}
	for name, mutate := range map[string]func(*Evaluator){
		"no embedder": func(e *Evaluator) { e.Env.Embedder = nil },
		"no methods":  func(e *Evaluator) { e.Methods = nil },
		"no ratios":   func(e *Evaluator) { e.Ratios = nil },
		"no store":    func(e *Evaluator) { e.NewStore = nil },
	} {
		e := good
		mutate(&e)
		require.ErrorIs(t, e.LoCoMo(t.Context(), nil), ErrInvalidConfig, name)
		require.ErrorIs(t, e.Tau(t.Context(), nil), ErrInvalidConfig, name)
		require.ErrorIs(t, e.Claude(t.Context(), nil, nil), ErrInvalidConfig, name)
	}
	e := good
	require.NoError(t, e.LoCoMo(t.Context(), nil))
}
