package pgstore_test

import (
	"context"
	"fmt"
	"os"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/pgstore"
)

// Shared memory for a team: every agent opens the same table and
// namespace. The example needs a server, so it is compiled but not run;
// the tests run the same calls against the test server.
func Example() {
	dsn := os.Getenv("CHITTA_DSN") // e.g. postgres://agent:secret@db.internal/chitta
	ctx := context.Background()
	store, err := pgstore.Open(ctx, dsn, &pgstore.Options{Dims: 3, Table: "chitta_example", Namespace: "team-a"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()
	if err := store.Add(ctx, chitta.Memory{ID: "tea", Text: "likes tea", Kind: chitta.KindPreference, Vector: []float32{1, 0, 0}}); err != nil {
		fmt.Println(err)
		return
	}
	hits, err := store.Recall(ctx, []float32{1, 0.01, 0}, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("recalled: %s (%.2f)\n", hits[0].Text, hits[0].Similarity)
}
