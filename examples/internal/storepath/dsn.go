package storepath

import "strings"

// IsDSN reports whether store names a PostgreSQL database rather than a
// file: a URL starting with postgres:// or postgresql://. The harnesses
// accept one wherever they take a store path.
func IsDSN(store string) bool {
	s := strings.ToLower(store)
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}
