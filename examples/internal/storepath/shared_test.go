package storepath

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// mem returns a memory with a one-hot vector in 4 dimensions.
func mem(text string, axis int) chitta.Memory {
	v := make([]float32, 4)
	v[axis%4] = 1
	return chitta.Memory{Text: text, Kind: chitta.KindFact, Confidence: 1, Vector: v}
}

func texts(t *testing.T, path string) []string {
	t.Helper()
	s, err := Open(path, 4)
	require.NoError(t, err)
	var out []string
	for axis := range 4 {
		v := make([]float32, 4)
		v[axis] = 1
		hits, err := s.Recall(t.Context(), v, 100)
		require.NoError(t, err)
		for _, h := range hits {
			if h.Similarity > 0.99 {
				out = append(out, h.Text)
			}
		}
	}
	return out
}

// TestSharedTwoWriters is the server-and-hook case: two handles on one
// file, each adding and saving; neither loses the other's memories.
func TestSharedTwoWriters(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "dir", FileName)
	server, err := OpenShared(path, 4)
	require.NoError(t, err)
	hook, err := OpenShared(path, 4)
	require.NoError(t, err)

	require.NoError(t, server.Add(ctx, mem("server one", 0)))
	require.NoError(t, server.Save())
	require.NoError(t, hook.Add(ctx, mem("hook episode", 1)))
	require.NoError(t, hook.Save())
	require.NoError(t, server.Add(ctx, mem("server two", 2)))
	require.NoError(t, server.Save())

	assert.ElementsMatch(t, []string{"server one", "hook episode", "server two"}, texts(t, path))
	assert.Equal(t, 3, server.Len(), "the server sees the hook's memory after its save")

	// Refresh picks up another process's save without a write.
	require.NoError(t, hook.Add(ctx, mem("hook two", 3)))
	require.NoError(t, hook.Save())
	reloaded, err := server.Refresh()
	require.NoError(t, err)
	assert.True(t, reloaded)
	assert.Equal(t, 4, server.Len())
	reloaded, err = server.Refresh()
	require.NoError(t, err)
	assert.False(t, reloaded, "nothing changed")
}

func TestSharedRefreshKeepsPending(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), FileName)
	a, err := OpenShared(path, 4)
	require.NoError(t, err)
	b, err := OpenShared(path, 4)
	require.NoError(t, err)
	reloaded, err := a.Refresh()
	require.NoError(t, err)
	assert.False(t, reloaded, "no file yet")

	require.NoError(t, a.Add(ctx, mem("unsaved in a", 0)))
	require.NoError(t, b.Add(ctx, mem("saved by b", 1)))
	require.NoError(t, b.Save())
	reloaded, err = a.Refresh()
	require.NoError(t, err)
	assert.True(t, reloaded)
	assert.Equal(t, 2, a.Len(), "b's memory and a's unsaved one")
	require.NoError(t, a.Save())
	assert.ElementsMatch(t, []string{"unsaved in a", "saved by b"}, texts(t, path))
}

func TestSharedSaveRefusesCorruptFile(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), FileName)
	s, err := OpenShared(path, 4)
	require.NoError(t, err)
	require.NoError(t, s.Add(ctx, mem("x", 0)))
	garbage := []byte("someone wrote garbage here")
	require.NoError(t, os.WriteFile(path, garbage, 0o600))
	require.ErrorIs(t, s.Save(), chitta.ErrUnsupportedVersion)
	_, err = s.Refresh()
	require.ErrorIs(t, err, chitta.ErrUnsupportedVersion)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, garbage, got)
	assert.Equal(t, 1, s.Len(), "the in-memory store is kept")
}

func TestSharedAddErrors(t *testing.T) {
	t.Parallel()
	s, err := OpenShared(filepath.Join(t.TempDir(), FileName), 4)
	require.NoError(t, err)
	err = s.Add(t.Context(), chitta.Memory{Text: "x", Vector: []float32{1, 0}})
	require.ErrorIs(t, err, chitta.ErrDimensionMismatch)
	require.NoError(t, s.Save())
	assert.Equal(t, 0, s.Len())
	assert.Empty(t, texts(t, s.Path()), "a failed Add is not saved")
}

func TestSharedConcurrent(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), FileName)
	handles := make([]*Shared, 3)
	for i := range handles {
		var err error
		handles[i], err = OpenShared(path, 4)
		require.NoError(t, err)
	}
	var wg sync.WaitGroup
	for i, h := range handles {
		for j := range 5 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				assert.NoError(t, h.Add(ctx, mem(fmt.Sprintf("h%d m%d", i, j), j)))
				assert.NoError(t, h.Save())
				_, err := h.Recall(ctx, []float32{1, 0, 0, 0}, 3)
				assert.NoError(t, err)
				_, err = h.Refresh()
				assert.NoError(t, err)
			}()
		}
	}
	wg.Wait()
	assert.Len(t, texts(t, path), 15, "every memory of every handle is in the file")
}

// TestSharedDeleteSurvivesMerge: a memory forgotten by one process stays
// forgotten when another process saved in between (the save reloads the
// file and must re-apply the deletion), and the other's memories stay.
func TestSharedDeleteSurvivesMerge(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), FileName)
	server, err := OpenShared(path, 4)
	require.NoError(t, err)
	doomed, kept := mem("doomed", 0), mem("kept", 1)
	require.NoError(t, server.Add(ctx, doomed))
	require.NoError(t, server.Add(ctx, kept))
	require.NoError(t, server.Save())

	hook, err := OpenShared(path, 4)
	require.NoError(t, err)
	require.NoError(t, server.Delete(chitta.MemoryID(doomed.Kind, doomed.Text)))
	require.ErrorIs(t, server.Delete("nope"), chitta.ErrNotFound)
	require.NoError(t, hook.Add(ctx, mem("hook", 2)))
	require.NoError(t, hook.Save()) // the file changes under the server
	require.NoError(t, server.Save())
	assert.ElementsMatch(t, []string{"kept", "hook"}, texts(t, path))

	// Add after Delete of the same memory brings it back.
	require.NoError(t, server.Delete(chitta.MemoryID(kept.Kind, kept.Text)))
	require.NoError(t, server.Add(ctx, kept))
	require.NoError(t, server.Save())
	assert.ElementsMatch(t, []string{"kept", "hook"}, texts(t, path))

	var all []string
	for m := range server.All() {
		all = append(all, m.Text)
	}
	assert.ElementsMatch(t, []string{"kept", "hook"}, all)
	var facts []string
	for m := range server.AllMatching(chitta.KindFilter{Include: []string{chitta.KindFact}}) {
		facts = append(facts, m.Text)
	}
	assert.Len(t, facts, 2)
	got, ok := server.Get(chitta.MemoryID(kept.Kind, kept.Text))
	require.True(t, ok)
	assert.Equal(t, "kept", got.Text)
	hits, err := server.RecallMatching(ctx, []float32{0, 1, 0, 0}, 5, chitta.KindFilter{Exclude: []string{chitta.KindFact}})
	require.NoError(t, err)
	assert.Empty(t, hits)
}

// statOpen returns the FileInfo of the file at path read through an open
// handle, as the library's own check does: on Windows, os.Stat's FileInfo
// reads the file's ID only when os.SameFile compares it, by then of the
// file that has replaced it.
func statOpen(t *testing.T, path string) os.FileInfo {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	info, err := f.Stat()
	require.NoError(t, err)
	return info
}

// TestSharedSeesVersionWithSameSizeAndTime: another process's save that
// leaves the file the same size with the same modification time (a
// filesystem whose timestamps are coarser than the two saves: FAT's 2 s,
// HFS+'s 1 s, the kernel's clock tick) is still another file, and Save and
// Refresh must merge it rather than overwrite it. So is a version that
// has the inode of the one last loaded as well (an inode the filesystem
// reused within one tick, an NFS client's cached attributes, a tool that
// rewrites in place and restores the time, as rsync --inplace -t does)
// when its contents differ: that one the server overwrote, losing new1.
func TestSharedSeesVersionWithSameSizeAndTime(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	// replace gives path the one memory new1 (the size of old1) in place of
	// old1, as another process's save does, or by rewriting it in place.
	replace := map[string]func(t *testing.T, path string){
		"another file": func(t *testing.T, path string) {
			hook, err := OpenShared(path, 4)
			require.NoError(t, err)
			require.NoError(t, hook.Delete(chitta.MemoryID(chitta.KindFact, "old1")))
			require.NoError(t, hook.Add(ctx, mem("new1", 1)))
			require.NoError(t, hook.Save())
		},
		"rewritten in place": func(t *testing.T, path string) {
			other, err := OpenShared(filepath.Join(filepath.Dir(path), "other.chitta"), 4)
			require.NoError(t, err)
			require.NoError(t, other.Add(ctx, mem("new1", 1)))
			require.NoError(t, other.Save())
			data, err := os.ReadFile(other.Path())
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, data, 0o600)) // the same inode
		},
	}
	for how, replace := range replace {
		for _, op := range []string{"Save", "Refresh"} {
			t.Run(how+"/"+op, func(t *testing.T) {
				t.Parallel()
				path := filepath.Join(t.TempDir(), FileName)
				server, err := OpenShared(path, 4)
				require.NoError(t, err)
				require.NoError(t, server.Add(ctx, mem("old1", 0)))
				require.NoError(t, server.Save())
				before := statOpen(t, path)
				replace(t, path)
				require.NoError(t, os.Chtimes(path, before.ModTime(), before.ModTime()))
				after := statOpen(t, path)
				require.Equal(t, before.Size(), after.Size(), "the test needs a file of the same size")
				require.Equal(t, how == "rewritten in place", os.SameFile(before, after))

				if op == "Refresh" {
					reloaded, err := server.Refresh()
					require.NoError(t, err)
					assert.True(t, reloaded, "another version")
				}
				require.NoError(t, server.Add(ctx, mem("server two", 2)))
				require.NoError(t, server.Save())
				assert.ElementsMatch(t, []string{"new1", "server two"}, texts(t, path), "the other version is kept")
			})
		}
	}
}

// TestSharedCoverageAsItsStore: Compact scores coverage against a Shared
// exactly as against the HNSWStore it holds: the best similarity among the
// memories whose kind counts, not among the three nearest of any kind, so
// that briefs and episodes near a message (kinds coverage ignores) do not
// hide the fact that covers it.
func TestSharedCoverageAsItsStore(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := OpenShared(filepath.Join(t.TempDir(), FileName), 4)
	require.NoError(t, err)
	for i, kind := range []string{chitta.KindBrief, chitta.KindBrief, chitta.KindEpisode} {
		require.NoError(t, s.Add(ctx, chitta.Memory{ID: fmt.Sprint("near", i), Text: "near", Kind: kind, Confidence: 1, Vector: []float32{1, 0.01 * float32(i), 0, 0}}))
	}
	require.NoError(t, s.Add(ctx, chitta.Memory{ID: "fact", Text: "fact", Kind: chitta.KindFact, Confidence: 1, Vector: []float32{1, 1, 0, 0}}))

	emb := chitta.EmbedderFunc(func(_ context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i := range out {
			out[i] = []float32{1, 0.2, 0, 0}
		}
		return out, nil
	})
	msgs := []chitta.Message{{Role: chitta.RoleUser, Content: "what the fact says"}}
	coverage := func(store chitta.MemoryStore) float64 {
		res, err := chitta.Compact(ctx, msgs, &chitta.Options{Embedder: emb, Store: store})
		require.NoError(t, err)
		return res.Scores[0].Coverage
	}
	want := coverage(s.current())
	assert.Greater(t, want, 0.7, "the fact covers the message")
	assert.InDelta(t, want, coverage(s), 1e-12)
}
