//go:build !unix

package chitta

// openNoWait are the extra flags with which LoadHNSWStoreOptions opens a
// store file: none on systems without named pipes that block an open
// (on Windows, O_NONBLOCK would open the file for overlapped I/O).
const openNoWait = 0

// syncDir does nothing: Windows cannot flush a directory (Sync of an open
// directory fails with "Access is denied", golang/go#75541), so every
// SaveFile failed there after its rename had succeeded. The rename
// itself (MoveFileEx, replacing) is atomic; other systems without unix
// semantics are treated alike.
func syncDir(string) error { return nil }
