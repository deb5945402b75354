package chitta

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// zeros is an endless reader of zero bytes: what a sparse file reads as.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestDecodeStoreBoundsPreallocation loads a store "file" whose header
// claims as many records as its (sparse, mostly hole) size could hold. The
// header's count must not size allocations: that panicked (makeslice) or
// ran out of memory before reading a single record.
func TestDecodeStoreBoundsPreallocation(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		dims uint32
		size int64
	}{
		{"dims 1, 4 EiB", 1, 1 << 62},
		{"dims 384, 4 EiB", 384, 1 << 62},
		{"dims 1, 1 TiB", 1, 1 << 40},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := []byte(storeMagic)
			h = binary.LittleEndian.AppendUint32(h, storeVersion)
			h = binary.LittleEndian.AppendUint32(h, tt.dims)
			count := uint64(tt.size-headerSize-4) / uint64(minRecordSize+4*tt.dims)
			h = binary.LittleEndian.AppendUint64(h, count)
			var s *HNSWStore
			var err error
			require.NotPanics(t, func() {
				s, err = decodeStore(io.MultiReader(bytes.NewReader(h), zeros{}), tt.size, nil)
			})
			require.ErrorIs(t, err, ErrCorruptStore)
			assert.ErrorContains(t, err, "record 0: chitta: corrupt store file: empty ID")
			assert.Nil(t, s)
		})
	}
}

// TestDecodeStoreErrorsNameRange loads one-record files with a field out
// of range: the error names the record, the field, its value and the range
// it must lie in, as Add's errors do.
func TestDecodeStoreErrorsNameRange(t *testing.T) {
	t.Parallel()
	file := func(confidence float64, nsec uint32) []byte {
		b := []byte(storeMagic)
		b = binary.LittleEndian.AppendUint32(b, storeVersion)
		b = binary.LittleEndian.AppendUint32(b, 2)
		b = binary.LittleEndian.AppendUint64(b, 1)
		for _, s := range []string{"id", "text", "", ""} {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(confidence))
		b = binary.LittleEndian.AppendUint64(b, 1e9)
		b = binary.LittleEndian.AppendUint32(b, nsec)
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(1))
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(0))
		return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	}
	_, err := decodeStore(bytes.NewReader(file(0.5, 7)), int64(len(file(0.5, 7))), nil)
	require.NoError(t, err, "precondition: the valid file loads")
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"confidence above 1", file(1.5, 0), "record 0: chitta: corrupt store file: confidence 1.5, want 0–1"},
		{"confidence NaN", file(math.NaN(), 0), "record 0: chitta: corrupt store file: confidence NaN, want 0–1"},
		{"nanoseconds", file(0.5, 1e9), "record 0: chitta: corrupt store file: nanoseconds 1000000000, want 0–999999999"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := decodeStore(bytes.NewReader(tt.data), int64(len(tt.data)), nil)
			require.ErrorIs(t, err, ErrCorruptStore)
			assert.Nil(t, s)
			assert.EqualError(t, err, tt.want)
		})
	}
}
