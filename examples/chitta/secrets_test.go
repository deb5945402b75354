package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEmbedderSecretsNotPrinted: the password and query-string key of an
// --embedder URL are not in what chitta prints when it cannot start.
func TestEmbedderSecretsNotPrinted(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{
		"openai:http://user:PASSWORD@127.0.0.1:1/v1?api-key=QUERYKEY#m",
		"openai:http://user:PASSWORD@127.0.0.1:1/v1?api-key=QUERYKEY",
		"openia:http://user:PASSWORD@127.0.0.1:1/v1?api-key=QUERYKEY#m",
	} {
		r := runChitta(t, t.TempDir(), call(1, "recall", `{"text":"x"}`), "--embedder", spec)
		assert.Equal(t, 1, r.code)
		assert.NotEmpty(t, r.stderr)
		assert.NotContains(t, r.stderr, "PASSWORD")
		assert.NotContains(t, r.stderr, "QUERYKEY")
	}
}

// TestStoreSecretsNotPrinted: a --store that looks like a URL but is not a
// postgres:// one (a mistyped scheme, another scheme, a bare
// user:password@host) stops chitta with an error that does not repeat it,
// even with --verbose, and makes nothing in the working directory: it was
// a store file path, a directory named after the URL was made and
// --verbose logged it. A postgres:// URL with white space around it is the
// URL; the passwords of its query string (sslpassword, a percent-encoded
// key) are redacted as its userinfo's is.
func TestStoreSecretsNotPrinted(t *testing.T) {
	t.Parallel()
	for _, store := range []string{
		"postgres:/u:PASSWORD@127.0.0.1:1/db",
		" postgres:/u:PASSWORD@127.0.0.1:1/db",
		"postgres:u:PASSWORD@127.0.0.1:1/db",
		"postgres//u:PASSWORD@127.0.0.1:1/db",
		"pg://u:PASSWORD@127.0.0.1:1/db",
		"u:PASSWORD@127.0.0.1:1/db",
		" postgres://u:PASSWORD@127.0.0.1:1/db?connect_timeout=5",
		"postgres://127.0.0.1:1/db?sslpassword=PASSWORD&connect_timeout=5",
		"postgres://127.0.0.1:1/db?pass%77ord=PASSWORD&connect_timeout=5",
		"postgres://127.0.0.1:1/db?%70assword=PASSWORD&connect_timeout=5",
	} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cmd := exec.CommandContext(t.Context(), binary, "--verbose", "--store", store)
			cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+t.TempDir())
			cmd.Dir = dir
			cmd.Stdin = strings.NewReader(call(1, "remember", `{"text":"x"}`))
			r := runCmd(t, cmd)
			assert.Equal(t, 1, r.code, r.stderr)
			assert.NotEmpty(t, r.stderr)
			assert.NotContains(t, r.stderr, "PASSWORD")
			assert.NotContains(t, r.stdout, "PASSWORD")
			made, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Empty(t, made, "nothing made in the working directory")
		})
	}
}
