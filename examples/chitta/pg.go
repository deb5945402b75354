package main

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/storepath"
	"github.com/chitta-go/chitta/pgstore"
)

// pgMemory is a pgstore.Store as the tools need it: Len and Delete
// without ctx, and AllMatchingContext, a listing that says when it failed
// part way. Every other method (Recall, Add, RecallBatch, BestSimilarities,
// Generation) is the Store's.
type pgMemory struct {
	*pgstore.Store
	log  *slog.Logger
	last atomic.Int64 // the last count read, reported when a count fails
}

// Len returns the number of memories in the namespace; when the server
// cannot say, it logs why and returns the last count it knew.
func (p *pgMemory) Len() int {
	ctx, cancel := context.WithTimeout(context.Background(), pgTimeout)
	defer cancel()
	n, err := p.Store.Len(ctx)
	if err != nil {
		p.log.Warn("count memories", "err", err)
		return int(p.last.Load())
	}
	p.last.Store(int64(n))
	return n
}

// Add stores m as [pgstore.Store.Add] does, each NUL byte and invalid
// UTF-8 sequence of its strings replaced by U+FFFD
// ([storepath.PostgresText]), which pgstore would refuse: a remembered
// text, or a distilled message (a tool's binary output), may hold one. A
// store file keeps them.
func (p *pgMemory) Add(ctx context.Context, m chitta.Memory) error {
	return p.Store.Add(ctx, storepath.PostgresText(m))
}

// pgTimeout bounds the calls the tools make without a ctx.
const pgTimeout = 30 * time.Second

// Delete removes the memory with the given ID (chitta.ErrNotFound when
// there is none).
func (p *pgMemory) Delete(id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), pgTimeout)
	defer cancel()
	return p.Store.Delete(ctx, id)
}

// AllMatchingContext iterates over the memories whose kind passes f, by
// ctx's deadline and at most pgTimeout. A read error (the server gone, a
// row that cannot be read) is yielded once, with a zero Memory, and ends
// the iteration, so that the caller knows that what it has seen is not
// the whole namespace.
func (p *pgMemory) AllMatchingContext(ctx context.Context, f chitta.KindFilter) iter.Seq2[chitta.Memory, error] {
	return func(yield func(chitta.Memory, error) bool) {
		ctx, cancel := context.WithTimeout(ctx, pgTimeout)
		defer cancel()
		for m, err := range p.Store.All(ctx) {
			if err != nil {
				yield(chitta.Memory{}, err)
				return
			}
			if f.Match(m.Kind) && !yield(m, nil) {
				return
			}
		}
	}
}

// openPG opens the PostgreSQL store of a postgres:// --store URL, waiting
// for it until by, the end of within (--store-timeout) from chitta's start,
// which the embedder's probe may have used part of: a server that accepts the connection
// and never answers (a host that drops the packets) would otherwise hold
// chitta before its first message for good. Errors and logs show the URL
// with its password redacted.
func openPG(ctx context.Context, dsn string, dims int, by time.Time, within time.Duration, log *slog.Logger) (*pgMemory, error) {
	octx, cancel := context.WithDeadline(ctx, by)
	defer cancel()
	// DeferIndex: a table that holds memories without its index (loaded
	// with pgstore.IndexNone) is searched without it, not indexed within
	// --store-timeout (which a large table's build outlasts, holding its
	// writers meanwhile); the warning gives the statement that builds it.
	s, err := pgstore.OpenURL(octx, dsn, &pgstore.Options{Dims: dims, DeferIndex: true})
	if err != nil {
		if ctx.Err() == nil && errors.Is(octx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("open store %s: no answer within %v (--store-timeout): %w", pgstore.Redact(dsn), within, err)
		}
		return nil, fmt.Errorf("open store %s: %w", pgstore.Redact(dsn), err)
	}
	if ddl := s.MissingIndex(); ddl != "" {
		log.Warn("the store's table lacks the vector index chitta searches with, so they scan it or use another kind; build it outside chitta, or give the table's kind in the URL's "+pgstore.URLIndex, "store", pgstore.Redact(dsn), "sql", ddl)
	}
	return &pgMemory{Store: s, log: log}, nil
}
