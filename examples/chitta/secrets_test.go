package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
