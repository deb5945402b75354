package retention

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/internal/testkit/shareddata"
)

// maskBenchCuts returns the prefixes and queries the masking evaluation
// compacts: before every gold action of the shared tau-bench runs (307),
// or at every cut of the shared Claude Code sessions (15); runs[k] numbers
// the run or session cut k is from (cuts of a run are consecutive, in
// order). "tau" compacts at ratio 0.3 of the whole prefix, as the mask-tau
// rows (the ~1 400-token system prompt alone fills the budget, so the
// actions step does not run); "tau-outside" compacts the same cuts with
// the budget of the mask-tau-nonsystem rows, where the argument-recall
// figures are quoted: budgets[k] is floor(0.3 × the prefix's non-system
// tokens) plus its system prompt's (chitta.Options.MaxTokens); 0 elsewhere.
// A name ending in "-noraw" ("tau-outside-noraw", "claude-noraw") gives the
// cuts of the data set it names with every message's Raw nil, as the
// typed adapters build them (the Content, roles and IDs unchanged; the
// cuts of a run share their messages, as a loop's conversation does).
func maskBenchCuts(b testing.TB, data string) (prefixes [][]chitta.Message, queries []string, runs, budgets []int) {
	if base, ok := strings.CutSuffix(data, "-noraw"); ok {
		prefixes, queries, runs, budgets = maskBenchCuts(b, base)
		return withoutRaw(prefixes), queries, runs, budgets
	}
	switch data {
	case "tau", "tau-outside":
		dir := shareddata.ForTest(b, "agent-trajectories")
		names, err := filepath.Glob(filepath.Join(dir, "tau", "*.json"))
		if err != nil {
			b.Fatal(err)
		}
		slices.Sort(names)
		for n, name := range names {
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
				prefix := r.Messages[:c.Index]
				prefixes = append(prefixes, prefix)
				queries = append(queries, lastUser(prefix))
				runs = append(runs, n)
				budget := 0
				if data == "tau-outside" {
					sys, nonsys := 0, 0
					for _, m := range prefix {
						if m.Role.Pinned() {
							sys += chitta.EstimateTokens(m.Content)
						} else {
							nonsys += chitta.EstimateTokens(m.Content)
						}
					}
					budget = nonSystemBudget(0.3, sys, nonsys)
				}
				budgets = append(budgets, budget)
			}
		}
	case "claude":
		dir := shareddata.ForTest(b, "claude-transcripts")
		sessions, err := LoadClaudeDir(dir)
		if err != nil {
			b.Fatal(err)
		}
		for n, s := range sessions {
			for _, c := range s.Cuts(nil) {
				prefixes = append(prefixes, s.Messages[:c.Index])
				queries = append(queries, c.Query)
				runs = append(runs, n)
				budgets = append(budgets, 0)
			}
		}
	}
	return prefixes, queries, runs, budgets
}

// withoutRaw returns copies of prefixes whose messages have Raw nil; the
// copies of prefixes that share a message (the cuts of a run) share its
// copy.
func withoutRaw(prefixes [][]chitta.Message) [][]chitta.Message {
	copies := map[*chitta.Message]chitta.Message{}
	out := make([][]chitta.Message, len(prefixes))
	for k, p := range prefixes {
		out[k] = make([]chitta.Message, len(p))
		for i := range p {
			c, ok := copies[&p[i]]
			if !ok {
				c = p[i]
				c.Raw = nil
				copies[&p[i]] = c
			}
			out[k][i] = c
		}
	}
	return out
}

// The benchmark's one-shot and loop settings compute the same
// compactions: on every shared cut, compacted with masking off and on,
// in a cold one-shot setting (HashEmbedder, EstimateTokens, no MaskCache)
// and in an agent loop's (per run a CachedEmbedder, a CachedTokenCounter
// and a MaskCache, as chitta.NewCompactor sets, going through the run's
// cuts in order, twice: caches cold, then warm), every Result's Messages,
// Kept, Scores and Stats are equal.
func TestMaskLoopSameOutput(t *testing.T) {
	t.Parallel()
	for _, data := range []string{"tau", "tau-outside", "claude", "tau-outside-noraw", "claude-noraw"} {
		t.Run(data, func(t *testing.T) {
			t.Parallel()
			prefixes, queries, runs, budgets := maskBenchCuts(t, data)
			require.NotEmpty(t, prefixes)
			type caches struct {
				emb    *chitta.CachedEmbedder
				tokens *chitta.CachedTokenCounter
				mask   *chitta.MaskCache
			}
			loop := map[int]caches{}
			hits := uint64(0)
			for pass := range 2 {
				for k := range prefixes {
					c, ok := loop[runs[k]]
					if !ok {
						c = caches{chitta.NewCachedEmbedder(chitta.NewHashEmbedder(0), 0), chitta.NewCachedTokenCounter(nil, 0), chitta.NewMaskCache()}
						loop[runs[k]] = c
					}
					for _, masked := range []bool{false, true} {
						plain := chitta.Options{Query: queries[k], TargetRatio: 0.3, MaxTokens: budgets[k], Embedder: chitta.NewHashEmbedder(0)}
						cached := chitta.Options{Query: queries[k], TargetRatio: 0.3, MaxTokens: budgets[k], Embedder: c.emb, Tokens: c.tokens}
						if masked {
							plain.Mask, cached.Mask = &chitta.MaskOptions{}, &chitta.MaskOptions{Cache: c.mask}
						}
						want, err := chitta.Compact(t.Context(), prefixes[k], &plain)
						require.NoError(t, err)
						got, err := chitta.Compact(t.Context(), prefixes[k], &cached)
						require.NoError(t, err)
						at := fmt.Sprintf("pass %d, cut %d, masked %v", pass, k, masked)
						require.Equal(t, want.Kept, got.Kept, at)
						require.Equal(t, want.Scores, got.Scores, at)
						require.Equal(t, want.Stats, got.Stats, at)
						require.Equal(t, want.Messages, got.Messages, at)
					}
				}
			}
			for _, c := range loop {
				hits += c.mask.Stats().Hits
			}
			require.Positive(t, hits, "the warm pass reads cached messages")
		})
	}
}

// BenchmarkMask compacts the masking evaluation's cuts of the shared data
// (see maskBenchCuts: tau, tau-outside, claude, and tau-outside-noraw and
// claude-noraw, their messages without Raw) at ratio 0.3 with masking
// off (the baseline) and on (MaskOptions defaults). Every interleaved-* arm alternates the two on every cut and
// reports on/off, the ratio of their summed CPU times on this thread:
// drift in the machine's load falls on both alike, and other processes'
// time is not counted. The arms differ in the caches each side has:
//
//   - oneshot: both cold, as in a one-shot call (the PreCompact hook, the
//     MCP one-shot mode: a fresh process): the plain HashEmbedder,
//     EstimateTokens, no MaskCache.
//   - loop: both warm, as in an agent loop whose Compactor compacts the
//     same session again and again: per session and per side, what
//     chitta.NewCompactor sets (a CachedEmbedder, a CachedTokenCounter, and
//     for the masked side a MaskCache), all warmed by a first pass over
//     the cuts. A real loop also meets the messages new since its last
//     compaction cold; this is the steady state.
//   - interleaved (the first arm measured): one CachedEmbedder, warm,
//     shared by both sides; EstimateTokens uncached; no MaskCache. Masking
//     cold against an embedding-warm baseline, a mix no caller has.
//   - interleaved-warm: the same with one MaskCache for the masked side,
//     warm, but token counts still uncached on both sides.
//
// mask=off and mask=on time the interleaved setting's sides separately
// (wall time, allocations). It needs the shared data (../shared/data) and
// skips without it.
func BenchmarkMask(b *testing.B) {
	for _, data := range []string{"tau", "tau-outside", "claude", "tau-outside-noraw", "claude-noraw"} {
		b.Run("data="+data, func(b *testing.B) {
			prefixes, queries, runs, budgets := maskBenchCuts(b, data)
			compact := func(ctx context.Context, k int, o chitta.Options) {
				o.Query, o.TargetRatio, o.MaxTokens = queries[k], 0.3, budgets[k]
				if _, err := chitta.Compact(ctx, prefixes[k], &o); err != nil {
					b.Fatal(err)
				}
			}
			shared := chitta.NewCachedEmbedder(chitta.NewHashEmbedder(0), 1<<16)
			sharedMask := chitta.NewMaskCache()
			type loopSide struct {
				emb    *chitta.CachedEmbedder
				tokens *chitta.CachedTokenCounter
				mask   *chitta.MaskCache
			}
			loop := map[[2]int]loopSide{} // by run and side
			// sides returns the options of the unmasked and the masked
			// side of cut k in the named arm.
			sides := func(arm string, k int) [2]chitta.Options {
				switch arm {
				case "oneshot":
					hash := chitta.NewHashEmbedder(0)
					return [2]chitta.Options{{Embedder: hash}, {Embedder: hash, Mask: &chitta.MaskOptions{}}}
				case "loop":
					var out [2]chitta.Options
					for side := range 2 {
						s, ok := loop[[2]int{runs[k], side}]
						if !ok {
							s = loopSide{chitta.NewCachedEmbedder(chitta.NewHashEmbedder(0), 0), chitta.NewCachedTokenCounter(nil, 0), chitta.NewMaskCache()}
							loop[[2]int{runs[k], side}] = s
						}
						out[side] = chitta.Options{Embedder: s.emb, Tokens: s.tokens}
						if side == 1 {
							out[side].Mask = &chitta.MaskOptions{Cache: s.mask}
						}
					}
					return out
				case "interleaved-warm":
					return [2]chitta.Options{{Embedder: shared}, {Embedder: shared, Mask: &chitta.MaskOptions{Cache: sharedMask}}}
				}
				return [2]chitta.Options{{Embedder: shared}, {Embedder: shared, Mask: &chitta.MaskOptions{}}}
			}
			arms := []string{"oneshot", "loop", "interleaved", "interleaved-warm"}
			for k := range prefixes { // warm every arm's caches
				for _, arm := range arms {
					for _, o := range sides(arm, k) {
						compact(b.Context(), k, o)
					}
				}
			}
			for _, arm := range arms {
				b.Run(arm, func(b *testing.B) {
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					ctx := b.Context()
					var took [2]time.Duration // off, on
					for b.Loop() {
						for k := range prefixes {
							opts := sides(arm, k)
							for j := range 2 {
								side := (j + k) % 2
								start := threadTime()
								compact(ctx, k, opts[side])
								took[side] += threadTime() - start
							}
						}
					}
					b.ReportMetric(float64(took[1])/float64(took[0]), "on/off")
				})
			}
			for side, name := range []string{"mask=off", "mask=on"} {
				b.Run(name, func(b *testing.B) {
					ctx := b.Context()
					b.ReportAllocs()
					for b.Loop() {
						for k := range prefixes {
							compact(ctx, k, sides("interleaved", k)[side])
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(prefixes)), "ns/cut")
				})
			}
		})
	}
}
