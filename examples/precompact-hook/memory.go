package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/chitta-go/chitta/examples/internal/claudecode"
	"github.com/chitta-go/chitta/examples/internal/embedspec"
	"github.com/chitta-go/chitta/examples/internal/storepath"
)

// openMemory opens the embedder and the memory store: --store, else the
// store of the project the hook's cwd belongs to (Claude Code's cwd field,
// else the process's working directory). The store is the one place the
// hook opens one. The caller closes the embedder.
func openMemory(ctx context.Context, cfg *config, in *hookInput) (*embedspec.Embedder, *storepath.Shared, error) {
	dir := in.CWD
	if dir == "" {
		dir, _ = os.Getwd()
	}
	path, err := storepath.ResolveFor(cfg.store, dir)
	if err != nil {
		return nil, nil, err
	}
	emb, err := embedspec.Open(ctx, cfg.embedder)
	if err != nil {
		return nil, nil, err
	}
	store, err := storepath.OpenShared(path, emb.Dims)
	if err != nil {
		emb.Close()
		return nil, nil, err
	}
	return emb, store, nil
}

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
