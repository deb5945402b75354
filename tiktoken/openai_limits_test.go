package tiktoken_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta/openai"
	"github.com/chitta-go/chitta/tiktoken"
)

// TestOpenAIEmbedderInputLimits: the openai embedder, with its default
// options, never sends a text over the 8 192-token input limit of
// OpenAI's embedding models, nor a request over the 300 000 tokens summed
// across its inputs, whatever the script: the fake server counts what it
// receives in cl100k_base (text-embedding-3) and o200k_base and refuses,
// as OpenAI does, a request beyond either limit. On main, 16 KiB of emoji
// were 11 970 cl100k tokens, and CJK, CJK extension B, random ASCII and
// control characters were over the limit too.
func TestOpenAIEmbedderInputLimits(t *testing.T) {
	t.Parallel()
	const inputLimit, requestLimit = 8192, 300_000
	counters := make([]*tiktoken.Counter, 0, 2)
	for _, name := range []string{tiktoken.Cl100kBase, tiktoken.O200kBase} {
		c, err := tiktoken.New(name)
		require.NoError(t, err)
		counters = append(counters, c)
	}
	var mu sync.Mutex
	var most int // tokens of the longest input received
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, c := range counters {
			total := 0
			for i, in := range req.Input {
				n := c.CountTokens(in)
				mu.Lock()
				most = max(most, n)
				mu.Unlock()
				if n > inputLimit {
					w.WriteHeader(http.StatusBadRequest)
					fmt.Fprintf(w, `{"error":{"message":"input %d: %d %s tokens, max %d"}}`, i, n, c.Encoding(), inputLimit)
					return
				}
				total += n
			}
			if total > requestLimit {
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, `{"error":{"message":"Requested %d tokens, max %d tokens per request"}}`, total, requestLimit)
				return
			}
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		data := make([]item, len(req.Input))
		for i := range data {
			data[i] = item{i, []float32{1, float32(len(req.Input[i]))}}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	t.Cleanup(srv.Close)

	r := rand.New(rand.NewPCG(1, 2))
	runes := func(n int, lo, hi rune) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteRune(lo + r.Int32N(hi-lo))
		}
		return b.String()
	}
	const size = 64 << 10
	texts := map[string]string{
		"emoji":                 runes(size, 0x1F300, 0x1FAFF),
		"emoji ZWJ sequences":   strings.Repeat("👩🏽‍💻", size/15),
		"flags":                 strings.Repeat("🇯🇵🇺🇸", size/16),
		"CJK":                   runes(size, 0x4E00, 0x9FFF),
		"CJK extension B":       runes(size, 0x20000, 0x2A6DF),
		"Hangul":                runes(size, 0xAC00, 0xD7A3),
		"combining marks":       runes(size, 0x0300, 0x036F),
		"random ASCII":          runes(size, 0x21, 0x7F),
		"control characters":    runes(size, 0x01, 0x1F),
		"invalid UTF-8 and CJK": strings.Repeat("\xff漢\xfe", size/5),
		"English":               strings.Repeat("The quick brown fox jumps over the lazy dog. ", size/45),
	}
	t.Run("texts", func(t *testing.T) { // returns when its parallel subtests are done
		for name, text := range texts {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				e, err := openai.New(&openai.Options{BaseURL: srv.URL, Model: "text-embedding-3-small", HTTPClient: srv.Client(), MaxRetries: -1})
				require.NoError(t, err)
				vecs, err := e.Embed(t.Context(), []string{text})
				require.NoError(t, err)
				require.Len(t, vecs, 1)
				assert.Greater(t, vecs[0][1], float32(openai.DefaultMaxInputBytes-4), "cut at the limit, not far below")
			})
		}
		t.Run("a batch over the request limit", func(t *testing.T) {
			t.Parallel()
			e, err := openai.New(&openai.Options{BaseURL: srv.URL, Model: "text-embedding-3-small", HTTPClient: srv.Client(), MaxRetries: -1, MaxBatch: openai.MaxBatchLimit})
			require.NoError(t, err)
			batch := make([]string, 40) // 40 of 8 KiB: over 300 000 tokens in one request
			for i := range batch {
				batch[i] = texts["control characters"][i:] // distinct texts, each near a token a byte
			}
			vecs, err := e.Embed(t.Context(), batch)
			require.NoError(t, err)
			require.Len(t, vecs, 40)
		})
	})
	mu.Lock()
	defer mu.Unlock()
	assert.Greater(t, most, inputLimit*9/10, "the worst texts come near a token a byte: the bound is not loose")
}
