package retention

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/shareddata"
)

// BenchmarkMaskTau compacts the prefix before every gold action of the
// shared tau-bench runs (307 cuts) at ratio 0.3, with the embedding cache
// warm as in the retention program; ns/op is per cut. "mask=off" is the
// baseline of the family, "mask=on" adds chitta.Options.Mask (defaults).
// The cache is warmed by the first sub-benchmark, "interleaved".
// It needs the shared data (../shared/data) and skips without it.
func BenchmarkMaskTau(b *testing.B) {
	dir, ok := shareddata.Dir("agent-trajectories")
	if !ok {
		b.Skip("no shared/data/agent-trajectories")
	}
	names, err := filepath.Glob(filepath.Join(dir, "tau", "*.json"))
	if err != nil {
		b.Fatal(err)
	}
	slices.Sort(names)
	var prefixes [][]chitta.Message
	var queries []string
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			b.Fatal(err)
		}
		r, err := LoadTau(filepath.Base(name), f)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		cuts, _ := r.Cuts()
		for _, c := range cuts {
			prefixes = append(prefixes, r.Messages[:c.Index])
			queries = append(queries, lastUser(r.Messages[:c.Index]))
		}
	}
	emb := chitta.NewCachedEmbedder(chitta.NewHashEmbedder(0), 1<<16)
	compact := func(ctx context.Context, k int, mask *chitta.MaskOptions) {
		if _, err := chitta.Compact(ctx, prefixes[k], &chitta.Options{Query: queries[k], TargetRatio: 0.3, Embedder: emb, Mask: mask}); err != nil {
			b.Fatal(err)
		}
	}
	// "interleaved" alternates the two on every cut and reports on/off,
	// the ratio of their summed CPU times on this thread: drift in the
	// machine's load falls on both alike, and other processes' time is not
	// counted.
	b.Run("interleaved", func(b *testing.B) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		ctx := b.Context()
		for k := range prefixes {
			compact(ctx, k, nil) // warm the cache
		}
		var off, on time.Duration
		for b.Loop() {
			for k := range prefixes {
				for j := range 2 {
					mask := (*chitta.MaskOptions)(nil)
					if (j+k)%2 == 1 {
						mask = &chitta.MaskOptions{}
					}
					start := threadTime()
					compact(ctx, k, mask)
					if d := threadTime() - start; mask == nil {
						off += d
					} else {
						on += d
					}
				}
			}
		}
		b.ReportMetric(float64(on)/float64(off), "on/off")
	})
	for _, mask := range []*chitta.MaskOptions{nil, {}} {
		name := "mask=off"
		if mask != nil {
			name = "mask=on"
		}
		b.Run(name, func(b *testing.B) {
			ctx := b.Context()
			compactAll := func() {
				for k := range prefixes {
					compact(ctx, k, mask)
				}
			}
			compactAll() // warm the cache
			b.ReportAllocs()
			for b.Loop() {
				compactAll()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(prefixes)), "ns/cut")
		})
	}
}
