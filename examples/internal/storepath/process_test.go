//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd || windows

package storepath

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The child processes of the tests below are this test binary run with
// -test.run=^TestHelperProcess$ and these variables set.
const (
	childModeEnv  = "CHITTA_STOREPATH_CHILD"       // "try" or "saves"
	childStoreEnv = "CHITTA_STOREPATH_CHILD_STORE" // the store file
	childNameEnv  = "CHITTA_STOREPATH_CHILD_NAME"  // names the child's memories
	childSavesEnv = "CHITTA_STOREPATH_CHILD_SAVES" // saves of a "saves" child
)

// TestHelperProcess is a child process of the tests below; run by go test
// itself, without its variables, it does nothing.
//
//   - "try" adds one memory and saves it with a context that is already
//     done, so that a held lock is given up at once, and prints "saved",
//     "locked" or the error.
//   - "saves" opens the store, prints "ready", waits for a line on stdin,
//     then adds and saves one memory at a time, CHITTA_STOREPATH_CHILD_SAVES
//     times, and prints "done" (or fails).
func TestHelperProcess(t *testing.T) {
	mode, path, name := os.Getenv(childModeEnv), os.Getenv(childStoreEnv), os.Getenv(childNameEnv)
	if mode == "" {
		return
	}
	s, err := OpenShared(path, 4)
	require.NoError(t, err)
	switch mode {
	case "try":
		require.NoError(t, s.Add(t.Context(), mem(name, 0)))
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		switch err := s.SaveContext(ctx); {
		case err == nil:
			fmt.Println("saved")
		case errors.Is(err, ErrLocked):
			fmt.Println("locked")
		default:
			fmt.Println(err)
		}
	case "saves":
		saves, err := strconv.Atoi(os.Getenv(childSavesEnv))
		require.NoError(t, err)
		fmt.Println("ready")
		_, err = bufio.NewReader(os.Stdin).ReadString('\n')
		require.NoError(t, err)
		for i := range saves {
			require.NoError(t, s.Add(t.Context(), mem(fmt.Sprintf("%s m%d", name, i), i)))
			require.NoError(t, s.Save())
		}
		assert.Zero(t, s.Unsaved())
		fmt.Println("done")
	default:
		t.Fatalf("unknown %s %q", childModeEnv, mode)
	}
}

// child returns the command that runs TestHelperProcess in mode on the
// store file path.
func child(t *testing.T, mode, path, name string, env ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.CommandContext(t.Context(), exe, "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), childModeEnv+"="+mode, childStoreEnv+"="+path, childNameEnv+"="+name)
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// TestSharedLockExcludesOtherProcess: while one process holds the store's
// lock, another process's save waits for it (here: gives up at once, its
// context being done) and writes nothing; once the lock is released, the
// same save goes through. With no lock (what Windows had), the second
// process wrote at once, and a save of the first process running
// meanwhile could drop its memory.
func TestSharedLockExcludesOtherProcess(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	s, err := OpenShared(path, 4)
	require.NoError(t, err)
	require.NoError(t, s.Add(t.Context(), mem("parent", 1)))
	require.NoError(t, s.Save())

	unlock, err := lockFile(t.Context(), lockPath(path), 0)
	require.NoError(t, err)
	out, err := child(t, "try", path, "while locked").Output()
	unlock()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "locked", firstLine(out), "the other process's save while the lock is held")
	assert.Equal(t, []string{"parent"}, texts(t, path), "nothing written while the lock is held")

	out, err = child(t, "try", path, "after unlock").Output()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "saved", firstLine(out), "the same save once the lock is released")
	assert.ElementsMatch(t, []string{"parent", "after unlock"}, texts(t, path))
}

// TestSharedSavesFromProcesses: processes that save to one store file at
// the same time lose none of each other's memories (the lock serialises
// their reload-merge-write), and none of their saves fails.
func TestSharedSavesFromProcesses(t *testing.T) {
	t.Parallel()
	const children, saves = 4, 15
	path := filepath.Join(t.TempDir(), FileName)
	type proc struct {
		cmd    *exec.Cmd
		stdin  io.WriteCloser
		stdout *bufio.Reader
		stderr bytes.Buffer
	}
	procs := make([]*proc, children)
	for i := range procs {
		p := &proc{cmd: child(t, "saves", path, fmt.Sprintf("c%d", i), childSavesEnv+"="+strconv.Itoa(saves))}
		var err error
		p.stdin, err = p.cmd.StdinPipe()
		require.NoError(t, err)
		stdout, err := p.cmd.StdoutPipe()
		require.NoError(t, err)
		p.stdout = bufio.NewReader(stdout)
		p.cmd.Stderr = &p.stderr
		require.NoError(t, p.cmd.Start())
		procs[i] = p
	}
	// Every child has opened the store before any saves: the saves are
	// then the only accesses to the file, all of them under the lock.
	for i, p := range procs {
		if line, err := p.stdout.ReadString('\n'); err != nil || trimLine(line) != "ready" {
			_ = p.cmd.Wait() // p.stderr is complete only after Wait
			t.Fatalf("child %d: %q, %v:\n%s", i, line, err, p.stderr.String())
		}
	}
	for _, p := range procs {
		_, err := io.WriteString(p.stdin, "go\n")
		require.NoError(t, err)
	}
	var wg sync.WaitGroup
	outs := make([]string, children)
	for i, p := range procs {
		wg.Go(func() {
			rest, _ := io.ReadAll(p.stdout)
			outs[i] = string(rest)
		})
	}
	wg.Wait()
	for i, p := range procs {
		err := p.cmd.Wait()
		assert.NoError(t, err, "child %d:\n%s\n%s", i, outs[i], p.stderr.String())
	}
	var want []string
	for i := range children {
		for j := range saves {
			want = append(want, fmt.Sprintf("c%d m%d", i, j))
		}
	}
	assert.ElementsMatch(t, want, texts(t, path), "every memory of every process is in the file")
}

func firstLine(out []byte) string {
	line, _, _ := bytes.Cut(out, []byte("\n"))
	return trimLine(string(line))
}

func trimLine(s string) string { return strings.TrimRight(s, "\r\n") }
