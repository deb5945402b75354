//go:build !linux

package main

import "os/exec"

// setParentDeathSignal does nothing outside Linux: a worker orphaned by a
// killed supervisor stops at its own --timeout.
func setParentDeathSignal(*exec.Cmd) {}
