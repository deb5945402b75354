package storepath

import (
	"slices"
	"strings"

	"github.com/chitta-go/chitta"
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

// PostgresText returns m with each NUL byte and invalid UTF-8 sequence of
// its strings (ID, Text, Kind, Source) replaced by U+FFFD: PostgreSQL text
// cannot hold them, and a transcript, a tool's output or a session ID may
// carry one, which pgstore refuses (a store file keeps them). The
// harnesses pass what they add to a postgres:// store through it.
func PostgresText(m chitta.Memory) chitta.Memory {
	for _, s := range []*string{&m.ID, &m.Text, &m.Kind, &m.Source} {
		*s = strings.ReplaceAll(strings.ToValidUTF8(*s, "\uFFFD"), "\x00", "\uFFFD")
	}
	return m
}
