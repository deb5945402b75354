// Package adaptbench holds the benchmarks every SDK adapter under adapt/
// runs over its own conversation, so that their figures compare. It is
// imported only by the adapters' _test.go files.
package adaptbench

import (
	"context"
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
// adapter gives them its synthetic Raw, read block by block). Each
// reports its CPU time per operation beside the wall-clock time (see
// package benchcpu).
func Compact[T any](b *testing.B, msgs []T, messages func([]T) ([]chitta.Message, error), compact func(context.Context, []T, *chitta.Options) ([]T, *chitta.Result, error)) {
	cm, err := messages(msgs)
	if err != nil {
		b.Fatal(err)
	}
	prefix := "msgs=" + strconv.Itoa(len(msgs))
	for _, bc := range []struct {
		name string
		opts *chitta.Options
	}{
		{"plain", &chitta.Options{TargetRatio: 0.4}},
		{"hash", &chitta.Options{TargetRatio: 0.4, Embedder: chitta.NewHashEmbedder(256), Query: "fix the failing test"}},
		{"mask", &chitta.Options{TargetRatio: 0.4, Mask: &chitta.MaskOptions{}}},
	} {
		b.Run(prefix+"/opts="+bc.name+"/impl=chitta", func(b *testing.B) {
			b.ReportAllocs()
			defer benchcpu.Start(b)()
			for b.Loop() {
				if _, err := chitta.Compact(b.Context(), cm, bc.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
		// chitta.Compact on the converted conversation and on it without
		// its first message in turn: the baseline of adapter-shifted
		// (chitta's own work differs between the two by up to 1%).
		b.Run(prefix+"/opts="+bc.name+"/impl=chitta-shifted", func(b *testing.B) {
			b.ReportAllocs()
			defer benchcpu.Start(b)()
			in := cm
			for b.Loop() {
				if _, err := chitta.Compact(b.Context(), in, bc.opts); err != nil {
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
			b.ReportAllocs()
			defer benchcpu.Start(b)()
			for b.Loop() {
				if _, _, err := compact(b.Context(), msgs, bc.opts); err != nil {
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
			b.ReportAllocs()
			defer benchcpu.Start(b)()
			in := msgs
			for b.Loop() {
				if _, _, err := compact(b.Context(), in, bc.opts); err != nil {
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
