package shareddata

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFind(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	data := filepath.Join(root, "shared", "data", "claude-transcripts")
	require.NoError(t, os.MkdirAll(data, 0o755))
	deep := filepath.Join(root, "main", "internal", "pkg")
	require.NoError(t, os.MkdirAll(deep, 0o755))

	got, ok := find(deep, "claude-transcripts")
	assert.True(t, ok)
	assert.Equal(t, data, got)

	_, ok = find(deep, "locomo")
	assert.False(t, ok)

	// A file with the name is not a data directory.
	require.NoError(t, os.WriteFile(filepath.Join(root, "shared", "data", "notes"), nil, 0o644))
	_, ok = find(deep, "notes")
	assert.False(t, ok)
}
