package llamacpp

import (
	"fmt"
	"slices"
)

// llama.cpp's limits on a model's hyper-parameters (LLAMA_MAX_LAYERS and
// LLAMA_MAX_EXPERTS in src/llama-hparams.h), which it asserts while it
// loads a model: a file beyond them aborts the process.
const (
	llamaMaxLayers  = 512
	llamaMaxExperts = 1024
)

// This file holds no cgo, so that checkHparams is tested in every build;
// llamacpp.go reads the values from the file.

// metaKind is the GGUF type of a metadata value, as far as checkHparams
// needs it.
type metaKind int

const (
	metaOther  metaKind = iota // any type llama.cpp refuses for the key (it throws, which is an error)
	metaU32                    // a uint32
	metaString                 // a string
	metaF32                    // a float32
	metaArray                  // an array of uint32, int32 or bool (int32 read as uint32, as llama.cpp does)
)

// metaValue is one metadata value of a GGUF file.
type metaValue struct {
	kind metaKind
	u32  uint32
	f32  float32
	str  string
	arr  []uint32
}

// normEpsilons are the keys of the epsilons ggml's norm operations
// assert are not negative (GGML_ASSERT(eps >= 0.0f) in ggml_compute_forward_norm
// and _rms_norm), when the model first runs, not when it loads.
var normEpsilons = []string{"attention.layer_norm_epsilon", "attention.layer_norm_rms_epsilon"}

// ropeScalingTypes are the values llama.cpp knows for rope.scaling.type.
var ropeScalingTypes = []string{"none", "linear", "yarn", "longrope"}

// checkHparams refuses the hyper-parameters that llama.cpp checks with
// assertions, not errors, in the part of its loader common to every
// architecture (llama_model_base::load_hparams): a block count outside
// 1..512, more next-token-prediction layers than blocks, more than 1024
// experts, more experts used than there are, inconsistent expert groups, an
// unknown rope scaling type; and a layer-norm epsilon that is negative or
// NaN, which passes the loader and aborts the first Embed (an assertion of
// ggml's norm operations, common to every architecture). get returns the value of "<arch>.<key>" and
// whether the file has it. A value of a type llama.cpp refuses for its key
// is left to llama.cpp, which reports it as an error.
func checkHparams(arch string, get func(key string) (metaValue, bool)) error {
	if arch == "" || arch == "clip" { // llama.cpp refuses these before the checks
		return nil
	}
	u32 := func(key string) (v uint32, ok bool) { // ok: absent (0) or a uint32
		m, found := get(key)
		if !found {
			return 0, true
		}
		return m.u32, m.kind == metaU32
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s (llama.cpp would abort the process on it)", ErrInvalidModel, arch, fmt.Sprintf(format, args...))
	}

	for _, key := range normEpsilons {
		if m, found := get(key); found && m.kind == metaF32 && !(m.f32 >= 0) { // NaN too
			return bad("%s %v: want a number of at least 0", key, m.f32)
		}
	}

	m, found := get("block_count")
	if !found || m.kind != metaU32 {
		return nil // llama.cpp reports it
	}
	layers := m.u32
	if layers < 1 || layers > llamaMaxLayers {
		return bad("block_count %d outside 1..%d", layers, llamaMaxLayers)
	}
	if nextn, ok := u32("nextn_predict_layers"); ok && nextn > layers {
		return bad("nextn_predict_layers %d exceeds block_count %d", nextn, layers)
	}

	experts, ok := u32("expert_count")
	if !ok {
		return nil
	}
	var used uint32 // the most experts any layer uses
	if m, found := get("expert_used_count"); found {
		switch {
		case m.kind == metaU32:
			used = m.u32
		case m.kind == metaArray && len(m.arr) == int(layers):
			used = slices.Max(m.arr)
		default:
			return nil // llama.cpp reports it
		}
	}
	groups, ok1 := u32("expert_group_count")
	groupUsed, ok2 := u32("expert_group_used_count")
	if !ok1 || !ok2 {
		return nil
	}
	if (arch == "hunyuan-dense" || arch == "hunyuan_vl") && experts <= 1 {
		experts, used = 0, 0 // llama.cpp reads these as dense models
	}
	switch {
	case experts > llamaMaxExperts:
		return bad("expert_count %d exceeds %d", experts, llamaMaxExperts)
	case used > experts:
		return bad("expert_used_count %d exceeds expert_count %d", used, experts)
	case experts > 0 && used == 0:
		return bad("expert_used_count 0 with expert_count %d", experts)
	case experts > 0 && groups >= experts:
		return bad("expert_group_count %d not below expert_count %d", groups, experts)
	case experts > 0 && groups > 1 && (experts%groups != 0 || groupUsed == 0 || groupUsed >= groups):
		return bad("expert_group_count %d, expert_group_used_count %d: want a divisor of expert_count %d and 1..%d groups used",
			groups, groupUsed, experts, groups-1)
	case experts == 0 && groups != 0:
		return bad("expert_group_count %d without experts", groups)
	}

	if m, found := get("rope.scaling.type"); found && m.kind == metaString && !slices.Contains(ropeScalingTypes, m.str) {
		return bad("rope.scaling.type %q not one of %v", m.str, ropeScalingTypes)
	}
	return nil
}
