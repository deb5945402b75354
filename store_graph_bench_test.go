//go:build !windows

package chitta_test

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/coder/hnsw"

	"github.com/chitta-go/chitta/internal/testkit/synth"
)

// BenchmarkHNSWRecallQuality reproduces the measurements of the
// pinned coder/hnsw used directly: how often searching for a vector that
// is stored finds it (10 000 random 384-d vectors, EfSearch 64), and
// recall@3 / top-1 against the exact answer on 20 000 clustered 384-d
// vectors at M 16 / EfSearch 64 and M 32 / EfSearch 200. ns/op is one
// search.
func BenchmarkHNSWRecallQuality(b *testing.B) {
	b.Run("self/random-n=10000-M=16-ef=64", func(b *testing.B) {
		vecs := synth.Uniform(2, 10000, benchDims)
		g := coderGraph(vecs, 16, 64)
		for _, k := range []int{1, 10, 50} {
			b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
				found, i := 0, 0
				for b.Loop() {
					j := i % 1000
					for _, nd := range g.Search(vecs[j], k) {
						if nd.Key == int32(j) {
							found++
						}
					}
					i++
				}
				b.ReportMetric(float64(found)/float64(i), "self-recall")
			})
		}
	})
	f := fixtures[20000]()
	for _, c := range [][2]int{{16, 64}, {32, 200}} {
		b.Run(fmt.Sprintf("clustered-n=20000-M=%d-ef=%d", c[0], c[1]), func(b *testing.B) {
			g := coderGraph(f.vecs, c[0], c[1])
			hits, top1, i := 0, 0, 0
			for b.Loop() {
				q := i % benchQueries
				var got []string
				for _, nd := range g.Search(f.queries[q], 3) {
					got = append(got, benchID(int(nd.Key)))
				}
				hits += overlap(f.want[q], got)
				if slices.Contains(got, f.want[q][0]) {
					top1++
				}
				i++
			}
			b.ReportMetric(float64(hits)/float64(3*i), "recall@3")
			b.ReportMetric(float64(top1)/float64(i), "top1")
		})
	}
}

// coderGraph builds a coder/hnsw graph the way its README suggests, with a
// fixed seed; EfSearch is used for construction and search alike.
func coderGraph(vecs [][]float32, m, ef int) *hnsw.Graph[int32] {
	g := hnsw.NewGraph[int32]()
	g.M, g.EfSearch = m, ef
	g.Rng = rand.New(rand.NewSource(1))
	for i, v := range vecs {
		g.Add(hnsw.MakeNode(int32(i), v))
	}
	return g
}
