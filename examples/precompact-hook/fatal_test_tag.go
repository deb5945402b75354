//go:build chittahookfatal

package main

import (
	"os"
	"runtime/debug"
)

// Built only by TestSupervisorMapsFatalErrors: the worker dies of a Go
// runtime fatal error (a stack overflow, exit status 2) before doing any
// work, as it would on running out of memory.
func init() {
	if os.Getenv(workerEnv) != "" {
		debug.SetMaxStack(1 << 16)
		os.Exit(overflow(0)) // never reached
	}
}

//go:noinline
func overflow(n int) int {
	//lint:ignore SA5007 the point: a stack overflow, a fatal error no recover catches
	return overflow(n+1) + 1
}
