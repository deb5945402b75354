//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package storepath

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// openNoWait opens a file that was replaced by a named pipe since it was
// checked without waiting for a writer (and a terminal without making it
// the controlling one).
const openNoWait = syscall.O_NONBLOCK | syscall.O_NOCTTY

// lockFile takes an exclusive advisory lock on path (created if needed) and
// returns the function that releases it. It polls while another process
// holds the lock and gives up after wait, or once ctx is done, whichever
// comes first (at once when wait is 0, with an error wrapping ErrLocked),
// so that a stuck process cannot block a hook forever nor past its
// deadline. A path that is a symbolic link is refused rather than followed
// (opening it with O_CREATE would create or truncate-lock whatever file
// the link names).
func lockFile(ctx context.Context, path string, wait time.Duration) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symbolic link (a lock file must not be one): %w", path, err)
	}
	if err != nil {
		return nil, err
	}
	err = pollLock(ctx, path, wait, func() (bool, error) {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EINTR) {
			return false, nil // held by another process (or interrupted): try again
		}
		return err == nil, err
	})
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
