//go:build unix

package chitta

import "syscall"

// openNoWait are the flags with which LoadHNSWStoreOptions opens a store
// file so that a path naming a named pipe does not wait for a writer (it
// is refused once open) and one naming a terminal does not become the
// process's controlling terminal. They change nothing for a regular file.
const openNoWait = syscall.O_NONBLOCK | syscall.O_NOCTTY
