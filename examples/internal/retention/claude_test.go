package retention

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chitta-go/chitta"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestToolTerms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{"read", `{"file_path": "/repo/internal/parse_config.go"}`, []string{"/repo/internal/parse_config.go", "parse_config.go"}},
		{"bash", `{"command": "cd /repo && go test ./... | tail -5", "description": "Run tests"}`, []string{"go test", "/repo"}}, // "./..." trims to "/", too short
		{"env prefix, flags", `{"command": "GOFLAGS=-x make -j4 build"}`, []string{"make", "GOFLAGS"}},
		{"identifiers", `{"pattern": "func parseConfig", "glob": "*.go"}`, []string{"parseConfig"}},
		{"plain words dropped", `{"description": "look at the thing", "todos": [{"content": "fix it"}]}`, nil},
		{"dotted", `{"old_string": "cfg.LoadFile(path)"}`, []string{"cfg.LoadFile"}},
		{"not json", `{`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := ToolTerms(ToolUse{Input: json.RawMessage(tt.input)})
			assert.ElementsMatch(t, tt.want, got)
		})
	}
}

// claudeSession builds a session of n messages: a prompt, then rounds of
// (assistant call, tool result, assistant text). The call of round r reads
// file_r.go; the text of round r mentions file_{r+3}.go.
func claudeSession(n int) Session {
	s := Session{ID: "s1"}
	add := func(m chitta.Message, prompt bool, uses []ToolUse) {
		s.Messages = append(s.Messages, m)
		s.Prompts = append(s.Prompts, prompt)
		s.ToolUses = append(s.ToolUses, uses)
	}
	add(chitta.Message{Role: chitta.RoleUser, Content: "please refactor the loader"}, true, nil)
	for r := 0; len(s.Messages) < n; r++ {
		id := fmt.Sprintf("t%d", r)
		file := fmt.Sprintf("/src/file_%d.go", r)
		add(chitta.Message{Role: chitta.RoleAssistant, Content: "Read " + file, ToolCallIDs: []string{id}},
			false, []ToolUse{{Name: "Read", Input: json.RawMessage(`{"file_path": "` + file + `"}`)}})
		add(chitta.Message{Role: chitta.RoleUser, Content: "contents of file " + fmt.Sprint(r), ToolResultIDs: []string{id}}, false, nil)
		add(chitta.Message{Role: chitta.RoleAssistant, Content: fmt.Sprintf("next I will open file_%d.go", r+3)}, false, nil)
	}
	return s
}

func TestSessionCuts(t *testing.T) {
	t.Parallel()
	s := claudeSession(40)
	cuts := s.Cuts(&CutOptions{TurnEvery: 10, Window: 3})
	require.NotEmpty(t, cuts)
	first := cuts[0]
	// Round r is messages 1+3r (call), 2+3r (result), 3+3r (text): message
	// 10 is the call of round 3, so a cut at 10 separates nothing.
	assert.Equal(t, 10, first.Index)
	assert.Equal(t, "please refactor the loader", first.Query)
	// The window (messages 10–12) reads file_3.go; the prefix mentions it
	// in the text of round 0 (message 3) only.
	assert.Equal(t, []int{3}, first.Needed)
	assert.Equal(t, []string{"file_3.go"}, first.Terms)

	// A cut that would split a call from its result moves past the result.
	assert.Equal(t, 3, s.boundary(2), "message 2 is the result of the call at 1")
	assert.Equal(t, 4, s.boundary(4))

	// Prompt cuts: every 2nd real prompt.
	s.Prompts[19] = true
	s.Prompts[31] = true
	cuts = s.Cuts(&CutOptions{PromptEvery: 2, TurnEvery: -1, Window: 3})
	require.Len(t, cuts, 1, "prompts at 0, 19, 31: the 2nd is 19")
	assert.Equal(t, 19, cuts[0].Index)
	assert.Equal(t, s.Messages[19].Content, cuts[0].Query, "a prompt cut's query is the prompt")
}

// A tool-search result that loads a tool is needed by a later call of that
// tool, although no tool input names it: Claude Code sends a deferred
// tool's schema only while the result that loaded it is in the
// conversation.
func TestSessionCutsToolLoads(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"type":"user","uuid":"u0","message":{"role":"user","content":"plan the work"}}`,
		`{"type":"assistant","uuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"s1","name":"ToolSearch","input":{"query":"select:TaskUpdate"}}]}}`,
		`{"type":"user","uuid":"u2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"s1","content":[{"type":"tool_reference","tool_name":"TaskUpdate"}]}]}}`,
		`{"type":"assistant","uuid":"a3","message":{"id":"m3","role":"assistant","content":[{"type":"tool_use","id":"s2","name":"ToolSearch","input":{"query":"select:WebFetch"}}]}}`,
		`{"type":"user","uuid":"u4","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"s2","content":[{"type":"tool_reference","tool_name":"WebFetch"}]}]}}`,
	}
	for i := 5; i < 10; i++ {
		lines = append(lines, fmt.Sprintf(`{"type":"assistant","uuid":"a%d","message":{"id":"m%d","role":"assistant","content":[{"type":"text","text":"thinking %d"}]}}`, i, i, i))
	}
	// The window calls TaskUpdate (its input names no tool) but not WebFetch.
	lines = append(lines,
		`{"type":"assistant","uuid":"a10","message":{"id":"m10","role":"assistant","content":[{"type":"tool_use","id":"c","name":"TaskUpdate","input":{"taskId":"1","status":"completed"}}]}}`,
		`{"type":"user","uuid":"u11","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c","content":"Updated task #1"}]}}`)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	ss, err := LoadClaudeDir(dir)
	require.NoError(t, err)
	require.Len(t, ss, 1)
	require.Len(t, ss[0].Messages, 12)

	cuts := ss[0].Cuts(&CutOptions{TurnEvery: 10, Window: 2})
	require.Len(t, cuts, 1)
	assert.Equal(t, 10, cuts[0].Index)
	assert.Equal(t, []int{2}, cuts[0].Needed, "the result that loaded TaskUpdate, not the one that loaded WebFetch")
	assert.Equal(t, []string{"TaskUpdate"}, cuts[0].Terms)
}

func TestEvaluatorClaude(t *testing.T) {
	t.Parallel()
	s := claudeSession(61)
	episodes := 0
	record := func(ctx context.Context, store chitta.MemoryStore, emb chitta.Embedder, st chitta.Stats, session string) error {
		episodes++
		_, err := chitta.RecordEpisode(ctx, store, emb, st, session)
		return err
	}
	e := &Evaluator{
		Env:           Env{Embedder: &bagEmbedder{dims: 128}, Tokens: wordTokens},
		Methods:       []Method{Chitta{}, Chitta{Label: "chitta-nomem", NoMemory: true}, Recency{}, Random{Seed: 4}},
		Ratios:        []float64{0.3, 1},
		NewStore:      newSliceStore,
		RecordEpisode: record,
	}
	require.NoError(t, e.Claude(t.Context(), []Session{s}, &CutOptions{Window: 3}))
	cuts := len(s.Cuts(&CutOptions{Window: 3}))
	require.Positive(t, cuts)
	assert.Equal(t, 2*cuts, episodes, "one episode per cut and ratio, for chitta with memory only")
	for _, m := range e.Methods {
		for _, ratio := range e.Ratios {
			tally := e.Results.Tally(Claude, m.Name(), ratio, 0)
			assert.InDelta(t, 1, tally.Get(PairIntegrity).Value(1), 1e-12, "%s %v", m.Name(), ratio)
			assert.Equal(t, cuts*m.Runs(), tally.Get(NeededRecall).N)
		}
		assert.InDelta(t, 1, e.Results.Tally(Claude, m.Name(), 1, 0).Get(NeededRecall).Value(-1), 1e-12, "ratio 1 keeps everything")
	}
	var ceiling string
	for _, n := range e.Results.Notes[Claude] {
		if strings.HasPrefix(n, "label ceiling") {
			ceiling = n
		}
	}
	assert.Contains(t, ceiling, " / 1.000 with the live turn", "ratio 1 holds every needed turn, pinned or not")
	assert.Contains(t, ceiling, " / 1.000 without pins")
	bad := s
	bad.Prompts = bad.Prompts[:3]
	require.ErrorIs(t, e.Claude(t.Context(), []Session{bad}, nil), ErrInvalidData)
	bad = s
	bad.Loads = make([][]string, 3)
	require.ErrorIs(t, e.Claude(t.Context(), []Session{bad}, nil), ErrInvalidData, "Loads is nil or one list per message")
}

func TestLoadClaudeDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	main := `{"type":"user","uuid":"u1","sessionId":"S","isSidechain":false,"message":{"role":"user","content":"fix the parser"}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","isSidechain":false,"message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Reading it."}]}}
{"type":"assistant","uuid":"a2","parentUuid":"a1","isSidechain":false,"message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"tu1","name":"Read","input":{"file_path":"/p/parser.go"}}]}}
{"type":"user","uuid":"u2","parentUuid":"a2","isSidechain":false,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"tu1","content":"package p"}]}}
{"type":"summary","summary":"bookkeeping"}
`
	side := `{"type":"user","uuid":"s1","sessionId":"S","isSidechain":true,"message":{"role":"user","content":"You are a sub-agent: research X"}}
{"type":"assistant","uuid":"s2","parentUuid":"s1","isSidechain":true,"message":{"id":"m9","role":"assistant","content":[{"type":"text","text":"Done."}]}}
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(main), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b__subagents__x.jsonl"), []byte(side), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ignored.txt"), []byte("x"), 0o644))
	ss, err := LoadClaudeDir(dir)
	require.NoError(t, err)
	require.Len(t, ss, 2)
	a := ss[0]
	assert.Equal(t, "a", a.ID)
	require.Len(t, a.Messages, 3, "streamed assistant entries merged, bookkeeping skipped")
	assert.Equal(t, []bool{true, false, false}, a.Prompts)
	require.Len(t, a.ToolUses[1], 1)
	assert.Equal(t, "Read", a.ToolUses[1][0].Name)
	assert.Equal(t, []string{"tu1"}, a.Messages[1].ToolCallIDs)
	assert.Equal(t, []string{"tu1"}, a.Messages[2].ToolResultIDs)
	b := ss[1]
	assert.Equal(t, "b__subagents__x", b.ID)
	assert.Len(t, b.Messages, 2, "an all-side-chain file is read with its side-chain")
}
