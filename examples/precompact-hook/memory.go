package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/brief"
	"github.com/chitta-go/chitta/examples/internal/claudecode"
	"github.com/chitta-go/chitta/examples/internal/embedspec"
	"github.com/chitta-go/chitta/examples/internal/storepath"
)

// hookStore is what the hook needs of its memory store; a
// storepath.Shared (a store file) and a pgMemory (postgres://) have it.
type hookStore interface {
	brief.Store
	Get(id string) (chitta.Memory, bool)
	Len() int
	SaveContext(ctx context.Context) error // persists the writes by ctx's deadline (a no-op in PostgreSQL)
	Path() string                          // where the store is, for the summary (no password)
}

// openMemory opens the embedder and the memory store (see [openStore]),
// a PostgreSQL store with all the time left before --timeout. The caller
// closes the embedder and then the store.
func openMemory(ctx context.Context, cfg *config, in *hookInput) (*embedspec.Embedder, hookStore, error) {
	emb, err := embedspec.Open(ctx, cfg.embedder)
	if err != nil {
		return nil, nil, err
	}
	store, err := openStore(ctx, cfg, in, emb.Dims, false)
	if err != nil {
		emb.Close()
		return nil, nil, err
	}
	return emb, store, nil
}

// openStore opens the memory store of dims dimensions: --store (a file or
// a postgres:// URL), else the store of the project the hook's cwd belongs
// to (Claude Code's cwd field, else the process's working directory). The
// store is the one place the hook opens one; errors name a URL with its
// password redacted. A store file that cannot be read is left as it is.
// With halfTime, opening a PostgreSQL store may take half the time left
// before --timeout, no more (see [openPG]).
func openStore(ctx context.Context, cfg *config, in *hookInput, dims int, halfTime bool) (hookStore, error) {
	dir := in.CWD
	if dir == "" {
		dir, _ = os.Getwd()
	}
	// ResolveFor first: it trims a postgres:// URL and refuses a mistyped
	// one (unrepeated), which would otherwise be a file path.
	path, err := storepath.ResolveFor(cfg.store, dir)
	if err != nil {
		return nil, err
	}
	if storepath.IsDSN(path) {
		return openPG(ctx, path, dims, halfTime)
	}
	return storepath.OpenShared(path, dims)
}

// memStore is the empty in-memory store PreCompact makes its brief against
// when its store cannot be opened; nothing in it is saved.
type memStore struct{ *chitta.HNSWStore }

// newMemStore returns an empty memStore of dims dimensions.
func newMemStore(dims int) (memStore, error) {
	s, err := chitta.NewHNSWStore(dims, nil)
	return memStore{s}, err
}

// SaveContext does nothing: a memStore is never saved.
func (memStore) SaveContext(context.Context) error { return nil }

// Path says that the store is in memory.
func (memStore) Path() string { return "(in memory)" }

// readTranscript reads the transcript at path (a leading ~/ is the home
// directory): only a regular file, at most its last 32 MiB. A sub-agent's
// transcript holds only side-chain entries; those are read when there is
// nothing else.
func readTranscript(ctx context.Context, path string) (*claudecode.Transcript, error) {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, rest)
		}
	}
	tr, err := claudecode.ReadFileContext(ctx, path, nil)
	if err != nil {
		return nil, err
	}
	if len(tr.Turns) == 0 {
		if side, err := claudecode.ReadFileContext(ctx, path, &claudecode.Options{IncludeSidechains: true}); err == nil && len(side.Turns) > 0 {
			tr = side
		}
	}
	return tr, nil
}

// closeStore closes a store that holds connections (a pgMemory); a store
// file has nothing to close.
func closeStore(s hookStore) {
	if c, ok := s.(io.Closer); ok {
		_ = c.Close()
	}
}
