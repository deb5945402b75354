package pgstore

import (
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRedactQueryKeys: the driver decodes a URL's query keys, so
// sslpassword= and a percent-encoded password key (pass%77ord=, %70assword=)
// set a password as password= does; Redact hid neither (the regex's
// \bpassword has no word boundary inside sslpassword). passfile names the
// file the passwords are in, hidden as well.
func TestRedactQueryKeys(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"postgres://localhost:1/db?sslpassword=s3cret", "postgres://localhost:1/db?sslpassword=xxxxx"},
		{"postgres://localhost:1/db?sslmode=verify-full&SSLPassword=s3cret&x=1", "postgres://localhost:1/db?sslmode=verify-full&SSLPassword=xxxxx&x=1"},
		{"postgres://localhost:1/db?pass%77ord=s3cret", "postgres://localhost:1/db?pass%77ord=xxxxx"},
		{"postgres://localhost:1/db?%70assword=s3cret&user=u", "postgres://localhost:1/db?%70assword=xxxxx&user=u"},
		{"postgres://localhost:1/db?%73slpassword=s3cret", "postgres://localhost:1/db?%73slpassword=xxxxx"},
		{"postgres://localhost:1/db?passfile=/home/u/.pgpass", "postgres://localhost:1/db?passfile=xxxxx"},
		{"postgres://u:s3cret@localhost:1/db?sslpassword=s3cret2#frag", "postgres://u:xxxxx@localhost:1/db?sslpassword=xxxxx"},
		{"postgres://localhost:1/db?password=a%20b&x=1", "postgres://localhost:1/db?password=xxxxx&x=1"},
		{"postgres://localhost:1/db?application_name=password&x=1", "postgres://localhost:1/db?application_name=password&x=1"},
		{"host=h sslpassword=s3cret user=u", "host=h sslpassword=xxxxx user=u"},
		{"host=h passfile=/home/u/.pgpass user=u", "host=h passfile=xxxxx user=u"},
		{"host=h sslpassword='s3 cret' user=u", "host=h sslpassword=xxxxx user=u"},
	} {
		assert.Equal(t, tt.want, Redact(tt.in), tt.in)
	}
}

// secretKeyForms are the ways a URL's query may name a key that sets a
// password (or the password file), as written: the driver decodes each.
var secretKeyForms = []string{
	"password", "PASSWORD", "sslpassword", "SslPassword", "passfile",
	"pass%77ord", "%70assword", "%70%61%73%73%77%6f%72%64", "%73slpassword", "ssl%70assword", "pass%66ile",
}

// TestRedactNeverShowsSecret: for random secrets in each place a DSN can
// hold one (a URL's userinfo, raw or escaped; a query key of
// secretKeyForms; a keyword/value password, sslpassword or passfile,
// quoted or not), Redact's output holds neither the secret nor the form
// it was written in.
func TestRedactNeverShowsSecret(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$'()*+,;:@/?#&= %\\\""
	randomSecret := func() string {
		var b strings.Builder
		b.WriteString("Zq") // not a part of any key, host or keyword
		for range 6 + rng.IntN(14) {
			b.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	kvQuote := func(s string) string {
		return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
	}
	for range 2000 {
		secret := randomSecret()
		key := secretKeyForms[rng.IntN(len(secretKeyForms))]
		kvKey := []string{"password", "sslpassword", "passfile", "PassWord"}[rng.IntN(4)]
		type dsn struct{ text, written string }
		dsns := []dsn{
			{"postgres://" + url.UserPassword("u", secret).String() + "@db.example.com:5432/mem?sslmode=disable", url.UserPassword("u", secret).String()[2:]},
			{"postgresql://h/mem?user=u&" + key + "=" + url.QueryEscape(secret) + "&sslmode=disable", url.QueryEscape(secret)},
			{"postgres://u@h/mem?" + key + "=" + url.QueryEscape(secret), url.QueryEscape(secret)},
			{"host=h user=u " + kvKey + "=" + kvQuote(secret) + " dbname=mem", kvQuote(secret)},
		}
		if !strings.ContainsAny(secret, " '\\&#") {
			dsns = append(dsns,
				dsn{"host=h " + kvKey + "=" + secret + " dbname=mem", secret},
				dsn{"postgres://h/mem?" + key + "=" + secret + "&x=1", secret})
		}
		if !strings.ContainsAny(secret, "@") {
			// A password with an unescaped '/', '?' or ':' (which does not parse).
			dsns = append(dsns, dsn{"postgres://u:" + secret + "@h/mem", secret})
		}
		for _, d := range dsns {
			got := Redact(d.text)
			assert.NotContains(t, got, secret, d.text)
			assert.NotContains(t, got, d.written, d.text)
		}
	}
}

// TestOpenHidesPasswordWithAt: a URL whose password holds an unescaped '@'
// (postgres://u:p@Zq7secret@host) is read by the driver as the password
// "p" and the host "Zq7secret@host", which its connect error shows; the
// error must not show any part of what the URL's writer meant as the
// password.
func TestOpenHidesPasswordWithAt(t *testing.T) {
	t.Parallel()
	for _, dsn := range []string{
		"postgres://u:p@Zq7secret@127.0.0.1:1/db?connect_timeout=1",
		"postgres://u:Zq7first@Zq7secret@127.0.0.1:1/db?connect_timeout=1",
		"postgres://u:p%40Zq7secret@127.0.0.1:1/db?connect_timeout=1",
	} {
		_, err := Open(t.Context(), dsn, &Options{Dims: 4})
		require.Error(t, err, dsn)
		assert.NotContains(t, err.Error(), "Zq7", dsn)
		assert.NotContains(t, Redact(dsn), "Zq7", dsn)
	}
}
