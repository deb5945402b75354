package gguf

import (
	"bufio"
	"encoding/binary"
	"io"
	"math"
	"os"
)

// Tensor is a tensor to write: its description (Offset is computed by
// [Write] and ignored here) and its raw little-endian data, whose length
// must equal the product of Dims times the element size of Type.
type Tensor struct {
	Name string
	Dims []uint64
	Type TensorType
	Data []byte
}

// Write encodes a GGUF file with the given metadata and tensors to w, in
// order, aligning the data section and every tensor to the alignment given
// by a general.alignment KV (default [DefaultAlignment]). It returns an
// error wrapping [ErrFormat] for a value whose Data does not match its Type,
// a tensor whose data size does not match its dimensions, or an unsupported
// tensor type.
func Write(w io.Writer, kvs []KV, tensors []Tensor) error {
	h := Header{Version: Version, KVs: kvs}
	align := h.Alignment()
	var offset uint64
	for _, t := range tensors {
		if err := checkTensor(t); err != nil {
			return err
		}
		h.Tensors = append(h.Tensors, TensorInfo{Name: t.Name, Dims: t.Dims, Type: t.Type, Offset: offset})
		offset = alignUp(offset+uint64(len(t.Data)), align)
	}

	bw := bufio.NewWriter(w)
	e := &encoder{w: bw}
	e.bytes([]byte(Magic))
	e.u32(h.Version)
	e.u64(uint64(len(h.Tensors)))
	e.u64(uint64(len(h.KVs)))
	for _, kv := range h.KVs {
		e.str(kv.Key)
		e.u32(uint32(kv.Value.Type))
		if err := e.value(kv.Value, true); err != nil {
			return formatErr("kv %q: %v", kv.Key, err)
		}
	}
	for _, t := range h.Tensors {
		e.str(t.Name)
		e.u32(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			e.u64(d)
		}
		e.u32(uint32(t.Type))
		e.u64(t.Offset)
	}
	e.pad(align)
	e.n = 0 // tensor offsets are relative to the data section
	for _, t := range tensors {
		e.bytes(t.Data)
		e.pad(align)
	}
	if e.err != nil {
		return e.err
	}
	return bw.Flush()
}

// WriteFile writes the file to path (created or truncated) with [Write].
func WriteFile(path string, kvs []KV, tensors []Tensor) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := Write(f, kvs, tensors); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func checkTensor(t Tensor) error {
	size := uint64(t.Type.elemSize())
	if size == 0 {
		return formatErr("tensor %q: unsupported type %d", t.Name, t.Type)
	}
	if len(t.Dims) == 0 || len(t.Dims) > maxDims {
		return formatErr("tensor %q: %d dimensions", t.Name, len(t.Dims))
	}
	for _, d := range t.Dims {
		if d == 0 || size > math.MaxInt64/d {
			return formatErr("tensor %q: bad dimension %d", t.Name, d)
		}
		size *= d
	}
	if size != uint64(len(t.Data)) {
		return formatErr("tensor %q: %d data bytes, dimensions need %d", t.Name, len(t.Data), size)
	}
	return nil
}

func alignUp(n, align uint64) uint64 { return (n + align - 1) / align * align }

// encoder writes little-endian values, counts bytes and remembers the first
// error.
type encoder struct {
	w   io.Writer
	n   uint64
	err error
	buf [8]byte
}

func (e *encoder) bytes(p []byte) {
	if e.err != nil {
		return
	}
	var n int
	n, e.err = e.w.Write(p)
	e.n += uint64(n)
}

func (e *encoder) u8(v uint8)   { e.buf[0] = v; e.bytes(e.buf[:1]) }
func (e *encoder) u16(v uint16) { binary.LittleEndian.PutUint16(e.buf[:2], v); e.bytes(e.buf[:2]) }
func (e *encoder) u32(v uint32) { binary.LittleEndian.PutUint32(e.buf[:4], v); e.bytes(e.buf[:4]) }
func (e *encoder) u64(v uint64) { binary.LittleEndian.PutUint64(e.buf[:8], v); e.bytes(e.buf[:8]) }
func (e *encoder) str(s string) { e.u64(uint64(len(s))); e.bytes([]byte(s)) }

func (e *encoder) pad(align uint64) {
	if n := alignUp(e.n, align) - e.n; n > 0 {
		e.bytes(make([]byte, n))
	}
}

// value writes v's payload (the type tag is written by the caller).
func (e *encoder) value(v Value, allowArray bool) error {
	ok := true
	switch v.Type {
	case TypeUint8:
		x, k := v.Data.(uint8)
		ok = k
		e.u8(x)
	case TypeInt8:
		x, k := v.Data.(int8)
		ok = k
		e.u8(uint8(x))
	case TypeUint16:
		x, k := v.Data.(uint16)
		ok = k
		e.u16(x)
	case TypeInt16:
		x, k := v.Data.(int16)
		ok = k
		e.u16(uint16(x))
	case TypeUint32:
		x, k := v.Data.(uint32)
		ok = k
		e.u32(x)
	case TypeInt32:
		x, k := v.Data.(int32)
		ok = k
		e.u32(uint32(x))
	case TypeFloat32:
		x, k := v.Data.(float32)
		ok = k
		e.u32(math.Float32bits(x))
	case TypeBool:
		x, k := v.Data.(bool)
		ok = k
		var b uint8
		if x {
			b = 1
		}
		e.u8(b)
	case TypeString:
		x, k := v.Data.(string)
		ok = k
		e.str(x)
	case TypeUint64:
		x, k := v.Data.(uint64)
		ok = k
		e.u64(x)
	case TypeInt64:
		x, k := v.Data.(int64)
		ok = k
		e.u64(uint64(x))
	case TypeFloat64:
		x, k := v.Data.(float64)
		ok = k
		e.u64(math.Float64bits(x))
	case TypeArray:
		a, k := v.Data.(Array)
		if !k || !allowArray || a.Elem == TypeArray {
			return formatErr("array value must hold a flat gguf.Array")
		}
		return e.array(a)
	default:
		return formatErr("unknown value type %d", v.Type)
	}
	if !ok {
		return formatErr("value of type %d holds %T", v.Type, v.Data)
	}
	return nil
}

func (e *encoder) array(a Array) error {
	switch s := a.Data.(type) {
	case []uint8:
		return writeSlice(e, a.Elem, TypeUint8, s)
	case []int8:
		return writeSlice(e, a.Elem, TypeInt8, s)
	case []uint16:
		return writeSlice(e, a.Elem, TypeUint16, s)
	case []int16:
		return writeSlice(e, a.Elem, TypeInt16, s)
	case []uint32:
		return writeSlice(e, a.Elem, TypeUint32, s)
	case []int32:
		return writeSlice(e, a.Elem, TypeInt32, s)
	case []float32:
		return writeSlice(e, a.Elem, TypeFloat32, s)
	case []bool:
		return writeSlice(e, a.Elem, TypeBool, s)
	case []string:
		return writeSlice(e, a.Elem, TypeString, s)
	case []uint64:
		return writeSlice(e, a.Elem, TypeUint64, s)
	case []int64:
		return writeSlice(e, a.Elem, TypeInt64, s)
	case []float64:
		return writeSlice(e, a.Elem, TypeFloat64, s)
	}
	return formatErr("array of type %d holds %T", a.Elem, a.Data)
}

func writeSlice[T any](e *encoder, elem, want ValueType, s []T) error {
	if elem != want {
		return formatErr("array of type %d holds %T", elem, s)
	}
	e.u32(uint32(elem))
	e.u64(uint64(len(s)))
	for _, x := range s {
		if err := e.value(Value{Type: elem, Data: x}, false); err != nil {
			return err
		}
	}
	return nil
}
