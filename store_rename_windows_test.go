//go:build windows

package chitta

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSaveFileWhileReaderHoldsIt: a save over a store file that another
// reader holds open (os.Open shares no delete access on Windows) waits for
// the reader instead of failing with "Access is denied". Run under Wine by
// scripts/test-wine.sh.
func TestSaveFileWhileReaderHoldsIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.chitta")
	s, err := NewHNSWStore(4, nil)
	require.NoError(t, err)
	require.NoError(t, s.Add(t.Context(), Memory{Text: "first", Vector: []float32{1, 0, 0, 0}}))
	require.NoError(t, s.SaveFile(path))
	reader, err := os.Open(path)
	require.NoError(t, err)
	released := make(chan struct{})
	go func() {
		time.Sleep(200 * time.Millisecond) // a slow read, well inside renameWait
		reader.Close()
		close(released)
	}()
	require.NoError(t, s.Add(t.Context(), Memory{Text: "second", Vector: []float32{0, 1, 0, 0}}))
	require.NoError(t, s.SaveFile(path), "the save waits for the reader")
	<-released
	again, err := LoadHNSWStore(path)
	require.NoError(t, err)
	assert.Equal(t, 2, again.Len())
}
