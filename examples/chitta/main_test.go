package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// binary is the chitta command built once by TestMain.
var binary string

func TestMain(m *testing.M) {
	if bin := os.Getenv(rssChildEnv); bin != "" {
		os.Exit(rssChild(bin))
	}
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "chitta-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "temp dir:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "chitta")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build chitta:", err)
		return 1
	}
	return m.Run()
}

// execResult is one run of the binary.
type execResult struct {
	code   int
	stdout string
	stderr string
}

// runChitta runs the binary with stdin and args, with XDG_DATA_HOME set
// to dataHome so that the default store path stays inside the test.
func runChitta(t *testing.T, dataHome, stdin string, args ...string) execResult {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), binary, args...)
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+dataHome)
	cmd.Stdin = strings.NewReader(stdin)
	return runCmd(t, cmd)
}

// runCmd runs cmd, capturing its output; a non-zero exit is a result, any
// other failure fails t.
func runCmd(t *testing.T, cmd *exec.Cmd) execResult {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else {
		require.NoError(t, err, errb.String())
	}
	return execResult{code: code, stdout: out.String(), stderr: errb.String()}
}

func call(id int, tool, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
}

func TestOneShotExec(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		args   []string
		stdin  string
		exit   int
		code   int64 // JSON-RPC error code; 0 for a result
		isErr  bool  // a tool result with isError (bad arguments)
		substr string
	}{
		{name: "compact", stdin: call(1, "compact_context", `{"messages":`+conversation+`,"query":"nil pointer in Parse"}`), substr: `"before_tokens"`},
		{name: "compact with trailing newline and more input", stdin: call(1, "compact_context", `{"messages":[{"role":"user","content":"hi"}],"target_ratio":1}`) + "\n" + `{"ignored":true}` + "\n", substr: `"messages":[{"role":"user","content":"hi"}]`},
		{name: "tools/list", stdin: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, substr: `"remember"`},
		{name: "malformed JSON", stdin: `{"jsonrpc":"2.0","id":1,"method":`, exit: 1, code: jsonrpc.CodeParseError},
		{name: "not a request", stdin: `[1,2,3]`, exit: 1, code: jsonrpc.CodeInvalidRequest},
		{name: "nested beyond the decoder's limit", stdin: call(1, "compact_context", `{"messages":[{"role":"user","content":"hi","x":`+strings.Repeat("[", 10001)+strings.Repeat("]", 10001)+`}]}`),
			exit: 1, code: jsonrpc.CodeParseError, substr: "nests deeper than 10000 levels"},
		{name: "nested to the decoder's limit", stdin: call(1, "compact_context", `{"messages":[{"role":"user","content":"hi","x":`+strings.Repeat("[", 9990)+strings.Repeat("]", 9990)+`}],"target_ratio":1}`),
			substr: `"kept":1`},
		{name: "unknown method", stdin: `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`, exit: 1, code: jsonrpc.CodeMethodNotFound},
		{name: "unknown tool", stdin: call(1, "delete_everything", `{}`), exit: 1, code: jsonrpc.CodeInvalidParams, substr: "delete_everything"},
		{name: "missing messages", stdin: call(1, "compact_context", `{"query":"x"}`), exit: 1, isErr: true, substr: "messages"},
		{name: "wrong type", stdin: call(1, "compact_context", `{"messages":[],"keep_last":"3"}`), exit: 1, isErr: true, substr: "keep_last"},
		{name: "ratio out of range", stdin: call(1, "compact_context", `{"messages":[],"target_ratio":1.01}`), exit: 1, isErr: true, substr: "target_ratio"},
		{name: "initialize in forced one-shot mode", args: []string{"--mode", "oneshot"}, stdin: `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`, exit: 1, code: jsonrpc.CodeMethodNotFound, substr: "initialize"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runChitta(t, t.TempDir(), tt.stdin, tt.args...)
			assert.Equal(t, tt.exit, r.code, "stderr: %s", r.stderr)
			lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
			require.Len(t, lines, 1, "one response line: %s", r.stdout)
			checkResponse(t, []byte(lines[0]))
			var resp struct {
				Error  *jsonrpc.Error `json:"error"`
				Result struct {
					Content []struct{ Text string }
					IsError bool
				}
			}
			require.NoError(t, json.Unmarshal([]byte(lines[0]), &resp))
			if tt.isErr {
				assert.Nil(t, resp.Error)
				assert.True(t, resp.Result.IsError)
				require.Len(t, resp.Result.Content, 1)
				assert.Contains(t, resp.Result.Content[0].Text, tt.substr)
				assert.Contains(t, r.stderr, "request failed")
				return
			}
			if tt.code == 0 {
				assert.Nil(t, resp.Error)
				assert.Contains(t, lines[0], tt.substr)
				return
			}
			require.NotNil(t, resp.Error)
			assert.Equal(t, tt.code, resp.Error.Code)
			assert.Contains(t, resp.Error.Message, tt.substr)
			assert.Contains(t, r.stderr, "request failed")
			assert.NotContains(t, r.stderr, "goroutine")
		})
	}
}

func TestOneShotEmptyInputAndHelp(t *testing.T) {
	t.Parallel()
	r := runChitta(t, t.TempDir(), "  \n")
	assert.Equal(t, 0, r.code)
	assert.Empty(t, r.stdout)

	r = runChitta(t, t.TempDir(), "", "-h")
	assert.Equal(t, 0, r.code)
	assert.Empty(t, r.stdout)
	assert.Contains(t, r.stderr, "-store file")
}

// TestStorePersists remembers in one process and recalls in another, with
// the default store path (the project's, under XDG_DATA_HOME) created on
// first use.
func TestStorePersists(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	stores := func() []string {
		paths, err := filepath.Glob(filepath.Join(home, "chitta", "projects", "*", "memory.chitta"))
		require.NoError(t, err)
		return paths
	}

	r := runChitta(t, home, call(1, "recall", `{"text":"deploy"}`))
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, stores(), "reading does not create the store")

	r = runChitta(t, home, call(1, "remember", `{"text":"Deploys go out on Tuesdays after the freeze.","kind":"habit","confidence":0.6}`))
	require.Equal(t, 0, r.code, r.stderr)
	assert.Len(t, stores(), 1, "remember saves the store of the working directory's project")

	r = runChitta(t, home, call(2, "recall", `{"text":"when do deploys go out?","k":1}`))
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "Deploys go out on Tuesdays")
	assert.Contains(t, r.stdout, `"kind":"habit"`)

	// The explicit --store flag points elsewhere: an empty store there.
	other := filepath.Join(t.TempDir(), "x", "other.chitta")
	r = runChitta(t, home, call(3, "recall", `{"text":"deploys"}`), "--store", other)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"memories":[]`)
}

func TestRefusesToStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.chitta")
	garbage := []byte("CHITTAMS but not really a store")
	require.NoError(t, os.WriteFile(corrupt, garbage, 0o600))
	small := filepath.Join(dir, "small.chitta")
	r := runChitta(t, dir, call(1, "remember", `{"text":"x"}`), "--store", small, "--embedder", "hash:64")
	require.Equal(t, 0, r.code, r.stderr)

	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{name: "corrupt store", args: []string{"--store", corrupt}, stderr: "refusing to start: load store " + corrupt + ": "},
		{name: "dims mismatch", args: []string{"--store", small, "--embedder", "hash:128"}, stderr: "64-dimensional"},
		{name: "bad embedder", args: []string{"--embedder", "word2vec"}, stderr: "want hash"},
		{name: "bad hash dims", args: []string{"--embedder", "hash:0"}, stderr: "hash:DIMS"},
		{name: "openai without model", args: []string{"--embedder", "openai:http://127.0.0.1:1"}, stderr: "openai:URL#MODEL"},
		{name: "llamacpp without the build tag", args: []string{"--embedder", "llamacpp:/no/model.gguf"}, stderr: "llamacpp"},
		{name: "bad flag", args: []string{"--bogus"}, stderr: "flag provided but not defined"},
		{name: "stray argument", args: []string{"compact"}, stderr: "unexpected argument"},
		{name: "bad mode", args: []string{"--mode", "http"}, stderr: "want auto, serve or oneshot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runChitta(t, dir, call(1, "remember", `{"text":"y"}`), tt.args...)
			assert.Equal(t, 1, r.code)
			assert.Empty(t, r.stdout)
			assert.Contains(t, r.stderr, tt.stderr)
			assert.NotContains(t, r.stderr, "goroutine")
		})
	}
	got, err := os.ReadFile(corrupt)
	require.NoError(t, err)
	assert.Equal(t, garbage, got, "a corrupt store is never overwritten")
}

// TestServeExec drives the binary as an MCP server through the SDK's
// command transport: the initialize request selects session mode.
func TestServeExec(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	home := t.TempDir()
	store := filepath.Join(home, "m.chitta")
	cmd := exec.Command(binary, "--store", store)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	t.Cleanup(func() { t.Log(stderr.String()) })
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	defer cs.Close()

	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, tools.Tools, 5)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "remember", Arguments: map[string]any{"text": "The staging database is read-only on Fridays."}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "recall", Arguments: map[string]any{"text": "staging database"}})
	require.NoError(t, err)
	assert.Contains(t, textOf(t, res), "read-only on Fridays")
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "compact_context", Arguments: map[string]any{"query": "x"}})
	assert.Contains(t, argError(t, res, err), "messages: required")

	// Another process (here a one-shot chitta, in practice the PreCompact
	// hook) writes the same store while the session is open: the session
	// sees its memory, and the session's next write keeps it.
	r := runChitta(t, home, call(1, "remember", `{"text":"Release branches are cut on the first Monday of the month."}`), "--store", store)
	require.Equal(t, 0, r.code, r.stderr)
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "recall", Arguments: map[string]any{"text": "when are release branches cut?", "k": 1}})
	require.NoError(t, err)
	assert.Contains(t, textOf(t, res), "first Monday")
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "remember", Arguments: map[string]any{"text": "Feature flags live in config/flags.yaml."}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	r = runChitta(t, home, call(2, "recall", `{"text":"x","k":10}`), "--store", store)
	require.Equal(t, 0, r.code, r.stderr)
	for _, text := range []string{"read-only on Fridays", "first Monday", "config/flags.yaml"} {
		assert.Contains(t, r.stdout, text)
	}
}

// TestSampleRequest runs the README's sample request: the response keeps
// the system message and the last prompt, in order, with tool pairs whole,
// under the budget.
func TestSampleRequest(t *testing.T) {
	t.Parallel()
	req, err := os.ReadFile(filepath.Join("testdata", "compact.json"))
	require.NoError(t, err)
	r := runChitta(t, t.TempDir(), string(req))
	require.Equal(t, 0, r.code, r.stderr)
	var resp struct {
		Result struct {
			StructuredContent struct {
				Messages []json.RawMessage `json:"messages"`
				Stats    struct {
					BeforeTokens int  `json:"before_tokens"`
					AfterTokens  int  `json:"after_tokens"`
					TargetTokens int  `json:"target_tokens"`
					Embedding    bool `json:"embedding"`
				} `json:"stats"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &resp))
	out := resp.Result.StructuredContent
	var req2 struct {
		Params struct {
			Arguments struct {
				Messages []json.RawMessage `json:"messages"`
			} `json:"arguments"`
		} `json:"params"`
	}
	require.NoError(t, json.Unmarshal(req, &req2))
	in := req2.Params.Arguments.Messages
	inVals := decodedMessages(t, mustJSON(t, in))
	outVals := decodedMessages(t, mustJSON(t, out.Messages))
	require.NotEmpty(t, outVals)
	assert.Equal(t, inVals[0], outVals[0], "system message kept")
	assert.Equal(t, inVals[len(inVals)-1], outVals[len(outVals)-1], "last prompt kept")
	assert.Less(t, len(outVals), len(inVals))
	assert.True(t, out.Stats.Embedding)
	assert.LessOrEqual(t, out.Stats.AfterTokens, out.Stats.TargetTokens)
	assert.Equal(t, out.Stats.BeforeTokens*2/5, out.Stats.TargetTokens)

	kept, err := chitta.ParseMessages(mustJSON(t, out.Messages))
	require.NoError(t, err)
	calls, results := map[string]bool{}, map[string]bool{}
	for _, m := range kept {
		for _, id := range m.ToolCallIDs {
			calls[id] = true
		}
		for _, id := range m.ToolResultIDs {
			results[id] = true
		}
	}
	assert.Equal(t, calls, results, "tool calls and results kept together")
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return data
}
