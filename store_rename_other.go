//go:build !windows

package chitta

import "os"

// renameReplacing renames tmp over path (see the Windows version, which
// retries while another process holds path open).
func renameReplacing(tmp, path string) error { return os.Rename(tmp, path) }
