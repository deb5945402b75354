// Package tinybert writes a tiny BERT embedding model in GGUF format for
// tests and benchmarks: random weights from a fixed seed, and the real
// tokenizer copied from a vocabulary-only GGUF such as llama.cpp's
// models/ggml-vocab-bert-bge.gguf. The model computes nothing meaningful,
// but it exercises llama.cpp's BERT loader, tokenizer and encoder exactly as
// a real model does.
//
// The tensor names and hyper-parameter keys follow llama.cpp's BERT loader
// (src/models/bert.cpp, src/llama-arch.cpp).
package tinybert

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/chitta-go/chitta/internal/testkit/gguf"
)

// Config sets the model's shape. The zero value of each field means the
// default noted beside it.
type Config struct {
	Embd    int    // hidden size; 0 means 64
	Layers  int    // transformer blocks; 0 means 2
	Heads   int    // attention heads, must divide Embd; 0 means 4
	FF      int    // feed-forward size; 0 means 2*Embd
	Context int    // trained context in tokens; 0 means 512
	Seed    uint64 // weight seed; 0 is a valid seed

	// Decoder, when set, builds a decoder-only model instead (llama
	// architecture: RMS norms, rotary positions, SwiGLU feed-forward,
	// causal attention, output tied to the token embeddings) with the same
	// vocabulary, to exercise the llama_decode path of embedders.
	Decoder bool
}

func (c Config) withDefaults() Config {
	if c.Embd == 0 {
		c.Embd = 64
	}
	if c.Layers == 0 {
		c.Layers = 2
	}
	if c.Heads == 0 {
		c.Heads = 4
	}
	if c.FF == 0 {
		c.FF = 2 * c.Embd
	}
	if c.Context == 0 {
		c.Context = 512
	}
	return c
}

// ErrVocab reports a vocabulary file without the tokenizer keys a BERT
// model needs.
var ErrVocab = errors.New("tinybert: unusable vocabulary")

// Write creates the model at path from the tokenizer metadata of the GGUF
// file at vocabPath.
func Write(path, vocabPath string, cfg Config) error {
	vocab, err := gguf.ReadHeaderFile(vocabPath)
	if err != nil {
		return fmt.Errorf("read vocabulary: %w", err)
	}
	kvs, tensors, err := Build(vocab, cfg)
	if err != nil {
		return err
	}
	return gguf.WriteFile(path, kvs, tensors)
}

// Build returns the metadata and tensors of the model for the tokenizer
// found in vocab (every tokenizer.* key is copied).
func Build(vocab *gguf.Header, cfg Config) ([]gguf.KV, []gguf.Tensor, error) {
	c := cfg.withDefaults()
	if c.Embd < 1 || c.Layers < 1 || c.Heads < 1 || c.Embd%c.Heads != 0 || c.FF < 1 || c.Context < 1 {
		return nil, nil, fmt.Errorf("tinybert: invalid config %+v", c)
	}
	tokens, ok := vocab.Lookup("tokenizer.ggml.tokens")
	arr, isArr := tokens.Data.(gguf.Array)
	words, isStr := arr.Data.([]string)
	if !ok || !isArr || !isStr || len(words) == 0 {
		return nil, nil, fmt.Errorf("%w: no tokenizer.ggml.tokens", ErrVocab)
	}
	nTypes := uint32(2)
	if v, ok := vocab.Lookup("tokenizer.ggml.token_type_count"); ok {
		if n, ok := v.Data.(uint32); ok && n > 0 {
			nTypes = n
		}
	}

	arch := "bert"
	if c.Decoder {
		arch = "llama"
	}
	kvs := []gguf.KV{
		{Key: "general.architecture", Value: gguf.Value{Type: gguf.TypeString, Data: arch}},
		{Key: "general.name", Value: gguf.Value{Type: gguf.TypeString, Data: "chitta-tinybert"}},
		u32(arch+".block_count", c.Layers),
		u32(arch+".context_length", c.Context),
		u32(arch+".embedding_length", c.Embd),
		u32(arch+".feed_forward_length", c.FF),
		u32(arch+".attention.head_count", c.Heads),
	}
	if c.Decoder {
		kvs = append(kvs,
			u32(arch+".attention.head_count_kv", c.Heads),
			u32(arch+".rope.dimension_count", c.Embd/c.Heads),
			gguf.KV{Key: arch + ".attention.layer_norm_rms_epsilon", Value: gguf.Value{Type: gguf.TypeFloat32, Data: float32(1e-6)}},
			u32(arch+".pooling_type", 3), // last
		)
	} else {
		kvs = append(kvs,
			gguf.KV{Key: arch + ".attention.layer_norm_epsilon", Value: gguf.Value{Type: gguf.TypeFloat32, Data: float32(1e-12)}},
			gguf.KV{Key: arch + ".attention.causal", Value: gguf.Value{Type: gguf.TypeBool, Data: false}},
			u32(arch+".pooling_type", 1), // mean
		)
	}
	for _, kv := range vocab.KVs {
		if strings.HasPrefix(kv.Key, "tokenizer.") {
			kvs = append(kvs, kv)
		}
	}

	rng := rand.New(rand.NewPCG(c.Seed, 0x7b1e27))
	e, ff := uint64(c.Embd), uint64(c.FF)
	normal := func(n uint64, std float64) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = float32(rng.NormFloat64() * std)
		}
		return out
	}
	f32 := func(name string, std float64, dims ...uint64) gguf.Tensor {
		n := uint64(1)
		for _, d := range dims {
			n *= d
		}
		return gguf.Tensor{Name: name, Dims: dims, Type: gguf.TensorF32, Data: gguf.F32Bytes(normal(n, std))}
	}
	ones := func(name string, n uint64) gguf.Tensor {
		v := make([]float32, n)
		for i := range v {
			v[i] = 1
		}
		return gguf.Tensor{Name: name, Dims: []uint64{n}, Type: gguf.TensorF32, Data: gguf.F32Bytes(v)}
	}
	w := 1 / math.Sqrt(float64(c.Embd))
	tokEmbd := gguf.Tensor{Name: "token_embd.weight", Dims: []uint64{e, uint64(len(words))}, Type: gguf.TensorF16,
		Data: gguf.F16Bytes(normal(e*uint64(len(words)), 1))}
	if c.Decoder {
		tensors := []gguf.Tensor{tokEmbd, ones("output_norm.weight", e)}
		for i := range c.Layers {
			p := fmt.Sprintf("blk.%d.", i)
			tensors = append(tensors,
				ones(p+"attn_norm.weight", e),
				f32(p+"attn_q.weight", w, e, e), f32(p+"attn_k.weight", w, e, e),
				f32(p+"attn_v.weight", w, e, e), f32(p+"attn_output.weight", w, e, e),
				ones(p+"ffn_norm.weight", e),
				f32(p+"ffn_gate.weight", w, e, ff), f32(p+"ffn_up.weight", w, e, ff),
				f32(p+"ffn_down.weight", 1/math.Sqrt(float64(c.FF)), ff, e),
			)
		}
		return kvs, tensors, nil
	}
	tensors := []gguf.Tensor{
		tokEmbd,
		f32("token_types.weight", 0.1, e, uint64(nTypes)),
		f32("position_embd.weight", 0.1, e, uint64(c.Context)),
		ones("token_embd_norm.weight", e),
		f32("token_embd_norm.bias", 0.01, e),
	}
	for i := range c.Layers {
		p := fmt.Sprintf("blk.%d.", i)
		tensors = append(tensors,
			f32(p+"attn_q.weight", w, e, e), f32(p+"attn_q.bias", 0.01, e),
			f32(p+"attn_k.weight", w, e, e), f32(p+"attn_k.bias", 0.01, e),
			f32(p+"attn_v.weight", w, e, e), f32(p+"attn_v.bias", 0.01, e),
			f32(p+"attn_output.weight", w, e, e), f32(p+"attn_output.bias", 0.01, e),
			ones(p+"attn_output_norm.weight", e), f32(p+"attn_output_norm.bias", 0.01, e),
			f32(p+"ffn_up.weight", w, e, ff), f32(p+"ffn_up.bias", 0.01, ff),
			f32(p+"ffn_down.weight", 1/math.Sqrt(float64(c.FF)), ff, e), f32(p+"ffn_down.bias", 0.01, e),
			ones(p+"layer_output_norm.weight", e), f32(p+"layer_output_norm.bias", 0.01, e),
		)
	}
	return kvs, tensors, nil
}

func u32(key string, v int) gguf.KV {
	return gguf.KV{Key: key, Value: gguf.Value{Type: gguf.TypeUint32, Data: uint32(v)}}
}
