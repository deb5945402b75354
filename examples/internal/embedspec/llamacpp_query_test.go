//go:build cgo && llamacpp

package embedspec

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chitta-go/chitta/internal/testkit/ci"
	"github.com/chitta-go/chitta/internal/testkit/tinybert"
	"github.com/chitta-go/chitta/llamacpp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLlamaQueries: a llamacpp spec has no query side of its own (no
// prefixes: queries embed as documents); with a preset (llamacpp+e5:PATH),
// Queries embeds with its query prefix, as llamacpp's EmbedQueries does.
func TestLlamaQueries(t *testing.T) {
	vocab := os.Getenv("CHITTA_LLAMA_VOCAB")
	if vocab == "" {
		ci.Need(t, "CHITTA_LLAMA_VOCAB not set: run eval \"$(scripts/install-llama.sh)\" to enable llama.cpp tests")
	}
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	require.NoError(t, tinybert.Write(path, vocab, tinybert.Config{Seed: 1}))
	ctx := t.Context()

	plain, err := Open(ctx, "llamacpp:"+path)
	require.NoError(t, err)
	defer plain.Close()
	assert.Nil(t, plain.Queries)

	opts := &llamacpp.Options{QueryPrefix: "query: ", DocumentPrefix: "passage: "} // e5's preset
	asym, err := Open(ctx, "llamacpp+e5:"+path)
	require.NoError(t, err)
	defer asym.Close()
	require.NotNil(t, asym.Queries)
	ref, err := llamacpp.New(path, opts)
	require.NoError(t, err)
	defer ref.Close()

	texts := []string{"which test failed?"}
	got, err := asym.Queries.Embed(ctx, texts)
	require.NoError(t, err)
	want, err := ref.EmbedQueries(ctx, texts)
	require.NoError(t, err)
	assert.InDeltaSlice(t, want[0], got[0], 1e-6)
	doc, err := asym.Embed(ctx, texts)
	require.NoError(t, err)
	assert.NotEqual(t, doc[0], got[0], "the document side has another prefix")
}
