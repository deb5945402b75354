package chitta

import (
	"bytes"
	"encoding/binary"
	"io"
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
