package chitta_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/internal/testkit/synth"
)

// richStore returns a store of n memories with varied texts (including
// multi-byte UTF-8 and empty strings), kinds, confidences and times.
func richStore(t testing.TB, n, dims int) *chitta.HNSWStore {
	t.Helper()
	s := newStore(t, dims, nil)
	vecs := synth.Uniform(uint64(n), n, dims)
	kinds := []string{chitta.KindFact, chitta.KindCorrection, "", "custom kind"}
	zones := []*time.Location{time.UTC, time.FixedZone("IST", 5*3600+1800), time.FixedZone("PST", -8*3600)}
	for i, v := range vecs {
		m := chitta.Memory{
			ID:         fmt.Sprintf("id-%d-ß", i),
			Text:       fmt.Sprintf("memory %d: naïve café 日本語 %s", i, string(rune('a'+i%26))),
			Kind:       kinds[i%len(kinds)],
			Confidence: float64(i%101) / 100,
			Vector:     v,
			CreatedAt:  time.Date(1900+i%400, time.Month(1+i%12), 1+i%28, i%24, i%60, i%60, i*7919%1e9, zones[i%len(zones)]),
			Source:     []string{"", "turn 12", "session:abc"}[i%3],
		}
		if i%17 == 0 {
			m.Text = ""
		}
		require.NoError(t, s.Add(t.Context(), m))
	}
	return s
}

func allMemories(t testing.TB, s *chitta.HNSWStore, n int) map[string]chitta.Memory {
	t.Helper()
	out := make(map[string]chitta.Memory, n)
	for i := range n {
		id := fmt.Sprintf("id-%d-ß", i)
		if m, ok := s.Get(id); ok {
			out[id] = m
		}
	}
	return out
}

func TestHNSWStoreSaveLoadRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	for _, n := range []int{0, 1, 57} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			t.Parallel()
			s := richStore(t, n, 12)
			if n > 3 {
				require.NoError(t, s.Delete("id-3-ß")) // a hole in the slots
			}
			dir := t.TempDir()
			path := filepath.Join(dir, "mem.chitta")
			require.NoError(t, s.SaveFile(path))
			require.NoError(t, s.SaveFile(path), "saving over an existing file")

			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			require.Len(t, entries, 1, "no temp files linger after a good save")

			got, err := chitta.LoadHNSWStore(path)
			require.NoError(t, err)
			assert.Equal(t, s.Dims(), got.Dims())
			assert.Equal(t, s.Len(), got.Len())
			want := allMemories(t, s, n)
			have := allMemories(t, got, n)
			require.Equal(t, want, have, "IDs, texts, kinds, confidences, vectors, times and sources exact")
			for _, m := range want {
				assert.Equal(t, time.UTC, have[m.ID].CreatedAt.Location())
			}
			if n > 0 {
				q := synth.Uniform(99, 1, 12)[0]
				a, err := s.Recall(ctx, q, 5)
				require.NoError(t, err)
				b, err := got.Recall(ctx, q, 5)
				require.NoError(t, err)
				assert.Equal(t, a, b)
			}
		})
	}
	t.Run("with graph options", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "mem.chitta")
		require.NoError(t, richStore(t, 40, 8).SaveFile(path))
		got, err := chitta.LoadHNSWStoreOptions(path, graphOptions(t, &chitta.HNSWOptions{Crossover: 10}))
		require.NoError(t, err)
		hits, err := got.Recall(ctx, synth.Uniform(1, 1, 8)[0], 3)
		require.NoError(t, err)
		assert.Len(t, hits, 3)
		_, err = chitta.LoadHNSWStoreOptions(path, &chitta.HNSWOptions{M: -1})
		require.ErrorIs(t, err, chitta.ErrInvalidOption)
	})
}

func TestHNSWStoreSaveFileErrors(t *testing.T) {
	t.Parallel()
	s := richStore(t, 3, 4)
	err := s.SaveFile(filepath.Join(t.TempDir(), "missing", "dir", "mem.chitta"))
	require.ErrorIs(t, err, os.ErrNotExist)
	_, err = chitta.LoadHNSWStore(filepath.Join(t.TempDir(), "absent"))
	require.ErrorIs(t, err, os.ErrNotExist)

	// A directory is not corruption: a caller that starts afresh on
	// ErrCorruptStore must not do so because the path is wrong.
	_, err = chitta.LoadHNSWStore(t.TempDir())
	require.ErrorIs(t, err, chitta.ErrNotRegularFile)
	assert.NotErrorIs(t, err, chitta.ErrCorruptStore)
}

// TestHNSWStoreConcurrentSavesKeepNewest has goroutines each add a memory
// and then save the store to one path. Every SaveFile returns nil, so each
// goroutine's memory must be in the file once all have returned: the last
// rename must not put an older snapshot over a newer one. Unserialised
// saves lost one to three memories in about a quarter of the trials.
func TestHNSWStoreConcurrentSavesKeepNewest(t *testing.T) {
	t.Parallel()
	const dims, base, writers, trials = 64, 1000, 6, 40
	vecs := synth.Uniform(3, base+writers, dims)
	for trial := range trials {
		s := newStore(t, dims, nil)
		fill(t, s, vecs[:base])
		path := filepath.Join(t.TempDir(), "mem.chitta")
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				assert.NoError(t, s.Add(t.Context(), chitta.Memory{ID: fmt.Sprintf("w%d", w), Vector: vecs[base+w]}))
				assert.NoError(t, s.SaveFile(path))
			})
		}
		wg.Wait()
		got, err := chitta.LoadHNSWStore(path)
		require.NoError(t, err)
		require.Equal(t, s.Len(), got.Len(), "trial %d: the file lost memories whose save returned nil", trial)
		for w := range writers {
			_, ok := got.Get(fmt.Sprintf("w%d", w))
			require.True(t, ok, "trial %d: memory w%d", trial, w)
		}
	}
}

// savedBytes returns the file SaveFile writes for a small rich store.
func savedBytes(t testing.TB, n int) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mem.chitta")
	require.NoError(t, richStore(t, n, 6).SaveFile(path))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// loadBytes loads b through a file.
func loadBytes(t testing.TB, b []byte) (*chitta.HNSWStore, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mem.chitta")
	require.NoError(t, os.WriteFile(path, b, 0o600))
	return chitta.LoadHNSWStore(path)
}

// reseal recomputes the trailing checksum of a store file.
func reseal(b []byte) []byte {
	out := append([]byte(nil), b[:len(b)-4]...)
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, crc32.MakeTable(crc32.Castagnoli)))
}

func TestLoadHNSWStoreRejectsDamage(t *testing.T) {
	t.Parallel()
	good := savedBytes(t, 9)
	_, err := loadBytes(t, good)
	require.NoError(t, err, "precondition: the undamaged file loads")

	header := func(f func(b []byte)) []byte {
		b := append([]byte(nil), good...)
		f(b)
		return reseal(b)
	}
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, chitta.ErrCorruptStore},
		{"magic only", []byte("CHITTAMS"), chitta.ErrCorruptStore},
		{"short garbage", []byte("hello"), chitta.ErrUnsupportedVersion},
		{"wrong magic", header(func(b []byte) { copy(b, "NOTCHITT") }), chitta.ErrUnsupportedVersion},
		{"wrong version", header(func(b []byte) { binary.LittleEndian.PutUint32(b[8:], 2) }), chitta.ErrUnsupportedVersion},
		{"zero dims", header(func(b []byte) { binary.LittleEndian.PutUint32(b[12:], 0) }), chitta.ErrCorruptStore},
		{"huge dims", header(func(b []byte) { binary.LittleEndian.PutUint32(b[12:], 1<<30) }), chitta.ErrCorruptStore},
		{"huge count", header(func(b []byte) { binary.LittleEndian.PutUint64(b[16:], 1<<62) }), chitta.ErrCorruptStore},
		{"count one short", header(func(b []byte) { binary.LittleEndian.PutUint64(b[16:], 8) }), chitta.ErrCorruptStore},
		{"count one more", header(func(b []byte) { binary.LittleEndian.PutUint64(b[16:], 10) }), chitta.ErrCorruptStore},
		{"huge string length", header(func(b []byte) { copy(b[24:], []byte{0xff, 0xff, 0xff, 0xff, 0x0f}) }), chitta.ErrCorruptStore},
		{"bad checksum", append(append([]byte(nil), good[:len(good)-1]...), good[len(good)-1]^1), chitta.ErrCorruptStore},
		{"trailing byte", reseal(append(append([]byte(nil), good[:len(good)-4]...), 0, 0, 0, 0, 0)), chitta.ErrCorruptStore},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := loadBytes(t, tt.data)
			require.ErrorIs(t, err, tt.want)
			assert.Nil(t, s)
		})
	}
	t.Run("every truncation", func(t *testing.T) {
		t.Parallel()
		for n := range len(good) {
			s, err := loadBytes(t, good[:n])
			require.ErrorIs(t, err, chitta.ErrCorruptStore, "truncated to %d bytes", n)
			require.Nil(t, s)
		}
	})
	t.Run("random byte flips", func(t *testing.T) {
		t.Parallel()
		rng := rand.New(rand.NewPCG(1, 2))
		for range 300 {
			b := append([]byte(nil), good...)
			b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
			s, err := loadBytes(t, b)
			require.Error(t, err)
			require.Nil(t, s)
			requireLoadError(t, err)
		}
	})
}

func FuzzLoadHNSWStore(f *testing.F) {
	good := savedBytes(f, 5)
	f.Add(good, uint32(0), byte(0))
	f.Add(good, uint32(30), byte(0x80))
	f.Add(good, uint32(len(good)-1), byte(1))
	f.Add(good[:40], uint32(3), byte(7))
	f.Add([]byte("CHITTAMS\x01\x00\x00\x00"), uint32(0), byte(0))
	// One directory per fuzzing process, its files overwritten by every
	// input: a directory per input, and two fsyncing saves per loadable
	// one, held this target to a few executions per second. The in-memory
	// round trip of whatever decodes is FuzzDecodeStore's (internal) job.
	dir := f.TempDir()
	path, saved := filepath.Join(dir, "mem.chitta"), filepath.Join(dir, "saved.chitta")
	f.Fuzz(func(t *testing.T, data []byte, off uint32, x byte) {
		b := append([]byte(nil), data...)
		if len(b) > 0 {
			b[int(off)%len(b)] ^= x
		}
		require.NoError(t, os.WriteFile(path, b, 0o600))
		s, err := chitta.LoadHNSWStore(path)
		if err != nil {
			assert.Nil(t, s)
			requireLoadError(t, err)
			return
		}
		// Whatever loads saves and loads again whole.
		require.NoError(t, s.SaveFile(saved))
		again, err := chitta.LoadHNSWStore(saved)
		require.NoError(t, err)
		assert.Equal(t, s.Len(), again.Len())
		if bytes.Equal(b, good) {
			a, err := os.ReadFile(saved)
			require.NoError(t, err)
			assert.Equal(t, good, a, "a file SaveFile wrote saves back byte for byte")
		}
		if bytes.Equal(data, good) && x != 0 {
			t.Fatalf("a flipped byte at %d passed the checksum", int(off)%len(b))
		}
	})
}

// requireLoadError fails t unless err wraps one of the two load sentinels.
func requireLoadError(t *testing.T, err error) {
	t.Helper()
	require.True(t, errors.Is(err, chitta.ErrCorruptStore) || errors.Is(err, chitta.ErrUnsupportedVersion), "got %v", err)
}

// crashEnv makes the test binary act as a child that saves in a loop.
const crashEnv = "CHITTA_STORE_CRASH_CHILD"

// TestHNSWStoreSaveSurvivesKill re-executes the test binary as a child that
// saves two alternating versions of a large store to one path as fast as
// it can, SIGKILLs it mid-save, and checks that the file still loads as one
// of the two versions.
func TestHNSWStoreSaveSurvivesKill(t *testing.T) {
	if path := os.Getenv(crashEnv); path != "" {
		crashChild(t, path)
		return
	}
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	t.Parallel()
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	path := filepath.Join(dir, "mem.chitta")
	rng := rand.New(rand.NewPCG(3, 4))
	const rounds = 3
	stale := 0
	for round := range rounds {
		cmd := exec.CommandContext(t.Context(), exe, "-test.run=^TestHNSWStoreSaveSurvivesKill$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashEnv+"="+path)
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		// The child prints a line after each complete save. Wait for the
		// first, time the second, then kill at a random point of a save.
		lines := bufio.NewScanner(out)
		require.True(t, lines.Scan() && lines.Text() == "saved", "child saved once: %q", lines.Text())
		began := time.Now()
		require.True(t, lines.Scan() && lines.Text() == "saved", "child saved twice: %q", lines.Text())
		perSave := time.Since(began)
		time.Sleep(time.Duration(rng.Int64N(int64(perSave))))
		require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
		_ = cmd.Wait()

		temps, err := filepath.Glob(filepath.Join(dir, ".mem.chitta.tmp-*"))
		require.NoError(t, err)
		stale += len(temps)
		for _, tmp := range temps {
			require.NoError(t, os.Remove(tmp))
		}
		s, err := chitta.LoadHNSWStore(path)
		require.NoError(t, err, "round %d: the file must survive a kill", round)
		assert.Contains(t, []int{crashN, crashN + 1}, s.Len(), "round %d: one whole version", round)
	}
	// Nearly all of the child's time is spent inside SaveFile, between
	// creating its temp file and renaming it: some kill must land there.
	assert.Positive(t, stale, "no kill interrupted a save")
}

const crashN = 8000

func crashChild(t *testing.T, path string) {
	ctx := t.Context()
	s := newStore(t, 64, nil)
	vecs := synth.Uniform(8, crashN+1, 64)
	for i, v := range vecs[:crashN] {
		require.NoError(t, s.Add(ctx, chitta.Memory{ID: strconv.Itoa(i), Text: "some remembered text of moderate length", Vector: v}))
	}
	for i := 0; ; i++ {
		if i%2 == 1 {
			require.NoError(t, s.Add(ctx, chitta.Memory{ID: "extra", Vector: vecs[crashN]}))
		} else if _, ok := s.Get("extra"); ok {
			require.NoError(t, s.Delete("extra"))
		}
		require.NoError(t, s.SaveFile(path))
		fmt.Println("saved")
	}
}

func TestLoadHNSWStoreNormalisesForeignVectors(t *testing.T) {
	t.Parallel()
	good := savedBytes(t, 1)
	// The single record's vector is the last 6 float32s before the CRC.
	b := append([]byte(nil), good...)
	vec := b[len(b)-4-6*4 : len(b)-4]
	for j := range 6 {
		x := math.Float32frombits(binary.LittleEndian.Uint32(vec[4*j:]))
		binary.LittleEndian.PutUint32(vec[4*j:], math.Float32bits(3*x))
	}
	s, err := loadBytes(t, reseal(b))
	require.NoError(t, err)
	m, ok := s.Get("id-0-ß")
	require.True(t, ok)
	var norm float64
	for _, x := range m.Vector {
		norm += float64(x) * float64(x)
	}
	assert.InDelta(t, 1, norm, 1e-6, "a scaled vector is normalised on load")
}
