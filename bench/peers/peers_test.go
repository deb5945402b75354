// Package peers benchmarks chitta's HNSWStore against other ways of
// answering the same exact nearest-neighbour queries, in one run: a plain
// Go loop, chromem-go (an embeddable Go vector store that scans every
// document), and the time it takes to copy the float32 vectors once. It is
// a separate module so that chromem-go never enters chitta's go.mod.
package peers

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/philippgille/chromem-go"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/internal/scan"
	"github.com/chitta-go/chitta/internal/testkit/synth"
	"github.com/chitta-go/chitta/internal/vecmath"
)

const (
	dims    = 384
	n       = 100000
	queries = 100
	batch   = 60 // a Compact's coverage queries
)

// data is the shared fixture: n clustered vectors, queries from the same
// distribution, their exact top 3 by float64 cosine, and the stores.
type data struct {
	vecs    [][]float32
	flat    []float32
	queries [][]float32
	want    [][]int
	store   *chitta.HNSWStore
	chromem *chromem.Collection
}

var fixture = sync.OnceValue(func() *data {
	ctx := context.Background()
	vecs, draw := synth.Clustered(synth.Spec{Seed: 42}, n)
	d := &data{vecs: vecs, flat: slices.Concat(vecs...)}
	for range queries {
		q := draw()
		d.queries = append(d.queries, q)
		d.want = append(d.want, plainLoop(vecs, q, 3))
	}
	s, err := chitta.NewHNSWStore(dims, nil)
	if err != nil {
		panic(err)
	}
	docs := make([]chromem.Document, n)
	for i, v := range vecs {
		if err := s.Add(ctx, chitta.Memory{ID: fmt.Sprint(i), Text: "m", Vector: v}); err != nil {
			panic(err)
		}
		docs[i] = chromem.Document{ID: fmt.Sprint(i), Embedding: v, Content: "m"}
	}
	d.store = s
	noEmbed := func(context.Context, string) ([]float32, error) { panic("no embedding in a benchmark") }
	c, err := chromem.NewDB().CreateCollection("bench", nil, noEmbed)
	if err != nil {
		panic(err)
	}
	if err := c.AddDocuments(ctx, docs, runtime.GOMAXPROCS(0)); err != nil {
		panic(err)
	}
	d.chromem = c
	return d
})

// plainLoop is the exact search a straightforward program would write:
// the float64 cosine of every vector, then the best k.
func plainLoop(vecs [][]float32, q []float32, k int) []int {
	type scored struct {
		i int
		s float64
	}
	best := make([]scored, 0, k+1)
	for i, v := range vecs {
		s := vecmath.Cosine64(q, v)
		if len(best) == k && s <= best[k-1].s {
			continue
		}
		best = append(best, scored{i, s})
		slices.SortFunc(best, func(a, b scored) int { return cmp.Compare(b.s, a.s) })
		best = best[:min(k, len(best))]
	}
	out := make([]int, len(best))
	for j, b := range best {
		out[j] = b.i
	}
	return out
}

// measure runs search over the queries in turn, reporting recall@3
// against the exact answer and the median time of one search (p50-ns).
func measure(b *testing.B, d *data, search func(q []float32) []int) {
	b.ReportAllocs()
	hits, i := 0, 0
	var times []time.Duration
	for b.Loop() {
		q := i % queries
		t0 := time.Now()
		got := search(d.queries[q])
		times = append(times, time.Since(t0))
		for _, id := range got {
			if slices.Contains(d.want[q], id) {
				hits++
			}
		}
		i++
	}
	sort.Slice(times, func(a, c int) bool { return times[a] < times[c] })
	b.ReportMetric(float64(hits)/float64(3*i), "recall@3")
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "p50-ns")
}

func atoiAll(ids []string) []int {
	out := make([]int, len(ids))
	for i, s := range ids {
		fmt.Sscan(s, &out[i])
	}
	return out
}

// BenchmarkRecall answers k = 3 queries over 100 000 clustered 384-d
// vectors: chitta's HNSWStore.Recall (int8 scan, exact re-rank),
// chromem-go's QueryEmbedding, a plain Go loop, and, as the floor of any
// float32 scan, copying the float32 vectors once (copy-vectors).
func BenchmarkRecall(b *testing.B) {
	d := fixture()
	ctx := context.Background()
	b.Run(fmt.Sprintf("n=%d/copy-vectors", n), func(b *testing.B) {
		dst := make([]float32, len(d.flat))
		b.ReportAllocs()
		for b.Loop() {
			copy(dst, d.flat)
		}
	})
	b.Run(fmt.Sprintf("n=%d/chitta", n), func(b *testing.B) {
		measure(b, d, func(q []float32) []int {
			hits, err := d.store.Recall(ctx, q, 3)
			if err != nil {
				b.Fatal(err)
			}
			ids := make([]string, len(hits))
			for i, h := range hits {
				ids[i] = h.ID
			}
			return atoiAll(ids)
		})
	})
	b.Run(fmt.Sprintf("n=%d/chromem-go", n), func(b *testing.B) {
		measure(b, d, func(q []float32) []int {
			res, err := d.chromem.QueryEmbedding(ctx, q, 3, nil, nil)
			if err != nil {
				b.Fatal(err)
			}
			ids := make([]string, len(res))
			for i, r := range res {
				ids[i] = r.ID
			}
			return atoiAll(ids)
		})
	})
	b.Run(fmt.Sprintf("n=%d/plain-loop", n), func(b *testing.B) {
		measure(b, d, func(q []float32) []int { return plainLoop(d.vecs, q, 3) })
	})
}

// BenchmarkRecallBatch answers 60 queries (a Compact's coverage batch) at
// once: HNSWStore.RecallBatch and chromem-go queried 60 times; flop-roof
// does the same 2·60·100 000·384 float32 FLOPs with the register-blocked
// AVX2 FMA kernel of internal/scan on rows that stay in cache, on every
// core: the compute floor of a float32 batch on this machine, measured in
// the same run.
func BenchmarkRecallBatch(b *testing.B) {
	d := fixture()
	ctx := context.Background()
	qs := d.queries[:batch]
	b.Run(fmt.Sprintf("n=%d/queries=%d/chitta", n, batch), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := d.store.RecallBatch(ctx, qs, 3); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(fmt.Sprintf("n=%d/queries=%d/chromem-go", n, batch), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, q := range qs {
				if _, err := d.chromem.QueryEmbedding(ctx, q, 3, nil, nil); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run(fmt.Sprintf("n=%d/queries=%d/flop-roof", n, batch), func(b *testing.B) {
		const block = 4096 // rows per kernel call: 1.5 MiB, stays in L2
		flatQ := slices.Concat(qs...)
		rows := d.flat[:block*dims]
		workers := runtime.GOMAXPROCS(0)
		calls := (n + block - 1) / block
		b.ReportAllocs()
		for b.Loop() {
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					dst := make([]float32, block*batch)
					for c := w; c < calls; c += workers {
						m := min(block, n-c*block) // exactly n rows in all
						scan.Dots(dst, flatQ, rows[:m*dims], dims)
					}
				})
			}
			wg.Wait()
		}
	})
}
