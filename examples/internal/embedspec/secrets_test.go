package embedspec

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRedact(t *testing.T) {
	t.Parallel()
	for spec, want := range map[string]string{
		"hash:64":                                   "hash:64",
		"llamacpp:/models/a b.gguf":                 "llamacpp:/models/a b.gguf",
		"openai:http://localhost:11434#nomic":       "openai:http://localhost:11434#nomic",
		"openai:http://user:PASSWORD@host/v1#m":     "openai:http://REDACTED@host/v1#m",
		"openai:https://host/v1?api-key=SECRET#m":   "openai:https://host/v1?api-key=REDACTED#m",
		"openia:http://u:PASS WORD@host:x/v1?k=S#m": "openia:http://REDACTED@host:x/v1?REDACTED#m",
	} {
		assert.Equal(t, want, Redact(spec), "Redact(%q)", spec)
	}
}

// TestSpecSecretsNeverPrinted: a password or query-string key in an
// --embedder URL never reaches an error, whatever fails.
func TestSpecSecretsNeverPrinted(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	closed := strings.Replace(srv.URL, "http://", "http://user:PASSWORD@", 1)
	srv.Close()
	for _, spec := range []string{
		"openai:" + closed + "/v1?api-key=QUERYKEY#m",           // unreachable
		"openai:" + closed + "/v1?api-key=QUERYKEY",             // no model
		"openai:ftp://user:PASSWORD@host?api-key=QUERYKEY#m",    // not http
		"openia:http://user:PASSWORD@host?api-key=QUERYKEY#m",   // unknown kind
		"openai:http://user:PASS WORD@host/?api-key=QUERYKEY#m", // does not parse
		"openai:http://user:PASS#WORD@host/v1#m",                // a '#' in the password
		"openai:http:/user:PASSWORD@127.0.0.1:1/v1#m",           // a mistyped scheme
		"openai:user:PASSWORD@127.0.0.1:1/v1#m",                 // no scheme
		"openai:http//user:PASSWORD@127.0.0.1:1/v1#m",           // no colon
	} {
		t.Run(spec, func(t *testing.T) {
			t.Parallel()
			_, err := Open(t.Context(), spec)
			require.Error(t, err)
			assert.NotContains(t, err.Error(), "PASSWORD")
			assert.NotContains(t, err.Error(), "PASS WORD")
			assert.NotContains(t, err.Error(), "PASS")
			assert.NotContains(t, err.Error(), "QUERYKEY")
		})
	}
}

// TestAPIKeyEchoNotPrinted: $OPENAI_API_KEY pasted with white space, echoed
// trimmed by the server, does not appear in the error (it did in full).
func TestAPIKeyEchoNotPrinted(t *testing.T) {
	const key = "sk-embedspec-SECRET-42"
	t.Setenv(APIKeyEnv, " "+key+"\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+`"}}`)
	}))
	t.Cleanup(srv.Close)
	_, err := Open(t.Context(), "openai:"+srv.URL+"#m")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), key)
	assert.Contains(t, err.Error(), "Incorrect API key provided")
}
