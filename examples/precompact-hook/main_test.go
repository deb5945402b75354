package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/brief"
	"github.com/chitta-go/chitta/examples/internal/claudecode"
	"github.com/chitta-go/chitta/examples/internal/clipmsg"
	"github.com/chitta-go/chitta/examples/internal/storepath"
)

var update = flag.Bool("update", false, "rewrite testdata/sample-brief.golden")

// binary is the hook built once by TestMain.
var binary string

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "chitta-hook-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "temp dir:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if b := os.Getenv("CHITTA_TEST_HOOK_BINARY"); b != "" {
		// A hook built beforehand, for a test binary run where it cannot
		// build one (cross-compiled, under Wine: scripts/test-wine.sh).
		binary = b
		return m.Run()
	}
	binary = filepath.Join(dir, "precompact-hook")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build hook:", err)
		return 1
	}
	return m.Run()
}

// entry renders one Claude Code transcript line.
func entry(t *testing.T, typ, uuid, msgID string, content any) string {
	t.Helper()
	msg := map[string]any{"role": typ, "content": content}
	if msgID != "" {
		msg["id"] = msgID
	}
	b, err := json.Marshal(map[string]any{
		"type": typ, "uuid": uuid, "isSidechain": false, "sessionId": "sess-file",
		"timestamp": "2026-03-01T09:00:00Z", "message": msg,
	})
	require.NoError(t, err)
	return string(b) + "\n"
}

// writeTranscript writes a session of n rounds (prompt, streamed assistant
// turn with a tool call, tool result, answer) plus bookkeeping lines and
// returns its path.
func writeTranscript(t *testing.T, rounds int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"type":"permission-mode","permissionMode":"default","sessionId":"sess-file"}` + "\n")
	topics := []string{"the flaky retry test", "the config loader", "the HTTP timeout", "the release notes", "the database migration"}
	for i := range rounds {
		topic := topics[i%len(topics)]
		id := fmt.Sprintf("toolu_%03d", i)
		msgID := fmt.Sprintf("msg_%03d", i)
		b.WriteString(entry(t, "user", fmt.Sprintf("p%03d", i), "", fmt.Sprintf("Round %d: please look at %s and tell me what is wrong.", i, topic)))
		b.WriteString(entry(t, "assistant", fmt.Sprintf("a%03d", i), msgID, []any{map[string]any{"type": "thinking", "thinking": "Let me read the code for " + topic + ".", "signature": "s"}}))
		b.WriteString(entry(t, "assistant", fmt.Sprintf("b%03d", i), msgID, []any{map[string]any{"type": "tool_use", "id": id, "name": "Read", "input": map[string]any{"file_path": "src/" + strings.ReplaceAll(topic, " ", "_") + ".go"}}}))
		b.WriteString(entry(t, "user", fmt.Sprintf("r%03d", i), "", []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": "package main // " + strings.Repeat(topic+" ", 20)}}))
		b.WriteString(entry(t, "assistant", fmt.Sprintf("c%03d", i), msgID+"x", []any{map[string]any{"type": "text", "text": fmt.Sprintf("In %s the problem is an off-by-one in round %d.", topic, i)}}))
		b.WriteString(`{"type":"file-history-snapshot","messageId":"x","snapshot":{}}` + "\n")
	}
	b.WriteString(entry(t, "user", "meta", "", "<local-command-stdout>ok</local-command-stdout>"))
	path := filepath.Join(t.TempDir(), "session.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o600))
	return path
}

func hookJSON(t *testing.T, event, transcript, session, extra string) string {
	t.Helper()
	in := map[string]string{"session_id": session, "transcript_path": transcript, "cwd": t.TempDir(), "hook_event_name": event}
	switch event {
	case "PreCompact":
		in["trigger"], in["custom_instructions"] = "manual", extra
	case "SessionStart":
		in["source"] = extra
	}
	b, err := json.Marshal(in)
	require.NoError(t, err)
	return string(b)
}

// execResult is one run of the hook binary.
type execResult struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

// runHook runs the built hook as Claude Code does: a separate process, the
// hook input on stdin, XDG_DATA_HOME inside the test.
func runHook(t *testing.T, stdin io.Reader, args ...string) execResult {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), binary, args...)
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+t.TempDir())
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := execResult{stdout: out.String(), stderr: errb.String(), took: time.Since(start)}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		r.code = exit.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return r
}

func kinds(t *testing.T, path string) map[string]int {
	t.Helper()
	store, err := chitta.LoadHNSWStore(path)
	require.NoError(t, err)
	out := map[string]int{}
	for m := range store.All() {
		out[m.Kind]++
	}
	return out
}

// TestPreCompactThenSessionStart is the integration as Claude Code drives
// it: a PreCompact process prints the brief and records it; a later
// SessionStart process (source compact) over the same store prints the
// relevant memories and that brief; startup and clear print nothing.
func TestPreCompactThenSessionStart(t *testing.T) {
	t.Parallel()
	transcript := writeTranscript(t, 25)
	store := filepath.Join(t.TempDir(), "data", "memory.chitta")

	// A memory from an earlier session that the latest prompt is about.
	seed, err := storepath.OpenShared(store, chitta.NewHashEmbedder(0).Dimensions())
	require.NoError(t, err)
	fact := "The database migration must run with --lock-timeout 5s on the primary."
	vecs, err := chitta.NewHashEmbedder(0).Embed(t.Context(), []string{fact})
	require.NoError(t, err)
	require.NoError(t, seed.Add(t.Context(), chitta.Memory{Text: fact, Kind: chitta.KindFact, Confidence: 1, Vector: vecs[0]}))
	require.NoError(t, seed.Save())

	pre := runHook(t, strings.NewReader(hookJSON(t, "PreCompact", transcript, "sess-1", "")), "--store", store)
	require.Equal(t, 0, pre.code, pre.stderr)
	assert.True(t, strings.HasPrefix(pre.stdout, "Preservation brief from chitta"), pre.stdout)
	assert.Contains(t, pre.stdout, "src/the_database_migration.go", "a path of the window")
	assert.LessOrEqual(t, chitta.EstimateTokens(pre.stdout), 1500)
	assert.Equal(t, 1, strings.Count(pre.stderr, "\n"), pre.stderr)
	assert.Contains(t, pre.stderr, "PreCompact: kept")
	assert.Equal(t, map[string]int{chitta.KindFact: 1, chitta.KindEpisode: 1, chitta.KindBrief: 1}, kinds(t, store))

	// A second compaction of the session replaces its brief.
	again := runHook(t, strings.NewReader(hookJSON(t, "PreCompact", transcript, "sess-1", "focus on the HTTP timeout")), "--store", store)
	require.Equal(t, 0, again.code, again.stderr)
	assert.Equal(t, 1, kinds(t, store)[chitta.KindBrief], "one brief per session")

	post := runHook(t, strings.NewReader(hookJSON(t, "SessionStart", transcript, "sess-1", "compact")), "--store", store)
	require.Equal(t, 0, post.code, post.stderr)
	assert.Contains(t, post.stdout, fact, "the memory relevant to the latest prompt")
	assert.Contains(t, post.stdout, strings.TrimSpace(strings.SplitN(again.stdout, "\n", 3)[1]), "the session's last brief (its first item)")
	assert.NotContains(t, post.stdout, "[pre-compact]", "no episodes")
	assert.LessOrEqual(t, chitta.EstimateTokens(post.stdout), 1500)

	small := runHook(t, strings.NewReader(hookJSON(t, "SessionStart", transcript, "sess-1", "resume")), "--store", store, "--brief-tokens", "100")
	require.Equal(t, 0, small.code, small.stderr)
	assert.LessOrEqual(t, chitta.EstimateTokens(small.stdout), 100)
	assert.NotEmpty(t, small.stdout)

	other := runHook(t, strings.NewReader(hookJSON(t, "SessionStart", transcript, "sess-other", "compact")), "--store", store)
	require.Equal(t, 0, other.code, other.stderr)
	assert.NotContains(t, other.stdout, "preservation brief from before", "another session has no brief")

	for _, source := range []string{"startup", "clear"} {
		r := runHook(t, strings.NewReader(hookJSON(t, "SessionStart", transcript, "sess-1", source)), "--store", store)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Empty(t, r.stdout, source)
	}
}

// TestDefaultStoreIsPerProject: without --store the hook writes the store
// of the project its cwd belongs to, under XDG_DATA_HOME.
func TestDefaultStoreIsPerProject(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	project := filepath.Join(t.TempDir(), "proj")
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".git"), 0o700))
	require.NoError(t, os.MkdirAll(filepath.Join(project, "sub"), 0o700))
	in, err := json.Marshal(map[string]string{"session_id": "s", "transcript_path": writeTranscript(t, 3), "cwd": filepath.Join(project, "sub"), "hook_event_name": "PreCompact"})
	require.NoError(t, err)
	cmd := exec.CommandContext(t.Context(), binary)
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+data)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	stores, err := filepath.Glob(filepath.Join(data, "chitta", "projects", "*", storepath.FileName))
	require.NoError(t, err)
	require.Len(t, stores, 1, "%s", out)
	assert.Regexp(t, `/chitta/projects/proj-[0-9a-f]{12}/memory\.chitta$`, filepath.ToSlash(stores[0]), "the git root's store, not sub's")
	assert.Equal(t, map[string]int{chitta.KindEpisode: 1, chitta.KindBrief: 1}, kinds(t, stores[0]))
}

// TestExitCodes: 0 on success, 1 with one stderr line on every failure,
// never 2. (A PreCompact whose store cannot be opened still succeeds:
// TestStoreOpenFailureKeepsBrief.)
func TestExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	transcript := writeTranscript(t, 5)
	corrupt := filepath.Join(dir, "corrupt.chitta")
	garbage := []byte("definitely not a store")
	require.NoError(t, os.WriteFile(corrupt, garbage, 0o600))
	empty := filepath.Join(dir, "empty.jsonl")
	require.NoError(t, os.WriteFile(empty, []byte(`{"type":"summary","summary":"x"}`+"\n"), 0o600))
	good := filepath.Join(dir, "good.chitta")

	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stderr string
	}{
		{name: "success", stdin: hookJSON(t, "PreCompact", transcript, "s", ""), code: 0, stderr: "PreCompact: kept"},
		{name: "help", args: []string{"-h"}, code: 0, stderr: "Usage"},
		{name: "missing transcript", stdin: hookJSON(t, "PreCompact", filepath.Join(dir, "nope.jsonl"), "s", ""), code: 1, stderr: "open transcript: "},
		{name: "no turns", stdin: hookJSON(t, "PreCompact", empty, "s", ""), code: 1, stderr: "no user or assistant turns"},
		{name: "malformed input", stdin: `{"session_id": `, code: 1, stderr: "malformed hook input"},
		{name: "empty input", stdin: ``, code: 1, stderr: "malformed hook input"},
		{name: "input not an object", stdin: `["PreCompact"]`, code: 1, stderr: "malformed hook input"},
		{name: "transcript path a number", stdin: `{"transcript_path": 12}`, code: 1, stderr: "malformed hook input: transcript_path: want a string, got number\n"},
		{name: "event an object", stdin: `{"hook_event_name": {}}`, code: 1, stderr: "malformed hook input: hook_event_name: want a string, got object\n"},
		{name: "no transcript path", stdin: `{"session_id":"s","hook_event_name":"PreCompact"}`, code: 1, stderr: "transcript_path: required"},
		{name: "another event", stdin: `{"transcript_path":"/x","hook_event_name":"Stop"}`, code: 1, stderr: "want PreCompact or SessionStart"},
		// Fields the hook does not read never make it fail, whatever their type.
		{name: "trigger a number", stdin: fmt.Sprintf(`{"session_id":"s","hook_event_name":"PreCompact","trigger":7,"permission_mode":{"x":1},"source":[1],"transcript_path":%q}`, transcript), code: 0, stderr: "PreCompact: kept"},
		{name: "custom instructions on SessionStart an object", stdin: fmt.Sprintf(`{"session_id":"s","hook_event_name":"SessionStart","source":"startup","custom_instructions":{},"trigger":false,"transcript_path":%q}`, transcript), code: 0, stderr: "SessionStart (startup): nothing to bring back"},
		{name: "source a number", stdin: `{"hook_event_name":"SessionStart","source":3}`, code: 1, stderr: "malformed hook input: source: want a string, got number\n"},
		{name: "custom instructions a list", stdin: `{"transcript_path":"/x","custom_instructions":["a"]}`, code: 1, stderr: "malformed hook input: custom_instructions: want a string, got array\n"},
		// An error quoting the input quotes at most clipmsg.Max bytes of it.
		{name: "huge unknown event", stdin: `{"hook_event_name":"` + strings.Repeat("E", maxInput-100) + `"}`, code: 1, stderr: `bytes cut)": want PreCompact or SessionStart`},
		{name: "huge transcript path", stdin: `{"transcript_path":"/` + strings.Repeat("p", maxInput/2) + `"}`, code: 1, stderr: "bytes cut)"},
		{name: "huge input", stdin: `{"custom_instructions":"` + strings.Repeat("x", maxInput) + `"}`, code: 1, stderr: "larger than"},
		{name: "bad embedder", args: []string{"--embedder", "bert"}, stdin: hookJSON(t, "PreCompact", transcript, "s", ""), code: 1, stderr: "want hash"},
		{name: "bad flag", args: []string{"--ratio", "0.5"}, stdin: hookJSON(t, "PreCompact", transcript, "s", ""), code: 1, stderr: "flag provided but not defined"},
		{name: "bad timeout", args: []string{"--timeout", "0s"}, code: 1, stderr: "--timeout"},
		{name: "bad brief tokens", args: []string{"--brief-tokens", "5"}, code: 1, stderr: "--brief-tokens 5: want 100 to 100000"},
		{name: "bad distill max", args: []string{"--distill-max", "0"}, code: 1, stderr: "--distill-max 0: want 1 to 100"},
		{name: "secret in the embedder spec", args: []string{"--embedder", "openai:http://ann:hunter2secret@127.0.0.1:1/v1?api-key=qwerty123#m"}, stdin: hookJSON(t, "PreCompact", transcript, "s", ""), code: 1, stderr: "REDACTED"},
		{name: "reserve above 1", args: []string{"--relevance-reserve", "1.5"}, code: 1, stderr: "--relevance-reserve 1.5: want 0 to 1"},
		{name: "lexical NaN", args: []string{"--lexical", "NaN"}, code: 1, stderr: "--lexical NaN: want 0 to 1"},
		{name: "relevance-reserve preset", args: []string{"--relevance-reserve", "0.5", "--lexical", "0.3"}, stdin: hookJSON(t, "PreCompact", transcript, "s", "focus on the HTTP timeout"), code: 0, stderr: "PreCompact: kept"},
		{name: "session start corrupt store", args: []string{"--store", corrupt}, stdin: hookJSON(t, "SessionStart", transcript, "s", "compact"), code: 1, stderr: "(the file is left as it is; move it away to start with an empty store)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"--store", good}, tt.args...)
			r := runHook(t, strings.NewReader(tt.stdin), args...)
			assert.Equal(t, tt.code, r.code, "stderr: %s", r.stderr)
			assert.Contains(t, r.stderr, tt.stderr)
			if tt.name != "help" {
				assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
				assert.LessOrEqual(t, len(r.stderr), len(prefix+"failed: \n")+clipmsg.Max, "bounded")
			}
			assert.NotContains(t, r.stderr, "hunter2secret")
			assert.NotContains(t, r.stderr, "qwerty123")
			assert.NotContains(t, r.stderr, "refusing to start", "the chitta command's words, not the hook's")
			if tt.code != 0 {
				assert.Empty(t, r.stdout, "nothing for Claude Code on failure")
				assert.True(t, strings.HasPrefix(r.stderr, prefix+"failed: "), r.stderr)
			}
		})
	}
	got, err := os.ReadFile(corrupt)
	require.NoError(t, err)
	assert.Equal(t, garbage, got, "a corrupt store is never overwritten")
}

// TestSignals: SIGTERM and SIGINT stop a hook that is waiting, with 1.
func TestSignals(t *testing.T) {
	t.Parallel()
	for _, sig := range []os.Signal{syscall.SIGTERM, os.Interrupt} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			cmd := exec.CommandContext(t.Context(), binary, "--store", filepath.Join(t.TempDir(), "m"), "--timeout", "1m")
			pr, pw, err := os.Pipe()
			require.NoError(t, err)
			defer pw.Close()
			defer pr.Close()
			cmd.Stdin = pr
			var errb bytes.Buffer
			cmd.Stderr = &errb
			require.NoError(t, cmd.Start())
			time.Sleep(time.Second) // let it install its handler (a loaded machine starts slowly)
			start := time.Now()
			require.NoError(t, cmd.Process.Signal(sig))
			err = cmd.Wait()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit)
			assert.Equal(t, 1, exit.ExitCode(), errb.String())
			assert.Contains(t, errb.String(), "interrupted by a signal")
			assert.Less(t, time.Since(start), 10*time.Second, "gives up a second after the signal (margin for a loaded machine)")
		})
	}
}

// TestRecoverPanic: a panic in the work is exit 1 with one line, not
// Go's exit 2.
func TestRecoverPanic(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	code := hookMain([]string{"--store", filepath.Join(t.TempDir(), "m")}, panicReader{}, &stdout, &stderr)
	assert.Equal(t, 1, code)
	assert.Equal(t, prefix+"failed: read hook input: internal error: boom\n", stderr.String())
	assert.Empty(t, stdout.String())
}

// panicReader panics when read (readInput reads stdin in a goroutine of
// its own, which recovers too).
type panicReader struct{}

func (panicReader) Read([]byte) (int, error) { panic("boom") }

func TestQueryFor(t *testing.T) {
	t.Parallel()
	tr, err := claudecode.ReadFile(writeTranscript(t, 3), nil)
	require.NoError(t, err)
	tests := []struct {
		name, instructions, want string
	}{
		{"custom instructions win", "  keep the migration plan ", "keep the migration plan"},
		{"else the last real prompt", "", "Round 2: please look at the HTTP timeout and tell me what is wrong."},
		{"blank instructions are none", " \n", "Round 2: please look at the HTTP timeout and tell me what is wrong."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, queryFor(&hookInput{CustomInstructions: tt.instructions}, tr.Turns))
		})
	}
}

func TestOneLine(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "store a: disk full ; store b: disk full", oneLine("store a: disk full\nstore b: disk full"))
	assert.Equal(t, "kept 3 of 5 turns", oneLine("kept 3 of 5 turns"))
}

// TestGoldenBrief: the brief of the repository's sample session, with an
// empty store, is exactly testdata/sample-brief.golden (go test -update
// rewrites it). It is what the README shows.
func TestGoldenBrief(t *testing.T) {
	t.Parallel()
	sample := filepath.Join("..", "internal", "claudecode", "testdata", "session.jsonl")
	in := hookJSON(t, "PreCompact", sample, "s-1", "")
	var outs []string
	for range 2 { // deterministic: two runs, two stores, one brief
		r := runHook(t, strings.NewReader(in), "--store", filepath.Join(t.TempDir(), "m.chitta"))
		require.Equal(t, 0, r.code, r.stderr)
		outs = append(outs, r.stdout)
	}
	assert.Equal(t, outs[0], outs[1])
	golden := filepath.Join("testdata", "sample-brief.golden")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(outs[0]), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), outs[0])
}

// FuzzReadInput: whatever Claude Code (or anyone) writes on stdin, reading
// the hook input never panics; it is a usable input or an error starting
// "malformed hook input" that names no Go type.
func FuzzReadInput(f *testing.F) {
	for _, s := range []string{
		`{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/","hook_event_name":"PreCompact","trigger":"auto","custom_instructions":""}`,
		`{"hook_event_name":"SessionStart","source":"compact","transcript_path":"/t.jsonl"}`,
		`{"transcript_path":"a","transcript_path":"b"}`, `{"transcript_path":12}`, `{"hook_event_name":"Stop"}`,
		`{"session_id":"\xff\xfe","transcript_path":" "}`, "{\"transcript_path\":\"\xff\"}",
		`{"a":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`,
		`{"transcript_path":"x","extra":1e999}`, ``, `null`, `[]`, `{`, "\ufeff{}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := readInput(t.Context(), bytes.NewReader(data))
		if err != nil {
			require.Nil(t, in)
			require.True(t, strings.HasPrefix(err.Error(), "malformed hook input"), err.Error())
			require.NotContains(t, err.Error(), "Go struct field")
			require.NotContains(t, err.Error(), "Go value")
			return
		}
		switch in.HookEventName {
		case "", "PreCompact":
			require.NotEmpty(t, strings.TrimSpace(in.TranscriptPath))
		case "SessionStart":
		default:
			t.Fatalf("event %q accepted", in.HookEventName)
		}
	})
}

// TestHandRunSessionFromTranscript: run by hand without a session_id, both
// events take the session from the transcript: PreCompact records the
// brief under it, and SessionStart prints that brief back. (SessionStart
// looked for the brief of session "" and printed nothing.)
func TestHandRunSessionFromTranscript(t *testing.T) {
	t.Parallel()
	store := filepath.Join(t.TempDir(), "memory.chitta")
	transcript := writeTranscript(t, 10)
	pre := runHook(t, strings.NewReader(hookJSON(t, "PreCompact", transcript, "", "")), "--store", store)
	require.Equal(t, 0, pre.code, pre.stderr)
	require.NotEmpty(t, pre.stdout)

	start := runHook(t, strings.NewReader(hookJSON(t, "SessionStart", transcript, "", "compact")), "--store", store)
	require.Equal(t, 0, start.code, start.stderr)
	assert.Contains(t, start.stdout, "preservation brief from before the last compaction", start.stderr)
	assert.Contains(t, start.stdout, strings.TrimSpace(strings.SplitN(pre.stdout, "\n", 3)[1]))
}

// TestSessionStartNoBriefHeaderAlone: when the memories leave room under
// --brief-tokens for the brief's header but not for its first item, the
// header is left out too; it was printed alone, with no brief under it.
func TestSessionStartNoBriefHeaderAlone(t *testing.T) {
	t.Parallel()
	transcript := writeTranscript(t, 25) // its last prompt is about the release notes
	store := seedStore(t, brief.Header+"\nFiles: "+strings.TrimSuffix(strings.Repeat("src/a.go, ", 40), ", ")+"\n- go test ./...",
		"Round 24: please look at the release notes and tell me what is wrong."+strings.Repeat(" release notes", 10))

	r := runHook(t, strings.NewReader(hookJSON(t, "SessionStart", transcript, "s", "compact")), "--store", store, "--brief-tokens", "100")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "[fact] Round 24", "the memory is printed")
	assert.NotContains(t, r.stdout, "preservation brief from before the last compaction", "no header without its brief")
	assert.Contains(t, r.stderr, "1 memory, 0 brief lines")
}

// TestSessionStartMemoryHeaderCountsPrinted: the memories' header counts
// the memories printed under it, and is left out when none fits under
// --brief-tokens; it claimed every relevant memory, and stood alone above
// the brief when the first memory did not fit.
func TestSessionStartMemoryHeaderCountsPrinted(t *testing.T) {
	t.Parallel()
	transcript := writeTranscript(t, 25) // its last prompt is about the release notes
	for _, tt := range []struct {
		name  string
		words int // filler words per memory
		want  string
	}{
		{"none fits", 60, ""},
		{"one of two fits", 18, "(1 memory,"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var facts []string
			for i := range 2 {
				facts = append(facts, fmt.Sprintf("Round 24 (%d): please look at the release notes and tell me what is wrong.", i)+strings.Repeat(" release notes", tt.words/2))
			}
			store := seedStore(t, "Preservation brief from chitta: keep these.\n- go test ./...", facts...)

			r := runHook(t, strings.NewReader(hookJSON(t, "SessionStart", transcript, "s", "compact")), "--store", store, "--brief-tokens", "100")
			require.Equal(t, 0, r.code, r.stderr)
			require.Contains(t, r.stdout, "- go test ./...", "the brief is printed")
			if tt.want == "" {
				assert.NotContains(t, r.stdout, "chitta memory:", "no header without a memory")
				return
			}
			assert.Contains(t, r.stdout, tt.want)
			assert.Equal(t, 1, strings.Count(r.stdout, "- [fact]"))
		})
	}
}

// seedStore returns a new store file holding facts (kind fact, the hash
// embedder's vectors) and briefText as the brief of session "s".
func seedStore(t *testing.T, briefText string, facts ...string) string {
	t.Helper()
	store := filepath.Join(t.TempDir(), "memory.chitta")
	emb := chitta.NewHashEmbedder(0)
	seed, err := storepath.OpenShared(store, emb.Dimensions())
	require.NoError(t, err)
	vecs, err := emb.Embed(t.Context(), facts)
	require.NoError(t, err)
	for i, fact := range facts {
		require.NoError(t, seed.Add(t.Context(), chitta.Memory{Text: fact, Kind: chitta.KindFact, Confidence: 1, Vector: vecs[i]}))
	}
	require.NoError(t, brief.Record(t.Context(), seed, emb, "s", briefText))
	require.NoError(t, seed.Save())
	return store
}

// TestSessionStartBriefWithoutSummariserLine: SessionStart prints the
// session's brief under its own header, without the brief's first line,
// which is an instruction to the summariser ("keep the items below
// verbatim in the summary; they exist only in this conversation, not in
// memory"): after the compaction (source compact) or on resume there is
// no summary left to write, and the model read that line as addressed to
// it. The items all come back.
func TestSessionStartBriefWithoutSummariserLine(t *testing.T) {
	t.Parallel()
	transcript := writeTranscript(t, 25)
	store := filepath.Join(t.TempDir(), "memory.chitta")
	pre := runHook(t, strings.NewReader(hookJSON(t, "PreCompact", transcript, "sess-1", "")), "--store", store)
	require.Equal(t, 0, pre.code, pre.stderr)
	header, items, ok := strings.Cut(pre.stdout, "\n")
	require.True(t, ok, pre.stdout)
	require.Equal(t, brief.Header, header)

	for _, source := range []string{"compact", "resume"} {
		r := runHook(t, strings.NewReader(hookJSON(t, "SessionStart", transcript, "sess-1", source)), "--store", store)
		require.Equal(t, 0, r.code, r.stderr)
		assert.NotContains(t, r.stdout, "in the summary", source)
		assert.NotContains(t, r.stdout, brief.Header, source)
		assert.Contains(t, r.stdout, "chitta's preservation brief from before the last compaction of this session:\n"+strings.TrimSpace(items), source)
		n := strings.Count(strings.TrimSpace(items), "\n") + 1
		assert.Contains(t, r.stderr, fmt.Sprintf(", %d brief lines from", n), "the count is of the lines printed")
	}
}
