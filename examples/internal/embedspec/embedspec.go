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
// llamacpp and openai take the query and document prefixes of an
// asymmetric model as a preset after the kind: llamacpp+nomic:PATH,
// openai+e5:URL#MODEL. The presets are nomic ("search_query: " /
// "search_document: "), e5 ("query: " / "passage: ") and bge (queries get
// "Represent this sentence for searching relevant passages: ", documents
// none). Only the word before the first ':' is read for a preset, so a
// path or URL is never mistaken for one.
//
// The empty spec means hash. An openai: embedder sends $OPENAI_API_KEY as
// its bearer token when set, and embeds one probe text when opened to learn
// its dimension; llamacpp and openai embedders sit behind a
// chitta.CachedEmbedder. Without a preset queries embed as documents and
// Embedder.Queries is nil; with one, Queries is the query side behind a
// cache of its own.
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
	// asymmetric model (llamacpp's Queries, or openai's texts with the query prefix, behind a cache of its own),
	// for chitta.Options.QueryEmbedder. It is nil when queries embed as
	// documents do: hash, and llamacpp or openai without a preset.
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
	kind, arg, hasArg, p, err := parse(spec)
	if err != nil {
		return nil, err
	}
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
		return openLlama(ctx, arg, p)
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
		return openOpenAI(ctx, url, model, p)
	default:
		return nil, fmt.Errorf("%w: %q: want hash, hash:DIMS, llamacpp[+PRESET]:PATH or openai[+PRESET]:URL#MODEL", ErrInvalidSpec, Redact(spec))
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
