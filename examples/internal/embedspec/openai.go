package embedspec

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/openai"
)

// APIKeyEnv is the environment variable holding the API key sent to an
// openai: embedder; unset sends none (local servers). White space around
// the key is ignored.
const APIKeyEnv = "OPENAI_API_KEY"

// probeTimeout bounds the request that learns an openai: model's
// dimension, when ctx's deadline is not sooner: under the 30 s Claude Code
// gives an MCP server to start (MCP_TIMEOUT), as the chitta command's
// --store-timeout, which bounds it there, is.
const probeTimeout = 20 * time.Second

// openOpenAI opens an OpenAI-compatible embeddings endpoint behind an
// embedding cache. The store needs the vector length up front, so it embeds
// one probe text to learn it: a server that cannot answer fails here, with
// a clear error, rather than in the middle of a compaction. Documents go
// out with p.document before them; when p.query differs, Queries sends
// texts with p.query before them, behind a cache of its own.
func openOpenAI(ctx context.Context, url, model string, p prefixes) (*Embedder, error) {
	spec := Redact("openai:" + url + "#" + model)
	e, err := openai.New(&openai.Options{BaseURL: url, Model: model, APIKey: os.Getenv(APIKeyEnv)})
	if err != nil {
		return nil, fmt.Errorf("embedder %s: %w", spec, err)
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	docs := prefixEmbedder{next: e, prefix: p.document}
	if _, err := docs.Embed(ctx, []string{"chitta embedding dimension probe"}); err != nil {
		return nil, fmt.Errorf("embedder %s: probe: %w", spec, err)
	}
	dims := e.Dimensions()
	out := &Embedder{
		Embedder: chitta.NewCachedEmbedder(docs, 0),
		Name:     fmt.Sprintf("openai (%s, %d dims)", model, dims),
		Dims:     dims,
	}
	if p.query != p.document {
		out.Queries = chitta.NewCachedEmbedder(prefixEmbedder{next: e, prefix: p.query}, 0)
	}
	return out, nil
}
