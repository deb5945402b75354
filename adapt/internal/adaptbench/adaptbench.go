// Package adaptbench holds the benchmarks every SDK adapter under adapt/
// runs over its own conversation, so that their figures compare. It is
// imported only by the adapters' _test.go files.
package adaptbench

import (
	"context"
	"runtime"
	"strconv"
	"testing"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/internal/testkit/benchcpu"
)

// Compact benchmarks an adapter's Compact (conversion included) against
// chitta.Compact on the already converted messages, in the same family:
// "msgs=<n>/opts=plain/impl=chitta", ".../impl=adapter" (the same
// conversation every time, as an agent compacting its whole history every
// turn converts it) and ".../impl=adapter-shifted" (a conversation whose
// messages moved since the last call) without an embedder (Compact's
// cheapest case), then the same with a HashEmbedder ("opts=hash"), then
// with masking at its defaults ("opts=mask": impl=chitta masks the
// converted messages, whose Raw is nil, each result as a whole; the
// adapter gives them its synthetic Raw, read block by block), then in an
// agent loop's configuration ("opts=cached": README's quick start, a
// HashEmbedder behind a CachedEmbedder and a CachedTokenCounter, new for
// each impl and warmed by one call before the clock starts, and a query).
// Each reports its CPU time per operation beside the wall-clock time (see
// package benchcpu).
func Compact[T any](b *testing.B, msgs []T, messages func([]T) ([]chitta.Message, error), compact func(context.Context, []T, *chitta.Options) ([]T, *chitta.Result, error)) {
	cm, err := messages(msgs)
	if err != nil {
		b.Fatal(err)
	}
	prefix := "msgs=" + strconv.Itoa(len(msgs))
	fixed := func(o *chitta.Options) func() *chitta.Options { return func() *chitta.Options { return o } }
	for _, bc := range []struct {
		name string
		opts func() *chitta.Options // called once per impl
		warm bool                   // one call before the clock starts
	}{
		{"plain", fixed(&chitta.Options{TargetRatio: 0.4}), false},
		{"hash", fixed(&chitta.Options{TargetRatio: 0.4, Embedder: chitta.NewHashEmbedder(256), Query: "fix the failing test"}), false},
		{"mask", fixed(&chitta.Options{TargetRatio: 0.4, Mask: &chitta.MaskOptions{}}), false},
		{"cached", func() *chitta.Options {
			return &chitta.Options{
				TargetRatio: 0.4,
				Embedder:    chitta.NewCachedEmbedder(chitta.NewHashEmbedder(0), 0),
				Tokens:      chitta.NewCachedTokenCounter(nil, 0),
				Query:       "fix the failing test",
			}
		}, true},
	} {
		warm := func(b *testing.B, call func() error) {
			if !bc.warm {
				return
			}
			if err := call(); err != nil {
				b.Fatal(err)
			}
		}
		returned := -1 // how many values the adapter returns, once known
		b.Run(prefix+"/opts="+bc.name+"/impl=chitta", func(b *testing.B) {
			opts := bc.opts()
			warm(b, func() error { _, err := chitta.Compact(b.Context(), cm, opts); return err })
			b.ReportAllocs()
			defer benchcpu.Start(b)()
			for b.Loop() {
				if _, err := chitta.Compact(b.Context(), cm, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
		// chitta.Compact, then the []T any typed Compact must return: as
		// many values as the adapter returns here, copied from msgs at
		// positions spread over it. The floor of an adapter's cost with a
		// conversion that cost nothing (the allocation, the copy, and the
		// collector's share of both).
		b.Run(prefix+"/opts="+bc.name+"/impl=chitta-return", func(b *testing.B) {
			opts := bc.opts()
			if returned < 0 { // once, not on each of the runner's rounds
				out, _, err := compact(b.Context(), msgs, opts)
				if err != nil {
					b.Fatal(err)
				}
				returned = len(out)
			}
			warm(b, func() error { _, err := chitta.Compact(b.Context(), cm, opts); return err })
			from := make([]int, returned)
			for i := range from {
				from[i] = i * len(msgs) / returned
			}
			b.ReportAllocs()
			defer benchcpu.Start(b)()
			for b.Loop() {
				if _, err := chitta.Compact(b.Context(), cm, opts); err != nil {
					b.Fatal(err)
				}
				ret := make([]T, len(from))
				for i, j := range from {
					ret[i] = msgs[j]
				}
				runtime.KeepAlive(ret) // as a caller holds it: the copy is not dropped
			}
		})
		// chitta.Compact on the converted conversation and on it without
		// its first message in turn: the baseline of adapter-shifted
		// (chitta's own work differs between the two by up to 1%).
		b.Run(prefix+"/opts="+bc.name+"/impl=chitta-shifted", func(b *testing.B) {
			opts := bc.opts()
			warm(b, func() error { _, err := chitta.Compact(b.Context(), cm[1:], opts); return err })
			b.ReportAllocs()
			defer benchcpu.Start(b)()
			in := cm
			for b.Loop() {
				if _, err := chitta.Compact(b.Context(), in, opts); err != nil {
					b.Fatal(err)
				}
				if len(in) == len(cm) {
					in = cm[1:]
				} else {
					in = cm
				}
			}
		})
		b.Run(prefix+"/opts="+bc.name+"/impl=adapter", func(b *testing.B) {
			opts := bc.opts()
			warm(b, func() error { _, _, err := compact(b.Context(), msgs, opts); return err })
			b.ReportAllocs()
			defer benchcpu.Start(b)()
			for b.Loop() {
				if _, _, err := compact(b.Context(), msgs, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
		// The adapter on msgs and msgs[1:] in turn: no message is where
		// the pooled builder saw it last (what an agent that replaces its
		// history with the compacted one gets), so nothing of the previous
		// conversion is kept; chitta's work on 999 messages differs from
		// its work on 1 000 by about 0.1%.
		b.Run(prefix+"/opts="+bc.name+"/impl=adapter-shifted", func(b *testing.B) {
			opts := bc.opts()
			warm(b, func() error { _, _, err := compact(b.Context(), msgs[1:], opts); return err })
			b.ReportAllocs()
			defer benchcpu.Start(b)()
			in := msgs
			for b.Loop() {
				if _, _, err := compact(b.Context(), in, opts); err != nil {
					b.Fatal(err)
				}
				if len(in) == len(msgs) {
					in = msgs[1:]
				} else {
					in = msgs
				}
			}
		})
	}
}

// Messages benchmarks the conversion alone, into new messages
// ("msgs=<n>").
func Messages[T any](b *testing.B, msgs []T, messages func([]T) ([]chitta.Message, error)) {
	b.Run("msgs="+strconv.Itoa(len(msgs)), func(b *testing.B) {
		b.ReportAllocs()
		defer benchcpu.Start(b)()
		for b.Loop() {
			if _, err := messages(msgs); err != nil {
				b.Fatal(err)
			}
		}
	})
}
