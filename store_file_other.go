//go:build !unix

package chitta

// openNoWait are the extra flags with which LoadHNSWStoreOptions opens a
// store file: none on systems without named pipes that block an open
// (on Windows, O_NONBLOCK would open the file for overlapped I/O).
const openNoWait = 0
