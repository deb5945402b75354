package tinybert

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/chitta-go/chitta/internal/testkit/gguf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func fakeVocab(n int) *gguf.Header {
	words := make([]string, n)
	for i := range words {
		words[i] = string(rune('a' + i%26))
	}
	return &gguf.Header{KVs: []gguf.KV{
		{Key: "general.architecture", Value: gguf.Value{Type: gguf.TypeString, Data: "bert"}},
		{Key: "tokenizer.ggml.model", Value: gguf.Value{Type: gguf.TypeString, Data: "bert"}},
		{Key: "tokenizer.ggml.tokens", Value: gguf.Value{Type: gguf.TypeArray, Data: gguf.Array{Elem: gguf.TypeString, Data: words}}},
		{Key: "tokenizer.ggml.token_type_count", Value: gguf.Value{Type: gguf.TypeUint32, Data: uint32(3)}},
	}}
}

func TestBuildShapes(t *testing.T) {
	t.Parallel()
	kvs, tensors, err := Build(fakeVocab(100), Config{Layers: 3, Embd: 32, Heads: 2})
	require.NoError(t, err)

	h := gguf.Header{KVs: kvs}
	for key, want := range map[string]any{
		"general.architecture":     "bert",
		"bert.block_count":         uint32(3),
		"bert.embedding_length":    uint32(32),
		"bert.feed_forward_length": uint32(64),
		"bert.context_length":      uint32(512),
		"tokenizer.ggml.model":     "bert",
	} {
		v, ok := h.Lookup(key)
		require.True(t, ok, key)
		assert.Equal(t, want, v.Data, key)
	}
	_, ok := h.Lookup("general.architecture")
	require.True(t, ok)

	dims := map[string][]uint64{}
	for _, tt := range tensors {
		dims[tt.Name] = tt.Dims
	}
	assert.Equal(t, []uint64{32, 100}, dims["token_embd.weight"])
	assert.Equal(t, []uint64{32, 3}, dims["token_types.weight"])
	assert.Equal(t, []uint64{32, 512}, dims["position_embd.weight"])
	assert.Equal(t, []uint64{32, 64}, dims["blk.2.ffn_up.weight"])
	assert.Equal(t, []uint64{64, 32}, dims["blk.2.ffn_down.weight"])
	assert.Len(t, tensors, 5+16*3)
}

func TestBuildDeterministic(t *testing.T) {
	t.Parallel()
	encode := func(seed uint64) []byte {
		kvs, tensors, err := Build(fakeVocab(50), Config{Seed: seed})
		require.NoError(t, err)
		var buf bytes.Buffer
		require.NoError(t, gguf.Write(&buf, kvs, tensors))
		return buf.Bytes()
	}
	assert.Equal(t, encode(1), encode(1))
	assert.NotEqual(t, encode(1), encode(2))
}

func TestBuildRejects(t *testing.T) {
	t.Parallel()
	_, _, err := Build(&gguf.Header{}, Config{})
	require.ErrorIs(t, err, ErrVocab)
	_, _, err = Build(fakeVocab(10), Config{Embd: 10, Heads: 3})
	require.Error(t, err)
}

// TestWriteRealVocab builds the model the llamacpp tests use and checks the
// 5 MB size budget; it needs the vocabulary from scripts/install-llama.sh.
func TestWriteRealVocab(t *testing.T) {
	t.Parallel()
	vocab := os.Getenv("CHITTA_LLAMA_VOCAB")
	if vocab == "" {
		t.Skip("CHITTA_LLAMA_VOCAB not set (run scripts/install-llama.sh)")
	}
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	require.NoError(t, Write(path, vocab, Config{}))
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Less(t, st.Size(), int64(5_000_000), "under 5 MB")
	h, err := gguf.ReadHeaderFile(path)
	require.NoError(t, err)
	assert.Len(t, h.Tensors, 5+16*2)

	require.Error(t, Write(path, filepath.Join(t.TempDir(), "missing.gguf"), Config{}))
}

func TestBuildDecoder(t *testing.T) {
	t.Parallel()
	kvs, tensors, err := Build(fakeVocab(40), Config{Decoder: true, Layers: 2})
	require.NoError(t, err)
	h := gguf.Header{KVs: kvs}
	arch, ok := h.Lookup("general.architecture")
	require.True(t, ok)
	assert.Equal(t, "llama", arch.Data)
	rope, ok := h.Lookup("llama.rope.dimension_count")
	require.True(t, ok)
	assert.Equal(t, uint32(16), rope.Data)
	_, ok = h.Lookup("llama.attention.layer_norm_rms_epsilon")
	assert.True(t, ok)
	names := map[string]bool{}
	for _, tt := range tensors {
		names[tt.Name] = true
	}
	assert.Len(t, tensors, 2+9*2)
	assert.True(t, names["blk.1.ffn_gate.weight"])
	assert.False(t, names["position_embd.weight"], "rotary positions need no table")
}
