package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWorkerDiesWithSupervisor: when Claude Code kills the hook (SIGKILL,
// which cannot be forwarded), its worker is stopped too instead of being
// left waiting.
func TestWorkerDiesWithSupervisor(t *testing.T) {
	t.Parallel()
	cmd := exec.CommandContext(t.Context(), binary, "--store", filepath.Join(t.TempDir(), "m"), "--timeout", "1m")
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	defer pw.Close()
	defer pr.Close()
	cmd.Stdin = pr // never written: the worker waits for its input
	require.NoError(t, cmd.Start())
	worker := 0
	require.Eventually(t, func() bool {
		// The child is listed under the thread that forked it.
		tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/task/*/children")
		for _, task := range tasks {
			b, err := os.ReadFile(task)
			if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
				worker, err = strconv.Atoi(f[0])
				return err == nil
			}
		}
		return false
	}, 10*time.Second, 20*time.Millisecond, "the supervisor starts a worker")
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	assert.Eventually(t, func() bool {
		// Gone, or a zombie waiting for init to reap it.
		b, err := os.ReadFile("/proc/" + strconv.Itoa(worker) + "/stat")
		if errors.Is(err, os.ErrNotExist) {
			return true
		}
		return err == nil && strings.Contains(string(b), ") Z ")
	}, 5*time.Second, 20*time.Millisecond, "worker %d outlived its supervisor", worker)
	_ = syscall.Kill(worker, syscall.SIGKILL) // in case the assertion failed
}
