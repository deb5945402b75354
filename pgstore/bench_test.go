package pgstore

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/internal/testkit/synth"
)

// benchDims is the vector length of the store benchmarks (a MiniLM/BGE-
// small sized embedding).
const benchDims = 384

// benchSizes are the store sizes of BenchmarkStores; CHITTA_PG_BENCH_SIZES
// (comma-separated) overrides them.
func benchSizes(b *testing.B) []int {
	env := os.Getenv("CHITTA_PG_BENCH_SIZES")
	if env == "" {
		return []int{10000, 100000}
	}
	var out []int
	for _, f := range strings.Split(env, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 100 {
			b.Fatalf("CHITTA_PG_BENCH_SIZES: %q, want sizes >= 100", f)
		}
		out = append(out, n)
	}
	return out
}

// benchFixture is one clustered data set loaded into both stores.
type benchFixture struct {
	ref     *chitta.HNSWStore
	pg      *Store
	queries [][]float32
	exact   [][]chitta.Hit // HNSWStore's exact top 3 per query
}

// loadFixture fills an HNSWStore and a pgstore (1 000 memories per
// statement into a table without an index, then CREATE INDEX and ANALYZE)
// with n clustered memories; the load and build times go to stderr. The
// fixture's pgstore is opened on the indexed table with IndexHNSW.
func loadFixture(b *testing.B, n int) *benchFixture {
	b.Helper()
	ctx := b.Context()
	vecs, draw := synth.Clustered(synth.Spec{Seed: 1, Dims: benchDims}, n)
	ms := make([]chitta.Memory, n)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, v := range vecs {
		ms[i] = chitta.Memory{ID: fmt.Sprintf("m%06d", i), Text: fmt.Sprintf("memory %d", i), Kind: chitta.KindFact, Confidence: 1, Vector: v, CreatedAt: at}
	}
	ref, err := chitta.NewHNSWStore(benchDims, nil)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	for _, m := range ms {
		if err := ref.Add(ctx, m); err != nil {
			b.Fatal(err)
		}
	}
	fmt.Fprintf(os.Stderr, "n=%d: HNSWStore load %v (%.0f memories/s, one Add each)\n", n, time.Since(start).Round(time.Millisecond), float64(n)/time.Since(start).Seconds())
	// pgstore: load with no index (1 000 memories per statement), then
	// build the HNSW index once, as pgvector recommends for bulk loads.
	pg := openTest(b, Options{Dims: benchDims, Table: fmt.Sprintf("chitta_bench_%d", n), Index: IndexNone})
	start = time.Now()
	for lo := 0; lo < n; lo += 1000 {
		if err := pg.add(ctx, ms[lo:min(n, lo+1000)]); err != nil {
			b.Fatal(err)
		}
	}
	load := time.Since(start)
	fmt.Fprintf(os.Stderr, "n=%d: pgstore load %v (%.0f memories/s, 1 000 per statement, no index)\n",
		n, load.Round(time.Millisecond), float64(n)/load.Seconds())
	start = time.Now()
	if err := buildBenchIndex(ctx, pg); err != nil {
		b.Fatal(err)
	}
	build := time.Since(start)
	fmt.Fprintf(os.Stderr, "n=%d: pgstore CREATE INDEX hnsw %v; load + index %.0f memories/s\n",
		n, build.Round(time.Millisecond), float64(n)/(load+build).Seconds())
	// Queries go through a store opened on the indexed table with
	// IndexHNSW, as Options.Index's recipe says: the IndexNone store that
	// loaded it asks for exact answers, which no index can give.
	indexed, err := openConfig(ctx, pg.pool.Config(), Options{Dims: benchDims, Table: pg.opts.Table, Namespace: pg.opts.Namespace, Index: IndexHNSW})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { indexed.Close() })
	f := &benchFixture{ref: ref, pg: indexed}
	for range 200 {
		f.queries = append(f.queries, draw())
	}
	if f.exact, err = ref.RecallBatch(ctx, f.queries, 3); err != nil {
		b.Fatal(err)
	}
	return f
}

// BenchmarkStores compares pgstore on the test server with HNSWStore (in
// process, exact) at each size: Recall of 3 (ns/op and p50 of single
// queries), RecallBatch of 60 queries (one round trip), Add of one memory,
// and recall@3 against the exact answer at several hnsw.ef_search values.
// Run by hand (CHITTA_BENCH_PG=1 scripts/bench.sh, a fresh server per
// size): loading and indexing 100 000 memories in PGlite takes minutes.
func BenchmarkStores(b *testing.B) {
	testDSN(b)
	for _, n := range benchSizes(b) {
		f := loadFixture(b, n)
		stores := []struct {
			name string
			s    interface {
				chitta.MemoryStore
				chitta.BatchRecaller
			}
		}{{"hnswstore", f.ref}, {"pgstore", f.pg}}
		for _, st := range stores {
			b.Run(fmt.Sprintf("n=%d/store=%s/op=recall", n, st.name), func(b *testing.B) {
				b.ReportAllocs()
				var lat []time.Duration
				i := 0
				for b.Loop() {
					t0 := time.Now()
					if _, err := st.s.Recall(b.Context(), f.queries[i%len(f.queries)], 3); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(t0))
					i++
				}
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			})
			b.Run(fmt.Sprintf("n=%d/store=%s/op=recallbatch60", n, st.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := st.s.RecallBatch(b.Context(), f.queries[:60], 3); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(fmt.Sprintf("n=%d/store=%s/op=add", n, st.name), func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					m := chitta.Memory{ID: fmt.Sprintf("add-%d", i), Text: "added", Vector: f.queries[i%len(f.queries)]}
					if err := st.s.Add(b.Context(), m); err != nil {
						b.Fatal(err)
					}
					i++
				}
				b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "adds/s")
			})
		}
		// The added memories would change the exact answers: remove them.
		for _, st := range []interface {
			Delete(context.Context, string) error
		}{f.pg} {
			for i := 0; ; i++ {
				if err := st.Delete(b.Context(), fmt.Sprintf("add-%d", i)); err != nil {
					break
				}
			}
		}
		for i := 0; f.ref.Delete(fmt.Sprintf("add-%d", i)) == nil; i++ {
		}
		for _, ef := range []int{40, 100, 200} {
			b.Run(fmt.Sprintf("n=%d/store=pgstore/op=quality/ef_search=%d", n, ef), func(b *testing.B) {
				s := withEfSearch(b, f.pg, ef)
				found, total, i := 0, 0, 0
				for b.Loop() {
					q := i % len(f.queries)
					hits, err := s.Recall(b.Context(), f.queries[q], 3)
					if err != nil {
						b.Fatal(err)
					}
					for _, h := range hits {
						if slices.ContainsFunc(f.exact[q], func(e chitta.Hit) bool { return e.ID == h.ID }) {
							found++
						}
					}
					total += len(f.exact[q])
					i++
				}
				b.ReportMetric(float64(found)/float64(total), "recall@3")
			})
		}
	}
}

// buildBenchIndex builds the HNSW index Open would have created
// (vector_cosine_ops, m 16, ef_construction 64) on s's loaded table, with
// maintenance_work_mem from CHITTA_PG_BENCH_BUILD_MEM (default 512MB) so
// that the graph is built in memory, then ANALYZEs the table: without
// statistics the planner takes the primary key's bitmap scan for the
// namespace filter and sorts every row instead of walking the index.
func buildBenchIndex(ctx context.Context, s *Store) error {
	mem := cmp.Or(os.Getenv("CHITTA_PG_BENCH_BUILD_MEM"), "512MB")
	t := s.opts.Table
	return s.pool.AcquireFunc(ctx, func(c *pgxpool.Conn) error {
		if _, err := c.Exec(ctx, "SET maintenance_work_mem = '"+mem+"'"); err != nil {
			return err
		}
		_, err := c.Exec(ctx, "CREATE INDEX "+quote(t+"_embedding_hnsw")+" ON "+quote(t)+" USING hnsw (embedding vector_cosine_ops)")
		if _, rerr := c.Exec(ctx, "RESET maintenance_work_mem"); err == nil {
			err = rerr
		}
		if err == nil { // PGlite has no autovacuum to gather the statistics
			_, err = c.Exec(ctx, "ANALYZE "+quote(t))
		}
		return err
	})
}

// withEfSearch opens a one-connection store on s's table whose searches
// use the given hnsw.ef_search (a runtime parameter of the DSN, which the
// store sets in each search).
func withEfSearch(b *testing.B, s *Store, ef int) *Store {
	b.Helper()
	cfg, err := pgxpool.ParseConfig(testDSN(b))
	if err != nil {
		b.Fatal(err)
	}
	cfg.MaxConns = 1
	cfg.ConnConfig.RuntimeParams["hnsw.ef_search"] = strconv.Itoa(ef)
	out, err := openConfig(b.Context(), cfg, s.opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { out.Close() })
	return out
}
