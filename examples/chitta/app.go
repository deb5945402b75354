package main

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"sync"
	"time"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/storepath"
)

// memoryStore is what the chitta command needs of its memory store
// (chitta.HNSWStore and storepath.Shared have it all, and pgMemory), and
// one of the listings, [lister] or [fallibleLister].
type memoryStore interface {
	chitta.MemoryStore
	Len() int
	Delete(id string) error
}

// lister is a memoryStore held in memory (chitta.HNSWStore,
// storepath.Shared), whose listing cannot fail.
type lister interface {
	AllMatching(f chitta.KindFilter) iter.Seq[chitta.Memory]
}

// fallibleLister is a memoryStore whose listing can fail part way (a
// PostgreSQL store): AllMatchingContext yields the read error, once, with a
// zero Memory, and stops.
type fallibleLister interface {
	AllMatchingContext(ctx context.Context, f chitta.KindFilter) iter.Seq2[chitta.Memory, error]
}

var (
	_ lister         = (*chitta.HNSWStore)(nil)
	_ lister         = (*storepath.Shared)(nil)
	_ fallibleLister = (*pgMemory)(nil)
)

// allMatching returns every memory of the store whose kind passes f, or
// the error that stopped the listing (never a part of the list as if it
// were the whole).
func (a *app) allMatching(ctx context.Context, f chitta.KindFilter) ([]chitta.Memory, error) {
	var all []chitta.Memory
	switch l := a.store.(type) {
	case fallibleLister:
		for m, err := range l.AllMatchingContext(ctx, f) {
			if err != nil {
				return nil, err
			}
			all = append(all, m)
		}
	case lister:
		for m := range l.AllMatching(f) {
			all = append(all, m)
		}
	default:
		return nil, fmt.Errorf("store %T cannot list its memories", a.store)
	}
	return all, nil
}

// app holds what the tools share: the store, the embedder and the way to
// persist the store. Its tools are safe for concurrent use.
type app struct {
	store    memoryStore
	embedder chitta.Embedder
	queries  chitta.Embedder      // compact_context's QueryEmbedder (the embedder's query side); nil embeds the query with embedder
	persist  func() error         // writes the store file atomically; nil keeps it in memory
	refresh  func() (bool, error) // picks up another process's writes; nil for none
	unsaved  func() int           // changes a failed persist left unsaved; nil for none
	retry    func() error         // persist with a short wait for the store's lock, for flush after a save found it locked; nil: persist
	locked   bool                 // the last save found the store locked (storepath.ErrLocked); guarded by mu
	log      *slog.Logger
	now      func() time.Time
	toolset  []tool

	// tokenizer is compact_context's tokenizer when a call names none
	// (--tokenizer); tokens holds the counters.
	tokenizer string
	tokens    tokenizers

	// mu serialises store writes with the file save that follows them, so
	// that every saved file holds whole tool calls.
	mu sync.Mutex
}

// newApp returns an app over store and embedder. persist, when not nil, is
// called after every write while the write lock is held.
func newApp(store memoryStore, embedder chitta.Embedder, persist func() error, log *slog.Logger) *app {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &app{store: store, embedder: embedder, persist: persist, log: log, now: time.Now, tokenizer: tokenizerEstimate}
	a.toolset = a.tools()
	return a
}

// sync picks up memories other processes (the PreCompact hook, a one-shot
// chitta) saved to the store file since this one last read or wrote it. A
// failure is logged: the tools go on with the store in memory.
func (a *app) sync() {
	if a.refresh == nil {
		return
	}
	if reloaded, err := a.refresh(); err != nil {
		a.log.Warn("reload store", "err", err)
	} else if reloaded {
		a.log.Debug("reloaded store", "memories", a.store.Len())
	}
}

// flushLockWait bounds flush's wait for the store's lock when the save
// before it found the store locked: that save waited the whole wait
// already (a one-shot remember's, just before).
const flushLockWait = time.Second

// save persists the store; the caller holds a.mu.
func (a *app) save() error {
	if a.persist == nil {
		return nil
	}
	err := a.persist()
	a.locked = errors.Is(err, storepath.ErrLocked)
	return err
}

// flush saves the changes a failed save left unsaved (a tool call
// reported that failure, but the memory stayed in the store it serves),
// once the calls in progress are done. The command calls it before it
// exits, so that nothing stored is lost for want of a later write; when
// the save before found the store locked, it waits for the lock only
// flushLockWait (a.retry). An error says how many changes are lost.
func (a *app) flush() error {
	if a.unsaved == nil || a.persist == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	n := a.unsaved()
	if n == 0 {
		return nil
	}
	persist := a.persist
	if a.locked && a.retry != nil {
		persist = a.retry
	}
	if err := persist(); err != nil {
		return fmt.Errorf("%d unsaved memory changes lost: %w", n, err)
	}
	a.log.Debug("saved the changes a failed save left", "changes", n)
	return nil
}
