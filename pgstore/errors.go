package pgstore

import (
	"errors"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// Sentinel errors. Errors returned by this package wrap one of these, or one
// of chitta's sentinels (chitta.ErrInvalidOption, chitta.ErrInvalidVector,
// chitta.ErrDimensionMismatch, chitta.ErrInvalidMemory, chitta.ErrNotFound),
// with a short phrase naming the field or value at fault; test with
// [errors.Is]. No error of this package contains the password of the DSN.
var (
	// ErrBadDSN reports a connection string that cannot be parsed, or
	// that gives a search setting (hnsw.*, ivfflat.*, plan_cache_mode) a
	// value the server refuses.
	ErrBadDSN = errors.New("pgstore: bad DSN")

	// ErrConnect reports a server that cannot be reached or refuses the
	// connection (wrong host or port, server down, authentication failed).
	ErrConnect = errors.New("pgstore: cannot connect to PostgreSQL")

	// ErrNoVectorExtension reports a server without the pgvector extension,
	// or a role that may not create it (CREATE EXTENSION vector).
	ErrNoVectorExtension = errors.New("pgstore: pgvector extension missing")

	// ErrSchema reports tables that this version of pgstore cannot use: a
	// schema version newer than it knows, or a table of the configured name
	// that pgstore did not create.
	ErrSchema = errors.New("pgstore: unsupported schema")
)

// secretError carries a driver error with every occurrence of the password
// removed from its text; errors.Is and errors.As still see the driver error.
type secretError struct {
	msg string
	err error
}

func (e *secretError) Error() string { return e.msg }
func (e *secretError) Unwrap() error { return e.err }

// scrub returns err with the given secrets (and their URL-escaped forms)
// replaced by "xxxxx" in its text. A nil err stays nil.
func scrub(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := redact(msg, secrets...)
	if clean == msg {
		return err
	}
	return &secretError{msg: clean, err: err}
}

// redact replaces every non-empty secret, raw and URL-escaped, in s.
func redact(s string, secrets ...string) string {
	for _, p := range secrets {
		if p == "" {
			continue
		}
		for _, form := range []string{p, url.QueryEscape(p), url.PathEscape(p), url.UserPassword("u", p).String()[2:]} {
			if form != "" {
				s = strings.ReplaceAll(s, form, "xxxxx")
			}
		}
	}
	return s
}

// dsnSecrets returns the strings of dsn that may be a password, found
// without trusting dsn to parse: the userinfo password of a URL and the
// value of every password= key of a keyword/value string.
func dsnSecrets(dsn string) []string {
	var out []string
	if i := strings.Index(dsn, "://"); i >= 0 {
		rest := dsn[i+3:]
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			if c := strings.Index(rest[:at], ":"); c >= 0 {
				// Up to the last '@', as url.Parse reads it; the driver
				// ends it at the first and shows the rest as the host, so
				// each piece between '@'s is hidden too.
				pw := rest[c+1 : at]
				out = append(out, pw)
				if strings.Contains(pw, "@") {
					out = append(out, strings.Split(pw, "@")...)
				}
				if dec, err := url.PathUnescape(pw); err == nil && dec != pw {
					out = append(out, dec)
				}
			}
		}
		for _, kv := range strings.FieldsFunc(rest, func(r rune) bool { return r == '?' || r == '&' }) {
			if k, v, ok := strings.Cut(kv, "="); ok && isSecretKey(k) {
				out = append(out, v)
				if dec, err := url.QueryUnescape(v); err == nil {
					out = append(out, dec)
				}
			}
		}
	}
	for _, f := range strings.Fields(dsn) {
		if k, v, ok := strings.Cut(f, "="); ok && isSecretKey(strings.TrimSpace(k)) {
			out = append(out, strings.Trim(v, `'`))
		}
	}
	return out
}

// secretKeys are the connection keys whose values Redact hides: the
// password, the password of the client certificate's key and the file the
// passwords are in.
var secretKeys = []string{"password", "sslpassword", "passfile"}

// isSecretKey reports whether key, once percent-decoded as the driver
// decodes a URL's query keys ("pass%77ord" is password), is one of
// secretKeys, in any case.
func isSecretKey(key string) bool {
	if dec, err := url.QueryUnescape(key); err == nil {
		key = dec
	}
	return slices.ContainsFunc(secretKeys, func(k string) bool { return strings.EqualFold(k, key) })
}

// redactQueryKeys returns rest (a URL after its "://") with the value of
// every secret key ([isSecretKey]) replaced by "xxxxx". It does not need
// rest to parse: every piece between '?' and '&' that is key=value is
// looked at, so a '?' in the userinfo or in another key's value does not
// hide a key from it; a value runs to the next '&' or '?' (a fragment
// after it is hidden with it: an unescaped '#' may be part of it).
func redactQueryKeys(rest string) string {
	var b strings.Builder
	for {
		i := strings.IndexAny(rest, "?&")
		piece := rest
		if i >= 0 {
			piece = rest[:i]
		}
		if k, _, ok := strings.Cut(piece, "="); ok && isSecretKey(k) {
			piece = k + "=xxxxx"
		}
		b.WriteString(piece)
		if i < 0 {
			return b.String()
		}
		b.WriteByte(rest[i])
		rest = rest[i+1:]
	}
}

// kvPassword matches a secret key (password, sslpassword, passfile) of a
// keyword/value DSN or of a URL query string, with its value.
var kvPassword = regexp.MustCompile(`(?i)(\b(?:(?:ssl)?password|passfile)\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&]*)`)

// Redact returns dsn with its password replaced by "xxxxx", for logs and
// error messages; a dsn without a password is returned unchanged. It does
// not need dsn to parse: a URL password holding an unescaped '/' or '?'
// is hidden too, up to the last '@' (so a URL without userinfo but with
// an '@' after its host:port, as in a query value, is hidden up to that
// '@' as well). The values of a URL's password, sslpassword and passfile
// query keys are hidden, whatever their case and however they are
// percent-encoded (the driver decodes "pass%77ord" to password), as are
// those of a keyword/value DSN.
func Redact(dsn string) string {
	if i := strings.Index(dsn, "://"); i >= 0 {
		rest := dsn[i+3:]
		end := len(rest)
		if j := strings.IndexAny(rest, "/?"); j >= 0 {
			end = j
		}
		at := strings.LastIndex(rest[:end], "@")
		if at < 0 {
			// A password with an unescaped '/' or '?' ends the URL's
			// authority early: its userinfo then runs to the last '@'.
			at = strings.LastIndex(rest, "@")
		}
		if at >= 0 {
			if c := strings.Index(rest[:at], ":"); c >= 0 {
				rest = rest[:c+1] + "xxxxx" + rest[at:]
			}
		}
		dsn = dsn[:i+3] + redactQueryKeys(rest)
	}
	return kvPassword.ReplaceAllString(dsn, "${1}xxxxx")
}
