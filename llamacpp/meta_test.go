package llamacpp

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckHparams: the hyper-parameters llama.cpp asserts on while it
// loads any model are refused; valid ones, and values of a type llama.cpp
// refuses itself (with an error), pass.
func TestCheckHparams(t *testing.T) {
	t.Parallel()
	u := func(v uint32) metaValue { return metaValue{kind: metaU32, u32: v} }
	s := func(v string) metaValue { return metaValue{kind: metaString, str: v} }
	arr := func(v ...uint32) metaValue { return metaValue{kind: metaArray, arr: v} }
	f := func(v float32) metaValue { return metaValue{kind: metaF32, f32: v} }
	other := metaValue{kind: metaOther}
	tests := []struct {
		name    string
		arch    string
		kv      map[string]metaValue
		wantErr string // "" means accepted
	}{
		{"bert", "bert", map[string]metaValue{"block_count": u(12)}, ""},
		{"moe", "qwen3moe", map[string]metaValue{"block_count": u(48), "expert_count": u(128), "expert_used_count": u(8)}, ""},
		{"moe per-layer used", "qwen3moe", map[string]metaValue{"block_count": u(2), "expert_count": u(8), "expert_used_count": arr(2, 4)}, ""},
		{"expert groups", "deepseek2", map[string]metaValue{"block_count": u(4), "expert_count": u(256), "expert_used_count": u(8),
			"expert_group_count": u(8), "expert_group_used_count": u(4)}, ""},
		{"rope yarn", "qwen3", map[string]metaValue{"block_count": u(28), "rope.scaling.type": s("yarn")}, ""},
		{"max layers", "bert", map[string]metaValue{"block_count": u(512)}, ""},
		{"nextn equal", "glm4moe", map[string]metaValue{"block_count": u(4), "nextn_predict_layers": u(4)}, ""},
		{"hunyuan one expert is dense", "hunyuan-dense", map[string]metaValue{"block_count": u(4), "expert_count": u(1), "expert_used_count": u(1)}, ""},
		{"no block count: llama.cpp says so", "bert", nil, ""},
		{"block count of another type: llama.cpp says so", "bert", map[string]metaValue{"block_count": other}, ""},
		{"unknown architecture: llama.cpp says so", "", map[string]metaValue{"block_count": u(0)}, ""},
		{"clip: llama.cpp says so", "clip", map[string]metaValue{"block_count": u(0)}, ""},
		{"used array of wrong length: llama.cpp says so", "qwen3moe", map[string]metaValue{"block_count": u(2), "expert_count": u(8), "expert_used_count": arr(2)}, ""},
		{"rope type of another type: llama.cpp says so", "qwen3", map[string]metaValue{"block_count": u(2), "rope.scaling.type": other}, ""},

		{"zero epsilon", "bert", map[string]metaValue{"block_count": u(2), "attention.layer_norm_epsilon": f(0)}, ""},
		{"epsilon of another type: llama.cpp says so", "bert", map[string]metaValue{"block_count": u(2), "attention.layer_norm_epsilon": other}, ""},
		{"negative epsilon", "bert", map[string]metaValue{"block_count": u(2), "attention.layer_norm_epsilon": f(-1)}, "attention.layer_norm_epsilon -1"},
		{"tiny negative epsilon", "bert", map[string]metaValue{"attention.layer_norm_epsilon": f(-1e-30)}, "attention.layer_norm_epsilon -1e-30"},
		{"NaN rms epsilon", "llama", map[string]metaValue{"block_count": u(2), "attention.layer_norm_rms_epsilon": f(float32(math.NaN()))}, "attention.layer_norm_rms_epsilon NaN"},
		{"-Inf rms epsilon", "llama", map[string]metaValue{"block_count": u(2), "attention.layer_norm_rms_epsilon": f(float32(math.Inf(-1)))}, "layer_norm_rms_epsilon -Inf"},
		{"zero blocks", "bert", map[string]metaValue{"block_count": u(0)}, "block_count 0 outside 1..512"},
		{"too many blocks", "bert", map[string]metaValue{"block_count": u(513)}, "block_count 513 outside 1..512"},
		{"nextn beyond blocks", "bert", map[string]metaValue{"block_count": u(2), "nextn_predict_layers": u(3)}, "nextn_predict_layers 3 exceeds block_count 2"},
		{"too many experts", "qwen3moe", map[string]metaValue{"block_count": u(2), "expert_count": u(1025), "expert_used_count": u(8)}, "expert_count 1025 exceeds 1024"},
		{"used without experts", "bert", map[string]metaValue{"block_count": u(2), "expert_used_count": u(5)}, "expert_used_count 5 exceeds expert_count 0"},
		{"used beyond experts in a layer", "qwen3moe", map[string]metaValue{"block_count": u(2), "expert_count": u(8), "expert_used_count": arr(2, 9)}, "expert_used_count 9 exceeds expert_count 8"},
		{"experts none used", "qwen3moe", map[string]metaValue{"block_count": u(2), "expert_count": u(8)}, "expert_used_count 0 with expert_count 8"},
		{"groups not below experts", "deepseek2", map[string]metaValue{"block_count": u(2), "expert_count": u(8), "expert_used_count": u(2), "expert_group_count": u(8)}, "expert_group_count 8 not below expert_count 8"},
		{"groups not dividing", "deepseek2", map[string]metaValue{"block_count": u(2), "expert_count": u(8), "expert_used_count": u(2), "expert_group_count": u(3), "expert_group_used_count": u(1)}, "expert_group_count 3"},
		{"no group used", "deepseek2", map[string]metaValue{"block_count": u(2), "expert_count": u(8), "expert_used_count": u(2), "expert_group_count": u(4)}, "expert_group_used_count 0"},
		{"all groups used", "deepseek2", map[string]metaValue{"block_count": u(2), "expert_count": u(8), "expert_used_count": u(2), "expert_group_count": u(4), "expert_group_used_count": u(4)}, "expert_group_used_count 4"},
		{"groups without experts", "bert", map[string]metaValue{"block_count": u(2), "expert_group_count": u(2)}, "expert_group_count 2 without experts"},
		{"unknown rope scaling", "bert", map[string]metaValue{"block_count": u(2), "rope.scaling.type": s("foo")}, `rope.scaling.type "foo"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := checkHparams(tt.arch, func(key string) (metaValue, bool) {
				v, ok := tt.kv[key]
				return v, ok
			})
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrInvalidModel)
			assert.ErrorContains(t, err, tt.wantErr)
			assert.ErrorContains(t, err, tt.arch)
		})
	}
}
