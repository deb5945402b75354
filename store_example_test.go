package chitta_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/chitta-go/chitta"
)

// An HNSWStore remembers vectors with their texts, recalls the most similar
// ones with their true cosine similarity, and persists to a file.
func ExampleHNSWStore() {
	ctx := context.Background()
	store, err := chitta.NewHNSWStore(3, nil) // nil: exact recall, the default
	if err != nil {
		panic(err)
	}
	for _, m := range []chitta.Memory{
		{ID: "tabs", Text: "the user prefers tabs", Kind: chitta.KindPreference, Confidence: 0.9, Vector: []float32{1, 0, 0}},
		{ID: "ci", Text: "CI runs on every push", Kind: chitta.KindFact, Confidence: 0.7, Vector: []float32{0, 1, 0}},
		{ID: "fmt", Text: "run gofmt before committing", Kind: chitta.KindHabit, Confidence: 0.8, Vector: []float32{1, 1, 0}},
	} {
		if err := store.Add(ctx, m); err != nil {
			panic(err)
		}
	}
	hits, err := store.Recall(ctx, []float32{2, 1, 0}, 2)
	if err != nil {
		panic(err)
	}
	for _, h := range hits {
		fmt.Printf("%s %.3f %s\n", h.ID, h.Similarity, h.Text)
	}

	path := filepath.Join(os.TempDir(), "chitta-example.store")
	defer os.Remove(path)
	if err := store.SaveFile(path); err != nil {
		panic(err)
	}
	loaded, err := chitta.LoadHNSWStore(path)
	if err != nil {
		panic(err)
	}
	fmt.Println("loaded", loaded.Len(), "memories of", loaded.Dims(), "dimensions")
	// Output:
	// fmt 0.949 run gofmt before committing
	// tabs 0.894 the user prefers tabs
	// loaded 3 memories of 3 dimensions
}
