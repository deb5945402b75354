//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd || windows

package storepath

import (
	"context"
	"fmt"
	"time"
)

// pollLock calls try, which takes the lock on path without waiting, every
// 10 ms until it reports the lock taken (true) or an error, and gives up
// after wait, or once ctx is done, whichever comes first (after one try
// when wait is 0), with an error wrapping ErrLocked.
func pollLock(ctx context.Context, path string, wait time.Duration, try func() (bool, error)) error {
	deadline := time.Now().Add(wait)
	for {
		taken, err := try()
		if err != nil || taken {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: %s held by another process for over %v", ErrLocked, path, wait)
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%w: %s held by another process: %w", ErrLocked, path, err)
		}
		select {
		case <-time.After(10 * time.Millisecond):
		case <-ctx.Done():
		}
	}
}
