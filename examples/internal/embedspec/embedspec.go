// Package embedspec turns the --embedder flag of chitta's programs into an
// embedder.
//
// A spec is one of
//
//	hash               chitta's built-in hash embedder, DefaultHashDimensions
//	hash:DIMS          the hash embedder with DIMS dimensions
//	llamacpp:PATH      a GGUF embedding model run by llama.cpp (build with -tags llamacpp)
//	openai:URL#MODEL   an OpenAI-compatible /embeddings endpoint at URL serving MODEL
//
// The empty spec means hash. An openai: embedder sends $OPENAI_API_KEY as
// its bearer token when set, and embeds one probe text when opened to learn
// its dimension; llamacpp and openai embedders sit behind a
// chitta.CachedEmbedder. A llamacpp: model is opened without query or
// document prefixes, so it embeds queries as documents and has no
// Embedder.Queries (a spec cannot give prefixes yet).
package embedspec

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/openai"
)

// ErrInvalidSpec reports an --embedder value that is not one of the forms in
// the package documentation.
var ErrInvalidSpec = errors.New("embedspec: invalid embedder spec")

// Embedder is an opened embedder with the facts a program needs about it.
// It is safe for concurrent use if the underlying embedder is; the hash
// embedder is. Close releases it.
type Embedder struct {
	chitta.Embedder

	// Name describes the embedder for logs, e.g. "hash (512 dims)".
	Name string
	// Dims is the length of the vectors it makes.
	Dims int
	// Queries, when not nil, embeds search queries: the query side of an
	// asymmetric model (llamacpp's Queries, behind a cache of its own),
	// for chitta.Options.QueryEmbedder. It is nil when queries embed as
	// documents do: hash, openai, and llamacpp opened without a query
	// prefix other than its document prefix (as every spec opens it).
	Queries chitta.Embedder

	close func() error
}

// Close releases the embedder's resources (a llama.cpp model); it is a
// no-op for the others. It is safe to call on a nil *Embedder.
func (e *Embedder) Close() error {
	if e == nil || e.close == nil {
		return nil
	}
	return e.close()
}

// Open parses spec and opens its embedder. Errors wrap ErrInvalidSpec for a
// malformed spec, and the provider's error (for instance llamacpp's
// ErrUnavailable in a build without the llamacpp tag) otherwise.
func Open(ctx context.Context, spec string) (*Embedder, error) {
	kind, arg, hasArg := strings.Cut(strings.TrimSpace(spec), ":")
	switch kind {
	case "", "hash":
		dims := 0
		if hasArg {
			n, err := strconv.Atoi(arg)
			if err != nil || n < 1 || n > chitta.MaxHashDimensions {
				return nil, fmt.Errorf("%w: hash:%s: want hash:DIMS with DIMS from 1 to %d", ErrInvalidSpec, arg, chitta.MaxHashDimensions)
			}
			dims = n
		}
		h := chitta.NewHashEmbedder(dims)
		return &Embedder{Embedder: h, Name: fmt.Sprintf("hash (%d dims)", h.Dimensions()), Dims: h.Dimensions()}, nil
	case "llamacpp":
		if arg == "" {
			return nil, fmt.Errorf("%w: llamacpp: want llamacpp:PATH to a GGUF embedding model", ErrInvalidSpec)
		}
		return openLlama(ctx, arg)
	case "openai":
		// The model follows the last '#': one in the URL can only be part
		// of a password (a base URL has no fragment), which a split at the
		// first would have printed as the URL.
		i := strings.LastIndex(arg, "#")
		url, model, ok := arg, "", i >= 0
		if ok {
			url, model = arg[:i], arg[i+1:]
		}
		if url == "" || !ok || model == "" {
			return nil, fmt.Errorf("%w: %q: want openai:URL#MODEL, e.g. openai:https://api.openai.com/v1#text-embedding-3-small", ErrInvalidSpec, Redact(spec))
		}
		return openOpenAI(ctx, url, model)
	default:
		return nil, fmt.Errorf("%w: %q: want hash, hash:DIMS, llamacpp:PATH or openai:URL#MODEL", ErrInvalidSpec, Redact(spec))
	}
}

// Redact returns spec fit to print in an error or a log: the user
// information (user:password@) and query-string values (?api-key=...) of a
// URL in it replaced by "REDACTED". Every error of this package prints
// specs through it; programs that print a spec themselves should too.
func Redact(spec string) string {
	kind, arg, ok := strings.Cut(spec, ":")
	if !ok {
		return spec
	}
	return kind + ":" + openai.RedactURL(arg)
}
