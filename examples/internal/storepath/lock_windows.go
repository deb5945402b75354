//go:build windows

package storepath

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// openNoWait is the flag that opens a named pipe without waiting: none on
// Windows, where a path in a directory cannot become a named pipe (pipes
// live under \\.\pipe\), and where O_NONBLOCK would make os.OpenFile open
// the file for overlapped I/O.
const openNoWait = 0

// lockAll is the length of the locked range, from offset 0: every byte
// (LockFileEx may lock past the end of the file; the lock file stays
// empty).
const lockAll = ^uint32(0)

// lockFile takes an exclusive lock on path (created if needed) with
// LockFileEx and returns the function that releases it. It polls while
// another process holds the lock and gives up after wait, or once ctx is
// done, whichever comes first (at once when wait is 0, with an error
// wrapping ErrLocked), so that a stuck process cannot block a hook forever
// nor past its deadline.
//
// The lock belongs to the open handle, as a flock lock belongs to the open
// file on unix: a second lockFile in the same process waits too. It
// excludes only processes that take it (the store file itself is not
// locked: a program writing it without lockFile is not stopped), and it is
// Windows' mandatory byte-range lock, so no one may read or write the
// locked bytes of the lock file meanwhile (no one does: it stays empty).
// Windows releases the lock of a process that exits or is killed without
// unlocking, but says it may do so only after a delay; a wait past that is
// bounded by wait as any other.
//
// A path that is a symbolic link is refused rather than followed, as on
// unix (opening it with O_CREATE would create or lock whatever file the
// link names), and so is any other reparse point that stands for another
// path, such as a junction (if it even opens for writing). The path
// is opened with FILE_FLAG_OPEN_REPARSE_POINT, which os.OpenFile passes on
// to CreateFile and which opens a link itself instead of its target, and
// the opened file is then checked. Checking the path with os.Lstat before
// an ordinary open instead would leave a window in which the path could
// become a link between the check and the open.
func lockFile(ctx context.Context, path string, wait time.Duration) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0o600)
	if err != nil {
		return nil, err
	}
	h := windows.Handle(f.Fd())
	if link, err := isNameSurrogate(h); err != nil || link {
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return nil, fmt.Errorf("%s is a symbolic link (a lock file must not be one)", path)
	}
	err = pollLock(ctx, path, wait, func() (bool, error) {
		err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY,
			0, lockAll, lockAll, new(windows.Overlapped))
		if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
			return false, nil // held by another handle
		}
		return err == nil, err
	})
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = windows.UnlockFileEx(h, 0, lockAll, lockAll, new(windows.Overlapped))
		f.Close()
	}, nil
}

// isNameSurrogate reports whether the file open at h is a reparse point
// that stands for another path: a symbolic link or a junction (mount
// point). Other reparse points (deduplicated files, cloud files) are the
// file itself.
func isNameSurrogate(h windows.Handle) (bool, error) {
	var info struct { // FILE_ATTRIBUTE_TAG_INFO
		FileAttributes uint32
		ReparseTag     uint32
	}
	err := windows.GetFileInformationByHandleEx(h, windows.FileAttributeTagInfo,
		(*byte)(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	if err != nil {
		return false, err
	}
	const nameSurrogate = 0x20000000 // IsReparseTagNameSurrogate
	return info.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 && info.ReparseTag&nameSurrogate != 0, nil
}
