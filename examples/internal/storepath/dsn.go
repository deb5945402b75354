package storepath

import (
	"slices"
	"strings"
)

// IsDSN reports whether store names a PostgreSQL database rather than a
// file: a URL starting with postgres:// or postgresql://. The harnesses
// accept one wherever they take a store path.
func IsDSN(store string) bool {
	s := strings.ToLower(store)
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// keywordDSNKeys are the libpq connection keywords a keyword/value
// connection string usually starts with.
var keywordDSNKeys = []string{
	"host", "hostaddr", "port", "dbname", "user", "password", "passfile", "service",
	"sslmode", "sslrootcert", "sslcert", "sslkey", "connect_timeout", "application_name",
	"options", "target_session_attrs",
}

// isKeywordDSN reports whether store starts like a libpq keyword/value
// connection string: a connection keyword, optional white space, and "=".
func isKeywordDSN(store string) bool {
	key, _, ok := strings.Cut(strings.TrimSpace(store), "=")
	return ok && slices.Contains(keywordDSNKeys, strings.ToLower(strings.TrimSpace(key)))
}
