package embedspec

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParsePrefixes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec, kind, arg, query, doc string
	}{
		{"llamacpp:/m/a+b.gguf", "llamacpp", "/m/a+b.gguf", "", ""},
		{"llamacpp+nomic:/m/n.gguf", "llamacpp", "/m/n.gguf", "search_query: ", "search_document: "},
		{"llamacpp+e5:/m/e5:x+y.gguf", "llamacpp", "/m/e5:x+y.gguf", "query: ", "passage: "},
		{"openai+bge:http://h/v1#bge", "openai", "http://h/v1#bge", "Represent this sentence for searching relevant passages: ", ""},
		{"openai:http://u:p+q@h/v1#m", "openai", "http://u:p+q@h/v1#m", "", ""},
		{"hash:64", "hash", "64", "", ""},
		{" hash ", "hash", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			t.Parallel()
			kind, arg, _, p, err := parse(tt.spec)
			require.NoError(t, err)
			assert.Equal(t, tt.kind, kind)
			assert.Equal(t, tt.arg, arg)
			assert.Equal(t, tt.query, p.query)
			assert.Equal(t, tt.doc, p.document)
		})
	}
}

func TestPrefixesInvalid(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{
		"llamacpp+:/m/n.gguf",
		"llamacpp+bert:/m/n.gguf",
		"openai+NOMIC:http://h#m",
		"hash+nomic:64",
		"hash+nomic",
		"openai+nomic+e5:http://h#m",
	} {
		t.Run(spec, func(t *testing.T) {
			t.Parallel()
			e, err := Open(t.Context(), spec)
			require.ErrorIs(t, err, ErrInvalidSpec)
			assert.Contains(t, err.Error(), "prefixes")
			assert.Contains(t, err.Error(), "nomic, e5 or bge")
			assert.Nil(t, e)
		})
	}
	_, err := Open(t.Context(), "openai+bert:http://user:PASSWORD@h/v1?api-key=QUERYKEY#m")
	require.ErrorIs(t, err, ErrInvalidSpec)
	assert.NotContains(t, err.Error(), "PASSWORD")
	assert.NotContains(t, err.Error(), "QUERYKEY")
}

// recordingServer is a fake /v1/embeddings endpoint that records every
// input text it is sent.
func recordingServer(t *testing.T) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		if json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		mu.Lock()
		seen = append(seen, req.Input...)
		mu.Unlock()
		writeVectors(w, req.Input, func(text string) []float32 { return []float32{float32(len(text)), 1, 2} })
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// TestOpenAIPrefixes: with a preset, documents go out with the document
// prefix and Queries' texts with the query prefix; without one (or with
// bge's empty document prefix) the texts go as given, and Queries is nil
// exactly when the two prefixes are the same.
func TestOpenAIPrefixes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		preset, doc, query string
		queries            bool
	}{
		{"", "", "", false},
		{"+nomic", "search_document: ", "search_query: ", true},
		{"+e5", "passage: ", "query: ", true},
		{"+bge", "", "Represent this sentence for searching relevant passages: ", true},
	}
	for _, tt := range tests {
		t.Run(tt.preset, func(t *testing.T) {
			t.Parallel()
			srv, seen := recordingServer(t)
			e, err := Open(t.Context(), "openai"+tt.preset+":"+srv.URL+"/v1#m")
			require.NoError(t, err)
			defer func() { assert.NoError(t, e.Close()) }()
			assert.Equal(t, 3, e.Dims)
			_, err = e.Embed(t.Context(), []string{"the milk"})
			require.NoError(t, err)
			require.Equal(t, tt.queries, e.Queries != nil)
			if e.Queries != nil {
				_, err = e.Queries.Embed(t.Context(), []string{"what to buy?"})
				require.NoError(t, err)
				_, err = e.Queries.Embed(t.Context(), []string{"what to buy?"}) // cached
				require.NoError(t, err)
			}
			got := seen()
			require.GreaterOrEqual(t, len(got), 2)
			assert.Equal(t, tt.doc+"chitta embedding dimension probe", got[0])
			assert.Equal(t, tt.doc+"the milk", got[1])
			if tt.queries {
				assert.Equal(t, []string{tt.query + "what to buy?"}, got[2:], "one request: the query side has its cache")
			} else {
				assert.Len(t, got, 2)
			}
		})
	}
}
