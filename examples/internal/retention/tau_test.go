package retention

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tauFixture is a tau-bench-shaped run: a policy, a user giving an ID, one
// assistant turn with two parallel tool calls, their results, a
// confirmation, and the cancel call. The gold actions are the two lookups,
// the cancel, and one update the run never issues.
const tauFixture = `{
  "task_id": 7, "reward": 1.0,
  "info": {"task": {"user_id": "mia_1", "actions": [
    {"name": "get_user_details", "kwargs": {"user_id": "mia_1"}},
    {"name": "get_reservation_details", "kwargs": {"reservation_id": "ZX9QPL"}},
    {"name": "cancel_reservation", "kwargs": {"reservation_id": "ZX9QPL", "reason": "change of plan", "refund": true, "amount": 120}},
    {"name": "update_reservation_baggages", "kwargs": {"reservation_id": "ZX9QPL", "total_baggages": 2}}
  ]}},
  "traj": [
    {"role": "system", "content": "Airline policy: cancel only with a reason such as change of plan."},
    {"role": "user", "content": "Hi, I am mia_1 and I want to cancel reservation ZX9QPL."},
    {"role": "assistant", "content": null, "tool_calls": [
      {"id": "c1", "type": "function", "function": {"name": "get_user_details", "arguments": "{\"user_id\": \"mia_1\"}"}},
      {"id": "c2", "type": "function", "function": {"name": "get_reservation_details", "arguments": "{\"reservation_id\": \"ZX9QPL\"}"}}
    ]},
    {"role": "tool", "tool_call_id": "c1", "name": "get_user_details", "content": "{\"user_id\": \"mia_1\", \"name\": \"Mia\"}"},
    {"role": "tool", "tool_call_id": "c2", "name": "get_reservation_details", "content": "{\"reservation_id\": \"ZX9QPL\", \"amount\": 120}"},
    {"role": "assistant", "content": "I can cancel ZX9QPL for a refund of 120. Confirm?"},
    {"role": "user", "content": "Yes, please go ahead."},
    {"role": "assistant", "content": null, "tool_calls": [
      {"id": "c3", "type": "function", "function": {"name": "cancel_reservation", "arguments": "{\"amount\": 120, \"refund\": true, \"reason\": \"change of plan\", \"reservation_id\": \"ZX9QPL\"}"}}
    ]},
    {"role": "tool", "tool_call_id": "c3", "name": "cancel_reservation", "content": "ok"}
  ]
}`

func loadTauFixture(t *testing.T) Run {
	t.Helper()
	run, err := LoadTau("fixture", strings.NewReader(tauFixture))
	require.NoError(t, err)
	return run
}

func TestLoadTauAndCuts(t *testing.T) {
	t.Parallel()
	run := loadTauFixture(t)
	require.Len(t, run.Messages, 9)
	assert.Equal(t, []string{"c1", "c2"}, run.Messages[2].ToolCallIDs)
	assert.Len(t, run.Calls[2], 2)
	assert.JSONEq(t, `{"user_id": "mia_1"}`, string(run.Calls[2][0].Args), "arguments unquoted")
	cuts, missing := run.Cuts()
	require.Len(t, cuts, 3)
	assert.Equal(t, []int{2, 2, 7}, []int{cuts[0].Index, cuts[1].Index, cuts[2].Index}, "parallel calls share a cut")
	assert.Equal(t, "cancel_reservation", cuts[2].Action.Name, "arguments match regardless of key order")
	require.Len(t, missing, 1)
	assert.Equal(t, "update_reservation_baggages", missing[0].Name)
}

func TestArgumentValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args string
		want []string
	}{
		{`{"reservation_id": "ZX9QPL"}`, []string{"ZX9QPL"}},
		{`{"b": 120, "a": "x", "c": true, "d": null, "e": ""}`, []string{"x", "120"}},
		{`{"flights": [{"flight_number": "HAT1", "date": "2024-05-20"}, {"flight_number": "HAT1", "date": "2024-05-21"}]}`, []string{"2024-05-20", "HAT1", "2024-05-21"}},
		{`{"price": 12.50}`, []string{"12.50"}},
		{`not json`, nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ArgumentValues(json.RawMessage(tt.args)), tt.args)
	}
}

func TestEvaluatorTau(t *testing.T) {
	t.Parallel()
	run := loadTauFixture(t)
	e := &Evaluator{
		Env:      Env{Embedder: &bagEmbedder{dims: 256}, Tokens: wordTokens},
		Methods:  []Method{Chitta{}, Recency{}, Random{Seed: 1}},
		Ratios:   []float64{0.6, 1},
		NewStore: newSliceStore,
	}
	require.NoError(t, e.Tau(t.Context(), []Run{run}))
	vals := map[string]Row{}
	for _, r := range e.Results.Rows() {
		vals[fmt.Sprintf("%s/%s/%g", r.Method, r.Metric, r.Ratio)] = r
	}
	for _, m := range []string{"chitta", "recency", "random"} {
		for _, ratio := range []string{"0.6", "1"} {
			assert.InDelta(t, 1, vals[m+"/"+PairIntegrity+"/"+ratio].Value, 1e-12, "%s %s broke a pair", m, ratio)
		}
		// Measured values: mia_1 for the first lookup and ZX9QPL for the
		// second (both cut before message 2; only the user turn holds them),
		// ZX9QPL and 120 for the cancel ("change of plan" is in the system
		// prompt and left out; true is a boolean): 4 per run. At ratio 1
		// everything is kept.
		r := vals[m+"/"+ArgumentRecall+"/1"]
		assert.InDelta(t, 1, r.Value, 1e-12, m)
		runs := map[string]int{"random": 5}[m]
		assert.Equal(t, 4*max(runs, 1), r.N, m)
	}
	// Ratio 0.6, recency. Cut 2 holds system (12 words) and user (11): 23
	// tokens, budget 13: the system prompt fits with nothing else, so no
	// lookup value survives. Cut 7 (system 12, user 11, calls 6, results
	// 4+4, answer 10, confirmation 4 = 51 tokens, budget 30): newest first,
	// the confirmation (16), the answer (26; holds ZX9QPL and 120), then the
	// tool group (14) does not fit and neither does the user turn (11): 2 of
	// 2 values for the cancel, 2 of 4 overall.
	assert.InDelta(t, 0.5, vals["recency/"+ArgumentRecall+"/0.6"].Value, 1e-12)
	assert.NotEmpty(t, e.Results.Notes[Tau])
}

func TestEvaluatorTauNonSystem(t *testing.T) {
	t.Parallel()
	run := loadTauFixture(t)
	// Ratio 0.4, recency, cut 7. In the protocol's mode (51 tokens, budget
	// 20): system 12 + confirmation 4, the answer (10) no longer fits: 0 of
	// 4 values. With the system prompt outside the ratio (39 non-system
	// tokens: budget floor(0.4 × 39) = 15 on top of the system's 12):
	// confirmation and answer (14) fit, the tool group (14) does not: the
	// cancel's 2 values, 2 of 4. Cut 2 (user 11 tokens, budget 4 + 12)
	// keeps no lookup value in either mode.
	e := &Evaluator{
		Env:      Env{Embedder: &bagEmbedder{dims: 64}, Tokens: wordTokens},
		Methods:  []Method{Recency{}, Chitta{}},
		Ratios:   []float64{0.4},
		NewStore: newSliceStore,
	}
	require.NoError(t, e.Tau(t.Context(), []Run{run}))
	assert.InDelta(t, 0, e.Results.Tally(Tau, "recency", 0.4, 0).Get(ArgumentRecall).Value(-1), 1e-12)
	assert.InDelta(t, 0.5, e.Results.Tally(TauNonSystem, "recency", 0.4, 0).Get(ArgumentRecall).Value(-1), 1e-12)
	assert.Contains(t, strings.Join(e.Results.Notes[Tau], "\n"), "system prompt alone exceeds the budget")
	assert.Contains(t, strings.Join(e.Results.Notes[TauNonSystem], "\n"), "kept on top")
	for _, m := range []string{"recency", "chitta"} {
		f := e.Results.Tally(TauNonSystem, m, 0.4, 0).Get(ArgumentRecall)
		assert.Equal(t, 4, int(f.Den), "%s: both modes measure the same values", m)
	}
}

func TestNonSystemBudget(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		ratio       float64
		sys, nonsys int
		want        int
	}{
		{0.4, 12, 39, 27},
		{0.29, 1370, 100, 1399}, // 0.29 × 100 is 28.999… in float64
		{0.3, 0, 0, 1},          // nothing to keep: 1, never 0 (0 would mean "use the ratio")
		{1, 5, 10, 15},
	} {
		assert.Equal(t, tt.want, nonSystemBudget(tt.ratio, tt.sys, tt.nonsys), "%+v", tt)
	}
}
