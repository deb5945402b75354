package retention

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// sweEditFixture is a SWE-agent-shaped trajectory written for these tests:
// the agent opens util.py, then calc.py, and edits line 2 of calc.py by
// search and replace (no path: the open file).
const sweEditFixture = `{"environment": "x", "history": [
 {"role": "system", "content": "You edit files with open and edit."},
 {"role": "user", "content": "Fix the syntax error in calc.py: divide fails."},
 {"role": "assistant", "content": "Look at util first.", "tool_calls": [{"id": "t1", "type": "function", "function": {"name": "open", "arguments": "{\"path\":\"/r/util.py\"}"}}]},
 {"role": "tool", "tool_call_ids": ["t1"], "content": "[File: /r/util.py (2 lines total)]\r\n1:x = 1\r\n2:y = 2\n(Open file: /r/util.py)"},
 {"role": "assistant", "content": "Now calc.", "tool_calls": [{"id": "t2", "type": "function", "function": {"name": "open", "arguments": "{\"path\":\"/r/calc.py\"}"}}]},
 {"role": "tool", "tool_call_ids": ["t2"], "content": "[File: /r/calc.py (4 lines total)]\r\n1:import os\r\n2:def divide(a, b)\r\n3:    return a/b\r\n4:\n(Open file: /r/calc.py)"},
 {"role": "assistant", "content": "Add the colon.", "tool_calls": [{"id": "t3", "type": "function", "function": {"name": "edit", "arguments": "{\"search\":\"def divide(a, b)\",\"replace\":\"def divide(a, b):\"}"}}]},
 {"role": "tool", "tool_call_ids": ["t3"], "content": "Replaced 1 occurrences.\n(Open file: /r/calc.py)"}
]}`

func loadSWEEditFixture(t *testing.T) Trajectory {
	t.Helper()
	tr, err := LoadSWE("fixture", strings.NewReader(sweEditFixture))
	require.NoError(t, err)
	return tr
}

func TestLoadSWEAndEditCuts(t *testing.T) {
	t.Parallel()
	tr := loadSWEEditFixture(t)
	require.Len(t, tr.Messages, 8)
	assert.Equal(t, []string{"t3"}, tr.Messages[7].ToolResultIDs)
	assert.Equal(t, "edit", tr.Calls[6][0].Name)
	assert.Equal(t, []View{{Path: "/r/calc.py", Lines: map[int]string{1: "import os", 2: "def divide(a, b)", 3: "    return a/b", 4: ""}}}, Views(tr.Messages[5].Content))
	// The edit has no path: the open file is calc.py (not the first view);
	// its search text holds line 2 only (line 4 is blank).
	assert.Equal(t, []EditCut{{Index: 6, Items: []EditItem{{Path: "/r/calc.py"}, {Path: "/r/calc.py", Line: 2}}}}, tr.EditCuts())

	_, err := LoadSWE("bad", strings.NewReader(`{"history": [{"role": 3}]}`))
	require.ErrorIs(t, err, ErrInvalidData)
	_, err = LoadSWE("bad", strings.NewReader(`{`))
	require.ErrorIs(t, err, ErrInvalidData)
}

func TestSWEItemKept(t *testing.T) {
	t.Parallel()
	tr := loadSWEEditFixture(t)
	file, line, other := EditItem{Path: "/r/calc.py"}, EditItem{Path: "/r/calc.py", Line: 2}, EditItem{Path: "/r/calc.py", Line: 9}
	kept := make([]bool, 6)
	assert.False(t, itemKept(tr.Messages[:6], kept, file), "nothing kept")
	kept[3] = true // the util.py view
	assert.False(t, itemKept(tr.Messages[:6], kept, file))
	kept[5] = true // the calc.py view
	assert.True(t, itemKept(tr.Messages[:6], kept, file))
	assert.True(t, itemKept(tr.Messages[:6], kept, line))
	assert.False(t, itemKept(tr.Messages[:6], kept, other), "a line the view does not show")
}

// spyMethod keeps only pinned messages and records the tasks it sees.
type spyMethod struct {
	mu    sync.Mutex
	tasks []Task
}

func (s *spyMethod) Name() string { return "spy" }
func (s *spyMethod) Runs() int    { return 1 }
func (s *spyMethod) Select(_ context.Context, _ Env, t Task, _ int) (Outcome, error) {
	s.mu.Lock()
	s.tasks = append(s.tasks, t)
	s.mu.Unlock()
	out := Outcome{Kept: make([]bool, len(t.Messages)), Tokens: make([]int, len(t.Messages))}
	for i, m := range t.Messages {
		out.Kept[i] = m.Role.Pinned()
	}
	return out, nil
}

func TestEvaluatorSWE(t *testing.T) {
	t.Parallel()
	tr := loadSWEEditFixture(t)
	spy := &spyMethod{}
	e := &Evaluator{
		Env:      Env{Embedder: &bagEmbedder{dims: 64}, Tokens: wordTokens},
		Methods:  []Method{Recency{}, Chitta{}, spy},
		Ratios:   []float64{0.3, 1},
		NewStore: newSliceStore,
	}
	require.NoError(t, e.SWE(t.Context(), []Trajectory{tr}))
	for _, m := range []string{"recency", "chitta"} {
		f := e.Results.Tally(SWE, m, 1, 0).Get(EditContextRecall)
		assert.InDelta(t, 1, f.Value(-1), 1e-12, "%s keeps everything at ratio 1", m)
		assert.Equal(t, 2.0, f.Den, "the file and line 2")
		assert.InDelta(t, 1, e.Results.Tally(SWE, m, 0.3, 0).Get(PairIntegrity).Value(1), 1e-12)
	}
	assert.InDelta(t, 0, e.Results.Tally(SWE, "spy", 1, 0).Get(EditContextRecall).Value(-1), 1e-12, "nothing but the system prompt kept")
	// The budget puts the system prompt outside the ratio.
	require.Len(t, spy.tasks, 2)
	sys, nonsys := 0, 0
	for _, m := range spy.tasks[0].Messages {
		if m.Role.Pinned() {
			sys += chitta.CountWords(m.Content)
		} else {
			nonsys += chitta.CountWords(m.Content)
		}
	}
	assert.Equal(t, sys+int(0.3*float64(nonsys)), spy.tasks[0].MaxTokens)
	assert.Equal(t, sys+nonsys, spy.tasks[1].MaxTokens)
	assert.Len(t, spy.tasks[0].Messages, 6, "the prefix before the edit")
	assert.Equal(t, "Fix the syntax error in calc.py: divide fails.", spy.tasks[0].Query)
}
