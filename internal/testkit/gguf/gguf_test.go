package gguf

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sampleKVs() []KV {
	return []KV{
		{"general.architecture", Value{TypeString, "bert"}},
		{"general.alignment", Value{TypeUint32, uint32(64)}},
		{"u8", Value{TypeUint8, uint8(7)}},
		{"i8", Value{TypeInt8, int8(-7)}},
		{"u16", Value{TypeUint16, uint16(65535)}},
		{"i16", Value{TypeInt16, int16(-300)}},
		{"i32", Value{TypeInt32, int32(-1 << 30)}},
		{"f32", Value{TypeFloat32, float32(1e-12)}},
		{"b", Value{TypeBool, true}},
		{"u64", Value{TypeUint64, uint64(1 << 60)}},
		{"i64", Value{TypeInt64, int64(-1 << 60)}},
		{"f64", Value{TypeFloat64, math.Pi}},
		{"tokens", Value{TypeArray, Array{TypeString, []string{"[PAD]", "héllo", ""}}}},
		{"scores", Value{TypeArray, Array{TypeFloat32, []float32{0, -1.5}}}},
		{"types", Value{TypeArray, Array{TypeInt32, []int32{1, 3}}}},
		{"flags", Value{TypeArray, Array{TypeBool, []bool{true, false}}}},
		{"empty", Value{TypeArray, Array{TypeUint64, []uint64{}}}},
	}
}

func sampleTensors() []Tensor {
	return []Tensor{
		{Name: "a", Dims: []uint64{3}, Type: TensorF32, Data: F32Bytes([]float32{1, 2, 3})},
		{Name: "blk.0.b", Dims: []uint64{2, 3}, Type: TensorF16, Data: F16Bytes([]float32{1, 2, 3, 4, 5, 6})},
		{Name: "c", Dims: []uint64{1, 1, 1, 1}, Type: TensorF32, Data: F32Bytes([]float32{-1})},
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, sampleKVs(), sampleTensors()))

	h, err := ReadHeader(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, uint32(Version), h.Version)
	assert.Equal(t, sampleKVs(), h.KVs)
	assert.Equal(t, uint64(64), h.Alignment())
	require.Len(t, h.Tensors, 3)

	// The data section starts at the first aligned offset after the header;
	// find it as the file size minus the padded tensor data.
	var dataLen uint64
	for _, tt := range sampleTensors() {
		dataLen = alignUp(dataLen+uint64(len(tt.Data)), 64)
	}
	dataStart := uint64(buf.Len()) - dataLen
	assert.Zero(t, dataStart%64, "data section aligned")
	for i, want := range sampleTensors() {
		got := h.Tensors[i]
		assert.Equal(t, want.Name, got.Name)
		assert.Equal(t, want.Dims, got.Dims)
		assert.Equal(t, want.Type, got.Type)
		assert.Zero(t, got.Offset%64, "tensor %s offset aligned", got.Name)
		start := dataStart + got.Offset
		assert.Equal(t, want.Data, buf.Bytes()[start:start+uint64(len(want.Data))], "tensor %s data", got.Name)
	}
}

func TestWriteFileDefaultAlignment(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "m.gguf")
	kvs := []KV{{"general.architecture", Value{TypeString, "x"}}}
	require.NoError(t, WriteFile(path, kvs, sampleTensors()[:2]))
	h, err := ReadHeaderFile(path)
	require.NoError(t, err)
	assert.Equal(t, uint64(DefaultAlignment), h.Alignment())
	assert.Equal(t, uint64(0), h.Tensors[0].Offset)
	assert.Equal(t, uint64(32), h.Tensors[1].Offset)
	v, ok := h.Lookup("general.architecture")
	require.True(t, ok)
	assert.Equal(t, "x", v.Data)
	_, ok = h.Lookup("missing")
	assert.False(t, ok)
}

func TestWriteRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		kvs     []KV
		tensors []Tensor
	}{
		{"value type mismatch", []KV{{"k", Value{TypeUint32, int64(1)}}}, nil},
		{"unknown value type", []KV{{"k", Value{ValueType(99), 1}}}, nil},
		{"array elem mismatch", []KV{{"k", Value{TypeArray, Array{TypeInt32, []string{"x"}}}}}, nil},
		{"array not Array", []KV{{"k", Value{TypeArray, []string{"x"}}}}, nil},
		{"nested array", []KV{{"k", Value{TypeArray, Array{TypeArray, []string{}}}}}, nil},
		{"size mismatch", nil, []Tensor{{Name: "t", Dims: []uint64{4}, Type: TensorF32, Data: make([]byte, 12)}}},
		{"zero dimension", nil, []Tensor{{Name: "t", Dims: []uint64{0}, Type: TensorF32}}},
		{"no dimensions", nil, []Tensor{{Name: "t", Type: TensorF32}}},
		{"quantised type", nil, []Tensor{{Name: "t", Dims: []uint64{32}, Type: TensorType(2), Data: make([]byte, 18)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Write(&bytes.Buffer{}, tt.kvs, tt.tensors)
			require.ErrorIs(t, err, ErrFormat)
		})
	}
}

func TestReadHeaderRejects(t *testing.T) {
	t.Parallel()
	var good bytes.Buffer
	require.NoError(t, Write(&good, sampleKVs(), sampleTensors()))
	hdr := func(version uint32, nTensors, nKV uint64) []byte {
		b := []byte(Magic)
		b = binary.LittleEndian.AppendUint32(b, version)
		b = binary.LittleEndian.AppendUint64(b, nTensors)
		return binary.LittleEndian.AppendUint64(b, nKV)
	}
	kv := func(typ uint32, payload ...byte) []byte {
		b := hdr(Version, 0, 1)
		b = binary.LittleEndian.AppendUint64(b, 1)
		b = append(b, 'k')
		b = binary.LittleEndian.AppendUint32(b, typ)
		return append(b, payload...)
	}
	tests := []struct {
		name string
		in   []byte
	}{
		{"empty", nil},
		{"bad magic", []byte("GGML\x03\x00\x00\x00")},
		{"version 2", hdr(2, 0, 0)},
		{"truncated counts", hdr(Version, 0, 0)[:12]},
		{"too many kvs", hdr(Version, 0, 1<<40)},
		{"truncated kv", hdr(Version, 0, 1)},
		{"unknown type", kv(42)},
		{"bad bool", kv(uint32(TypeBool), 2)},
		{"huge string", kv(uint32(TypeString), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f)},
		{"long string short input", kv(uint32(TypeString), 0, 0, 0, 1, 0, 0, 0, 0)},
		{"nested array", kv(uint32(TypeArray), 9, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0)},
		{"huge array", kv(uint32(TypeArray), 4, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0)},
		{"truncated file", good.Bytes()[:good.Len()/8]},
		{"zero dims tensor", append(append(hdr(Version, 1, 0), 1, 0, 0, 0, 0, 0, 0, 0, 't'), 0, 0, 0, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadHeader(bytes.NewReader(tt.in))
			require.ErrorIs(t, err, ErrFormat)
		})
	}
}

func FuzzReadHeader(f *testing.F) {
	var good bytes.Buffer
	require.NoError(f, Write(&good, sampleKVs(), sampleTensors()))
	f.Add(good.Bytes())
	f.Add(good.Bytes()[:100])
	f.Add([]byte("GGUF"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		h, err := ReadHeader(bytes.NewReader(in))
		if err != nil {
			require.Nil(t, h)
			return
		}
		// Anything that parses must re-encode to a header that parses to
		// the same KVs.
		var buf bytes.Buffer
		require.NoError(t, Write(&buf, h.KVs, nil))
		h2, err := ReadHeader(&buf)
		require.NoError(t, err)
		assert.Equal(t, len(h.KVs), len(h2.KVs))
	})
}

// f16ToF32 is a reference decoder for half-precision values.
func f16ToF32(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	mant := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * mant * math.Pow(2, -24)
	case 31:
		if mant != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	return sign * (1 + mant/1024) * math.Pow(2, float64(exp-15))
}

func TestF16(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   float32
		want uint16
	}{
		{0, 0x0000},
		{float32(math.Copysign(0, -1)), 0x8000},
		{1, 0x3c00},
		{-2, 0xc000},
		{0.1, 0x2e66},
		{65504, 0x7bff},
		{65520, 0x7c00}, // rounds up to Inf
		{1e6, 0x7c00},
		{float32(math.Inf(-1)), 0xfc00},
		{5.960464477539063e-08, 0x0001}, // smallest subnormal
		{2.9e-08, 0x0000},               // below half of it
		{6.097555e-05, 0x03ff},          // largest subnormal
		{6.1035156e-05, 0x0400},         // smallest normal
		{1 + 1.0/2048, 0x3c00},          // tie rounds to even
		{1 + 3.0/2048, 0x3c02},          // tie rounds to even (up)
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, F16(tt.in), "F16(%g)", tt.in)
	}
	assert.Equal(t, uint16(0x7e00), F16(float32(math.NaN()))&0x7e00)
}

func TestF16MatchesReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		f := float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(12)-8)))
		got := f16ToF32(F16(f))
		// Round to nearest: the error is at most half a unit in the last
		// place (2^-11 relative for normals, 2^-25 absolute for subnormals).
		tol := max(math.Abs(float64(f))/2048, math.Pow(2, -25))
		if math.Abs(float64(f)) > 65504 {
			assert.True(t, math.IsInf(got, 0), "%g", f)
			continue
		}
		assert.InDelta(t, float64(f), got, tol*1.0001, "F16(%g)", f)
	}
}
