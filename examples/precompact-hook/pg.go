package main

import (
	"context"
	"fmt"
	"time"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/storepath"
	"github.com/chitta-go/chitta/pgstore"
)

// pgTimeout bounds the store calls the hook makes without a ctx.
const pgTimeout = 30 * time.Second

// pgMemory is a pgstore.Store as the hook needs it (see hookStore). Every
// write is in the database when Add returns, so Save does nothing.
type pgMemory struct {
	*pgstore.Store
	where string // the URL with its password redacted
	// ctx is the hook's (its deadline, a signal): the calls without a ctx
	// of their own end with it, so that a server that stops answering
	// cannot hold the hook past --timeout.
	ctx context.Context
}

// openPG opens the PostgreSQL store of a postgres:// --store URL (see
// pgstore.OpenURL). Errors show the URL with its password redacted.
//
// With halfTime the open may take half the time left before ctx's
// deadline, no more: a server that does not answer (a host that drops the
// packets) then leaves PreCompact the other half to make its brief without
// the store. Without it (SessionStart, which has nothing to print without
// its store) the open may take all the time left, and a server that does
// not answer ends the run at --timeout.
func openPG(ctx context.Context, dsn string, dims int, halfTime bool) (*pgMemory, error) {
	octx, cancel := ctx, context.CancelFunc(func() {})
	var within time.Duration
	if d, ok := ctx.Deadline(); ok && halfTime {
		within = time.Until(d) / 2
		octx, cancel = context.WithTimeout(ctx, within)
	}
	defer cancel()
	// DeferIndex: a table that holds memories without its index (loaded
	// with pgstore.IndexNone) is searched without it, not indexed under
	// the hook's deadline (see indexNote).
	s, err := pgstore.OpenURL(octx, dsn, &pgstore.Options{Dims: dims, DeferIndex: true})
	if err != nil {
		if ctx.Err() == nil && octx.Err() != nil {
			return nil, fmt.Errorf("open store %s: no answer within %v, half the time left (--timeout): %w", pgstore.Redact(dsn), within.Round(time.Millisecond), err)
		}
		return nil, fmt.Errorf("open store %s: %w", pgstore.Redact(dsn), err)
	}
	return &pgMemory{Store: s, where: pgstore.Redact(dsn), ctx: ctx}, nil
}

// Add stores m as [pgstore.Store.Add] does, each NUL byte and invalid
// UTF-8 sequence of its strings replaced by U+FFFD
// ([storepath.PostgresText]): a transcript (a command, a tool result) or a
// session ID may carry a NUL byte; refused, it would cost the hook its
// episode and brief. (A store file keeps them.)
func (p *pgMemory) Add(ctx context.Context, m chitta.Memory) error {
	return p.Store.Add(ctx, storepath.PostgresText(m))
}

// Get returns the memory with the given ID; a read error counts as absent.
func (p *pgMemory) Get(id string) (chitta.Memory, bool) {
	ctx, cancel := context.WithTimeout(p.ctx, pgTimeout)
	defer cancel()
	m, ok, err := p.Store.Get(ctx, id)
	return m, ok && err == nil
}

// Len returns the number of memories in the namespace (-1 when the server
// cannot say).
func (p *pgMemory) Len() int {
	ctx, cancel := context.WithTimeout(p.ctx, pgTimeout)
	defer cancel()
	n, err := p.Store.Len(ctx)
	if err != nil {
		return -1
	}
	return n
}

// SaveContext does nothing: every Add is already committed.
func (p *pgMemory) SaveContext(context.Context) error { return nil }

// Path returns the store's URL with its password redacted.
func (p *pgMemory) Path() string { return p.where }

// indexNote is the summary line's note on a PostgreSQL store whose table
// lacks the index its searches ask for (pgstore.Options.DeferIndex left it
// unbuilt): they scan the table, or use an index of another kind, and the
// user can build it outside the hook or name the table's kind in the URL.
// "" for any other store.
func indexNote(s hookStore) string {
	p, ok := s.(*pgMemory)
	if !ok {
		return ""
	}
	ddl := p.MissingIndex()
	if ddl == "" {
		return ""
	}
	return "; its table lacks the vector index chitta searches with (build it outside the hook: " + ddl + "; or give the table's kind in the URL's " + pgstore.URLIndex + ")"
}
