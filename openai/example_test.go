package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/openai"
)

// A stand-in for Ollama or OpenAI: it answers every input with a 3-dimensional
// vector, listing the items in reverse order as some servers do.
func fakeServer() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		for i := len(req.Input) - 1; i >= 0; i-- {
			data = append(data, item{i, []float32{float32(len(req.Input[i])), 1, 0}})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
	}))
}

func Example() {
	srv := fakeServer()
	defer srv.Close()

	e, err := openai.New(&openai.Options{
		BaseURL: srv.URL, // e.g. "http://localhost:11434" for Ollama; "/v1" is optional
		Model:   "nomic-embed-text",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	vecs, err := e.Embed(context.Background(), []string{"hi", "hello", ""})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(vecs, e.Dimensions())

	// In an agent loop, put a cache in front so that only new turns reach the server.
	cached := chitta.NewCachedEmbedder(e, 0)
	_, _ = cached.Embed(context.Background(), []string{"hi", "hello"})
	fmt.Printf("%+v\n", cached.Stats())
	// Output:
	// [[2 1 0] [5 1 0] [0 0 0]] 3
	// {Hits:0 Misses:2 Evictions:0 Len:2 Capacity:4096}
}
