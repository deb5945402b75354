package embedspec

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/llamacpp"
)

func TestOpenHash(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec string
		dims int
	}{
		{"", chitta.DefaultHashDimensions},
		{"hash", chitta.DefaultHashDimensions},
		{" hash ", chitta.DefaultHashDimensions},
		{"hash:64", 64},
		{"hash:1", 1},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			t.Parallel()
			e, err := Open(t.Context(), tt.spec)
			require.NoError(t, err)
			defer func() { assert.NoError(t, e.Close()) }()
			assert.Equal(t, tt.dims, e.Dims)
			assert.Contains(t, e.Name, "hash")
			vecs, err := e.Embed(t.Context(), []string{"remember the milk"})
			require.NoError(t, err)
			require.Len(t, vecs, 1)
			assert.Len(t, vecs[0], tt.dims)
		})
	}
}

func TestOpenInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec, msg string
	}{
		{"bert", "want hash, hash:DIMS"},
		{"hash:", "hash:DIMS"},
		{"hash:0", "hash:DIMS"},
		{"hash:-3", "hash:DIMS"},
		{"hash:many", "hash:DIMS"},
		{"hash:99999999", "hash:DIMS"},
		{"llamacpp", "llamacpp:PATH"},
		{"llamacpp:", "llamacpp:PATH"},
		{"openai", "openai:URL#MODEL"},
		{"openai:https://api.example.com/v1", "openai:URL#MODEL"},
		{"openai:#model", "openai:URL#MODEL"},
		{"openai:https://api.example.com/v1#", "openai:URL#MODEL"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			t.Parallel()
			e, err := Open(t.Context(), tt.spec)
			require.ErrorIs(t, err, ErrInvalidSpec)
			assert.Contains(t, err.Error(), tt.msg)
			assert.Nil(t, e)
		})
	}
}

func TestCloseNil(t *testing.T) {
	t.Parallel()
	var e *Embedder
	assert.NoError(t, e.Close())
}

func TestOpenLlamaWithoutTag(t *testing.T) {
	t.Parallel()
	if llamaBuilt {
		t.Skip("built with -tags llamacpp")
	}
	_, err := Open(t.Context(), "llamacpp:/models/nomic.gguf")
	require.ErrorIs(t, err, llamacpp.ErrUnavailable)
	assert.Contains(t, err.Error(), "-tags llamacpp")
	assert.Contains(t, err.Error(), "/models/nomic.gguf")
}
