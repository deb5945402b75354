//go:build cgo && llamacpp

package llamacpp

import (
	"fmt"
	"testing"
)

// BenchmarkEmbed compares embedding 256 short texts in one call (packed into
// batches) with one call per text, on the tiny test model. texts/s is the
// figure to compare; mode=single is the baseline.
func BenchmarkEmbed(b *testing.B) {
	texts := sampleTexts(256)
	e := newTiny(b, nil)
	ctx := b.Context()
	for _, mode := range []string{"batched", "single"} {
		b.Run(fmt.Sprintf("mode=%s/texts=%d", mode, len(texts)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if mode == "batched" {
					if _, err := e.Embed(ctx, texts); err != nil {
						b.Fatal(err)
					}
					continue
				}
				for _, t := range texts {
					if _, err := e.Embed(ctx, []string{t}); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.N*len(texts))/b.Elapsed().Seconds(), "texts/s")
		})
	}
}
