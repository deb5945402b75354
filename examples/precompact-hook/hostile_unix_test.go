//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHostileTranscripts: transcripts that used to make the hook exit 2
// (out of memory on /dev/zero) or hang (a FIFO blocks in open, /dev/urandom
// spins, an open stdin) exit 1 within --timeout plus a second.
func TestHostileTranscripts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	huge := filepath.Join(dir, "huge.jsonl")
	f, err := os.Create(huge)
	require.NoError(t, err)
	// One 40 MiB line without a newline (sparse), then nothing else.
	_, err = f.WriteString(`{"type":"user","message":{"content":"`)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(40<<20))
	require.NoError(t, f.Close())
	lines := filepath.Join(dir, "lines.jsonl")
	require.NoError(t, os.WriteFile(lines, bytes.Repeat([]byte(strings.Repeat("z", 9<<20)+"\n"), 3), 0o600))
	store := filepath.Join(dir, "m.chitta")

	// Every case gets a timeout that a loaded CI machine under -race cannot
	// hit, and must end by its own verdict (the stderr line), not the
	// timeout: the first four are refused without reading (a hook blocked
	// in open or read would end "timed out"), the last two are read
	// (27–40 MiB of over-long lines skipped).
	tests := []struct {
		name, transcript, stderr string
		reads                    bool
	}{
		{"fifo", fifo, "FIFO", false},
		{"/dev/zero", "/dev/zero", "not a regular file", false},
		{"/dev/urandom", "/dev/urandom", "not a regular file", false},
		{"a directory", dir, "directory", false},
		{"one huge line", huge, "no user or assistant turns", true},
		{"lines over the cap", lines, "no user or assistant turns", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runHook(t, strings.NewReader(hookJSON(t, "PreCompact", tt.transcript, "s", "")), "--store", store, "--timeout", "60s")
			assert.Equal(t, 1, r.code, r.stderr)
			assert.Contains(t, r.stderr, tt.stderr)
			assert.NotContains(t, r.stderr, "timed out")
			assert.Equal(t, 1, strings.Count(r.stderr, "\n"), r.stderr)
		})
	}

	t.Run("stdin never closes", func(t *testing.T) {
		t.Parallel()
		pr, pw, err := os.Pipe() // an *os.File: exec does not wait for a copy loop
		require.NoError(t, err)
		defer pw.Close()
		defer pr.Close()
		r := runHook(t, pr, "--store", store, "--timeout", "2s")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, "timed out after 2s")
		// It gives up 2 s + 1 s of grace after it started; the margin is for
		// a loaded machine (process starts under -race), not a timing claim.
		assert.Less(t, r.took, 15*time.Second)
	})
}
