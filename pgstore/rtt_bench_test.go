package pgstore

import (
	"context"
	"net"
	"os"
	"testing"
	"time"

	"github.com/chitta-go/chitta"
)

// slowConn delays every write to the server by d: each statement's answer
// comes at least d later, as over a network with a round trip of d.
type slowConn struct {
	net.Conn
	d time.Duration
}

func (c *slowConn) Write(p []byte) (int, error) {
	time.Sleep(c.d)
	return c.Conn.Write(p)
}

// BenchmarkRoundTrips measures what answering a compaction's queries in
// one statement saves once the server is a network round trip away: the
// coverage of 60 messages (BestSimilarities, what Compact asks a
// CoverageRecaller, against 60 Recalls of 1) and their 3 nearest memories
// (RecallBatch against 60 Recalls of 3), on 10 000 memories, with every
// write to the server delayed by CHITTA_PG_BENCH_RTT (default 1ms; 0 for
// none). Run by hand on a real server:
//
//	bash scripts/postgres.sh go -C pgstore test -run '^$' -bench BenchmarkRoundTrips -benchtime 20x .
func BenchmarkRoundTrips(b *testing.B) {
	testDSN(b)
	rtt := time.Millisecond
	if env := os.Getenv("CHITTA_PG_BENCH_RTT"); env != "" {
		var err error
		if rtt, err = time.ParseDuration(env); err != nil || rtt < 0 {
			b.Fatalf("CHITTA_PG_BENCH_RTT: %q, want a duration >= 0 such as 1ms", env)
		}
	}
	f := loadFixture(b, 10000)
	cfg := f.pg.pool.Config()
	next := cfg.ConnConfig.DialFunc
	if next == nil {
		var d net.Dialer
		next = d.DialContext
	}
	cfg.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := next(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &slowConn{Conn: c, d: rtt}, nil
	}
	s, err := openConfig(b.Context(), cfg, f.pg.opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	qs := f.queries[:60]
	each := func(k int) func(*testing.B) {
		return func(b *testing.B) {
			for b.Loop() {
				for _, q := range qs {
					if _, err := s.Recall(b.Context(), q, k); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	}
	b.Run("op=coverage/impl=best-similarities", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.BestSimilarities(b.Context(), qs, chitta.KindFilter{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("op=coverage/impl=recall-each", each(1))
	b.Run("op=nearest3/impl=recall-batch", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.RecallBatch(b.Context(), qs, 3); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("op=nearest3/impl=recall-each", each(3))
}
