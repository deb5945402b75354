package claudecode_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/claudecode"
	"github.com/chitta-go/chitta/internal/testkit/shareddata"
)

func TestReadFileFixture(t *testing.T) {
	t.Parallel()
	tr, err := claudecode.ReadFile(filepath.Join("testdata", "session.jsonl"), nil)
	require.NoError(t, err)

	type want struct {
		role        chitta.Role
		uuid        string
		messageID   string
		contains    []string
		calls       []string
		results     []string
		prompt      string
		toolNames   []string
		resultError []bool
	}
	wants := []want{
		{role: chitta.RoleUser, uuid: "u1", contains: []string{"rename the parser package"}, prompt: "Please rename the parser package to wire and fix the tests."},
		{
			role: chitta.RoleAssistant, uuid: "a1", messageID: "msg_A",
			contains:  []string{"I should look at the package first.", "Let me list the files.", "Bash", "ls parser", "Read", "parser/parser.go"},
			calls:     []string{"toolu_1", "toolu_2"},
			toolNames: []string{"Bash", "Read"},
		},
		{role: chitta.RoleUser, uuid: "u2", contains: []string{"parser_test.go"}, results: []string{"toolu_1"}, resultError: []bool{false}},
		{role: chitta.RoleUser, uuid: "u3", contains: []string{"func Parse() {}"}, results: []string{"toolu_2"}, resultError: []bool{true}},
		{role: chitta.RoleUser, uuid: "u5", contains: []string{"<command-name>/status</command-name>"}},
		{role: chitta.RoleUser, uuid: "u6", contains: []string{"The user opened parser.go.", "old name as an alias"}, prompt: "Also keep the old name as an alias."},
		{role: chitta.RoleAssistant, uuid: "a5", messageID: "msg_B", contains: []string{"parser kept as an alias"}},
	}
	require.Len(t, tr.Turns, len(wants))
	for i, w := range wants {
		got := tr.Turns[i]
		t.Run(w.uuid, func(t *testing.T) {
			assert.Equal(t, w.role, got.Message.Role)
			assert.Equal(t, w.uuid, got.UUID)
			assert.Equal(t, w.messageID, got.MessageID)
			for _, s := range w.contains {
				assert.Contains(t, got.Message.Content, s)
			}
			assert.Equal(t, w.calls, got.Message.ToolCallIDs)
			assert.Equal(t, w.results, got.Message.ToolResultIDs)
			assert.Equal(t, w.prompt, got.Prompt)
			assert.Equal(t, w.prompt != "", got.IsPrompt())
			var names []string
			for _, u := range got.ToolUses {
				names = append(names, u.Name)
				assert.True(t, json.Valid(u.Input), "tool input %s", u.Input)
			}
			assert.Equal(t, w.toolNames, names)
			var errs []bool
			for _, r := range got.ToolResults {
				errs = append(errs, r.IsError)
			}
			assert.Equal(t, w.resultError, errs)
			assert.False(t, got.Timestamp.IsZero())
			assert.False(t, got.Sidechain)
			assert.False(t, got.Meta)
		})
	}
	assert.Equal(t, "s-1", tr.SessionID)
	// permission-mode, file-history-snapshot, summary, attachment, isMeta,
	// system, 2 side-chain, queue-operation, last-prompt, unknown type and
	// a duplicated uuid.
	assert.Equal(t, 12, tr.Skipped)
	assert.Equal(t, 1, tr.Malformed, "the partial last line")
	assert.False(t, tr.Truncated)
	assert.Equal(t, 5, tr.Turns[0].Line)
	assert.Equal(t, time.Date(2026, 1, 2, 10, 0, 1, 0, time.UTC), tr.Turns[0].Timestamp)
	assert.Equal(t, "Also keep the old name as an alias.", claudecode.LastPrompt(tr.Turns))
}

func TestMergedTurnRawIsAnthropicFormat(t *testing.T) {
	t.Parallel()
	tr, err := claudecode.ReadFile(filepath.Join("testdata", "session.jsonl"), nil)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(tr.Turns), 2)

	var raw struct {
		Role    string `json:"role"`
		Content []struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		} `json:"content"`
	}
	require.NoError(t, json.Unmarshal(tr.Turns[1].Message.Raw, &raw))
	assert.Equal(t, "assistant", raw.Role)
	var types []string
	for _, b := range raw.Content {
		types = append(types, b.Type)
	}
	assert.Equal(t, []string{"thinking", "text", "tool_use", "tool_use"}, types)

	// The messages go back through chitta's own parser unchanged.
	data, err := json.Marshal(claudecode.Messages(tr.Turns))
	require.NoError(t, err)
	again, err := chitta.ParseMessages(data)
	require.NoError(t, err)
	require.Len(t, again, len(tr.Turns))
	for i := range again {
		assert.Equal(t, tr.Turns[i].Message.Role, again[i].Role)
		assert.Equal(t, tr.Turns[i].Message.Content, again[i].Content)
		assert.Equal(t, tr.Turns[i].Message.ToolCallIDs, again[i].ToolCallIDs)
		assert.Equal(t, tr.Turns[i].Message.ToolResultIDs, again[i].ToolResultIDs)
	}
}

func TestIncludeMeta(t *testing.T) {
	t.Parallel()
	tr, err := claudecode.ReadFile(filepath.Join("testdata", "session.jsonl"), &claudecode.Options{IncludeMeta: true})
	require.NoError(t, err)
	var meta []claudecode.Turn
	for _, turn := range tr.Turns {
		if turn.Meta {
			meta = append(meta, turn)
		}
	}
	require.Len(t, meta, 1)
	assert.Equal(t, "u4", meta[0].UUID)
	assert.Contains(t, meta[0].Message.Content, "Caveat")
	assert.False(t, meta[0].IsPrompt())
	assert.Len(t, tr.Turns, 8)
	assert.Equal(t, 11, tr.Skipped)

	// Meta text is never a prompt, even when it reads like one.
	tr, err = claudecode.Parse(strings.NewReader(line(t, "user", "m", "", "Please continue.", map[string]any{"isMeta": true})), &claudecode.Options{IncludeMeta: true})
	require.NoError(t, err)
	require.Len(t, tr.Turns, 1)
	assert.True(t, tr.Turns[0].Meta)
	assert.False(t, tr.Turns[0].IsPrompt())
}

func TestIncludeSidechains(t *testing.T) {
	t.Parallel()
	tr, err := claudecode.ReadFile(filepath.Join("testdata", "session.jsonl"), &claudecode.Options{IncludeSidechains: true})
	require.NoError(t, err)
	var side []string
	for _, turn := range tr.Turns {
		if turn.Sidechain {
			side = append(side, turn.UUID)
		}
	}
	assert.Equal(t, []string{"sc1", "sc2"}, side)
	assert.Len(t, tr.Turns, 9)
	assert.Equal(t, 10, tr.Skipped)
}

// line renders one transcript entry.
func line(t *testing.T, typ, uuid, msgID string, content any, extra map[string]any) string {
	t.Helper()
	e := map[string]any{
		"type": typ, "uuid": uuid, "isSidechain": false, "sessionId": "s",
		"timestamp": "2026-01-02T10:00:00Z",
		"message":   map[string]any{"role": typ, "content": content},
	}
	if msgID != "" {
		e["message"].(map[string]any)["id"] = msgID
	}
	for k, v := range extra {
		e[k] = v
	}
	b, err := json.Marshal(e)
	require.NoError(t, err)
	return string(b) + "\n"
}

func TestParseEdgeCases(t *testing.T) {
	t.Parallel()
	toolUse := func(id string) []any {
		return []any{map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{}}}
	}
	toolResult := func(id string, content any) []any {
		return []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": content}}
	}
	tests := []struct {
		name      string
		input     string
		turns     int
		malformed int
		skipped   int
		check     func(t *testing.T, tr *claudecode.Transcript)
	}{
		{name: "empty", input: "", turns: 0},
		{name: "blank lines", input: "\n\n  \n", turns: 0},
		{name: "not json", input: "hello\n{\"type\":\"user\"\n", malformed: 2},
		{name: "user without message", input: `{"type":"user","uuid":"x"}` + "\n", malformed: 1},
		{name: "content of wrong type", input: `{"type":"user","uuid":"x","message":{"content":42}}` + "\n", malformed: 1},
		{name: "block of wrong type", input: `{"type":"user","uuid":"x","message":{"content":[{"type":"text","text":7}]}}` + "\n", malformed: 1},
		{name: "empty string content dropped", input: line(t, "user", "u", "", "  ", nil), turns: 0},
		{name: "unknown types tolerated", input: `{"type":"brand-new"}` + "\n" + line(t, "user", "u", "", "hi", nil), turns: 1, skipped: 1},
		{
			name:  "empty tool result keeps its pair",
			input: line(t, "assistant", "a", "m1", toolUse("t1"), nil) + line(t, "user", "u", "", toolResult("t1", ""), nil),
			turns: 2,
			check: func(t *testing.T, tr *claudecode.Transcript) {
				assert.Equal(t, []string{"t1"}, tr.Turns[1].Message.ToolResultIDs)
				assert.NotEmpty(t, strings.TrimSpace(tr.Turns[1].Message.Content))
			},
		},
		{
			name: "streamed entries merge across interleaved results",
			input: line(t, "assistant", "a1", "m1", toolUse("t1"), nil) +
				line(t, "user", "u1", "", toolResult("t1", "one"), nil) +
				line(t, "assistant", "a2", "m1", toolUse("t2"), nil) +
				line(t, "user", "u2", "", toolResult("t2", "two"), nil) +
				line(t, "assistant", "a3", "m2", []any{map[string]any{"type": "text", "text": "done"}}, nil),
			turns: 4,
			check: func(t *testing.T, tr *claudecode.Transcript) {
				assert.Equal(t, []string{"t1", "t2"}, tr.Turns[0].Message.ToolCallIDs)
				assert.Equal(t, "a1", tr.Turns[0].UUID)
				assert.Equal(t, []string{"t1"}, tr.Turns[1].Message.ToolResultIDs)
				assert.Equal(t, []string{"t2"}, tr.Turns[2].Message.ToolResultIDs)
				assert.Equal(t, "m2", tr.Turns[3].MessageID)
			},
		},
		{
			// ToolSearch's result loads deferred tools by reference.
			name: "tool search result loads its tools",
			input: line(t, "assistant", "a", "m1", toolUse("t1"), nil) +
				line(t, "user", "u", "", toolResult("t1", []any{
					map[string]any{"type": "tool_reference", "tool_name": "TaskCreate"},
					map[string]any{"type": "text", "text": "and one more"},
					map[string]any{"type": "tool_reference", "tool_name": "WebFetch"},
				}), nil) +
				line(t, "user", "u2", "", toolResult("t1", "plain text result"), nil),
			turns: 3,
			check: func(t *testing.T, tr *claudecode.Transcript) {
				require.Len(t, tr.Turns[1].ToolResults, 1)
				assert.Equal(t, []string{"TaskCreate", "WebFetch"}, tr.Turns[1].ToolResults[0].Loads)
				assert.Contains(t, tr.Turns[1].Message.Content, "TaskCreate")
				require.Len(t, tr.Turns[2].ToolResults, 1)
				assert.Empty(t, tr.Turns[2].ToolResults[0].Loads)
			},
		},
		{
			name:  "compact summary is not a prompt",
			input: line(t, "user", "u", "", "This session is being continued from a previous conversation.", map[string]any{"isCompactSummary": true}),
			turns: 1,
			check: func(t *testing.T, tr *claudecode.Transcript) {
				assert.True(t, tr.Turns[0].CompactSummary)
				assert.False(t, tr.Turns[0].IsPrompt())
			},
		},
		{
			// Claude Code writes &, < and > as they are; the turn keeps them
			// so (json.Marshal would escape them to \u0026 and the like,
			// which inflates the token count and hides the text from the query).
			name: "markup characters kept as written",
			input: `{"type":"assistant","uuid":"a","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go vet && go test 2>&1 | grep '<nil>'"}}]}}` + "\n" +
				`{"type":"user","uuid":"u","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok <html> & done"}]}}` + "\n",
			turns: 2,
			check: func(t *testing.T, tr *claudecode.Transcript) {
				assert.Contains(t, string(tr.Turns[0].Message.Raw), `"go vet && go test 2>&1 | grep '<nil>'"`)
				assert.Contains(t, tr.Turns[0].Message.Content, "go vet && go test 2>&1 | grep '<nil>'")
				assert.Contains(t, string(tr.Turns[1].Message.Raw), `"ok <html> & done"`)
				assert.Contains(t, tr.Turns[1].Message.Content, "ok <html> & done")
			},
		},
		{
			name:  "line without trailing newline is read",
			input: strings.TrimSuffix(line(t, "user", "u", "", "last words", nil), "\n"),
			turns: 1,
		},
		{
			name:  "long line",
			input: line(t, "user", "u", "", strings.Repeat("word ", 100_000), nil),
			turns: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr, err := claudecode.Parse(strings.NewReader(tt.input), nil)
			require.NoError(t, err)
			assert.Len(t, tr.Turns, tt.turns)
			assert.Equal(t, tt.malformed, tr.Malformed)
			assert.Equal(t, tt.skipped, tr.Skipped)
			if tt.check != nil && len(tr.Turns) == tt.turns {
				tt.check(t, tr)
			}
		})
	}
}

func TestPrompt(t *testing.T) {
	t.Parallel()
	tests := []struct{ content, prompt string }{
		{"Fix the bug", "Fix the bug"},
		{"  Fix the bug\n", "Fix the bug"},
		{"<system-reminder>note</system-reminder>\nFix it", "Fix it"},
		{"Fix it<system-reminder>a</system-reminder> now<system-reminder>b</system-reminder>", "Fix it now"},
		{"<system-reminder>only markup</system-reminder>", ""},
		{"Fix it <system-reminder>unterminated", "Fix it"},
		{"<command-name>/clear</command-name>", ""},
		{"<local-command-stdout>ok</local-command-stdout>", ""},
		{"Caveat: The messages below were generated by the user while running local commands. DO NOT respond.", ""},
		{"[Request interrupted by user for tool use]", ""},
	}
	for _, tt := range tests {
		t.Run(tt.content, func(t *testing.T) {
			t.Parallel()
			tr, err := claudecode.Parse(strings.NewReader(line(t, "user", "u", "", tt.content, nil)), nil)
			require.NoError(t, err)
			if tt.prompt == "" && strings.TrimSpace(tt.content) == "" {
				return
			}
			require.Len(t, tr.Turns, 1)
			assert.Equal(t, tt.prompt, tr.Turns[0].Prompt)
		})
	}
}

func TestTail(t *testing.T) {
	t.Parallel()
	specs := []struct{ calls, results []string }{
		{},                          // 0
		{calls: []string{"a"}},      // 1
		{results: []string{"a"}},    // 2
		{calls: []string{"b"}},      // 3
		{results: []string{"b"}},    // 4
		{},                          // 5
		{calls: []string{"c"}},      // 6
		{results: []string{"c"}},    // 7
		{results: []string{"none"}}, // 8: result of a call never seen
	}
	turns := make([]claudecode.Turn, len(specs))
	for i, s := range specs {
		turns[i] = claudecode.Turn{Line: i, Message: chitta.Message{Role: chitta.RoleUser, Content: "x", ToolCallIDs: s.calls, ToolResultIDs: s.results}}
	}
	tests := []struct {
		n    int
		want []int
	}{
		{n: 0, want: []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{n: 100, want: []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{n: 5, want: []int{5, 6, 7}}, // 4 answers b, called at 3
		{n: 8, want: []int{1, 2, 3, 4, 5, 6, 7}},
		{n: 7, want: []int{3, 4, 5, 6, 7}}, // 2 answers a, called at 1
		{n: 2, want: []int{}},              // 7 answers c, called at 6
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.n), func(t *testing.T) {
			t.Parallel()
			got := []int{}
			for _, turn := range claudecode.Tail(turns, tt.n) {
				got = append(got, turn.Line)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// writeSession writes n small user/assistant entries after a first line of
// pad bytes and returns the path and the entries' offsets.
func writeSession(t *testing.T, n int, pad int64) (string, []int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	f, err := os.Create(path)
	require.NoError(t, err)
	defer func() { require.NoError(t, f.Close()) }()
	if pad > 0 {
		// A huge first line: a JSON prefix, a sparse gap, then its end.
		_, err = f.WriteString(`{"type":"user","uuid":"huge","message":{"content":"`)
		require.NoError(t, err)
		_, err = f.Seek(pad, 0)
		require.NoError(t, err)
		_, err = f.WriteString("\"}}\n")
		require.NoError(t, err)
	}
	var offsets []int64
	for i := range n {
		off, err := f.Seek(0, 1)
		require.NoError(t, err)
		offsets = append(offsets, off)
		typ := "user"
		if i%2 == 1 {
			typ = "assistant"
		}
		_, err = f.WriteString(line(t, typ, fmt.Sprintf("e%03d", i), fmt.Sprintf("m%03d", i), fmt.Sprintf("entry number %d", i), nil))
		require.NoError(t, err)
	}
	return path, offsets
}

func TestReadFileTail(t *testing.T) {
	t.Parallel()
	path, offsets := writeSession(t, 100, 0)
	info, err := os.Stat(path)
	require.NoError(t, err)
	size := info.Size()
	full, err := claudecode.ReadFile(path, nil)
	require.NoError(t, err)
	require.Len(t, full.Turns, 100)
	require.False(t, full.Truncated)

	tests := []struct {
		name  string
		limit int64
		first int // index of the first entry expected in the tail
	}{
		{name: "mid line", limit: size - offsets[40] - 10, first: 41},
		{name: "on a line boundary", limit: size - offsets[40], first: 40},
		{name: "one byte past a boundary", limit: size - offsets[40] + 1, first: 40},
		{name: "whole file", limit: size, first: 0},
		{name: "tiny", limit: 3, first: 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr, err := claudecode.ReadFile(path, &claudecode.Options{MaxBytes: tt.limit})
			require.NoError(t, err)
			assert.Equal(t, tt.limit < size, tr.Truncated)
			assert.Zero(t, tr.Malformed, "the partial first line is dropped, not parsed")
			require.Len(t, tr.Turns, 100-tt.first)
			for i, turn := range tr.Turns {
				assert.Equal(t, full.Turns[tt.first+i].UUID, turn.UUID)
			}
		})
	}
}

func TestReadFileHugeDefaultTail(t *testing.T) {
	t.Parallel()
	// A sparse 40 MiB first line followed by 10 entries: only the last
	// 32 MiB are read, so the huge line is skipped and never parsed.
	path, _ := writeSession(t, 10, 40<<20)
	tr, err := claudecode.ReadFile(path, nil)
	require.NoError(t, err)
	assert.True(t, tr.Truncated)
	assert.Zero(t, tr.Malformed)
	require.Len(t, tr.Turns, 10)
	assert.Equal(t, "e000", tr.Turns[0].UUID)
}

func TestOptionsErrors(t *testing.T) {
	t.Parallel()
	_, err := claudecode.Parse(strings.NewReader(""), &claudecode.Options{MaxBytes: -1})
	require.ErrorIs(t, err, claudecode.ErrInvalidOptions)
	_, err = claudecode.ReadFile(filepath.Join("testdata", "session.jsonl"), &claudecode.Options{MaxBytes: -5})
	require.ErrorIs(t, err, claudecode.ErrInvalidOptions)
	_, err = claudecode.ReadFile(filepath.Join(t.TempDir(), "missing.jsonl"), nil)
	require.ErrorIs(t, err, os.ErrNotExist)
}

// checkPairs asserts that every tool result follows its call, every call
// has a result, and every turn has content.
func checkPairs(t *testing.T, turns []claudecode.Turn) {
	t.Helper()
	called := map[string]bool{}
	answered := map[string]bool{}
	for i, turn := range turns {
		m := turn.Message
		assert.NotEmpty(t, strings.TrimSpace(m.Content), "turn %d (%s) has no content", i, turn.UUID)
		assert.Contains(t, []chitta.Role{chitta.RoleUser, chitta.RoleAssistant}, m.Role)
		for _, id := range m.ToolCallIDs {
			called[id] = true
		}
		for _, id := range m.ToolResultIDs {
			assert.True(t, called[id], "turn %d (%s): result %s before its call", i, turn.UUID, id)
			answered[id] = true
		}
	}
	for id := range called {
		assert.True(t, answered[id], "call %s has no result", id)
	}
}

func FuzzParse(f *testing.F) {
	fixture, err := os.ReadFile(filepath.Join("testdata", "session.jsonl"))
	require.NoError(f, err)
	f.Add(fixture)
	f.Add([]byte(`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"x","input":{}}]}}` + "\n" +
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"ok"}]}]}}`))
	f.Add([]byte(`{"type":"assistant","message":{"id":"m","content":"text"}}` + "\n" + `{"type":"assistant","message":{"id":"m","content":[]}}`))
	f.Add([]byte("{\"type\":\"user\",\"message\":{\"content\":\"<system-reminder>x\"}}\n\x00\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := claudecode.Parse(bytes.NewReader(data), &claudecode.Options{IncludeSidechains: true})
		require.NoError(t, err)
		for _, turn := range tr.Turns {
			m := turn.Message
			require.NotEmpty(t, strings.TrimSpace(m.Content))
			require.Contains(t, []chitta.Role{chitta.RoleUser, chitta.RoleAssistant}, m.Role)
			var again chitta.Message
			require.NoError(t, again.UnmarshalJSON(m.Raw), "Raw must be a valid message")
			if turn.Prompt != "" {
				require.Equal(t, chitta.RoleUser, m.Role)
				require.Empty(t, m.ToolResultIDs)
			}
		}
		tail := claudecode.Tail(tr.Turns, 3)
		require.LessOrEqual(t, len(tail), 3)
	})
}

func TestRealTranscripts(t *testing.T) {
	t.Parallel()
	dir := shareddata.ForTest(t, "claude-transcripts")
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			opts := &claudecode.Options{IncludeSidechains: strings.Contains(path, "__subagents__")}
			tr, err := claudecode.ReadFile(path, opts)
			require.NoError(t, err)
			require.NotEmpty(t, tr.Turns)
			assert.Zero(t, tr.Malformed)
			assert.NotEmpty(t, tr.SessionID)
			assert.NotEmpty(t, claudecode.LastPrompt(tr.Turns))
			checkPairs(t, tr.Turns)
			checkPairs(t, claudecode.Tail(tr.Turns, 60))

			// Streamed entries are merged: message ids are unique.
			ids := map[string]bool{}
			for _, turn := range tr.Turns {
				if turn.MessageID != "" {
					assert.False(t, ids[turn.MessageID], "message %s split", turn.MessageID)
					ids[turn.MessageID] = true
				}
			}
			// And chitta reads the conversation back.
			data, err := json.Marshal(claudecode.Messages(tr.Turns))
			require.NoError(t, err)
			msgs, err := chitta.ParseMessages(data)
			require.NoError(t, err)
			res, err := chitta.Compact(t.Context(), msgs, nil)
			require.NoError(t, err)
			assert.Positive(t, res.Stats.BeforeTokens)
		})
	}
}
