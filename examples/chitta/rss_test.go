//go:build unix

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/storepath"
)

// rssChildEnv names the chitta binary that a re-executed test binary runs
// and measures (see measureRSS).
const rssChildEnv = "CHITTA_TEST_RSS_CHILD"

// rssFileEnv names the file where that test binary writes the peak RSS.
const rssFileEnv = "CHITTA_TEST_RSS_FILE"

// measureRSS runs the chitta binary with stdin and args and returns its
// result and its peak resident set size in bytes.
//
// Linux carries a process's peak RSS across exec, and a child started by
// os/exec shares the starting process's memory until it execs: the peak
// RSS the test process reads for its own child is at least the test
// process's own peak (hundreds of MB once a test has built a big request
// under the race detector). So the test binary re-executes itself, small
// and fresh, and that process starts chitta and reports chitta's peak.
func measureRSS(t *testing.T, stdin io.Reader, args ...string) (execResult, int64) {
	t.Helper()
	rssFile := filepath.Join(t.TempDir(), "rss")
	cmd := exec.CommandContext(t.Context(), os.Args[0], args...)
	cmd.Env = append(os.Environ(), rssChildEnv+"="+binary, rssFileEnv+"="+rssFile)
	cmd.Stdin = stdin
	r := runCmd(t, cmd)
	data, err := os.ReadFile(rssFile)
	require.NoError(t, err, "stderr: %s", r.stderr)
	rss, err := strconv.ParseInt(string(data), 10, 64)
	require.NoError(t, err)
	return r, rss
}

// rssChild is the re-executed test binary: it runs bin with its own
// arguments and standard streams, writes bin's peak RSS to the file named
// by rssFileEnv, and exits with bin's status.
func rssChild(bin string) int {
	cmd := exec.Command(bin, os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "rss child:", err)
		return 2
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024 // KiB on Linux
	if err := os.WriteFile(os.Getenv(rssFileEnv), []byte(strconv.FormatInt(rss, 10)), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "rss child:", err)
		return 2
	}
	return cmd.ProcessState.ExitCode()
}

// TestServeHugeLine sends a 300 MB line to the binary: it is answered with
// -32600 without being held whole (the SDK's transport ended the session),
// and the session goes on.
func TestServeHugeLine(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriterSize(pw, 1<<20)
		fmt.Fprintln(w, initializeLine)
		fmt.Fprintln(w, initializedLine)
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recall","arguments":{"text":"`)
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		for range 300 {
			_, _ = w.Write(chunk)
		}
		fmt.Fprintln(w, `"}}}`)
		fmt.Fprintln(w, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		_ = pw.CloseWithError(w.Flush())
	}()
	r, rss := measureRSS(t, pr, "--store", filepath.Join(t.TempDir(), "m.chitta"))
	require.Equal(t, 0, r.code, r.stderr)
	rs := responses(t, r.stdout)
	require.Len(t, rs, 3)
	bad := byID(t, rs, "null")
	require.NotNil(t, bad.Error)
	assert.Equal(t, int64(jsonrpc.CodeInvalidRequest), bad.Error.Code)
	assert.Contains(t, bad.Error.Message, "longer than")
	assert.Nil(t, byID(t, rs, "2").Error)
	t.Logf("peak RSS %d MiB", rss>>20)
	assert.Less(t, rss, int64(maxLineLength+64<<20), "at most one line limit's worth is held")
}

// TestHugeRequestRSS sends compact_context 10^6 messages (a 60 MB
// request) to the binary, one-shot and in a session, with a store of
// memories, and measures the process's peak RSS: the request must be
// answered or refused within 4 GB (it took 9.8 GB and died of OOM). It also
// measures a call of maxMessages messages, answered. The figures are in
// BENCHMARKS.md.
func TestHugeRequestRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 60 MB requests to the binary")
	}
	dir := t.TempDir()
	store := filepath.Join(dir, "m.chitta")
	seed := storeWithMemories(t, store, 500)
	require.Equal(t, 500, seed)
	const limit = 4 << 30
	for _, tt := range []struct {
		name    string
		n       int
		session bool
		refused bool
	}{
		{name: "1e6 one-shot", n: 1_000_000, refused: true},
		{name: "1e6 session", n: 1_000_000, session: true, refused: true},
		{name: "at the cap one-shot", n: maxMessages},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"compact_context","arguments":{"messages":` + manyMessages(tt.n) + `,"query":"topic 5"}}}`
			in := req + "\n"
			if tt.session {
				in = initializeLine + "\n" + initializedLine + "\n" + req + "\n"
			}
			res, rss := measureRSS(t, strings.NewReader(in), "--store", store)
			if !tt.session && tt.refused {
				require.Equal(t, 1, res.code, "an error response")
			} else {
				require.Equal(t, 0, res.code, res.stderr)
			}
			r := byID(t, responses(t, res.stdout), "1")
			if tt.refused {
				assert.Contains(t, wireArgError(t, r), fmt.Sprint(maxMessages))
			} else {
				require.Nil(t, r.Error, "%.300s", r.raw)
				assert.Contains(t, string(r.Result), `"before_tokens"`)
			}
			t.Logf("%s: %d messages, request %.1f MB, peak RSS %.0f MiB", tt.name, tt.n, float64(len(req))/1e6, float64(rss)/(1<<20))
			assert.Less(t, rss, int64(limit))
		})
	}
}

// storeWithMemories saves n distinct memories (hash embedder, default
// dimensions) to path and returns the store's size.
func storeWithMemories(t *testing.T, path string, n int) int {
	t.Helper()
	emb := chitta.NewHashEmbedder(0)
	s, err := storepath.OpenShared(path, emb.Dimensions())
	require.NoError(t, err)
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("remembered fact %d about topic %d", i, i%97)
	}
	vecs, err := emb.Embed(t.Context(), texts)
	require.NoError(t, err)
	for i, v := range vecs {
		require.NoError(t, s.Add(t.Context(), chitta.Memory{Text: texts[i], Kind: chitta.KindFact, Confidence: 1, Vector: v}))
	}
	require.NoError(t, s.Save())
	return s.Len()
}

// TestOneShotHugeRequest: a first request longer than the line limit (a
// string that goes on) is answered with -32600 without being read whole.
func TestOneShotHugeRequest(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriterSize(pw, 1<<20)
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recall","arguments":{"text":"`)
		chunk := bytes.Repeat([]byte("y"), 1<<20)
		for range maxLineLength>>20 + 16 {
			if _, err := w.Write(chunk); err != nil {
				break
			}
		}
		_ = pw.CloseWithError(w.Flush())
	}()
	r, rss := measureRSS(t, pr, "--store", filepath.Join(t.TempDir(), "m.chitta"))
	assert.Equal(t, 1, r.code)
	resp := byID(t, responses(t, r.stdout), "null")
	require.NotNil(t, resp.Error)
	assert.Equal(t, int64(jsonrpc.CodeInvalidRequest), resp.Error.Code)
	assert.Contains(t, resp.Error.Message, "longer than")
	t.Logf("peak RSS %d MiB", rss>>20)
	assert.Less(t, rss, int64(4*maxLineLength), "the request is not read past the limit")
}
