package llamacpp_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/chitta-go/chitta/llamacpp"
)

// Open a GGUF embedding model and embed documents and a query. Build with
// -tags llamacpp; without it New returns ErrUnavailable.
func ExampleNew() {
	e, err := llamacpp.New("bge-small-en-v1.5-f16.gguf", &llamacpp.Options{
		QueryPrefix: "Represent this sentence for searching relevant passages: ",
	})
	if errors.Is(err, llamacpp.ErrUnavailable) {
		log.Print(err) // built without -tags llamacpp
		return
	}
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()

	ctx := context.Background()
	docs, err := e.Embed(ctx, []string{"go test -race failed in store_test.go", "deploy finished"})
	if err != nil {
		log.Fatal(err)
	}
	query, err := e.EmbedQueries(ctx, []string{"which test failed?"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(docs), len(query[0]) == e.Dimensions())
}
