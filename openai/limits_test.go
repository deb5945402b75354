package openai

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEmbedDefaultCutBytesSent: by default no text reaches the server
// longer than DefaultMaxInputBytes bytes as the server decodes it, invalid
// UTF-8 included (the server receives U+FFFD, three bytes, for it), so that
// no text exceeds OpenAI's 8 192-token input limit: a token holds at least
// one byte. (The tokens themselves are counted in the tiktoken module's
// TestOpenAIEmbedderInputLimits.) On main, 16 KiB were sent of each text,
// and 16 KiB of "\xffa" went out as 32 KiB.
func TestEmbedDefaultCutBytesSent(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(_ int, req request, w http.ResponseWriter) { openAIAnswer(w, req, 2, nil) })
	e, _ := newTest(t, srv, Options{})
	texts := []string{
		strings.Repeat("😀", 10_000),
		strings.Repeat("漢字", 10_000),
		strings.Repeat("\xffa", 10_000),
		strings.Repeat("word ", 10_000),
	}
	_, err := e.Embed(t.Context(), texts)
	require.NoError(t, err)
	require.Equal(t, 1, srv.count())
	for i, in := range srv.requests[0].Input {
		assert.LessOrEqual(t, len(in), DefaultMaxInputBytes, "text %d", i)
		assert.Greater(t, len(in), DefaultMaxInputBytes-4, "text %d is cut at the limit, not far below", i)
	}
	assert.True(t, strings.HasPrefix(srv.requests[0].Input[2], "\uFFFDa\uFFFDa"), "invalid bytes are sent as U+FFFD")
}

// TestEmbedRequestBytes: a batch is closed before its texts exceed
// MaxRequestBytes together (OpenAI refuses a request of more than 300 000
// tokens summed across its inputs); a text longer than that alone goes
// alone. On main, 100 texts of 8 KiB went in one request of 800 KiB.
func TestEmbedRequestBytes(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(_ int, req request, w http.ResponseWriter) { openAIAnswer(w, req, 2, nil) })
	e, _ := newTest(t, srv, Options{MaxBatch: MaxBatchLimit})
	texts := make([]string, 100)
	for i := range texts {
		texts[i] = strings.Repeat("x", DefaultMaxInputBytes)
	}
	vecs, err := e.Embed(t.Context(), texts)
	require.NoError(t, err)
	require.Len(t, vecs, 100)
	per := MaxRequestBytes / DefaultMaxInputBytes
	require.Equal(t, (100+per-1)/per, srv.count())
	sent := 0
	for _, r := range srv.requests {
		size := 0
		for _, in := range r.Input {
			size += len(in)
		}
		assert.LessOrEqual(t, size, MaxRequestBytes)
		sent += len(r.Input)
	}
	assert.Equal(t, 100, sent)

	e2, _ := newTest(t, srv, Options{MaxInputBytes: -1})
	before := srv.count()
	_, err = e2.Embed(t.Context(), []string{"a", strings.Repeat("y", MaxRequestBytes+1), "b"})
	require.NoError(t, err)
	require.Equal(t, before+3, srv.count(), "a text over MaxRequestBytes goes alone, between the others")
	assert.Equal(t, []string{"a"}, srv.requests[before].Input)
	assert.Len(t, srv.requests[before+1].Input, 1)
	assert.Equal(t, []string{"b"}, srv.requests[before+2].Input)
}
