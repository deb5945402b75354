package chitta_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/chittatest"
)

// growingTurns returns a conversation of base turns plus 10 slots and a
// function that fills the 10 slots with turns never seen before.
func growingTurns(base int) (msgs []chitta.Message, refill func()) {
	turns := chitta.SynthTurns(42, base)
	fresh := chitta.SynthTurns(43, 10)
	roles := []chitta.Role{chitta.RoleUser, chitta.RoleAssistant}
	msgs = make([]chitta.Message, base+10)
	for i, s := range turns {
		msgs[i] = chitta.Message{Role: roles[i%2], Content: s}
	}
	iter := 0
	refill = func() {
		iter++
		for k, s := range fresh {
			msgs[base+k] = chitta.Message{Role: roles[k%2], Content: fmt.Sprintf("%s (turn %d)", s, iter)}
		}
	}
	refill()
	return msgs, refill
}

// BenchmarkRecompactStore is the agent loop against a large memory: 600
// turns plus 10 new ones, compacted with coverage from 100 000 memories
// (384 d, the HashEmbedder behind a CachedEmbedder). "first" is a first
// compaction (fresh caches: everything embedded and every message's
// coverage computed); "first/embedded" has the embedding cached but no
// CoverageCache (what every re-compaction cost before the cache);
// "recompact" has both caches warm and 10 new turns per iteration, so only
// their embedding and coverage are computed.
func BenchmarkRecompactStore(b *testing.B) {
	store := fixtures[100000]().store
	msgs, refill := growingTurns(600)
	const query = "why does parseConfig fail on the HTTPServer config"
	run := func(name string, fresh bool, covCache bool) {
		b.Run(name, func(b *testing.B) {
			newOpts := func() *chitta.Options {
				o := &chitta.Options{Query: query, Store: store, Tokens: chitta.NewCachedTokenCounter(nil, 0),
					Embedder: chitta.NewCachedEmbedder(chitta.NewHashEmbedder(benchDims), 0)}
				if covCache {
					o.CoverageCache = chitta.NewCoverageCache()
				}
				return o
			}
			var renew func() *chitta.Options
			if fresh {
				renew = newOpts
			}
			recompactLoop(b, msgs, refill, newOpts(), renew)
		})
	}
	run("msgs=600+10/memories=100000/first", true, true)
	run("msgs=600+10/memories=100000/first/embedded", false, false)
	run("msgs=600+10/memories=100000/recompact", false, true)
}

// BenchmarkRecompactLarge re-compacts a 6 000-turn conversation grown by 10
// new turns, without a store: "default" uses a CachedEmbedder and a
// CachedTokenCounter created with the default capacity (4 096, which they
// grow to the conversation), "sized" the same with a capacity of 8 192
// given explicitly (the baseline).
func BenchmarkRecompactLarge(b *testing.B) {
	msgs, refill := growingTurns(6000)
	const query = "why does parseConfig fail on the HTTPServer config"
	for _, c := range []struct {
		name     string
		capacity int
	}{{"default", 0}, {"sized", 8192}} {
		b.Run("msgs=6000+10/cache="+c.name, func(b *testing.B) {
			opts := &chitta.Options{Query: query, Tokens: chitta.NewCachedTokenCounter(nil, c.capacity),
				Embedder: chitta.NewCachedEmbedder(chitta.NewHashEmbedder(0), c.capacity)}
			recompactLoop(b, msgs, refill, opts, nil)
		})
	}
}

// recompactLoop compacts msgs once with opts (warm-up), then once per
// iteration after refill (and, if renew is set, with fresh options from
// it), timing only Compact.
func recompactLoop(b *testing.B, msgs []chitta.Message, refill func(), opts *chitta.Options, renew func() *chitta.Options) {
	ctx := b.Context()
	if _, err := chitta.Compact(ctx, msgs, opts); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		refill()
		if renew != nil {
			opts = renew()
		}
		b.StartTimer()
		res, err := chitta.Compact(ctx, msgs, opts)
		if err != nil || !res.Stats.Embedding {
			b.Fatal(err, res.Stats.Embedding)
		}
	}
}

// recallOnly hides every optional interface of a store but BatchRecaller:
// coverage the way Compact computed it before CoverageRecaller (top 3
// Memory copies per message, filtered afterwards).
type recallOnly struct{ s *chitta.HNSWStore }

func (r recallOnly) Recall(ctx context.Context, v []float32, k int) ([]chitta.Hit, error) {
	return r.s.Recall(ctx, v, k)
}
func (r recallOnly) Add(ctx context.Context, m chitta.Memory) error { return r.s.Add(ctx, m) }
func (r recallOnly) RecallBatch(ctx context.Context, vs [][]float32, k int) ([][]chitta.Hit, error) {
	return r.s.RecallBatch(ctx, vs, k)
}

// BenchmarkCompactHeap reports the bytes Compact allocates per message for
// a 100 000-message request (384-d vectors from chittatest.SeededEmbedder) with
// no store (baseline), with a 1 000-memory HNSWStore through
// BestSimilarities (what Compact uses), and with the same store seen only
// as a BatchRecaller (the path before it).
func BenchmarkCompactHeap(b *testing.B) {
	const n = 100000
	msgs := benchConversation(n)
	store := fixtures[1000]().store
	for _, c := range []struct {
		name  string
		store chitta.MemoryStore
	}{{"store=none", nil}, {"store=best-similarities", store}, {"store=recall-batch", recallOnly{store}}} {
		b.Run(fmt.Sprintf("msgs=%d/%s", n, c.name), func(b *testing.B) {
			opts := &chitta.Options{Query: "why did parseConfig fail", Embedder: chittatest.SeededEmbedder{Dims: benchDims}, Store: c.store}
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				if _, err := chitta.Compact(b.Context(), msgs, opts); err != nil {
					b.Fatal(err)
				}
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/n, "B/msg")
		})
	}
}
