//go:build linux

package retention

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadTime returns the CPU time of the calling OS thread (lock the
// goroutine to it first), which other processes on a shared machine do not
// inflate as they do wall time.
func threadTime() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
