//go:build windows

package chitta

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// renameWait bounds how long renameReplacing retries.
const renameWait = 2 * time.Second

// renameReplacing renames tmp over path. Windows refuses to replace a file
// that another process holds open without FILE_SHARE_DELETE, which is how
// Go opens every file (golang/go#32088): another chitta process reading
// the store (loading or refreshing it, which takes no lock) made a save
// fail with "Access is denied", and a one-shot hook then lost the memories
// of its run. Such a reader holds the file for the length of one read, so
// the rename is retried, with a growing pause, for up to renameWait while
// it fails with ERROR_ACCESS_DENIED or ERROR_SHARING_VIOLATION, as the go
// command does for its own files (cmd/go/internal/robustio).
func renameReplacing(tmp, path string) error {
	deadline := time.Now().Add(renameWait)
	pause := time.Millisecond
	for {
		err := os.Rename(tmp, path)
		if err == nil || !(errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_SHARING_VIOLATION)) ||
			time.Now().After(deadline) {
			return err
		}
		time.Sleep(pause)
		pause = min(2*pause, 100*time.Millisecond)
	}
}
