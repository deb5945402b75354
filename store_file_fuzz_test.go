package chitta

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// encodedStore returns the file bytes of a store of n memories of dims
// dimensions, written in memory.
func encodedStore(t testing.TB, n, dims int) []byte {
	t.Helper()
	s, err := NewHNSWStore(dims, nil)
	require.NoError(t, err)
	for i := range n {
		v := make([]float32, dims)
		for j := range v {
			v[j] = float32(math.Sin(float64(i*dims + j + 1)))
		}
		require.NoError(t, s.Add(context.Background(), Memory{
			ID: fmt.Sprintf("m%d", i), Text: fmt.Sprintf("memory %d é", i), Kind: []string{"", KindFact}[i%2],
			Confidence: float64(i%3) / 2, Vector: v, CreatedAt: time.Unix(int64(1e9+i), int64(i)),
		}))
	}
	var buf bytes.Buffer
	require.NoError(t, s.writeFile(&buf))
	return buf.Bytes()
}

// FuzzDecodeStore feeds bytes straight to the store decoder, without files
// or fsyncs (thousands of executions per second): every input either fails
// with one of the two load sentinels, or decodes to a store that encodes
// to bytes which decode and encode again identically. Each input is also
// decoded with its last four bytes replaced by the checksum of the rest:
// a mutated input almost never keeps a valid checksum, so without this the
// record parser past the checksum (counts, lengths, times, confidences,
// vectors, duplicate IDs) is only reached by the seeds.
func FuzzDecodeStore(f *testing.F) {
	good := encodedStore(f, 3, 4)
	f.Add(good)
	f.Add(encodedStore(f, 0, 1))
	f.Add(encodedStore(f, 1, 7))
	f.Add(good[:headerSize+4])
	f.Add(good[:len(good)-1])
	f.Add([]byte(storeMagic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecode(t, data, bytes.Equal(data, good))
		if len(data) >= 4 {
			sealed := bytes.Clone(data)
			body := sealed[:len(sealed)-4]
			binary.LittleEndian.PutUint32(sealed[len(body):], crc32.Checksum(body, castagnoli))
			checkDecode(t, sealed, false)
		}
	})
}

// checkDecode decodes data: it must fail with a load sentinel, or decode
// to as many memories as its header counts and round-trip through the
// encoder (byte for byte when exact, a file SaveFile wrote).
func checkDecode(t *testing.T, data []byte, exact bool) {
	s, err := decodeStore(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		require.Nil(t, s)
		require.True(t, errors.Is(err, ErrCorruptStore) || errors.Is(err, ErrUnsupportedVersion), "got %v", err)
		return
	}
	require.Equal(t, binary.LittleEndian.Uint64(data[16:]), uint64(s.Len()), "every record counted is loaded")
	var once bytes.Buffer
	require.NoError(t, s.writeFile(&once))
	again, err := decodeStore(bytes.NewReader(once.Bytes()), int64(once.Len()), nil)
	require.NoError(t, err)
	assert.Equal(t, s.Len(), again.Len())
	for m := range s.All() {
		got, ok := again.Get(m.ID)
		require.True(t, ok, "memory %q survives a save", m.ID)
		assert.True(t, m.CreatedAt.Equal(got.CreatedAt), "CreatedAt of %q: %v, then %v", m.ID, m.CreatedAt, got.CreatedAt)
		m.CreatedAt, got.CreatedAt = time.Time{}, time.Time{}
		assert.Equal(t, m, got)
	}
	var twice bytes.Buffer
	require.NoError(t, again.writeFile(&twice))
	assert.Equal(t, once.Bytes(), twice.Bytes())
	if exact {
		assert.Equal(t, data, once.Bytes(), "a file written by SaveFile encodes back byte for byte")
	}
}
