//go:build !linux

package retention

import "time"

var start = time.Now()

// threadTime falls back to wall time outside Linux.
func threadTime() time.Duration { return time.Since(start) }
