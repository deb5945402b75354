// Package gguf reads and writes the header of GGUF files (version 3), the
// model format of llama.cpp: key/value metadata, tensor descriptions and,
// when writing, the tensor data. It exists so that tests can build small
// models without Python; it does not interpret model semantics.
//
// Layout (little-endian): magic "GGUF", version uint32, tensor count uint64,
// KV count uint64, the KVs, the tensor infos, padding to the alignment
// (general.alignment, default 32), then the tensor data, each tensor at an
// aligned offset relative to the start of the data section.
package gguf

import (
	"errors"
	"fmt"
)

// Magic is the first four bytes of every GGUF file.
const Magic = "GGUF"

// Version is the format version this package reads and writes.
const Version = 3

// DefaultAlignment is the data alignment used when a file has no
// general.alignment key.
const DefaultAlignment = 32

// ErrFormat reports input that is not a well-formed GGUF file of a
// supported version, or a value that cannot be written.
var ErrFormat = errors.New("gguf: malformed file")

// ValueType is the type tag of a metadata value.
type ValueType uint32

// Value types, numbered as in the GGUF specification.
const (
	TypeUint8   ValueType = 0
	TypeInt8    ValueType = 1
	TypeUint16  ValueType = 2
	TypeInt16   ValueType = 3
	TypeUint32  ValueType = 4
	TypeInt32   ValueType = 5
	TypeFloat32 ValueType = 6
	TypeBool    ValueType = 7
	TypeString  ValueType = 8
	TypeArray   ValueType = 9
	TypeUint64  ValueType = 10
	TypeInt64   ValueType = 11
	TypeFloat64 ValueType = 12
)

// size returns the encoded size of a fixed-size scalar type, or 0 for
// strings, arrays and unknown types.
func (t ValueType) size() int {
	switch t {
	case TypeUint8, TypeInt8, TypeBool:
		return 1
	case TypeUint16, TypeInt16:
		return 2
	case TypeUint32, TypeInt32, TypeFloat32:
		return 4
	case TypeUint64, TypeInt64, TypeFloat64:
		return 8
	}
	return 0
}

// Value is one metadata value. Data holds the Go value matching Type:
// uint8, int8, uint16, int16, uint32, int32, float32, bool, string, uint64,
// int64, float64, or for TypeArray an [Array].
type Value struct {
	Type ValueType
	Data any
}

// Array is the payload of a TypeArray value: the element type and the
// elements as a typed slice ([]uint8 … []float64, []bool, []string). Arrays
// of arrays are not supported.
type Array struct {
	Elem ValueType
	Data any
}

// KV is one metadata entry.
type KV struct {
	Key   string
	Value Value
}

// TensorType is a ggml tensor element type. Only the unquantised types are
// named; others round-trip as numbers.
type TensorType uint32

// Tensor types, numbered as in ggml.h.
const (
	TensorF32 TensorType = 0
	TensorF16 TensorType = 1
)

// elemSize returns the bytes per element, or 0 for types this package
// cannot size.
func (t TensorType) elemSize() int {
	switch t {
	case TensorF32:
		return 4
	case TensorF16:
		return 2
	}
	return 0
}

// TensorInfo describes one tensor: its name, its dimensions (ggml order:
// Dims[0] is the fastest-varying), its element type, and its byte offset
// from the start of the data section.
type TensorInfo struct {
	Name   string
	Dims   []uint64
	Type   TensorType
	Offset uint64
}

// Header is the parsed head of a GGUF file.
type Header struct {
	Version uint32
	KVs     []KV
	Tensors []TensorInfo
}

// Lookup returns the value stored under key and whether it exists.
func (h *Header) Lookup(key string) (Value, bool) {
	for _, kv := range h.KVs {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return Value{}, false
}

// Alignment returns the file's data alignment: general.alignment when it is
// a positive uint32, otherwise [DefaultAlignment].
func (h *Header) Alignment() uint64 {
	if v, ok := h.Lookup("general.alignment"); ok {
		if a, ok := v.Data.(uint32); ok && a > 0 {
			return uint64(a)
		}
	}
	return DefaultAlignment
}

func formatErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrFormat}, args...)...)
}
