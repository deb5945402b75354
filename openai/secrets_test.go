package openai

import (
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// echoServer answers every request with status and a body made by body
// from the request's bearer token (as servers echo it: trimmed).
func echoServer(t *testing.T, status int, body func(token string) string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token := strings.TrimSpace(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body(token))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestKeyEchoNeverLeaks runs key-echo servers against keys and echoes
// that leaked the key, in full or in part, before.
func TestKeyEchoNeverLeaks(t *testing.T) {
	t.Parallel()
	const key = "sk-echo-0123456789abcdefSECRET"
	tests := []struct {
		name   string
		key    string
		body   func(token string) string
		absent []string // must not appear in the error
	}{
		{name: "key pasted with white space, echoed trimmed", key: "  " + key + "\n",
			body:   func(tok string) string { return `{"error":{"message":"Incorrect API key provided: ` + tok + `"}}` },
			absent: []string{key}},
		{name: "echo at the cut", key: key,
			body:   func(tok string) string { return strings.Repeat("x", maxErrorText-8) + " " + tok },
			absent: []string{key, key[:12]}},
		{name: "key with inner white space echoed raw", key: "sk-part-one  part-two",
			body:   func(tok string) string { return "bad key: " + tok + " end" },
			absent: []string{"sk-part-one  part-two", "sk-part-one part-two"}},
		{name: "echo URL-encoded", key: "sk-a/b+c=d&e SECRET",
			body:   func(tok string) string { return "rejected " + url.QueryEscape(tok) + " and " + url.PathEscape(tok) },
			absent: []string{url.QueryEscape("sk-a/b+c=d&e SECRET"), url.PathEscape("sk-a/b+c=d&e SECRET"), "SECRET"}},
		{name: "echo JSON-escaped", key: "sk-<html>&SECRET",
			body: func(string) string {
				return `{"error":{"message":"key \u0073k-\u003chtml\u003e\u0026SECRET rejected"}}`
			},
			absent: []string{"SECRET", `\u003chtml`}},
		{name: "echo in detail", key: key,
			body:   func(tok string) string { return `{"detail":[{"msg":"invalid token ` + tok + `"}]}` },
			absent: []string{key}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := echoServer(t, http.StatusUnauthorized, tt.body)
			e, err := New(&Options{BaseURL: srv.URL, Model: "m", APIKey: tt.key, HTTPClient: srv.Client()})
			require.NoError(t, err)
			_, err = e.Embed(t.Context(), []string{"x"})
			require.ErrorIs(t, err, ErrStatus)
			for _, s := range tt.absent {
				assert.NotContains(t, err.Error(), s)
			}
			assert.Contains(t, err.Error(), "[REDACT") // "[REDACT…" at the cut
		})
	}
}

// TestKeyTrimmed: the key is sent without the white space around it.
func TestKeyTrimmed(t *testing.T) {
	t.Parallel()
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Get("Authorization")
		w.WriteHeader(http.StatusTeapot)
	}))
	t.Cleanup(srv.Close)
	e, err := New(&Options{BaseURL: srv.URL, Model: "m", APIKey: "\tsk-trim \n", HTTPClient: srv.Client()})
	require.NoError(t, err)
	_, _ = e.Embed(t.Context(), []string{"x"})
	assert.Equal(t, "Bearer sk-trim", got)
}

// TestRedirectKeepsKeyHome: with a key, a redirect to another origin (here
// the same host on another port, which net/http sends Authorization to) is
// refused and the other server never sees the key; a redirect within the
// origin, or any redirect without a key, is followed.
func TestRedirectKeepsKeyHome(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		openAIAnswer(w, request{Input: []string{"x"}}, 3, nil)
	}))
	t.Cleanup(other.Close)
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/here/v1/embeddings" {
			openAIAnswer(w, request{Input: []string{"x"}}, 3, nil)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/local/") {
			http.Redirect(w, r, "/here/v1/embeddings", http.StatusTemporaryRedirect)
			return
		}
		http.Redirect(w, r, other.URL+"/v1/embeddings", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(home.Close)

	e, err := New(&Options{BaseURL: home.URL + "/away", Model: "m", APIKey: "sk-redirect-SECRET", HTTPClient: home.Client()})
	require.NoError(t, err)
	_, err = e.Embed(t.Context(), []string{"x"})
	require.ErrorIs(t, err, ErrCrossOriginRedirect)
	assert.NotContains(t, err.Error(), "sk-redirect-SECRET")
	mu.Lock()
	assert.Empty(t, seen, "the other origin got no request")
	mu.Unlock()

	e, err = New(&Options{BaseURL: home.URL + "/local", Model: "m", APIKey: "sk-redirect-SECRET", HTTPClient: home.Client()})
	require.NoError(t, err)
	_, err = e.Embed(t.Context(), []string{"x"})
	require.NoError(t, err, "a redirect within the origin is followed")

	e, err = New(&Options{BaseURL: home.URL + "/away", Model: "m", HTTPClient: home.Client()})
	require.NoError(t, err)
	_, err = e.Embed(t.Context(), []string{"x"})
	require.NoError(t, err, "without a key, redirects are followed")
	mu.Lock()
	assert.Equal(t, []string{""}, seen)
	mu.Unlock()
}

// TestURLSecretsRedacted: the password and query-string values of a base
// URL never appear in errors.
func TestURLSecretsRedacted(t *testing.T) {
	t.Parallel()
	_, err := New(&Options{BaseURL: "ftp://user:PASSWORD@host/v1?api-key=QUERYKEY", Model: "m"})
	require.ErrorIs(t, err, ErrInvalidOption)
	assert.NotContains(t, err.Error(), "PASSWORD")
	assert.NotContains(t, err.Error(), "QUERYKEY")

	e, err := New(&Options{BaseURL: "http://user:PASSWORD@127.0.0.1:9/v1?api-key=QUERYKEY", Model: "m", MaxRetries: -1, HTTPClient: refusingClient()})
	require.NoError(t, err)
	_, err = e.Embed(t.Context(), []string{"x"})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "PASSWORD")
	assert.NotContains(t, err.Error(), "QUERYKEY")
}

func TestRedactURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"http://localhost:11434":                   "http://localhost:11434",
		"https://user:pw@host/v1":                  "https://REDACTED@host/v1",
		"https://host/v1?api-key=k&x=1":            "https://host/v1?api-key=REDACTED&x=REDACTED",
		"http://u:p w@host:bad/v1?api-key=k#model": "http://REDACTED@host:bad/v1?REDACTED#model",
		"http://host/%zz?key=secret":               "http://host/%zz?REDACTED",
		"not a url at all":                         "not a url at all",
		// Text that parses as a URL but not as an absolute http(s) one
		// with a host (a mistyped scheme, none at all) carries its
		// user:password@ in a path or an opaque part, where url.Parse finds
		// no userinfo: it was returned as it was, password included.
		"http:/u:s3cret@127.0.0.1:1/v1":  "http:/REDACTED@127.0.0.1:1/v1",
		"u:s3cret@h:1":                   "u:REDACTED@h:1",
		"http//u:s3cret@h":               "REDACTED@h",
		"https:u:s3cret@h/v1?api-key=k":  "https:REDACTED@h/v1?REDACTED",
		"ftp://u:s3cret@h/v1":            "ftp://REDACTED@h/v1",
		"//u:s3cret@h/v1":                "REDACTED@h/v1",
		"http:///u:s3cret@h/v1":          "http:///REDACTED@h/v1",
		"localhost:8080/v1":              "localhost:8080/v1",
		"https://host/models/a@b":        "https://host/models/a@b",
		"http:/u:s3cret@h/v1?x=a@b#frag": "http:/REDACTED@b#frag",
		"s3cret@h":                       "REDACTED@h",
		"HTTP:/u:s3cret@h":               "HTTP:/REDACTED@h",
		"1http:/u:s3cret@h":              "REDACTED@h",
	} {
		got := RedactURL(in)
		assert.Equal(t, want, got, "RedactURL(%q)", in)
		assert.NotContains(t, got, "s3cret", in)
	}
}

func FuzzScrubbedMessage(f *testing.F) {
	for _, s := range []string{"", "plain %s text", `{"error":{"message":"%s"}}`, `{"error":"%s"}`, `{"detail":"%s"}`, strings.Repeat("é", 495) + "%s"} {
		f.Add(s, "sk-fuzz-KEY-123")
	}
	f.Fuzz(func(t *testing.T, body, key string) {
		key = strings.TrimSpace(key)
		if len(key) < 4 {
			return
		}
		e := &Embedder{secrets: secretForms(key)}
		raw := strings.ReplaceAll(body, "%s", key)
		msg := serverMessage([]byte(e.scrub(raw)), e.scrub)
		if !strings.Contains(body, key[:len(key)/2]) { // the body did not hold key parts of its own
			assert.NotContains(t, msg, key)
		}
		assert.LessOrEqual(t, len([]rune(msg)), maxErrorText+1)
	})
}

func TestSecretForms(t *testing.T) {
	t.Parallel()
	assert.Nil(t, secretForms(""))
	assert.Equal(t, []string{"sk-plain"}, secretForms("sk-plain"), "one form when encoding changes nothing")
	forms := secretForms("a b&c")
	assert.Contains(t, forms, "a b&c")
	assert.Contains(t, forms, "a+b%26c")
	assert.Contains(t, forms, `a b\u0026c`)
	for i := 1; i < len(forms); i++ {
		assert.GreaterOrEqual(t, len(forms[i-1]), len(forms[i]), "longest first")
		assert.NotEqual(t, forms[i-1], forms[i])
	}
}

// TestRedirectErrorChainHasNoKey: a server that puts the key in the path
// of a redirect (an echo, as servers echo it in error bodies) gets no
// error in the chain Embed returns that carries it: not the outer text,
// nor the *url.Error or the refusal it wraps.
func TestRedirectErrorChainHasNoKey(t *testing.T) {
	t.Parallel()
	const key = "sk-redirect-ECHO-0123456789"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		http.Redirect(w, r, "http://other.invalid/echo/"+token, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(srv.Close)
	e, err := New(&Options{BaseURL: srv.URL, Model: "m", APIKey: key, HTTPClient: srv.Client()})
	require.NoError(t, err)
	_, err = e.Embed(t.Context(), []string{"x"})
	require.ErrorIs(t, err, ErrCrossOriginRedirect)
	depth := 0
	for u := err; u != nil; u = errors.Unwrap(u) {
		assert.NotContains(t, u.Error(), key, "error %d of the chain (%T)", depth, u)
		depth++
	}
	assert.GreaterOrEqual(t, depth, 3, "the redaction, the *url.Error and the refusal")
	var ue *url.Error
	require.ErrorAs(t, err, &ue)
	assert.NotContains(t, ue.URL, key)
}

// TestKeyControlCharacterRefused: a key that net/http cannot send in a
// header (a control character inside it, as when two lines were pasted)
// is refused by New, naming the field but not the key, instead of every
// Embed failing after its retries and their waits.
func TestKeyControlCharacterRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, key string
		refused   bool
	}{
		{"newline inside", "sk-first-SECRET\nsk-second", true},
		{"carriage return", "sk-cr-SECRET\rrest", true},
		{"NUL", "sk-nul-SECRET\x00", true},
		{"DEL", "sk-del-SECRET\x7frest", true},
		{"tab inside", "sk-tab-SECRET\tinside", false},
		{"white space around", "\n sk-around-SECRET \r\n", false},
		{"non-ASCII", "sk-ключ-SECRET", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := New(&Options{Model: "m", APIKey: tt.key})
			if !tt.refused {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrInvalidOption)
			assert.Contains(t, err.Error(), "APIKey")
			assert.NotContains(t, err.Error(), "SECRET")
		})
	}
}

// TestURLSecretsEchoScrubbed: a server that echoes the request (its URL,
// its Authorization header) into an error body gets no password or
// query-string value of the base URL into the error, as sent, decoded or
// as the Basic credential net/http makes of the user information.
func TestURLSecretsEchoScrubbed(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		q, _ := url.QueryUnescape(r.URL.RawQuery)
		_, _ = io.WriteString(w, "no access for "+r.URL.RequestURI()+" ("+q+") with "+r.Header.Get("Authorization"))
	}))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	tests := []struct {
		name, base string
		absent     []string
		present    string // a short query value is no credential: kept
	}{
		{"query value", "http://" + host + "/v1?api-key=QUERY-KEY%2BSECRET&format=json", []string{"QUERY-KEY", "SECRET"}, "&format=json"},
		{"password", "http://user:PASS-WORD-SECRET@" + host, []string{"SECRET", base64.StdEncoding.EncodeToString([]byte("user:PASS-WORD-SECRET"))}, "with Basic [REDACTED]"},
		{"token as user name", "http://TOKEN-SECRET-0123@" + host, []string{"SECRET", base64.StdEncoding.EncodeToString([]byte("TOKEN-SECRET-0123:"))}, "with Basic [REDACTED]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, err := New(&Options{BaseURL: tt.base, Model: "m", HTTPClient: srv.Client()})
			require.NoError(t, err)
			_, err = e.Embed(t.Context(), []string{"x"})
			require.ErrorIs(t, err, ErrStatus)
			assert.Contains(t, err.Error(), "no access for /v1/embeddings")
			assert.Contains(t, err.Error(), tt.present)
			for _, s := range tt.absent {
				assert.NotContains(t, err.Error(), s)
			}
		})
	}
}
