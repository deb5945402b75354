package retention

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// maskTauFixture is a run whose first lookup returns a 150-word result
// holding the payment ID the gold action needs, followed by four small
// lookups (so the first result is outside the newest three).
func maskTauFixture(t *testing.T) Run {
	t.Helper()
	big := make([]string, 150)
	for i := range big {
		big[i] = fmt.Sprintf("w%d", i)
	}
	big[70] = "credit_card_77"
	traj := []string{
		`{"role": "system", "content": "policy"}`,
		`{"role": "user", "content": "I am ann_2, book it"}`,
		`{"role": "assistant", "content": null, "tool_calls": [{"id": "u", "type": "function", "function": {"name": "get_user_details", "arguments": "{\"user_id\": \"ann_2\"}"}}]}`,
		`{"role": "tool", "tool_call_id": "u", "name": "get_user_details", "content": "` + strings.Join(big, " ") + `"}`,
	}
	for k := range 4 {
		id := fmt.Sprintf("s%d", k)
		traj = append(traj,
			`{"role": "assistant", "content": null, "tool_calls": [{"id": "`+id+`", "type": "function", "function": {"name": "search", "arguments": "{\"n\": `+fmt.Sprint(k)+`}"}}]}`,
			`{"role": "tool", "tool_call_id": "`+id+`", "name": "search", "content": "nothing"}`)
	}
	traj = append(traj, `{"role": "assistant", "content": null, "tool_calls": [{"id": "b", "type": "function", "function": {"name": "book", "arguments": "{\"user_id\": \"ann_2\", \"payment_id\": \"credit_card_77\"}"}}]}`)
	data := `{"info": {"task": {"actions": [{"name": "book", "kwargs": {"user_id": "ann_2", "payment_id": "credit_card_77"}}]}}, "traj": [` + strings.Join(traj, ",\n") + `]}`
	run, err := LoadTau("mask", strings.NewReader(data))
	require.NoError(t, err)
	return run
}

func maskEvaluator() *Evaluator {
	return &Evaluator{
		Env:      Env{Embedder: chitta.NewCachedEmbedder(chitta.NewHashEmbedder(64), 1024)},
		Methods:  []Method{Chitta{}},
		Ratios:   []float64{1},
		NewStore: func(dims int) (chitta.MemoryStore, error) { return chitta.NewHNSWStore(dims, nil) },
	}
}

var testMaskRows = []MaskRow{{Name: "plain"}, {Name: "masked", Mask: &chitta.MaskOptions{}}}

// A value only in a masked result is lost; calls are kept either way.
func TestMaskTau(t *testing.T) {
	t.Parallel()
	e := maskEvaluator()
	require.NoError(t, e.MaskTau(t.Context(), []Run{maskTauFixture(t)}, testMaskRows))
	get := func(dataset, row, metric string) Frac {
		return e.Results.Tally(dataset, row, 1, 0).Get(metric)
	}
	for _, d := range []string{MaskTau, MaskTauNonSystem} {
		assert.InDelta(t, 1.0, get(d, "plain", ArgumentRecall).Value(0), 1e-9, d)
		assert.InDelta(t, 0.5, get(d, "masked", ArgumentRecall).Value(0), 1e-9, "%s: ann_2 is in the user turn, credit_card_77 only in the masked result", d)
		assert.InDelta(t, 1.0, get(d, "masked", CallsKept).Value(0), 1e-9)
		assert.Equal(t, 5.0, get(d, "masked", CallsKept).Den, "five calls before the cut")
		assert.InDelta(t, 1.0, get(d, "masked", PairIntegrity).Value(1), 1e-9)
		assert.Equal(t, 1, get(d, "masked", MsPerCompaction).N)
	}
}

const sweFixture = `{"environment": "x", "history": [
  {"role": "system", "content": "SETTING", "agent": "main"},
  {"role": "user", "content": "fix missing_colon.py", "agent": "main"},
  {"role": "assistant", "content": "find it", "agent": "main", "tool_calls": [{"function": {"arguments": "{\"file_name\":\"missing_colon.py\"}", "name": "find_file"}, "id": "f1", "type": "function"}]},
  {"role": "tool", "content": "Found /repo/tests/missing_colon.py", "agent": "main", "tool_call_ids": ["f1"]},
  {"role": "assistant", "content": "open it", "agent": "main", "tool_calls": [{"function": {"arguments": "{\"path\":\"/repo/tests/missing_colon.py\"}", "name": "open"}, "id": "f2", "type": "function"}]},
  {"role": "tool", "content": "1: def division(a, b) -> float", "agent": "main", "tool_call_ids": ["f2"]}
]}`

func TestLoadSWEHistoryAndNextCalls(t *testing.T) {
	t.Parallel()
	run, err := LoadSWEHistory("swe", strings.NewReader(sweFixture))
	require.NoError(t, err)
	require.Len(t, run.Messages, 6)
	assert.Equal(t, []string{"f1"}, run.Messages[3].ToolResultIDs)
	require.Len(t, run.Calls[4], 1)
	assert.JSONEq(t, `{"path":"/repo/tests/missing_colon.py"}`, string(run.Calls[4][0].Args))

	e := maskEvaluator()
	require.NoError(t, e.MaskNextCalls(t.Context(), MaskSWE, []Run{run}, testMaskRows))
	tl := e.Results.Tally(MaskSWE, "masked", 1, 0)
	// Cut before message 2: missing_colon.py is not in the prefix as a
	// whole value ("fix missing_colon.py" contains it: it counts); cut
	// before message 4: the path is in the find_file result.
	assert.Equal(t, 2.0, tl.Get(ArgumentRecall).Den)
	assert.InDelta(t, 1.0, tl.Get(ArgumentRecall).Value(0), 1e-9)
	assert.Equal(t, 2, tl.Get(MsPerCompaction).N, "one cut per message issuing calls")

	_, err = LoadSWEHistory("bad", strings.NewReader(`{"history": 3}`))
	require.ErrorIs(t, err, ErrInvalidData)
	_, err = LoadSWEHistory("bad", strings.NewReader(`{"history": [{"content": "no role"}]}`))
	require.ErrorIs(t, err, ErrInvalidData)
}

// A needed turn counts only while the term that made it needed is still
// in what is returned.
func TestMaskClaudeNeeded(t *testing.T) {
	t.Parallel()
	big := make([]string, 150)
	for i := range big {
		big[i] = "line"
	}
	big[10] = "internal/parser/lexer.go"
	raw := []string{
		`{"role":"user","content":"look at the parser"}`,
		`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Grep","input":{"pattern":"lex"}}]}`,
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"` + strings.Join(big, " ") + `"}]}`,
	}
	var uses [][]ToolUse
	prompts := []bool{true, false, false}
	for k := range 4 {
		id := fmt.Sprintf("r%d", k)
		raw = append(raw,
			`{"role":"assistant","content":[{"type":"tool_use","id":"`+id+`","name":"Bash","input":{"command":"ls"}}]}`,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+id+`","content":"ok"}]}`)
		prompts = append(prompts, false, false)
	}
	raw = append(raw, `{"role":"assistant","content":[{"type":"tool_use","id":"e","name":"Edit","input":{"file_path":"internal/parser/lexer.go"}}]}`)
	prompts = append(prompts, false)
	msgs, err := chitta.ParseMessages([]byte("[" + strings.Join(raw, ",") + "]"))
	require.NoError(t, err)
	for i := range msgs {
		var u []ToolUse
		if i == len(msgs)-1 {
			u = []ToolUse{{Name: "Edit", Input: json.RawMessage(`{"file_path":"internal/parser/lexer.go"}`)}}
		}
		uses = append(uses, u)
	}
	s := Session{ID: "s", Messages: msgs, Prompts: prompts, ToolUses: uses}
	cuts := s.Cuts(&CutOptions{TurnEvery: -1, PromptEvery: 1, MinPrefix: 1})
	require.Empty(t, cuts, "no prompt cut after the first message; use a message cut")
	o := &CutOptions{TurnEvery: len(msgs) - 1, MinPrefix: 1}
	cuts = s.Cuts(o)
	require.Len(t, cuts, 1)
	require.Equal(t, []int{2}, cuts[0].Needed)

	e := maskEvaluator()
	require.NoError(t, e.MaskClaude(context.Background(), []Session{s}, o, testMaskRows))
	assert.InDelta(t, 1.0, e.Results.Tally(MaskClaude, "plain", 1, 0).Get(NeededRecall).Value(0), 1e-9)
	assert.InDelta(t, 0.0, e.Results.Tally(MaskClaude, "masked", 1, 0).Get(NeededRecall).Value(1), 1e-9, "the path is only in the masked result")
	assert.InDelta(t, 1.0, e.Results.Tally(MaskClaude, "masked", 1, 0).Get(CallsKept).Value(0), 1e-9)
}

func TestInterleave(t *testing.T) {
	t.Parallel()
	rows := []MaskRow{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	names := func(rs []MaskRow) (out []string) {
		for _, r := range rs {
			out = append(out, r.Name)
		}
		return out
	}
	assert.Equal(t, []string{"a", "b", "c"}, names(interleave(rows, 0)))
	assert.Equal(t, []string{"b", "c", "a"}, names(interleave(rows, 1)))
	assert.Equal(t, []string{"a", "b", "c"}, names(interleave(rows, 3)))
	assert.Equal(t, []string{"a", "b", "c"}, names(rows), "the input is not modified")
}

// A MaskRow's RelevanceReserve and Lexical reach chitta.Compact: the row
// keeps what Compact with those options keeps, and here that differs from
// the row without them (an old exact match of the query).
func TestMaskRowReserve(t *testing.T) {
	t.Parallel()
	msgs := []chitta.Message{{Role: chitta.RoleUser, Content: "start the migration"}}
	for k := range 20 {
		text := fmt.Sprintf("step %d of the migration copied table t%d and checked the row counts again", k, k)
		if k == 1 {
			text = "the rollback key is zq_4471 and the vault path is /srv/vault/zq"
		}
		msgs = append(msgs, chitta.Message{Role: chitta.RoleAssistant, Content: text},
			chitta.Message{Role: chitta.RoleUser, Content: fmt.Sprintf("ok, continue with step %d please", k+1)})
	}
	e := maskEvaluator()
	const query = "what is the rollback key zq_4471 vault path"
	row := MaskRow{Name: "reserve", RelevanceReserve: 0.5, Lexical: 0.3}
	got, _, err := e.compactRow(t.Context(), row, msgs, query, 0.2, 0)
	require.NoError(t, err)
	want, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Query: query, TargetRatio: 0.2, Embedder: e.Env.Embedder, RelevanceReserve: 0.5, Lexical: 0.3})
	require.NoError(t, err)
	assert.Equal(t, want.Kept, keptIndices(got.kept))
	plain, _, err := e.compactRow(t.Context(), MaskRow{Name: "plain"}, msgs, query, 0.2, 0)
	require.NoError(t, err)
	assert.True(t, got.kept[3], "the reserve keeps the old exact match")
	assert.NotEqual(t, plain.kept, got.kept, "without the reserve the selection differs")
}

// keptIndices returns the indices whose flag is set, ascending.
func keptIndices(kept []bool) []int {
	var out []int
	for i, k := range kept {
		if k {
			out = append(out, i)
		}
	}
	return out
}
