//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package storepath

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock on path (created if needed) and
// returns the function that releases it. It waits while another process
// holds the lock.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
