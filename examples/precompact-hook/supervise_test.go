package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta/examples/internal/clipmsg"
)

// TestSupervisorMapsFatalErrors: a worker that dies of a Go runtime fatal
// error (exit status 2, which would block Claude Code's compaction) makes
// the hook exit 1 with one line naming the cause. The worker is built with
// the chittahookfatal tag (fatal_test_tag.go), which overflows its stack.
func TestSupervisorMapsFatalErrors(t *testing.T) {
	t.Parallel()
	fatal := filepath.Join(t.TempDir(), "precompact-hook-fatal")
	build := exec.Command("go", "build", "-tags", "chittahookfatal", "-o", fatal, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))

	// The worker alone exits 2: the case the supervisor exists for.
	alone := exec.CommandContext(t.Context(), fatal)
	alone.Env = append(os.Environ(), workerEnv+"=1")
	alone.Stdin = strings.NewReader("{}")
	var exit *exec.ExitError
	require.ErrorAs(t, alone.Run(), &exit)
	require.Equal(t, 2, exit.ExitCode())

	cmd := exec.CommandContext(t.Context(), fatal)
	cmd.Stdin = strings.NewReader("{}")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.ErrorAs(t, cmd.Run(), &exit)
	assert.Equal(t, 1, exit.ExitCode())
	assert.Equal(t, prefix+"failed: worker exit status 2: fatal error: stack overflow\n", stderr.String())
	assert.Empty(t, stdout.String())
}

func TestCrashCause(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"", ""},
		{"\n  \n", ""},
		{"runtime: goroutine stack exceeds 65536-byte limit\nfatal error: stack overflow\n\ngoroutine 1 [running]:\n", ": fatal error: stack overflow"},
		{"fatal error: runtime: out of memory\n", ": fatal error: runtime: out of memory"},
		{"something odd\nmore\n", ": something odd"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, crashCause([]byte(tt.in)), "%q", tt.in)
	}
}

func TestCapBuffer(t *testing.T) {
	t.Parallel()
	var c capBuffer
	big := bytes.Repeat([]byte("x"), maxWorkerStderr-10)
	n, err := c.Write(big)
	require.NoError(t, err)
	assert.Equal(t, len(big), n)
	n, err = c.Write(bytes.Repeat([]byte("y"), 100))
	require.NoError(t, err)
	assert.Equal(t, 100, n, "a full buffer still reports the whole write")
	assert.Equal(t, maxWorkerStderr, c.Len())
	assert.True(t, bytes.HasSuffix(c.Bytes(), bytes.Repeat([]byte("y"), 10)))
}

// TestSupervisorLineBounded: whatever the worker's stderr holds when it
// dies, the supervisor writes one line of at most clipmsg.Max bytes after
// its "chitta hook: failed: " prefix, as hookMain does. A worker that died
// with a long first line (a panic quoting a value) had it passed on whole,
// up to the 64 KiB kept of its stderr.
func TestSupervisorLineBounded(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 5000)
	for _, tt := range []struct{ name, script, want string }{
		{"panic line", "printf 'panic: " + long + "\\n\\ngoroutine 1 [running]:\\n' >&2; exit 2", "failed: worker exit status 2: panic: xxx"},
		{"fatal error after a long line", "printf '" + long + "\\nfatal error: stack overflow\\n' >&2; exit 2", "failed: worker exit status 2: fatal error: stack overflow"},
		{"no newline", "printf '" + long + long + "' >&2; exit 3", "failed: worker exit status 3: xxx"},
		{"killed", "kill -9 $$", "failed: worker signal: killed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := supervise("/bin/sh", []string{"-c", tt.script}, strings.NewReader(""), &stdout, &stderr)
			assert.Equal(t, 1, code)
			line := stderr.String()
			assert.True(t, strings.HasPrefix(line, prefix+tt.want), line)
			assert.Equal(t, 1, strings.Count(line, "\n"), "one line")
			assert.LessOrEqual(t, len(line), len(prefix+"failed: ")+clipmsg.Max+1)
		})
	}
}
