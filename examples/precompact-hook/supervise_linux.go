package main

import (
	"os/exec"
	"runtime"
	"syscall"
)

// setParentDeathSignal has the kernel send the worker SIGTERM when the
// supervisor dies (Claude Code killing the hook at its timeout), so that the
// worker does not outlive it. The signal follows the forking thread, not
// the process, so the calling goroutine stays on its thread from here on
// (supervise runs on the main goroutine until the process exits).
func setParentDeathSignal(cmd *exec.Cmd) {
	runtime.LockOSThread()
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
