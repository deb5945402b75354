//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/silentpg"
)

// liveChitta is a running chitta binary with a pipe on its stdin and its
// stdout read line by line.
type liveChitta struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr *bytes.Buffer
	done   chan error
}

// startChitta starts the binary with args; the test ends it.
func startChitta(t *testing.T, args ...string) *liveChitta {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+t.TempDir())
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	c := &liveChitta{cmd: cmd, stdin: stdin, lines: make(chan string, 16), stderr: &bytes.Buffer{}, done: make(chan error, 1)}
	cmd.Stderr = c.stderr
	require.NoError(t, cmd.Start())
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
		c.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // the process this test started, if still running
		stdin.Close()
	})
	return c
}

// send writes one line to the process's stdin.
func (c *liveChitta) send(t *testing.T, line string) {
	t.Helper()
	_, err := io.WriteString(c.stdin, line+"\n")
	require.NoError(t, err)
}

// response waits for the response with the given id.
func (c *liveChitta) response(t *testing.T, id string) wireResponse {
	t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case line, ok := <-c.lines:
			require.True(t, ok, "stdout closed before the response %s: %s", id, c.stderr)
			var r wireResponse
			require.NoError(t, json.Unmarshal([]byte(line), &r), line)
			r.raw = line
			if string(r.ID) == id {
				return r
			}
		case <-timeout:
			t.Fatalf("no response %s: %s", id, c.stderr)
		}
	}
}

// stop sends sig and returns the exit code, failing when the process does
// not exit within 15 seconds (a loaded machine starts slowly).
func (c *liveChitta) stop(t *testing.T, sig os.Signal) int {
	t.Helper()
	require.NoError(t, c.cmd.Process.Signal(sig))
	select {
	case <-c.done:
	case <-time.After(15 * time.Second):
		t.Fatalf("still running 15s after %v: %s", sig, c.stderr)
	}
	return c.cmd.ProcessState.ExitCode()
}

const rememberLine = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"remember","arguments":{"text":"The staging database is read-only on Fridays."}}}`

// TestServeStopsOnSignal: SIGTERM or SIGINT stops an MCP session cleanly,
// exit 0 and nothing on stderr, the memories it stored saved (it exited
// 1 with "context canceled" and the SDK's "server run cancelled" error).
func TestServeStopsOnSignal(t *testing.T) {
	t.Parallel()
	for _, sig := range []os.Signal{syscall.SIGTERM, os.Interrupt} {
		for _, mode := range []string{"auto", "serve"} {
			t.Run(sig.String()+"/"+mode, func(t *testing.T) {
				t.Parallel()
				store := filepath.Join(t.TempDir(), "m.chitta")
				c := startChitta(t, "--store", store, "--mode", mode)
				c.send(t, initializeLine)
				c.send(t, initializedLine)
				c.send(t, rememberLine)
				r := c.response(t, "1")
				require.Nil(t, r.Error, r.raw)
				require.NotContains(t, r.raw, `"isError":true`)

				assert.Equal(t, 0, c.stop(t, sig), c.stderr.String())
				assert.Empty(t, c.stderr.String())
				s, err := chitta.LoadHNSWStore(store)
				require.NoError(t, err)
				assert.Equal(t, 1, s.Len())
			})
		}
	}
}

// TestWaitingStopsOnSignal: a chitta still waiting for its first message
// exits 0 at once on SIGTERM (it went on waiting for stdin to close).
func TestWaitingStopsOnSignal(t *testing.T) {
	t.Parallel()
	c := startChitta(t, "--store", filepath.Join(t.TempDir(), "m.chitta"))
	time.Sleep(time.Second) // let it install its handler (a loaded machine starts slowly)
	assert.Equal(t, 0, c.stop(t, syscall.SIGTERM), c.stderr.String())
	assert.Empty(t, c.stderr.String())
}

// TestSignalWhileStoreOpens: a chitta still opening a postgres:// store
// whose server does not answer exits 0 at once on SIGTERM, nothing on
// stderr, as one waiting for its first message does (it exited 1 with
// "open store …: context canceled").
func TestSignalWhileStoreOpens(t *testing.T) {
	t.Parallel()
	c := startChitta(t, "--store", silentpg.URL(t))
	c.send(t, initializeLine)
	time.Sleep(time.Second) // let it install its handler and start the open
	assert.Equal(t, 0, c.stop(t, syscall.SIGTERM), c.stderr.String())
	assert.Empty(t, c.stderr.String())
}

// TestSignalWhileEmbedderProbes: a chitta still waiting for its openai:
// embedder's probe (a server that never answers) exits 0 at once on
// SIGTERM, nothing on stderr, as one opening its postgres:// store does
// (it exited 1 with "probe: context canceled").
func TestSignalWhileEmbedderProbes(t *testing.T) {
	t.Parallel()
	c := startChitta(t, "--store", filepath.Join(t.TempDir(), "m.chitta"), "--embedder", silentEmbedder(t))
	c.send(t, initializeLine)
	time.Sleep(time.Second) // let it install its handler and start the probe
	assert.Equal(t, 0, c.stop(t, syscall.SIGTERM), c.stderr.String())
	assert.Empty(t, c.stderr.String())
}

// TestSignalSavesUnsavedMemory: a memory whose save failed (the remember
// call said so) stays in the session's store, and the session saves it
// when a signal stops it: nothing the user stored is lost for want of a
// later write.
func TestSignalSavesUnsavedMemory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	store := filepath.Join(dir, "m.chitta")
	lock := store + ".lock"
	require.NoError(t, os.Symlink("elsewhere", lock)) // Save refuses a linked lock file
	c := startChitta(t, "--store", store, "--mode", "serve")
	c.send(t, initializeLine)
	c.send(t, initializedLine)
	c.send(t, rememberLine)
	r := c.response(t, "1")
	require.Contains(t, r.raw, `"isError":true`, "the save failed")
	require.NoError(t, os.Remove(lock))

	assert.Equal(t, 0, c.stop(t, syscall.SIGTERM), c.stderr.String())
	s, err := chitta.LoadHNSWStore(store)
	require.NoError(t, err)
	assert.Equal(t, 1, s.Len(), "saved at the end")
}

// TestSignalWithLockedStoreEndsInGrace: SIGTERM while a remember waits
// for a store lock another process holds ends chitta within the stop's
// grace (5 s), exit 1 naming the memory its save could not write: the save
// gives up then. It waited its own 10 s for the lock, then the final save
// of the unsaved memory 10 s more, about 20 s in all.
func TestSignalWithLockedStoreEndsInGrace(t *testing.T) {
	t.Parallel()
	store := filepath.Join(t.TempDir(), "m.chitta")
	lock, err := os.OpenFile(store+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	defer lock.Close()
	require.NoError(t, syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB))
	c := startChitta(t, "--store", store, "--mode", "serve")
	c.send(t, initializeLine)
	c.send(t, initializedLine)
	c.response(t, "0")
	c.send(t, rememberLine)
	time.Sleep(time.Second) // let the remember reach the lock (one read after the signal is refused at once)

	assert.Equal(t, 1, c.stop(t, syscall.SIGTERM), c.stderr.String())
	assert.Contains(t, c.stderr.String(), "1 unsaved memory changes lost")
	assert.Contains(t, c.stderr.String(), "store locked")
}
