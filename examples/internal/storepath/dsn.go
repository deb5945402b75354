package storepath

import (
	"errors"
	"net/url"
	"strings"
)

// ErrBadDSN reports a PostgreSQL store URL that cannot be parsed. Its text
// never contains the URL (which may carry a password).
var ErrBadDSN = errors.New("storepath: store is not a valid postgres:// URL")

// IsDSN reports whether store names a PostgreSQL database rather than a
// file: a URL starting with postgres:// or postgresql://. The harnesses
// accept one wherever they take a store path.
func IsDSN(store string) bool {
	s := strings.ToLower(store)
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// SplitDSN removes chitta's own query parameters from a PostgreSQL store
// URL and returns them: chitta_table (the memories table, "" for the
// default) and chitta_namespace (the namespace, "" for the default). The
// remaining URL goes to the driver unchanged otherwise.
func SplitDSN(dsn string) (rest, table, namespace string, err error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", "", "", ErrBadDSN
	}
	q := u.Query()
	table, namespace = q.Get("chitta_table"), q.Get("chitta_namespace")
	q.Del("chitta_table")
	q.Del("chitta_namespace")
	u.RawQuery = q.Encode()
	return u.String(), table, namespace, nil
}
