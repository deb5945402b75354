package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/brief"
	"github.com/chitta-go/chitta/examples/internal/claudecode"
	"github.com/chitta-go/chitta/examples/internal/silentpg"
)

// TestStoreFailureKeepsBrief: when the store cannot be written (here the
// save of a store file fails: its lock file is a symbolic link, which Save
// refuses), PreCompact still prints its brief and exits 0, so that Claude
// Code uses it, and reports the store failure on its one stderr line; it
// used to exit 1 and print nothing, losing the brief for a memory write.
func TestStoreFailureKeepsBrief(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	store := filepath.Join(dir, "memory.chitta")
	require.NoError(t, os.Symlink("elsewhere", store+".lock"))
	transcript := writeTranscript(t, 10)

	r := runHook(t, strings.NewReader(hookJSON(t, "PreCompact", transcript, "s", "")), "--store", store)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, "Preservation brief from chitta"), r.stdout)
	assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
	assert.Contains(t, r.stderr, "PreCompact: kept")
	assert.Contains(t, r.stderr, "writing to store "+store+" failed")
	assert.Contains(t, r.stderr, "symbolic link")
	assert.NoFileExists(t, store)
}

// failingStore is a hookStore whose writes fail as a PostgreSQL store's do
// when the server goes away mid-run: Add fails for the kinds in failKinds
// (every kind when it holds ""), Save with saveErr.
type failingStore struct {
	*chitta.HNSWStore
	failKinds map[string]bool
	saveErr   error
	saves     int
}

var errServerGone = errors.New("pgstore: add: server closed the connection")

func (f *failingStore) Add(ctx context.Context, m chitta.Memory) error {
	if f.failKinds[""] || f.failKinds[m.Kind] {
		return errServerGone
	}
	return f.HNSWStore.Add(ctx, m)
}

func (f *failingStore) SaveContext(context.Context) error { f.saves++; return f.saveErr }

func (f *failingStore) Path() string { return "postgres://agent:xxxxx@db/mem" }

// TestStoreWriteFailureKeepsBrief: whichever store write fails (the
// episode, every Add, the save), the outcome is a success carrying the
// brief, its summary names the failure, and the writes that can succeed
// still do and are saved.
func TestStoreWriteFailureKeepsBrief(t *testing.T) {
	t.Parallel()
	tr, err := readTranscript(t.Context(), writeTranscript(t, 12))
	require.NoError(t, err)
	window := claudecode.Tail(tr.Turns, turns)
	cfg, err := parseFlags([]string{"--distill"}, io.Discard)
	require.NoError(t, err)
	tests := []struct {
		name      string
		failKinds map[string]bool
		saveErr   error
		msg       string
		briefKept bool
	}{
		{name: "episode add fails", failKinds: map[string]bool{chitta.KindEpisode: true}, msg: "store episode: " + errServerGone.Error(), briefKept: true},
		{name: "every add fails", failKinds: map[string]bool{"": true}, msg: errServerGone.Error()},
		{name: "save fails", saveErr: errors.New("save store: disk full"), msg: "disk full", briefKept: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			emb := chitta.NewHashEmbedder(0)
			hs, err := chitta.NewHNSWStore(emb.Dimensions(), nil)
			require.NoError(t, err)
			store := &failingStore{HNSWStore: hs, failKinds: tt.failKinds, saveErr: tt.saveErr}
			o := compactAndRecord(t.Context(), cfg, "the HTTP timeout", window, "sess", emb, nil, store, nil)
			require.NoError(t, o.err)
			assert.True(t, strings.HasPrefix(o.stdout, "Preservation brief from chitta"), o.stdout)
			assert.Contains(t, o.summary, "writing to store postgres://agent:xxxxx@db/mem failed")
			assert.Contains(t, o.summary, tt.msg)
			assert.Equal(t, 1, store.saves, "the store is saved whatever failed before")
			_, ok := store.Get(brief.ID("sess"))
			assert.Equal(t, tt.briefKept, ok, "the brief is recorded when its Add works")
		})
	}
}

// TestStoreOpenFailureKeepsBrief: a PreCompact whose store cannot be
// opened (a corrupt file, a file of another dimension, a path that can
// never be a store file, no data directory, a PostgreSQL server that does
// not answer) still prints the brief, made without the store's memories,
// and exits 0, its one stderr line saying that the store could not be
// opened and why (no password); a store file that was there is left byte
// for byte as it was. It used to exit 1 with no brief.
func TestStoreOpenFailureKeepsBrief(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	transcript := writeTranscript(t, 6)
	corrupt := filepath.Join(dir, "corrupt.chitta")
	require.NoError(t, os.WriteFile(corrupt, []byte("definitely not a store"), 0o600))
	small := filepath.Join(dir, "small.chitta")
	s, err := chitta.NewHNSWStore(8, nil)
	require.NoError(t, err)
	require.NoError(t, s.Add(t.Context(), chitta.Memory{Text: "x", Kind: chitta.KindFact, Confidence: 1, Vector: []float32{1, 0, 0, 0, 0, 0, 0, 0}}))
	require.NoError(t, s.SaveFile(small))
	notDir := filepath.Join(dir, "plain")
	require.NoError(t, os.WriteFile(notDir, []byte("x"), 0o600))
	noHome := []string{"PATH=" + os.Getenv("PATH"), "HOME=", "XDG_DATA_HOME="}

	tests := []struct {
		name   string
		args   []string
		env    []string // the whole environment; nil: runHook's
		file   string   // a store file that must be left as it was
		stderr string
	}{
		{name: "corrupt store", args: []string{"--store", corrupt}, file: corrupt, stderr: "load store " + corrupt + ": chitta: unsupported store file: bad magic number (the file is left as it is; move it away to start with an empty store)"},
		{name: "dimension mismatch", args: []string{"--store", small}, file: small, stderr: "8-dimensional"},
		{name: "store names a directory", args: []string{"--store", filepath.Join(dir, "newdir") + "/"}, stderr: "names a directory"},
		{name: "store under a file", args: []string{"--store", filepath.Join(notDir, "memory.chitta")}, stderr: "not a directory"},
		{name: "no home", env: noHome, stderr: "pass --store"},
		{name: "postgres down", args: []string{"--store", "postgres://agent:hunter2@127.0.0.1:1/db?sslmode=disable&connect_timeout=5"}, stderr: "postgres://agent:xxxxx@127.0.0.1:1/db"},
		// A URL with white space around it is the URL; a mistyped one is
		// refused unrepeated, not made a directory of the working one.
		{name: "postgres URL with a space", args: []string{"--store", " postgres://agent:hunter2@127.0.0.1:1/db?sslmode=disable&connect_timeout=5"}, stderr: "postgres://agent:xxxxx@127.0.0.1:1/db"},
		{name: "mistyped postgres URL", args: []string{"--store", "postgres:/agent:hunter2@127.0.0.1:1/db"}, stderr: "not a postgres:// or postgresql:// URL (not repeated here"},
		{name: "other scheme", args: []string{"--store", "pg://agent:hunter2@127.0.0.1:1/db"}, stderr: "not a postgres:// or postgresql:// URL (not repeated here"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var before []byte
			if tt.file != "" {
				before, err = os.ReadFile(tt.file)
				require.NoError(t, err)
			}
			cmd := exec.CommandContext(t.Context(), binary, tt.args...)
			cmd.Env = tt.env
			if cmd.Env == nil {
				cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+t.TempDir())
			}
			cmd.Dir = t.TempDir()
			path, err := json.Marshal(transcript) // a Windows path holds backslashes
			require.NoError(t, err)
			cmd.Stdin = strings.NewReader(`{"session_id":"s","hook_event_name":"PreCompact","transcript_path":` + string(path) + `}`)
			defer func() {
				made, err := os.ReadDir(cmd.Dir)
				require.NoError(t, err)
				assert.Empty(t, made, "nothing made in the working directory")
			}()
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			require.NoError(t, cmd.Run(), "exit 0; stderr: %s", errb.String())
			assert.True(t, strings.HasPrefix(out.String(), "Preservation brief from chitta"), out.String())
			stderr := errb.String()
			assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
			assert.True(t, strings.HasPrefix(stderr, prefix+"PreCompact: kept"), stderr)
			assert.Contains(t, stderr, "opening the store failed, so the brief was made without its memories and nothing was recorded")
			assert.Contains(t, stderr, tt.stderr)
			assert.NotContains(t, stderr, "hunter2")
			assert.NotContains(t, stderr, "refusing to start", "the hook goes on without the store")
			if tt.file != "" {
				after, err := os.ReadFile(tt.file)
				require.NoError(t, err)
				assert.Equal(t, before, after, "a store that cannot be opened is left as it was")
			}
		})
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 3, "nothing created beside the stores: %v", entries)
}

// TestStoreOpenNoAnswerKeepsBrief: a PostgreSQL server that accepts the
// connection and never answers (as a host that drops the packets would
// leave it) holds the store's open for half of --timeout at most, so that
// PreCompact still has the time to print its brief; the open used to wait
// for the whole --timeout, leaving no time for the brief (exit 1).
func TestStoreOpenNoAnswerKeepsBrief(t *testing.T) {
	t.Parallel()
	transcript := writeTranscript(t, 4)
	r := runHook(t, strings.NewReader(hookJSON(t, "PreCompact", transcript, "s", "")),
		"--timeout", "4s", "--store", silentpg.URL(t))
	assert.Equal(t, 0, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, "Preservation brief from chitta"), r.stdout)
	assert.Contains(t, r.stderr, "opening the store failed")
	assert.Contains(t, r.stderr, "half the time left (--timeout)")
	assert.NotContains(t, r.stderr, "hunter2")
}

// TestSessionStartNoAnswer: SessionStart, which has nothing to print
// without its store, waits for a PostgreSQL server that does not answer
// until --timeout runs out (all of it: there is no brief to make with what
// would be left), then exits 1 with one line that says so and names the
// store (password redacted). It used to give up at half of --timeout
// ("no answer within 2s, half the time left"), half the wait the user
// allowed spent on nothing.
func TestSessionStartNoAnswer(t *testing.T) {
	t.Parallel()
	r := runHook(t, strings.NewReader(hookJSON(t, "SessionStart", "", "s", "compact")),
		"--timeout", "4s", "--store", silentpg.URL(t))
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Empty(t, r.stdout)
	assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
	assert.Contains(t, r.stderr, "failed: timed out after 4s (--timeout): open store postgres://agent:xxxxx@127.0.0.1:")
	assert.NotContains(t, r.stderr, "half")
	assert.NotContains(t, r.stderr, "hunter2")
}
