package gguf

import (
	"bufio"
	"encoding/binary"
	"io"
	"math"
	"os"
)

// Limits that keep a hostile header from allocating without bound.
const (
	maxStringLen = 1 << 24 // 16 MiB per string
	maxArrayLen  = 1 << 24 // elements per array
	maxCount     = 1 << 20 // KVs or tensors per file
	maxDims      = 4       // GGML_MAX_DIMS
)

// ReadHeader parses the header of a GGUF file (magic, version, KVs and
// tensor infos) from r and stops before the tensor data. Malformed input
// yields an error wrapping [ErrFormat] (or the reader's own error); it never
// panics and never allocates more than the input justifies by a bounded
// factor.
func ReadHeader(r io.Reader) (*Header, error) {
	d := &decoder{r: bufio.NewReader(r)}
	var magic [4]byte
	d.read(magic[:])
	if d.err == nil && string(magic[:]) != Magic {
		return nil, formatErr("bad magic %q", magic[:])
	}
	version := d.u32()
	if d.err == nil && version != Version {
		return nil, formatErr("unsupported version %d", version)
	}
	nTensors, nKV := d.u64(), d.u64()
	if d.err != nil {
		return nil, d.fail("header")
	}
	if nTensors > maxCount || nKV > maxCount {
		return nil, formatErr("%d tensors, %d KVs exceed limit %d", nTensors, nKV, maxCount)
	}
	h := &Header{Version: version}
	for i := uint64(0); i < nKV; i++ {
		key := d.str()
		v := d.value(d.valueType(), true)
		if d.err != nil {
			return nil, d.fail("kv %d", i)
		}
		h.KVs = append(h.KVs, KV{Key: key, Value: v})
	}
	for i := uint64(0); i < nTensors; i++ {
		t := TensorInfo{Name: d.str()}
		n := d.u32()
		if d.err == nil && (n == 0 || n > maxDims) {
			return nil, formatErr("tensor %d: %d dimensions", i, n)
		}
		for j := uint32(0); j < n && d.err == nil; j++ {
			t.Dims = append(t.Dims, d.u64())
		}
		t.Type = TensorType(d.u32())
		t.Offset = d.u64()
		if d.err != nil {
			return nil, d.fail("tensor %d", i)
		}
		h.Tensors = append(h.Tensors, t)
	}
	return h, nil
}

// ReadHeaderFile opens path and returns [ReadHeader] of its contents.
func ReadHeaderFile(path string) (*Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadHeader(f)
}

// decoder reads little-endian values and remembers the first error.
type decoder struct {
	r   *bufio.Reader
	err error
	buf [8]byte
}

func (d *decoder) fail(format string, args ...any) error {
	if d.err == io.EOF || d.err == io.ErrUnexpectedEOF {
		return formatErr(format+": truncated", args...)
	}
	return d.err
}

func (d *decoder) read(p []byte) {
	if d.err != nil {
		return
	}
	_, d.err = io.ReadFull(d.r, p)
}

func (d *decoder) u8() uint8   { d.read(d.buf[:1]); return d.buf[0] }
func (d *decoder) u16() uint16 { d.read(d.buf[:2]); return binary.LittleEndian.Uint16(d.buf[:2]) }
func (d *decoder) u32() uint32 { d.read(d.buf[:4]); return binary.LittleEndian.Uint32(d.buf[:4]) }
func (d *decoder) u64() uint64 { d.read(d.buf[:8]); return binary.LittleEndian.Uint64(d.buf[:8]) }

func (d *decoder) str() string {
	n := d.u64()
	if d.err != nil {
		return ""
	}
	if n > maxStringLen {
		d.err = formatErr("string of %d bytes exceeds limit %d", n, maxStringLen)
		return ""
	}
	// Read in chunks so a huge declared length on a short input fails
	// before allocating all of it.
	var out []byte
	for n > 0 && d.err == nil {
		chunk := min(n, 1<<16)
		start := len(out)
		out = append(out, make([]byte, chunk)...)
		d.read(out[start:])
		n -= chunk
	}
	return string(out)
}

func (d *decoder) valueType() ValueType {
	t := ValueType(d.u32())
	if d.err == nil && t.size() == 0 && t != TypeString && t != TypeArray {
		d.err = formatErr("unknown value type %d", t)
	}
	return t
}

// value decodes one value of type t; nested arrays are rejected.
func (d *decoder) value(t ValueType, allowArray bool) Value {
	if d.err != nil {
		return Value{}
	}
	switch t {
	case TypeUint8:
		return Value{t, d.u8()}
	case TypeInt8:
		return Value{t, int8(d.u8())}
	case TypeUint16:
		return Value{t, d.u16()}
	case TypeInt16:
		return Value{t, int16(d.u16())}
	case TypeUint32:
		return Value{t, d.u32()}
	case TypeInt32:
		return Value{t, int32(d.u32())}
	case TypeFloat32:
		return Value{t, math.Float32frombits(d.u32())}
	case TypeBool:
		b := d.u8()
		if d.err == nil && b > 1 {
			d.err = formatErr("bool value %d", b)
		}
		return Value{t, b == 1}
	case TypeString:
		return Value{t, d.str()}
	case TypeUint64:
		return Value{t, d.u64()}
	case TypeInt64:
		return Value{t, int64(d.u64())}
	case TypeFloat64:
		return Value{t, math.Float64frombits(d.u64())}
	case TypeArray:
		if !allowArray {
			d.err = formatErr("nested array")
			return Value{}
		}
		return Value{t, d.array()}
	}
	d.err = formatErr("unknown value type %d", t)
	return Value{}
}

func (d *decoder) array() Array {
	elem := d.valueType()
	n := d.u64()
	if d.err != nil {
		return Array{}
	}
	if elem == TypeArray {
		d.err = formatErr("nested array")
		return Array{}
	}
	if n > maxArrayLen {
		d.err = formatErr("array of %d elements exceeds limit %d", n, maxArrayLen)
		return Array{}
	}
	// Grow with append so a short input cannot force a huge allocation.
	switch elem {
	case TypeString:
		return Array{elem, readSlice(d, n, func() string { return d.str() })}
	case TypeBool:
		return Array{elem, readSlice(d, n, func() bool { return d.value(elem, false).Data.(bool) })}
	case TypeUint8:
		return Array{elem, readSlice(d, n, d.u8)}
	case TypeInt8:
		return Array{elem, readSlice(d, n, func() int8 { return int8(d.u8()) })}
	case TypeUint16:
		return Array{elem, readSlice(d, n, d.u16)}
	case TypeInt16:
		return Array{elem, readSlice(d, n, func() int16 { return int16(d.u16()) })}
	case TypeUint32:
		return Array{elem, readSlice(d, n, d.u32)}
	case TypeInt32:
		return Array{elem, readSlice(d, n, func() int32 { return int32(d.u32()) })}
	case TypeFloat32:
		return Array{elem, readSlice(d, n, func() float32 { return math.Float32frombits(d.u32()) })}
	case TypeUint64:
		return Array{elem, readSlice(d, n, d.u64)}
	case TypeInt64:
		return Array{elem, readSlice(d, n, func() int64 { return int64(d.u64()) })}
	default: // TypeFloat64; valueType rejected everything else
		return Array{elem, readSlice(d, n, func() float64 { return math.Float64frombits(d.u64()) })}
	}
}

func readSlice[T any](d *decoder, n uint64, next func() T) []T {
	out := make([]T, 0, min(n, 1024))
	for i := uint64(0); i < n && d.err == nil; i++ {
		out = append(out, next())
	}
	return out
}
