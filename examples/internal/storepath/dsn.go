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

// looksLikeURL reports whether store (white space around it trimmed) looks
// like a URL or a connection string that holds a password while not being
// a postgres:// or postgresql:// URL ([IsDSN]): it holds "://" anywhere; or
// it starts (in any case) with "postgres", "postgresql" or "pg" and then
// ":" or "//", as a mistyped scheme does; or one of its path elements
// (split at / and \) has a ":" before an "@", the user:password@host of
// a URL without its scheme. A file path with "@" in a directory's name
// ("/home/me@example.com/…") is not one, nor one that starts with
// "postgres" otherwise ("postgres.chitta", "postgres/memory.chitta").
func looksLikeURL(store string) bool {
	s := strings.ToLower(strings.TrimSpace(store))
	if strings.Contains(s, "://") {
		return true
	}
	for _, scheme := range []string{"postgresql", "postgres", "pg"} {
		if rest, ok := strings.CutPrefix(s, scheme); ok && (strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, "//")) {
			return true
		}
	}
	for elem := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == '/' || r == '\\' }) {
		if colon := strings.IndexByte(elem, ':'); colon >= 0 && strings.IndexByte(elem[colon:], '@') > 0 {
			return true
		}
	}
	return false
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
