package gguf

import (
	"encoding/binary"
	"math"
)

// F16 converts f to IEEE 754 half precision, rounding to nearest even;
// values beyond the half range become ±Inf and NaN stays NaN.
func F16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case b&0x7fffffff > 0x7f800000: // NaN
		return sign | 0x7e00
	case b&0x7fffffff == 0x7f800000 || exp >= 31: // Inf or overflow
		return sign | 0x7c00
	case exp <= 0: // subnormal or zero
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint32(14 - exp)
		half := mant >> shift
		rem := mant & (1<<shift - 1)
		mid := uint32(1) << (shift - 1)
		if rem > mid || (rem == mid && half&1 == 1) {
			half++
		}
		return sign | uint16(half)
	}
	half := uint32(exp)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && half&1 == 1) {
		half++ // may carry into the exponent, which is correct rounding
	}
	return sign | uint16(half)
}

// F16Bytes encodes fs as little-endian half-precision values.
func F16Bytes(fs []float32) []byte {
	out := make([]byte, 2*len(fs))
	for i, f := range fs {
		binary.LittleEndian.PutUint16(out[2*i:], F16(f))
	}
	return out
}

// F32Bytes encodes fs as little-endian float32 values.
func F32Bytes(fs []float32) []byte {
	out := make([]byte, 4*len(fs))
	for i, f := range fs {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(f))
	}
	return out
}
