//go:build unix

package chitta

import (
	"os"
	"syscall"
)

// openNoWait are the flags with which LoadHNSWStoreOptions opens a store
// file so that a path naming a named pipe does not wait for a writer (it
// is refused once open) and one naming a terminal does not become the
// process's controlling terminal. They change nothing for a regular file.
const openNoWait = syscall.O_NONBLOCK | syscall.O_NOCTTY

// syncDir flushes dir, so that a rename into it survives a crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
