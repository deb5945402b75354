package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
)

// workerEnv is set in the environment of the worker process that the hook
// runs itself as (see supervise); a process that has it does the work.
const workerEnv = "CHITTA_HOOK_WORKER"

// stopSignals make the hook give up (exit 1, one line), supervisor and
// worker alike: SIGINT and SIGTERM, and SIGQUIT and SIGHUP, which would
// otherwise end the process as Go does (SIGQUIT: a goroutine dump and
// exit status 2, which blocks the compaction; SIGHUP: killed).
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGHUP}

// maxWorkerStderr bounds what supervise keeps of the worker's stderr: the
// worker writes one line, a crashing runtime a goroutine dump.
const maxWorkerStderr = 64 << 10

// supervise runs the hook as a worker process (exe with args, workerEnv
// set, stdin and stdout passed through) and returns the status Claude Code
// should see: 0 when the worker exits 0, 1 otherwise.
//
// hookMain recovers panics, but the Go runtime ends a process with status
// 2 on a fatal error it cannot recover (out of memory, a stack overflow, a
// concurrent map write), and status 2 from a PreCompact hook would block
// the compaction. The supervisor is small enough not to fail that way: it
// maps such an exit, or a worker killed by a signal, to 1 with one line on
// stderr naming the cause (at most clipmsg.Max bytes after its prefix, as
// hookMain's). The worker's own stderr (one line) is passed
// on when it exits 0 or 1. The signals of stopSignals are forwarded to
// the worker, which gives up as it does when run alone.
//
// When the worker cannot be started, supervise runs the hook in this
// process instead.
func supervise(exe string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var errBuf capBuffer
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), workerEnv+"=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, &errBuf
	setParentDeathSignal(cmd)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, stopSignals...)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		signal.Stop(sigs)
		return hookMain(args, stdin, stdout, stderr)
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				_ = cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	code := cmd.ProcessState.ExitCode()
	if code == 0 || code == 1 {
		_, _ = stderr.Write(errBuf.Bytes())
		return code
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(stderr, prefix+"failed: "+stderrLine("worker: "+err.Error()))
		return 1
	}
	fmt.Fprintln(stderr, prefix+"failed: "+stderrLine("worker "+cmd.ProcessState.String()+crashCause(errBuf.Bytes())))
	return 1
}

// crashCause returns ": " and the line of a worker's stderr that names why
// it died (the runtime's "fatal error: …" line, else its first line), or ""
// when stderr is empty.
func crashCause(b []byte) string {
	var first string
	for line := range strings.Lines(string(b)) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "fatal error:") || strings.HasPrefix(line, "runtime: out of memory") {
			return ": " + oneLine(line)
		}
		if first == "" {
			first = line
		}
	}
	if first == "" {
		return ""
	}
	return ": " + oneLine(first)
}

// capBuffer keeps the first maxWorkerStderr bytes written to it and
// discards the rest (never failing the writer).
type capBuffer struct{ bytes.Buffer }

func (c *capBuffer) Write(p []byte) (int, error) {
	if room := maxWorkerStderr - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
