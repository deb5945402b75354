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

// waitForWorker returns the PID of the worker process that the started
// hook cmd runs.
func waitForWorker(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
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
	return worker
}

// waitingHook starts the hook with a stdin that is never written, so that
// its worker waits for its input; in a process group of its own with
// group.
func waitingHook(t *testing.T, group bool) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), binary, "--store", filepath.Join(t.TempDir(), "m"), "--timeout", "1m")
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { _ = pw.Close(); _ = pr.Close() })
	cmd.Stdin = pr
	var errb strings.Builder
	cmd.Stderr = &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: group}
	require.NoError(t, cmd.Start())
	return cmd, &errb
}

// TestSupervisorQuitHangup: SIGQUIT or SIGHUP sent to the hook (its
// supervisor alone, or its whole process group, as a terminal's ^\ or
// hang-up does) ends it with exit status 1 and one line, as SIGTERM does:
// SIGQUIT made the supervisor's Go runtime dump its goroutines and exit
// 2, which blocks the compaction.
func TestSupervisorQuitHangup(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGQUIT, syscall.SIGHUP} {
		for _, group := range []bool{false, true} {
			t.Run(sig.String()+map[bool]string{false: " to the supervisor", true: " to the group"}[group], func(t *testing.T) {
				t.Parallel()
				cmd, errb := waitingHook(t, group)
				worker := waitForWorker(t, cmd)
				pid := cmd.Process.Pid
				if group {
					pid = -pid
				}
				require.NoError(t, syscall.Kill(pid, sig))
				err := cmd.Wait()
				_ = syscall.Kill(worker, syscall.SIGKILL) // in case it outlived the supervisor
				var exit *exec.ExitError
				require.ErrorAs(t, err, &exit, errb.String())
				assert.Equal(t, 1, exit.ExitCode(), "%v: %s", exit, errb.String())
				assert.Equal(t, 1, strings.Count(errb.String(), "\n"), "one line: %q", errb.String())
				assert.True(t, strings.HasPrefix(errb.String(), prefix+"failed: "), errb.String())
				assert.NotContains(t, errb.String(), "goroutine")
			})
		}
	}
}

// TestWorkerDiesWithSupervisor: when Claude Code kills the hook (SIGKILL,
// which cannot be forwarded), its worker is stopped too instead of being
// left waiting.
func TestWorkerDiesWithSupervisor(t *testing.T) {
	t.Parallel()
	cmd, _ := waitingHook(t, false)
	worker := waitForWorker(t, cmd)
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
