package shareddata

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta/internal/testkit/ci"
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

	// A name no directory above the test's can hold (the machine's own
	// shared/data, as /tmp/shared/data, may hold the real data sets).
	_, ok = find(deep, "no-such-data-"+filepath.Base(root))
	assert.False(t, ok)

	// A file with the name is not a data directory.
	require.NoError(t, os.WriteFile(filepath.Join(root, "shared", "data", "notes"), nil, 0o644))
	_, ok = find(deep, "notes")
	assert.False(t, ok)

	// Name "" is shared/data itself.
	got, ok = find(deep, "")
	assert.True(t, ok)
	assert.Equal(t, filepath.Join(root, "shared", "data"), got)
}

func TestForTest(t *testing.T) {
	missing := filepath.Join("shared", "data", "no-such-data-set") + " not found" // shared\data\… on Windows
	t.Setenv("CI", "")
	var f ci.Recorder
	ForTest(&f, "no-such-data-set")
	assert.Contains(t, f.Skip, missing)
	assert.Empty(t, f.Fatal)

	t.Setenv("CI", "true")
	f = ci.Recorder{}
	ForTest(&f, "no-such-data-set")
	assert.Contains(t, f.Fatal, "missing in CI: "+missing)
}
