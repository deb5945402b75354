package embedspec

import (
	"context"
	"fmt"
	"strings"

	"github.com/chitta-go/chitta"
)

// prefixes is the text an asymmetric embedding model wants before a search
// query and before a document; both empty is a symmetric model.
type prefixes struct{ query, document string }

// presets are the prefix sets a spec can name after its kind
// (llamacpp+nomic:PATH), from the models' cards. bge v1.5 embeds documents
// as they are and wants an instruction before queries.
var presets = map[string]prefixes{
	"nomic": {query: "search_query: ", document: "search_document: "},
	"e5":    {query: "query: ", document: "passage: "},
	"bge":   {query: "Represent this sentence for searching relevant passages: "},
}

// presetForms lists the presets for an error message.
const presetForms = "nomic, e5 or bge"

// parse splits spec into its kind, the argument after the first ':'
// (hasArg: there is a ':') and the prefixes its +PRESET names. Only the
// part before the first ':' is read for a preset, and kinds and presets
// are plain words, so a '+' or ':' in a path or URL never counts as one.
func parse(spec string) (kind, arg string, hasArg bool, p prefixes, err error) {
	head, arg, hasArg := strings.Cut(strings.TrimSpace(spec), ":")
	kind, preset, hasPreset := strings.Cut(head, "+")
	if !hasPreset {
		return kind, arg, hasArg, prefixes{}, nil
	}
	p, ok := presets[preset]
	if !ok || kind == "hash" || kind == "" {
		return "", "", false, prefixes{}, fmt.Errorf("%w: %q: prefixes +%s: want llamacpp+PRESET:PATH or openai+PRESET:URL#MODEL with PRESET %s",
			ErrInvalidSpec, Redact(spec), preset, presetForms)
	}
	return kind, arg, hasArg, p, nil
}

// prefixEmbedder embeds texts with prefix put before each one. It is as
// safe for concurrent use as next is.
type prefixEmbedder struct {
	next   chitta.Embedder
	prefix string
}

func (e prefixEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if e.prefix == "" {
		return e.next.Embed(ctx, texts)
	}
	in := make([]string, len(texts))
	for i, t := range texts {
		in[i] = e.prefix + t
	}
	return e.next.Embed(ctx, in)
}
