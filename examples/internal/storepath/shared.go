package storepath

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chitta-go/chitta"
)

// Shared is a memory store backed by a file that other processes may write
// too: the chitta MCP server keeps one open for a whole session while the
// PreCompact hook, or a one-shot chitta, adds memories to the same file.
//
// Shared remembers the memories added through it since it last saved.
// [Shared.Save] takes an exclusive lock on path+".lock" (the path a
// symbolic link names, when path is one), reloads the file,
// adds those memories to what it holds (replacing memories with the same
// ID), writes it atomically and switches to it, so no process loses
// another's memories. [Shared.Refresh] picks up a file changed by another
// process.
//
// Shared implements [chitta.MemoryStore], [chitta.BatchRecaller] and
// [chitta.CoverageRecaller] (so Compact scores coverage against it as
// against an HNSWStore) and is safe for concurrent use. The zero value is
// not usable; use [OpenShared].
type Shared struct {
	path string
	dims int

	cur atomic.Pointer[chitta.HNSWStore] // read without mu: Recall never waits for a save

	mu      sync.Mutex      // serialises Add, Delete, Save and Refresh
	pending []chitta.Memory // added since the last save, in order
	deleted map[string]bool // IDs deleted since the last save
	stamp   stamp           // the file as last loaded or saved
}

// LockWait bounds the wait of [Shared.SaveContext] for another process's
// save (the store's lock).
const LockWait = 10 * time.Second

// ErrLocked reports a store lock another process held for longer than a
// save may wait for it; the save wrote nothing, and the changes it would
// have written stay unsaved (see [Shared.Unsaved]).
var ErrLocked = errors.New("store locked")

// stamp identifies a version of the store file: its size and
// modification time, the file itself, since a save replaces the file with
// a new one (a rename), which may have the same size and, on a filesystem
// with coarse timestamps, the same modification time, and the file's
// checksum trailer (its last 4 bytes, the CRC-32C of the rest), since a
// filesystem may give the new file the inode the old one freed, and a
// tool may rewrite the file in place and restore its time. The file is
// opened to read them, which also makes an NFS client check the server
// (close-to-open) rather than answer from its attribute cache. A file that
// exists but cannot be opened and read has a stamp that differs from every
// other: Save and Refresh then reload it (and report why it cannot be), which
// loses nothing.
type stamp struct {
	size    int64
	mod     time.Time
	info    os.FileInfo // nil when the file is missing
	sum     uint32      // the checksum trailer (0 in a file shorter than it)
	unknown bool        // the file exists but could not be opened and read
}

func statStamp(path string) stamp {
	info, err := os.Stat(path)
	if err != nil {
		return stamp{size: -1}
	}
	st := stamp{size: info.Size(), mod: info.ModTime(), info: info, unknown: true}
	if !info.Mode().IsRegular() { // never opened: a named pipe could block
		return st
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNoWait, 0) // not waiting if it just became a pipe
	if err != nil {
		return st
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return st
	}
	st = stamp{size: info.Size(), mod: info.ModTime(), info: info}
	var trailer [4]byte
	if st.size >= int64(len(trailer)) {
		if _, err := f.ReadAt(trailer[:], st.size-int64(len(trailer))); err != nil {
			st.unknown = true
		}
		st.sum = binary.LittleEndian.Uint32(trailer[:])
	}
	return st
}

// same reports whether a and b are the same version of the file (or both
// say it is missing).
func (a stamp) same(b stamp) bool {
	if a.info == nil || b.info == nil {
		return a.info == nil && b.info == nil
	}
	return !a.unknown && !b.unknown && a.size == b.size && a.mod.Equal(b.mod) &&
		os.SameFile(a.info, b.info) && a.sum == b.sum
}

// OpenShared opens the store file at path as [Open] does: a missing file is
// an empty store of dims dimensions, a corrupt file or one of another
// dimension is an error and is left alone.
func OpenShared(path string, dims int) (*Shared, error) {
	st := statStamp(path)
	s, err := Open(path, dims)
	if err != nil {
		return nil, err
	}
	sh := &Shared{path: path, dims: dims, stamp: st}
	sh.cur.Store(s)
	if st.size >= 0 {
		sh.removeStaleTemps()
	}
	return sh, nil
}

// removeStaleTemps removes what saves killed mid-write left beside the
// store file (see [chitta.RemoveStaleTempFiles]) if it gets the lock at
// once: a process holding it is saving, and cleans up itself. It is best
// effort: a failure only leaves the files for the next save.
func (s *Shared) removeStaleTemps() {
	unlock, err := lockFile(context.Background(), lockPath(s.path), 0)
	if err != nil {
		return
	}
	defer unlock()
	_, _ = chitta.RemoveStaleTempFiles(s.path, 0)
}

// lockPath returns the lock file of the store file path: the file the
// saves write ([chitta.HNSWStore.SaveFile] follows a symbolic link) with
// ".lock" appended, so that processes naming one store file by a link and
// by its real path take the same lock. A link that cannot be resolved
// keeps its own name (the save then fails on it).
func lockPath(path string) string {
	if info, err := os.Lstat(path); err == nil && info.Mode()&os.ModeSymlink != 0 {
		if target, err := filepath.EvalSymlinks(path); err == nil {
			path = target
		}
	}
	return path + ".lock"
}

// Path returns the store file's path.
func (s *Shared) Path() string { return s.path }

// Dims returns the vector length of the store.
func (s *Shared) Dims() int { return s.dims }

func (s *Shared) current() *chitta.HNSWStore { return s.cur.Load() }

// Len returns the number of memories in the store as this process sees it.
func (s *Shared) Len() int { return s.current().Len() }

// Recall implements [chitta.MemoryStore].
func (s *Shared) Recall(ctx context.Context, vector []float32, k int) ([]chitta.Hit, error) {
	return s.current().Recall(ctx, vector, k)
}

// RecallBatch implements [chitta.BatchRecaller].
func (s *Shared) RecallBatch(ctx context.Context, vectors [][]float32, k int) ([][]chitta.Hit, error) {
	return s.current().RecallBatch(ctx, vectors, k)
}

// BestSimilarities implements [chitta.CoverageRecaller] on the store as
// this process sees it (see [chitta.HNSWStore.BestSimilarities]).
func (s *Shared) BestSimilarities(ctx context.Context, vectors [][]float32, f chitta.KindFilter) ([]float64, error) {
	return s.current().BestSimilarities(ctx, vectors, f)
}

// Add stores m (see [chitta.HNSWStore.Add]) and remembers it for the next
// [Shared.Save]. An empty ID becomes [chitta.MemoryID](m.Kind, m.Text) and
// a zero CreatedAt the current time, so that the saved memory is the one
// added now.
func (s *Shared) Add(ctx context.Context, m chitta.Memory) error {
	if m.ID == "" {
		m.ID = chitta.MemoryID(m.Kind, m.Text)
	}
	if m.CreatedAt.IsZero() {
		m.CreatedAt = time.Now().UTC()
	}
	m.Vector = slices.Clone(m.Vector)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.current().Add(ctx, m); err != nil {
		return err
	}
	s.pending = append(s.pending, m)
	delete(s.deleted, m.ID)
	return nil
}

// Delete removes the memory with the given ID (see
// [chitta.HNSWStore.Delete]: an unknown ID is an error wrapping
// [chitta.ErrNotFound]) and remembers the deletion for the next
// [Shared.Save], which applies it to the file even when another process
// saved meanwhile.
func (s *Shared) Delete(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.current().Delete(id); err != nil {
		return err
	}
	s.pending = slices.DeleteFunc(s.pending, func(m chitta.Memory) bool { return m.ID == id })
	if s.deleted == nil {
		s.deleted = make(map[string]bool)
	}
	s.deleted[id] = true
	return nil
}

// Get returns the memory with the given ID as this process sees it.
func (s *Shared) Get(id string) (chitta.Memory, bool) { return s.current().Get(id) }

// All iterates over the memories as this process sees them (see
// [chitta.HNSWStore.All]).
func (s *Shared) All() iter.Seq[chitta.Memory] { return s.current().All() }

// AllMatching iterates over the memories whose kind passes f (see
// [chitta.HNSWStore.AllMatching]).
func (s *Shared) AllMatching(f chitta.KindFilter) iter.Seq[chitta.Memory] {
	return s.current().AllMatching(f)
}

// RecallMatching is [chitta.HNSWStore.RecallMatching] on the store as this
// process sees it.
func (s *Shared) RecallMatching(ctx context.Context, vector []float32, k int, f chitta.KindFilter) ([]chitta.Hit, error) {
	return s.current().RecallMatching(ctx, vector, k, f)
}

// Save merges the memories added since the last save into the file, under
// the file lock, and switches to the merged store. A file that became
// corrupt meanwhile is an error and is not overwritten. Save creates the
// directory (mode 0700) on first use, and removes the temporary files of
// saves killed more than [chitta.StaleTempAge] ago. Its errors start with
// "save store". It is [Shared.SaveContext] without a deadline.
func (s *Shared) Save() error { return s.SaveContext(context.Background()) }

// SaveContext is [Shared.Save], but it waits for another process's lock
// only until ctx is done (and [LockWait] at most, as Save does): a caller with a
// deadline gets the lock error by then, and nothing is written.
func (s *Shared) SaveContext(ctx context.Context) error { return s.SaveWithin(ctx, LockWait) }

// SaveWithin is [Shared.SaveContext] waiting at most wait (and [LockWait]
// at most) for another process's lock: 0 tries it once. The error wraps
// [ErrLocked] and names the wait.
func (s *Shared) SaveWithin(ctx context.Context, wait time.Duration) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("save store: create directory: %w", err)
	}
	unlock, err := lockFile(ctx, lockPath(s.path), min(max(wait, 0), LockWait))
	if err != nil {
		return fmt.Errorf("save store: lock: %w", err)
	}
	defer unlock()
	_, _ = chitta.RemoveStaleTempFiles(s.path, 0) // best effort

	s.mu.Lock()
	defer s.mu.Unlock()
	next := s.current()
	if st := statStamp(s.path); !st.same(s.stamp) {
		disk, err := s.reload()
		if err != nil {
			return fmt.Errorf("save store: %w", err)
		}
		next = disk
	}
	if err := next.SaveFile(s.path); err != nil {
		return err // "save store: …"
	}
	s.cur.Store(next)
	s.pending, s.deleted, s.stamp = nil, nil, statStamp(s.path)
	return nil
}

// Unsaved returns the number of changes (memories added, IDs deleted) made
// through s that no [Shared.Save] has written yet: 0 after a successful
// save, more after a failed one, whose changes the next save writes.
func (s *Shared) Unsaved() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending) + len(s.deleted)
}

// Refresh reloads the file when another process has changed it since this
// one last loaded or saved it, keeping the memories added here since the
// last save. It reports whether it reloaded. A missing file is not an
// error (nothing to pick up).
func (s *Shared) Refresh() (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := statStamp(s.path)
	if st.same(s.stamp) || st.size < 0 {
		return false, nil
	}
	disk, err := s.reload()
	if err != nil {
		return false, err
	}
	s.cur.Store(disk)
	s.stamp = st
	return true, nil
}

// reload reads the file, adds the pending memories to it and applies the
// pending deletions; the caller holds s.mu.
func (s *Shared) reload() (*chitta.HNSWStore, error) {
	disk, err := Open(s.path, s.dims)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	for _, m := range s.pending {
		if err := disk.Add(ctx, m); err != nil {
			return nil, fmt.Errorf("merge memory %s: %w", m.ID, err)
		}
	}
	for id := range s.deleted {
		if err := disk.Delete(id); err != nil && !errors.Is(err, chitta.ErrNotFound) {
			return nil, fmt.Errorf("merge deletion of %s: %w", id, err)
		}
	}
	return disk, nil
}
