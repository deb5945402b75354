package embedspec

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/llamacpp"
	"github.com/chitta-go/chitta/openai"
)

func TestOpenHash(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec string
		dims int
	}{
		{"", chitta.DefaultHashDimensions},
		{"hash", chitta.DefaultHashDimensions},
		{" hash ", chitta.DefaultHashDimensions},
		{"hash:64", 64},
		{"hash:1", 1},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			t.Parallel()
			e, err := Open(t.Context(), tt.spec)
			require.NoError(t, err)
			defer func() { assert.NoError(t, e.Close()) }()
			assert.Equal(t, tt.dims, e.Dims)
			assert.Contains(t, e.Name, "hash")
			vecs, err := e.Embed(t.Context(), []string{"remember the milk"})
			require.NoError(t, err)
			require.Len(t, vecs, 1)
			assert.Len(t, vecs[0], tt.dims)
		})
	}
}

func TestOpenInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec, msg string
	}{
		{"bert", "want hash, hash:DIMS"},
		{"hash:", "hash:DIMS"},
		{"hash:0", "hash:DIMS"},
		{"hash:-3", "hash:DIMS"},
		{"hash:many", "hash:DIMS"},
		{"hash:99999999", "hash:DIMS"},
		{"llamacpp", "llamacpp:PATH"},
		{"llamacpp:", "llamacpp:PATH"},
		{"openai", "openai:URL#MODEL"},
		{"openai:https://api.example.com/v1", "openai:URL#MODEL"},
		{"openai:#model", "openai:URL#MODEL"},
		{"openai:https://api.example.com/v1#", "openai:URL#MODEL"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			t.Parallel()
			e, err := Open(t.Context(), tt.spec)
			require.ErrorIs(t, err, ErrInvalidSpec)
			assert.Contains(t, err.Error(), tt.msg)
			assert.Nil(t, e)
		})
	}
}

func TestCloseNil(t *testing.T) {
	t.Parallel()
	var e *Embedder
	assert.NoError(t, e.Close())
}

func TestOpenLlamaWithoutTag(t *testing.T) {
	t.Parallel()
	if llamaBuilt {
		t.Skip("built with -tags llamacpp")
	}
	_, err := Open(t.Context(), "llamacpp:/models/nomic.gguf")
	require.ErrorIs(t, err, llamacpp.ErrUnavailable)
	assert.Contains(t, err.Error(), "-tags llamacpp")
	assert.Contains(t, err.Error(), "/models/nomic.gguf")
}

// embeddingsServer is a fake OpenAI-compatible /v1/embeddings endpoint
// answering dims-long vectors, or failing with status when it is not 0.
func embeddingsServer(t *testing.T, dims, status int) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if status != 0 {
			http.Error(w, `{"error":{"message":"model not found"}}`, status)
			return
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "tiny" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		writeVectors(w, req.Input, func(text string) []float32 {
			v := make([]float32, dims)
			for j := range v {
				v[j] = float32(len(text)%7+j+1) / 10
			}
			return v
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// writeVectors answers an embeddings request for inputs with vec's vector
// for each text, in the OpenAI response shape.
func writeVectors(w http.ResponseWriter, inputs []string, vec func(text string) []float32) {
	type item struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	var resp struct {
		Data []item `json:"data"`
	}
	for i, text := range inputs {
		resp.Data = append(resp.Data, item{Index: i, Embedding: vec(text)})
	}
	_ = json.NewEncoder(w).Encode(resp)
}

func TestOpenOpenAI(t *testing.T) {
	t.Parallel()
	srv := embeddingsServer(t, 24, 0)
	e, err := Open(t.Context(), "openai:"+srv.URL+"/v1#tiny")
	require.NoError(t, err)
	defer func() { assert.NoError(t, e.Close()) }()
	assert.Equal(t, 24, e.Dims)
	assert.Contains(t, e.Name, "tiny")
	vecs, err := e.Embed(t.Context(), []string{"a", "bb"})
	require.NoError(t, err)
	require.Len(t, vecs, 2)
	assert.Len(t, vecs[1], 24)
}

func TestOpenOpenAIErrors(t *testing.T) {
	t.Parallel()
	down := embeddingsServer(t, 8, http.StatusNotFound)
	_, err := Open(t.Context(), "openai:"+down.URL+"#tiny")
	require.ErrorIs(t, err, openai.ErrStatus)
	assert.Contains(t, err.Error(), "probe")

	_, err = Open(t.Context(), "openai:ftp://example.com#tiny")
	require.ErrorIs(t, err, openai.ErrInvalidOption)
}

// TestProbeUnderClientWait: an openai: embedder's probe waits less than
// the 30 s Claude Code gives an MCP server to start (MCP_TIMEOUT), so
// that a server that never answers is reported while the client still
// listens; it waited exactly those 30 s.
func TestProbeUnderClientWait(t *testing.T) {
	t.Parallel()
	assert.Less(t, probeTimeout, 30*time.Second)
}
