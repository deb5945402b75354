//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd || windows)

package storepath

import (
	"context"
	"time"
)

// openNoWait is the flag that opens a named pipe without waiting: none here.
const openNoWait = 0

// lockFile does nothing on systems with neither flock nor LockFileEx
// (plan9, js, wasip1, …): concurrent saves from two processes may then
// lose one's new memories (the file itself is still replaced atomically).
func lockFile(context.Context, string, time.Duration) (func(), error) { return func() {}, nil }
