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

// maskBenchCuts returns the prefixes and queries the masking evaluation
// compacts: before every gold action of the shared tau-bench runs (307),
// or at every cut of the shared Claude Code sessions (15).
func maskBenchCuts(b *testing.B, data string) ([][]chitta.Message, []string) {
	var prefixes [][]chitta.Message
	var queries []string
	switch data {
	case "tau":
		dir, ok := shareddata.Dir("agent-trajectories")
		if !ok {
			b.Skip("no shared/data/agent-trajectories")
		}
		names, err := filepath.Glob(filepath.Join(dir, "tau", "*.json"))
		if err != nil {
			b.Fatal(err)
		}
		slices.Sort(names)
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
	case "claude":
		dir, ok := shareddata.Dir("claude-transcripts")
		if !ok {
			b.Skip("no shared/data/claude-transcripts")
		}
		sessions, err := LoadClaudeDir(dir)
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range sessions {
			for _, c := range s.Cuts(nil) {
				prefixes = append(prefixes, s.Messages[:c.Index])
				queries = append(queries, c.Query)
			}
		}
	}
	return prefixes, queries
}

// BenchmarkMask compacts the masking evaluation's cuts of the shared data
// at ratio 0.3 with the embedding cache warm, as the retention program
// does; ns/cut is per compaction. "mask=off" is the baseline of the
// family, "mask=on" adds chitta.Options.Mask (defaults, no MaskCache).
// "interleaved" alternates the two on every cut and reports on/off, the
// ratio of their summed CPU times on this thread: drift in the machine's
// load falls on both alike, and other processes' time is not counted.
// "interleaved-warm" does the same with a chitta.MaskCache shared by the
// masked calls, which go through the cuts in order, as an agent loop
// would: each cut finds the messages of the previous cut of the same run
// cached (the first cut of a run, and every message new since the
// previous cut, are scanned cold). It needs the shared data
// (../shared/data) and skips without it.
func BenchmarkMask(b *testing.B) {
	for _, data := range []string{"tau", "claude"} {
		b.Run("data="+data, func(b *testing.B) {
			prefixes, queries := maskBenchCuts(b, data)
			emb := chitta.NewCachedEmbedder(chitta.NewHashEmbedder(0), 1<<16)
			compact := func(ctx context.Context, k int, mask *chitta.MaskOptions) {
				if _, err := chitta.Compact(ctx, prefixes[k], &chitta.Options{Query: queries[k], TargetRatio: 0.3, Embedder: emb, Mask: mask}); err != nil {
					b.Fatal(err)
				}
			}
			cache := chitta.NewMaskCache()
			for k := range prefixes {
				compact(b.Context(), k, nil) // warm the embedding cache
				compact(b.Context(), k, &chitta.MaskOptions{Cache: cache})
			}
			for _, warm := range []bool{false, true} {
				name := "interleaved"
				if warm {
					name = "interleaved-warm"
				}
				b.Run(name, func(b *testing.B) {
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					ctx := b.Context()
					var off, on time.Duration
					for b.Loop() {
						for k := range prefixes {
							for j := range 2 {
								mask := (*chitta.MaskOptions)(nil)
								if (j+k)%2 == 1 {
									mask = &chitta.MaskOptions{}
									if warm {
										mask.Cache = cache
									}
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
			}
			for _, mask := range []*chitta.MaskOptions{nil, {}} {
				name := "mask=off"
				if mask != nil {
					name = "mask=on"
				}
				b.Run(name, func(b *testing.B) {
					ctx := b.Context()
					b.ReportAllocs()
					for b.Loop() {
						for k := range prefixes {
							compact(ctx, k, mask)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(prefixes)), "ns/cut")
				})
			}
		})
	}
}
