package chitta_test

import (
	"context"
	"fmt"

	"github.com/chitta-go/chitta"
)

func ExampleHashEmbedder() {
	e := chitta.NewHashEmbedder(0) // 512 dimensions, no model, deterministic
	vecs, err := e.Embed(context.Background(), []string{
		"parseConfig failed on the YAML file",
		"the parse_config call failed for config.yaml",
		"let's plan a hiking trip",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	cos := func(a, b []float32) (s float32) {
		for i := range a {
			s += a[i] * b[i] // vectors are L2-normalised: the dot product is the cosine
		}
		return s
	}
	fmt.Println(len(vecs[0]))
	fmt.Println(cos(vecs[0], vecs[1]) > 0.4, cos(vecs[0], vecs[2]) < 0.1)
	// Output:
	// 512
	// true true
}

func ExampleCachedEmbedder() {
	e := chitta.NewCachedEmbedder(chitta.NewHashEmbedder(0), 0)
	ctx := context.Background()
	msgs := []chitta.Message{
		{Role: chitta.RoleUser, Content: "please fix the failing parseConfig test"},
		{Role: chitta.RoleAssistant, Content: "parse_config rejects empty YAML files; fixing it"},
	}
	opts := &chitta.Options{Embedder: e, Query: "parseConfig"}
	if _, err := chitta.Compact(ctx, msgs, opts); err != nil {
		fmt.Println(err)
		return
	}
	// The conversation grows by one turn: only that turn is embedded.
	msgs = append(msgs, chitta.Message{Role: chitta.RoleUser, Content: "thanks, now run the tests"})
	if _, err := chitta.Compact(ctx, msgs, opts); err != nil {
		fmt.Println(err)
		return
	}
	st := e.Stats()
	fmt.Println("embedded:", st.Misses, "from cache:", st.Hits)
	// Output:
	// embedded: 4 from cache: 3
}

// An asymmetric model (e5, bge, nomic) embeds a search query with another
// prefix than a document: give Compact its query side as QueryEmbedder
// (with llamacpp: Embedder: e, QueryEmbedder: e.Queries()).
func ExampleOptions_queryEmbedder() {
	model := chitta.NewHashEmbedder(0) // stands in for the model
	side := func(prefix string) chitta.EmbedderFunc {
		return func(ctx context.Context, texts []string) ([][]float32, error) {
			in := make([]string, len(texts))
			for i, t := range texts {
				in[i] = prefix + t
				fmt.Printf("%q\n", in[i])
			}
			return model.Embed(ctx, in)
		}
	}
	msgs := []chitta.Message{
		{Role: chitta.RoleUser, Content: "please fix the failing parseConfig test"},
		{Role: chitta.RoleAssistant, Content: "parse_config rejects empty YAML files; fixing it"},
	}
	_, err := chitta.Compact(context.Background(), msgs, &chitta.Options{
		Query:         "parseConfig",
		Embedder:      side("passage: "), // messages: documents
		QueryEmbedder: side("query: "),   // Options.Query: a query
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// "passage: please fix the failing parseConfig test"
	// "passage: parse_config rejects empty YAML files; fixing it"
	// "query: parseConfig"
}
