package openai

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

const testKey = "sk-test-SECRET-0123456789abcdef"

// vectorFor is the fake model: a deterministic vector of dims for a text.
func vectorFor(text string, dims int) []float32 {
	v := make([]float32, dims)
	for i := range v {
		v[i] = float32(len(text)%7) + float32(i)/10
	}
	v[0] = float32(len(text))
	return v
}

// fakeServer records requests and answers through answer, which gets the
// 1-based request number and the decoded request.
type fakeServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []request
	auth     []string
	paths    []string
}

func newServer(t *testing.T, answer func(n int, req request, w http.ResponseWriter)) *fakeServer {
	t.Helper()
	return newServerOn(t, nil, answer)
}

// newServerOn is newServer listening on ln (nil: a fresh port).
func newServerOn(t *testing.T, ln net.Listener, answer func(n int, req request, w http.ResponseWriter)) *fakeServer {
	t.Helper()
	f := &fakeServer{}
	f.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req request
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &req)
		f.mu.Lock()
		f.requests = append(f.requests, req)
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		f.paths = append(f.paths, r.Method+" "+r.URL.Path)
		n := len(f.requests)
		f.mu.Unlock()
		answer(n, req, w)
	}))
	if ln != nil {
		f.Listener.Close()
		f.Listener = ln
	}
	f.Start()
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

// openAIAnswer writes a real OpenAI-shaped success body; order permutes the
// data items (nil: in order).
func openAIAnswer(w http.ResponseWriter, req request, dims int, order func(int) []int) {
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	idx := make([]int, len(req.Input))
	for i := range idx {
		idx[i] = i
	}
	if order != nil {
		idx = order(len(req.Input))
	}
	data := make([]item, 0, len(idx))
	for _, i := range idx {
		data = append(data, item{"embedding", i, vectorFor(req.Input[i], dims)})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": 5, "total_tokens": 5},
	})
}

func reversed(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = n - 1 - i
	}
	return out
}

// newTest returns an Embedder for srv whose sleeps are recorded, not slept.
func newTest(t *testing.T, srv *fakeServer, opts Options) (*Embedder, *[]time.Duration) {
	t.Helper()
	opts.BaseURL = srv.URL
	if opts.HTTPClient == nil {
		// The server's own client: http.DefaultTransport's pool is shared
		// by every test, and may hold a connection to a closed server
		// whose port srv now has.
		opts.HTTPClient = srv.Client()
	}
	if opts.Model == "" {
		opts.Model = "text-embedding-3-small"
	}
	e, err := New(&opts)
	require.NoError(t, err)
	var mu sync.Mutex
	var waits []time.Duration
	e.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		waits = append(waits, d)
		mu.Unlock()
		return ctx.Err()
	}
	return e, &waits
}

func TestEmbedOpenAIShape(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(_ int, req request, w http.ResponseWriter) { openAIAnswer(w, req, 4, nil) })
	e, _ := newTest(t, srv, Options{APIKey: testKey})
	texts := []string{"alpha", "beta gamma", "delta"}
	vecs, err := e.Embed(t.Context(), texts)
	require.NoError(t, err)
	require.Len(t, vecs, 3)
	for i, s := range texts {
		assert.Equal(t, vectorFor(s, 4), vecs[i])
	}
	assert.Equal(t, 4, e.Dimensions())
	require.Equal(t, 1, srv.count())
	assert.Equal(t, []string{"POST /v1/embeddings"}, srv.paths)
	assert.Equal(t, "Bearer "+testKey, srv.auth[0])
	assert.Equal(t, request{Model: "text-embedding-3-small", Input: texts, EncodingFormat: "float"}, srv.requests[0])
}

func TestEmbedOllamaShape(t *testing.T) {
	t.Parallel()
	// Ollama's /v1/embeddings answer, as served by ollama 0.5+.
	srv := newServer(t, func(_ int, req request, w http.ResponseWriter) {
		fmt.Fprintf(w, `{"object":"list","data":[{"object":"embedding","embedding":[0.1,-0.2,0.3],"index":0}],"model":%q,"usage":{"prompt_tokens":2,"total_tokens":2}}`, req.Model)
	})
	e, _ := newTest(t, srv, Options{Model: "nomic-embed-text"})
	vecs, err := e.Embed(t.Context(), []string{"hello"})
	require.NoError(t, err)
	assert.Equal(t, [][]float32{{0.1, -0.2, 0.3}}, vecs)
	assert.Empty(t, srv.auth[0], "no key, no Authorization header")
}

func TestEmbedBase64(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(_ int, _ request, w http.ResponseWriter) {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint32(b, math.Float32bits(1.5))
		binary.LittleEndian.PutUint32(b[4:], math.Float32bits(-2))
		fmt.Fprintf(w, `{"data":[{"index":0,"embedding":%q}]}`, base64.StdEncoding.EncodeToString(b))
	})
	e, _ := newTest(t, srv, Options{})
	vecs, err := e.Embed(t.Context(), []string{"x"})
	require.NoError(t, err)
	assert.Equal(t, [][]float32{{1.5, -2}}, vecs)
}

func TestBaseURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		base, want string
	}{
		{"", "https://api.openai.com/v1/embeddings"},
		{"http://localhost:11434", "http://localhost:11434/v1/embeddings"},
		{"http://localhost:11434/", "http://localhost:11434/v1/embeddings"},
		{"http://localhost:11434/v1", "http://localhost:11434/v1/embeddings"},
		{"http://localhost:11434/v1/", "http://localhost:11434/v1/embeddings"},
		{"https://gw.example.com/proxy/", "https://gw.example.com/proxy/v1/embeddings"},
		{"https://gw.example.com/proxy/v1", "https://gw.example.com/proxy/v1/embeddings"},
		{"https://api.openai.com/v1/embeddings", "https://api.openai.com/v1/embeddings"},
		{"http://localhost:11434/v1/embeddings/", "http://localhost:11434/v1/embeddings"},
		{"https://gw.example.com/proxy/v1/embeddings", "https://gw.example.com/proxy/v1/embeddings"},
		{"https://gw.example.com/embeddings", "https://gw.example.com/embeddings/v1/embeddings"},
	}
	for _, tt := range tests {
		got, err := endpointURL(tt.base)
		require.NoError(t, err, tt.base)
		assert.Equal(t, tt.want, got, tt.base)
	}
	for _, bad := range []string{"localhost:11434", "ftp://host", "http://", "::nope", "/v1"} {
		_, err := endpointURL(bad)
		require.ErrorIs(t, err, ErrInvalidOption, bad)
	}
	_, err := endpointURL("ftp://user:hunter2@host")
	require.ErrorIs(t, err, ErrInvalidOption)
	assert.NotContains(t, err.Error(), "hunter2")
}

func TestNewOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts *Options
	}{
		{"nil", nil},
		{"no model", &Options{}},
		{"blank model", &Options{Model: "  "}},
		{"negative batch", &Options{Model: "m", MaxBatch: -1}},
		{"batch above OpenAI's limit", &Options{Model: "m", MaxBatch: MaxBatchLimit + 1}},
		{"negative dims", &Options{Model: "m", Dimensions: -1}},
		{"negative backoff", &Options{Model: "m", MinBackoff: -time.Second}},
		{"min above max", &Options{Model: "m", MinBackoff: time.Minute, MaxBackoff: time.Second}},
		{"bad url", &Options{Model: "m", BaseURL: "nope"}},
	}
	for _, tt := range tests {
		_, err := New(tt.opts)
		require.ErrorIs(t, err, ErrInvalidOption, tt.name)
	}
	e, err := New(&Options{Model: "m"})
	require.NoError(t, err)
	assert.Equal(t, DefaultMaxBatch, e.maxBatch)
	assert.Equal(t, DefaultMaxRetries, e.maxRetries)
	assert.Equal(t, DefaultMinBackoff, e.minBackoff)
	assert.Equal(t, DefaultMaxBackoff, e.maxBackoff)
	assert.Equal(t, DefaultMaxInputBytes, e.maxInput)
	assert.Equal(t, "https://api.openai.com/v1/embeddings", e.endpoint)
	_, err = New(&Options{Model: "m", MaxBatch: 5000})
	require.ErrorIs(t, err, ErrInvalidOption)
	assert.Contains(t, err.Error(), "MaxBatch 5000, want 0 to 2048")
	e, err = New(&Options{Model: "m", MaxBatch: MaxBatchLimit})
	require.NoError(t, err)
	assert.Equal(t, 2048, e.maxBatch)
	e, err = New(&Options{Model: "m", MaxRetries: -1})
	require.NoError(t, err)
	assert.Zero(t, e.maxRetries, "negative MaxRetries means none")

	_, err = (&Embedder{}).Embed(t.Context(), []string{"x"})
	require.ErrorIs(t, err, ErrInvalidOption, "zero value")
}

// TestNilEmbedder: a nil *Embedder (New's result when its error was
// dropped) refuses Embed and has no dimensions, without panicking, also
// behind a CachedEmbedder (whose Dimensions asks the wrapped embedder).
func TestNilEmbedder(t *testing.T) {
	t.Parallel()
	var e *Embedder
	require.NotPanics(t, func() { assert.Zero(t, e.Dimensions()) })
	_, err := e.Embed(t.Context(), []string{"x"})
	require.ErrorIs(t, err, ErrInvalidOption)
	require.NotPanics(t, func() { assert.Zero(t, chitta.NewCachedEmbedder(e, 0).Dimensions()) })
}

func TestEmbedBatchingAndOrder(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(_ int, req request, w http.ResponseWriter) { openAIAnswer(w, req, 3, reversed) })
	e, _ := newTest(t, srv, Options{MaxBatch: 2})
	texts := []string{"a", "bb", "", "ccc", "  ", "dddd", "eeeee"}
	vecs, err := e.Embed(t.Context(), texts)
	require.NoError(t, err)
	require.Len(t, vecs, len(texts))
	for i, s := range texts {
		if strings.TrimSpace(s) == "" {
			assert.Equal(t, make([]float32, 3), vecs[i], "empty text %d gets a zero vector", i)
			continue
		}
		assert.Equal(t, vectorFor(s, 3), vecs[i], "text %d despite reversed index order", i)
	}
	require.Equal(t, 3, srv.count(), "5 non-empty texts in batches of 2")
	assert.Equal(t, []string{"a", "bb"}, srv.requests[0].Input)
	assert.Equal(t, []string{"ccc", "dddd"}, srv.requests[1].Input)
	assert.Equal(t, []string{"eeeee"}, srv.requests[2].Input)
}

// TestEmbedBatchErrorNamesTexts: the error of a failed batch names the
// caller's texts it held, not their places among the texts sent (blank
// texts are not sent).
func TestEmbedBatchErrorNamesTexts(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(n int, req request, w http.ResponseWriter) {
		if n == 2 {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"message":"input too long"}}`)
			return
		}
		openAIAnswer(w, req, 2, nil)
	})
	e, _ := newTest(t, srv, Options{MaxBatch: 2})
	texts := []string{"", "a", " ", "b", "", "", "c", "d", "e"}
	_, err := e.Embed(t.Context(), texts)
	require.ErrorIs(t, err, ErrStatus)
	require.Equal(t, []string{"c", "d"}, srv.requests[1].Input, "the second batch")
	assert.Contains(t, err.Error(), "batch of texts 6–7: ", "texts[6] and texts[7] were sent in it")
}

func TestEmbedEmptyInput(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(_ int, req request, w http.ResponseWriter) { openAIAnswer(w, req, 3, nil) })
	e, _ := newTest(t, srv, Options{})
	_, err := e.Embed(t.Context(), []string{"", " "})
	require.ErrorIs(t, err, ErrNoInput, "dimension unknown")
	vecs, err := e.Embed(t.Context(), nil)
	require.ErrorIs(t, err, nil)
	assert.Empty(t, vecs)

	e2, _ := newTest(t, srv, Options{Dimensions: 3})
	vecs, err = e2.Embed(t.Context(), []string{""})
	require.NoError(t, err)
	assert.Equal(t, [][]float32{{0, 0, 0}}, vecs)
	assert.Zero(t, srv.count(), "nothing sent")
}

func TestEmbedTruncates(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(_ int, req request, w http.ResponseWriter) { openAIAnswer(w, req, 2, nil) })
	e, _ := newTest(t, srv, Options{MaxInputBytes: 5})
	_, err := e.Embed(t.Context(), []string{"héllo wörld", "abc"})
	require.NoError(t, err)
	assert.Equal(t, []string{"héll", "abc"}, srv.requests[0].Input, "cut at a rune boundary within 5 bytes")
}

// TestEmbedTruncatesNeverBlank: a cut that keeps only white space is not
// sent as it is, since servers reject a blank input and the whole batch
// with it (OpenAI: 400 "'$.input' is invalid").
func TestEmbedTruncatesNeverBlank(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(_ int, req request, w http.ResponseWriter) {
		for _, in := range req.Input {
			if strings.TrimSpace(in) == "" {
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"error":{"message":"'$.input' is invalid"}}`)
				return
			}
		}
		openAIAnswer(w, req, 2, nil)
	})
	e, _ := newTest(t, srv, Options{MaxInputBytes: 8})
	vecs, err := e.Embed(t.Context(), []string{strings.Repeat(" ", 20) + "\n\tcontent after blanks", "abc", "é" + strings.Repeat("x", 20)})
	require.NoError(t, err)
	require.Len(t, vecs, 3)
	assert.Equal(t, []string{"content ", "abc", "éxxxxxx"}, srv.requests[0].Input,
		"a text cut to white space is cut after its leading white space instead")

	e1, _ := newTest(t, srv, Options{MaxInputBytes: 1, Dimensions: 2})
	vecs, err = e1.Embed(t.Context(), []string{"éa", "b"})
	require.NoError(t, err, "a text whose first character is longer than MaxInputBytes is not sent")
	assert.Equal(t, [][]float32{{0, 0}, vectorFor("b", 2)}, vecs, "it gets a zero vector, as an empty text does")
	assert.Equal(t, []string{"b"}, srv.requests[len(srv.requests)-1].Input)
}

func TestEmbedBadAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		want error
	}{
		{"not json", `<html>oops</html>`, ErrBadResponse},
		{"too few", `{"data":[{"index":0,"embedding":[1,2]}]}`, ErrBadResponse},
		{"too many", `{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[1,2]},{"index":2,"embedding":[1,2]}]}`, ErrBadResponse},
		{"index out of range", `{"data":[{"index":0,"embedding":[1,2]},{"index":5,"embedding":[1,2]}]}`, ErrBadResponse},
		{"index repeated", `{"data":[{"index":1,"embedding":[1,2]},{"index":1,"embedding":[1,2]}]}`, ErrBadResponse},
		{"empty vector", `{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[1,2]}]}`, ErrBadResponse},
		{"not numbers", `{"data":[{"index":0,"embedding":["a"]},{"index":1,"embedding":[1,2]}]}`, ErrBadResponse},
		{"mismatched dims", `{"data":[{"index":0,"embedding":[1,2,3]},{"index":1,"embedding":[1,2]}]}`, ErrDimensionMismatch},
		// serde_json (TEI), nlohmann::json (llama-server) and JavaScript's
		// JSON.stringify write a NaN or infinite component as null.
		{"null component", `{"data":[{"index":0,"embedding":[0.1,null,0.3]},{"index":1,"embedding":[1,2,3]}]}`, ErrBadResponse},
		{"all components null", `{"data":[{"index":0,"embedding":[null,null]},{"index":1,"embedding":[1,2]}]}`, ErrBadResponse},
		{"null vector", `{"data":[{"index":0,"embedding":null},{"index":1,"embedding":[1,2]}]}`, ErrBadResponse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, func(int, request, http.ResponseWriter) {})
			srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, tt.body) })
			e, waits := newTest(t, srv, Options{})
			vecs, err := e.Embed(t.Context(), []string{"one", "two"})
			require.ErrorIs(t, err, tt.want)
			assert.Nil(t, vecs)
			assert.Empty(t, *waits, "a bad 200 answer is not retried")
		})
	}
}

func TestEmbedDimensionsAcrossCalls(t *testing.T) {
	t.Parallel()
	var dims atomic.Int32
	dims.Store(3)
	srv := newServer(t, func(_ int, req request, w http.ResponseWriter) { openAIAnswer(w, req, int(dims.Load()), nil) })
	e, _ := newTest(t, srv, Options{})
	_, err := e.Embed(t.Context(), []string{"a"})
	require.NoError(t, err)
	dims.Store(5) // the server switched models
	_, err = e.Embed(t.Context(), []string{"b"})
	require.ErrorIs(t, err, ErrDimensionMismatch)

	e2, _ := newTest(t, srv, Options{Dimensions: 3})
	_, err = e2.Embed(t.Context(), []string{"c"})
	require.ErrorIs(t, err, ErrDimensionMismatch, "Options.Dimensions is enforced")
	assert.Equal(t, 3, srv.requests[len(srv.requests)-1].Dimensions, "and sent")
}

// TestEmbedServerErrors: a non-2xx answer comes back as a StatusError with
// the server's message and error code, retried only when a retry may help.
// OpenAI's 429 insufficient_quota (no credit left, a spending limit
// reached) does not pass with time, unlike a rate limit: it fails at once,
// without retries or their waits, as ErrInsufficientQuota (and ErrStatus);
// it was retried, MaxRetries requests and their waits (3 × the 20 s
// Retry-After here) before the same error.
func TestEmbedServerErrors(t *testing.T) {
	t.Parallel()
	const quotaMsg = "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors."
	tests := []struct {
		name     string
		status   int
		body     string
		wantMsg  string
		wantCode string
		attempts int
	}{
		{"openai 401", 401, `{"error":{"message":"Incorrect API key provided: ` + testKey + `. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, "Incorrect API key provided: [REDACTED].", "invalid_api_key", 1},
		{"ollama 404", 404, `{"error":{"message":"model \"nomic\" not found, try pulling it first","type":"api_error","param":null,"code":null}}`, `model "nomic" not found`, "api_error", 1},
		{"tei 413", 413, `{"error":"batch size 64 > maximum allowed batch size 32","error_type":"Validation"}`, "batch size 64 > maximum allowed batch size 32", "", 1},
		{"vllm 400", 400, `{"detail":"input too long"}`, "input too long", "", 1},
		{"plain text 502", 502, "Bad Gateway\n", "Bad Gateway", "", 4},
		{"503 forever", 503, `{"error":{"message":"overloaded"}}`, "overloaded", "", 4},
		{"openai 429 insufficient_quota", 429, `{"error":{"message":"` + quotaMsg + `","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`, "You exceeded your current quota", "insufficient_quota", 1},
		{"429 insufficient_quota as type only", 429, `{"error":{"message":"` + quotaMsg + `","type":"insufficient_quota","code":null}}`, "You exceeded your current quota", "insufficient_quota", 1},
		{"openai 429 rate limit", 429, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, "Rate limit reached", "rate_limit_exceeded", 4},
		{"azure 429 numeric code", 429, `{"error":{"message":"exceeded call rate limit","code":429}}`, "exceeded call rate limit", "429", 4},
		// The body is scrubbed as bytes, then decoded: a key the server
		// echoes JSON-escaped as its code came back whole in Code (and in
		// StatusError.Error) before the code was scrubbed too.
		{"escaped key echoed as the code dropped", 401, `{"error":{"message":"bad","code":"\u0073k-test-SECRET-0123456789abcdef"}}`, "bad", "", 1},
		{"unprintable code dropped", 429, `{"error":{"message":"m","code":"a b\nc"}}`, "m", "", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, func(_ int, _ request, w http.ResponseWriter) {
				if tt.status == http.StatusTooManyRequests {
					w.Header().Set("Retry-After", "20")
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			})
			e, waits := newTest(t, srv, Options{APIKey: testKey})
			_, err := e.Embed(t.Context(), []string{"x"})
			require.ErrorIs(t, err, ErrStatus)
			var se *StatusError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tt.status, se.StatusCode)
			assert.Equal(t, tt.wantCode, se.Code)
			assert.Contains(t, err.Error(), tt.wantMsg)
			assert.Contains(t, err.Error(), fmt.Sprint(tt.status))
			if tt.wantCode != "" {
				assert.Contains(t, err.Error(), "("+tt.wantCode+")")
			}
			assert.NotContains(t, err.Error(), testKey)
			assert.NotContains(t, se.Error(), testKey)
			assert.NotContains(t, se.Message, testKey)
			assert.Equal(t, tt.attempts, srv.count())
			assert.Equal(t, tt.attempts, se.Attempts)
			assert.Len(t, *waits, tt.attempts-1)
			if tt.wantCode == "insufficient_quota" {
				require.ErrorIs(t, err, ErrInsufficientQuota)
			} else {
				assert.NotErrorIs(t, err, ErrInsufficientQuota)
			}
		})
	}
}

func TestEmbedRetries(t *testing.T) {
	t.Parallel()
	t.Run("500 then success", func(t *testing.T) {
		t.Parallel()
		srv := newServer(t, func(n int, req request, w http.ResponseWriter) {
			if n == 1 {
				http.Error(w, "internal", http.StatusInternalServerError)
				return
			}
			openAIAnswer(w, req, 2, nil)
		})
		e, waits := newTest(t, srv, Options{MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second})
		vecs, err := e.Embed(t.Context(), []string{"x"})
		require.NoError(t, err)
		assert.Equal(t, [][]float32{vectorFor("x", 2)}, vecs)
		require.Len(t, *waits, 1)
		assert.GreaterOrEqual(t, (*waits)[0], 50*time.Millisecond, "jitter in [d/2, d]")
		assert.LessOrEqual(t, (*waits)[0], 100*time.Millisecond)
	})
	t.Run("backoff grows and is capped", func(t *testing.T) {
		t.Parallel()
		srv := newServer(t, func(_ int, _ request, w http.ResponseWriter) { w.WriteHeader(http.StatusServiceUnavailable) })
		e, waits := newTest(t, srv, Options{MaxRetries: 6, MinBackoff: 100 * time.Millisecond, MaxBackoff: 400 * time.Millisecond})
		_, err := e.Embed(t.Context(), []string{"x"})
		require.ErrorIs(t, err, ErrStatus)
		require.Len(t, *waits, 6)
		for k, d := range *waits {
			ceil := min(400*time.Millisecond, 100*time.Millisecond<<k)
			assert.GreaterOrEqual(t, d, ceil/2, "retry %d", k)
			assert.LessOrEqual(t, d, ceil, "retry %d", k)
		}
	})
	t.Run("429 honours Retry-After seconds", func(t *testing.T) {
		t.Parallel()
		srv := newServer(t, func(n int, req request, w http.ResponseWriter) {
			if n == 1 {
				w.Header().Set("Retry-After", "7")
				w.WriteHeader(http.StatusTooManyRequests)
				io.WriteString(w, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`)
				return
			}
			openAIAnswer(w, req, 2, nil)
		})
		e, waits := newTest(t, srv, Options{})
		_, err := e.Embed(t.Context(), []string{"x"})
		require.NoError(t, err)
		assert.Equal(t, []time.Duration{7 * time.Second}, *waits)
	})
	t.Run("429 honours Retry-After date", func(t *testing.T) {
		t.Parallel()
		srv := newServer(t, func(n int, req request, w http.ResponseWriter) {
			if n == 1 {
				w.Header().Set("Retry-After", time.Now().Add(time.Minute).UTC().Format(http.TimeFormat))
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			openAIAnswer(w, req, 2, nil)
		})
		e, waits := newTest(t, srv, Options{})
		_, err := e.Embed(t.Context(), []string{"x"})
		require.NoError(t, err)
		require.Len(t, *waits, 1)
		assert.InDelta(t, float64(time.Minute), float64((*waits)[0]), float64(2*time.Second))
	})
	// A Retry-After of 0, or a date that is not in the future, asks for no
	// wait: the backoff applies, as in OpenAI's own SDKs. Honoured as
	// written, it sent MaxRetries+1 requests within milliseconds to a
	// server that had just refused one for load (a limiter that rounds its
	// wait down to whole seconds may say 0 in the last second of a window),
	// and failed before any fault could pass.
	for _, tt := range []struct {
		name, header string
		status       int
	}{
		{"0", "0", http.StatusTooManyRequests},
		{"past date", time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat), http.StatusTooManyRequests},
		{"0 on a 503", "0", http.StatusServiceUnavailable},
		{"decimal zero", "0.0", http.StatusTooManyRequests},
	} {
		t.Run("Retry-After "+tt.name+" backs off", func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, func(n int, req request, w http.ResponseWriter) {
				if n <= 2 {
					w.Header().Set("Retry-After", tt.header)
					w.WriteHeader(tt.status)
					return
				}
				openAIAnswer(w, req, 2, nil)
			})
			e, waits := newTest(t, srv, Options{MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second})
			_, err := e.Embed(t.Context(), []string{"x"})
			require.NoError(t, err)
			require.Len(t, *waits, 2)
			for k, d := range *waits {
				ceil := 100 * time.Millisecond << k
				assert.GreaterOrEqual(t, d, ceil/2, "retry %d", k)
				assert.LessOrEqual(t, d, ceil, "retry %d", k)
			}
		})
	}
	t.Run("no retries on 400", func(t *testing.T) {
		t.Parallel()
		srv := newServer(t, func(_ int, _ request, w http.ResponseWriter) { w.WriteHeader(http.StatusBadRequest) })
		e, waits := newTest(t, srv, Options{})
		_, err := e.Embed(t.Context(), []string{"x"})
		require.ErrorIs(t, err, ErrStatus)
		assert.Equal(t, 1, srv.count())
		assert.Empty(t, *waits)
	})
	t.Run("MaxRetries negative means one attempt", func(t *testing.T) {
		t.Parallel()
		srv := newServer(t, func(_ int, _ request, w http.ResponseWriter) { w.WriteHeader(http.StatusInternalServerError) })
		e, _ := newTest(t, srv, Options{MaxRetries: -1})
		_, err := e.Embed(t.Context(), []string{"x"})
		require.ErrorIs(t, err, ErrStatus)
		assert.Equal(t, 1, srv.count())
	})
	// A Retry-After longer than Embed waits (a minute, or MaxBackoff when
	// longer) fails the call at once, with or without a deadline: honoured,
	// "3600" put Embed, and the compaction waiting on it, to sleep for an
	// hour when ctx had no deadline.
	for _, tt := range []struct {
		name, header string
		opts         Options
		fails        bool
	}{
		{"an hour", "3600", Options{}, true},
		{"an hour as a date", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat), Options{}, true},
		{"61 s", "61", Options{}, true},
		{"60 s", "60", Options{}, false},
		{"an hour under MaxBackoff 2h", "3600", Options{MaxBackoff: 2 * time.Hour}, false},
	} {
		t.Run("Retry-After "+tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, func(n int, req request, w http.ResponseWriter) {
				if n == 1 {
					w.Header().Set("Retry-After", tt.header)
					w.WriteHeader(http.StatusTooManyRequests)
					return
				}
				openAIAnswer(w, req, 2, nil)
			})
			e, waits := newTest(t, srv, tt.opts)
			_, err := e.Embed(t.Context(), []string{"x"})
			if !tt.fails {
				require.NoError(t, err)
				assert.Len(t, *waits, 1)
				return
			}
			require.ErrorIs(t, err, ErrStatus)
			assert.ErrorContains(t, err, "longer than")
			assert.Empty(t, *waits)
			assert.Equal(t, 1, srv.count())
		})
	}
	t.Run("Retry-After beyond the deadline fails at once", func(t *testing.T) {
		t.Parallel()
		srv := newServer(t, func(_ int, _ request, w http.ResponseWriter) {
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
		})
		e, waits := newTest(t, srv, Options{MaxBackoff: 2 * time.Hour}) // an hour is honoured but for the deadline
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		_, err := e.Embed(ctx, []string{"x"})
		require.ErrorIs(t, err, ErrStatus)
		assert.Contains(t, err.Error(), "deadline")
		assert.Empty(t, *waits)
	})
}

// TestNewTestIgnoresStaleConnections: newTest's Embedder does not inherit
// the idle connection http.DefaultTransport keeps to an earlier server on
// the port its fake server now has (parallel tests get freed ports back).
// On such a connection "no retries on 400" under load saw the earlier
// server's hang-up, a retry after a wait, and only then the 400.
func TestNewTestIgnoresStaleConnections(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	old := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1) == 1 {
			_, _ = io.WriteString(w, `{"data":[{"index":0,"embedding":[1,2]}]}`)
			return
		}
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			_ = conn.Close() // the earlier server hangs up on a later request
		}
	}))
	t.Cleanup(old.Close)
	warm, err := New(&Options{BaseURL: old.URL, Model: "m"}) // http.DefaultClient
	require.NoError(t, err)
	_, err = warm.Embed(t.Context(), []string{"x"})
	require.NoError(t, err)
	require.NoError(t, old.Listener.Close()) // the port is free; the idle connection lives on
	ln, err := net.Listen("tcp", old.Listener.Addr().String())
	require.NoError(t, err)

	srv := newServerOn(t, ln, func(_ int, _ request, w http.ResponseWriter) { w.WriteHeader(http.StatusBadRequest) })
	e, waits := newTest(t, srv, Options{})
	_, err = e.Embed(t.Context(), []string{"x"})
	require.ErrorIs(t, err, ErrStatus)
	var se *StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 1, se.Attempts)
	assert.Equal(t, 1, srv.count())
	assert.Empty(t, *waits)
}

func TestEmbedCancelDuringBackoff(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(_ int, _ request, w http.ResponseWriter) { w.WriteHeader(http.StatusServiceUnavailable) })
	e, err := New(&Options{BaseURL: srv.URL, Model: "m", MinBackoff: time.Hour, MaxBackoff: time.Hour, HTTPClient: srv.Client()})
	require.NoError(t, err) // real sleeps: an hour unless cancelled
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := e.Embed(ctx, []string{"x"})
		done <- err
	}()
	require.Eventually(t, func() bool { return srv.count() == 1 }, 5*time.Second, time.Millisecond)
	cancel()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("Embed did not return after cancel")
	}
}

// TestEmbedTLSErrorsNotRetried: a certificate that does not verify, or a
// server that does not speak TLS, fails at once: a retry would meet it
// again.
func TestEmbedTLSErrorsNotRetried(t *testing.T) {
	t.Parallel()
	answer := func(_ int, req request, w http.ResponseWriter) { openAIAnswer(w, req, 2, nil) }
	untrusted := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { answer(1, request{Input: []string{"x"}}, w) }))
	untrusted.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake errors are the point
	untrusted.StartTLS()
	t.Cleanup(untrusted.Close)
	plain := newServer(t, answer)
	tests := []struct {
		name, base string
		want       string
	}{
		{"unknown authority", untrusted.URL, "certificate"},
		{"wrong host name", strings.Replace(untrusted.URL, "127.0.0.1", "localhost", 1), "certificate"},
		{"server without TLS", strings.Replace(plain.URL, "http://", "https://", 1), "HTTP response to HTTPS client"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			client := untrusted.Client() // trusts the test certificate, issued for 127.0.0.1 only
			if tt.name == "unknown authority" {
				client = &http.Client{Transport: &http.Transport{}}
			}
			e, err := New(&Options{BaseURL: tt.base, Model: "m", HTTPClient: client})
			require.NoError(t, err)
			var waits int
			e.sleep = func(context.Context, time.Duration) error { waits++; return nil }
			_, err = e.Embed(t.Context(), []string{"x"})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Zero(t, waits, "not retried")
		})
	}
}

// refusingClient is a client whose every connection is refused: unlike
// the port of a closed test server, which a parallel test's server may get
// back, it reaches no server.
func refusingClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext: func(context.Context, string, string) (net.Conn, error) {
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
		},
	}}
}

func TestEmbedTransportError(t *testing.T) {
	t.Parallel()
	e, err := New(&Options{BaseURL: "http://127.0.0.1:9/" + testKey, Model: "m", APIKey: testKey, MaxRetries: 2, HTTPClient: refusingClient()})
	require.NoError(t, err)
	var waits int
	e.sleep = func(context.Context, time.Duration) error { waits++; return nil }
	_, err = e.Embed(t.Context(), []string{"x"})
	require.Error(t, err)
	assert.Equal(t, 2, waits, "network errors are retried")
	assert.NotContains(t, err.Error(), testKey, "the key is scrubbed even from a URL")
	assert.Contains(t, err.Error(), "[REDACTED]")
}

func TestEmbedConcurrent(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(_ int, req request, w http.ResponseWriter) { openAIAnswer(w, req, 3, reversed) })
	e, _ := newTest(t, srv, Options{MaxBatch: 3})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			texts := []string{fmt.Sprint("t", g), "x", fmt.Sprint("long text ", g), "y", "z"}
			vecs, err := e.Embed(context.Background(), texts)
			if err != nil {
				errs <- err
				return
			}
			for i, s := range texts {
				if !assert.ObjectsAreEqual(vectorFor(s, 3), vecs[i]) {
					errs <- fmt.Errorf("goroutine %d text %d: wrong vector", g, i)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func TestBackoffNoOverflow(t *testing.T) {
	t.Parallel()
	e, err := New(&Options{Model: "m", MinBackoff: 30 * time.Second, MaxBackoff: time.Hour})
	require.NoError(t, err)
	for attempt := range 100 {
		d := e.backoff(attempt)
		assert.GreaterOrEqual(t, d, 15*time.Second, "attempt %d", attempt)
		assert.LessOrEqual(t, d, time.Hour, "attempt %d", attempt)
	}
	assert.GreaterOrEqual(t, e.backoff(99), 30*time.Minute, "capped at MaxBackoff, with jitter in [d/2, d]")
}

func TestRetryAfterParse(t *testing.T) {
	t.Parallel()
	for h, want := range map[string]time.Duration{
		"":                              -1,
		"abc":                           -1,
		"-3":                            -1,
		"0":                             0,
		"2":                             2 * time.Second,
		"1.5":                           2 * time.Second, // whole seconds (RFC 9110), a fraction rounded up
		"0.0001":                        time.Second,     // not a burst of retries (it waited 100 µs)
		"Wed, 21 Oct 2015 07:28:00 GMT": 0,               // in the past
	} {
		assert.Equal(t, want, retryAfter(h), "Retry-After %q", h)
	}
	future := retryAfter(time.Now().Add(time.Minute).UTC().Format(http.TimeFormat))
	assert.InDelta(t, float64(time.Minute), float64(future), float64(2*time.Second))
	// A wait beyond a day is unreadable in either form (the backoff
	// applies), so that a server whose clock runs years ahead does not
	// put Embed to sleep for years when ctx has no deadline.
	assert.Equal(t, time.Duration(-1), retryAfter("90000"), "seconds beyond a day")
	far := time.Now().AddDate(1, 0, 0).UTC().Format(http.TimeFormat)
	assert.Equal(t, time.Duration(-1), retryAfter(far), "a date a year ahead")
}

func FuzzServerMessage(f *testing.F) {
	for _, s := range []string{"", "plain", `{"error":{"message":"m"}}`, `{"error":"e"}`, `{"detail":[{"msg":"x"}]}`, "\xff\xfe", strings.Repeat("é", 2000)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		msg := serverMessage(body, func(s string) string { return s })
		assert.LessOrEqual(t, len([]rune(msg)), maxErrorText+1)
		assert.NotContains(t, msg, "\n")
	})
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[3,4]}]}`,
		`{"data":[{"index":1,"embedding":[1,2]},{"index":0,"embedding":[3,4]}]}`,
		`{"data":[{"embedding":"AADAPwAAAMA="},{"embedding":"AADAPwAAAMA="}]}`,
		`{"data":[{"index":-1,"embedding":[1]}]}`, `{"data":null}`, `[]`, `{`, `{"data":[{"index":0,"embedding":[1e39]}]}`,
	} {
		f.Add([]byte(s), 2)
	}
	f.Fuzz(func(t *testing.T, body []byte, want int) {
		if want < 0 || want > 64 {
			return
		}
		e, err := New(&Options{Model: "m"})
		require.NoError(t, err)
		vecs, err := e.decode(body, want)
		if err != nil {
			assert.Nil(t, vecs)
			return
		}
		require.Len(t, vecs, want)
		for _, v := range vecs {
			require.NotEmpty(t, v)
			assert.Len(t, v, len(vecs[0]))
			for _, x := range v {
				assert.False(t, math.IsNaN(float64(x)) || math.IsInf(float64(x), 0))
			}
		}
	})
}

// A response body is bounded by what the batch can need (bodyLimit: a
// mebibyte plus 256 KiB a text), not only by the 256 MiB cap: a server
// that pads or streams without end is cut off after a few mebibytes for
// one text, before the whole body is read, and one that announces a
// larger Content-Length is refused before any of it is read.
func TestBodyBoundedByBatch(t *testing.T) {
	t.Parallel()
	limit := bodyLimit(1)
	require.Less(t, limit, int64(2<<20), "one text")
	assert.Equal(t, int64(maxBodyBytes), bodyLimit(MaxBatchLimit), "capped")
	assert.Greater(t, bodyLimit(10), bodyLimit(1))
	for _, tc := range []struct {
		name    string
		chunked bool
	}{{"chunked", true}, {"content-length", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var sent atomic.Int64
			srv := newServer(t, func(_ int, req request, w http.ResponseWriter) {
				pad := bytes.Repeat([]byte(" "), 64<<10)
				total := int64(8 << 20)
				if !tc.chunked {
					w.Header().Set("Content-Length", strconv.FormatInt(total+2, 10))
				}
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, "{")
				for n := int64(0); n < total; n += int64(len(pad)) {
					if _, err := w.Write(pad); err != nil {
						return
					}
					sent.Add(int64(len(pad)))
				}
				io.WriteString(w, "}")
			})
			e, _ := newTest(t, srv, Options{MaxRetries: -1})
			_, err := e.Embed(t.Context(), []string{"x"})
			require.ErrorIs(t, err, ErrBadResponse)
			assert.Contains(t, err.Error(), "body larger than")
		})
	}
}

// A 301, 302 or 303 answer to the POST is refused with an error that names
// where the server sent it, instead of being followed: net/http would turn
// the POST into a GET without a body, and the server's answer to that (405,
// 404 or an HTML page) would hide the cause, a BaseURL one slash or path
// away from the server's. 307 and 308 keep the method and body, and are
// followed.
func TestRedirectChangingMethodRefused(t *testing.T) {
	t.Parallel()
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			t.Parallel()
			var redirects atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/v1/embeddings" {
					redirects.Add(1)
					http.Redirect(w, r, "/v2/embeddings", code)
					return
				}
				if r.Method != http.MethodPost {
					w.WriteHeader(http.StatusMethodNotAllowed)
					return
				}
				var req request
				_ = json.NewDecoder(r.Body).Decode(&req)
				openAIAnswer(w, req, 2, nil)
			}))
			t.Cleanup(srv.Close)
			e, err := New(&Options{BaseURL: srv.URL + "/v1", Model: "m", APIKey: testKey, MinBackoff: time.Microsecond, MaxBackoff: time.Microsecond, HTTPClient: srv.Client()})
			require.NoError(t, err)
			_, err = e.Embed(t.Context(), []string{"x"})
			if code == http.StatusTemporaryRedirect || code == http.StatusPermanentRedirect {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrMethodRedirect)
			assert.Contains(t, err.Error(), "/v2/embeddings")
			assert.Contains(t, err.Error(), strconv.Itoa(code))
			assert.NotErrorIs(t, err, ErrStatus, "the GET's 405 is not what the caller sees")
			assert.NotContains(t, err.Error(), testKey)
			assert.Equal(t, int32(1), redirects.Load(), "not retried: the next answer is the same")
		})
	}
}
