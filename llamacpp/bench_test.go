//go:build cgo && llamacpp

package llamacpp

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkEmbed compares embedding 256 texts in one call (packed into
// calls of DefaultBatchSize tokens) with one call per text (the
// baseline, mode=single), on the tiny test model with one thread. texts/s
// is the figure to compare. "short" texts are 1–3 words (acknowledgements,
// tool names), "medium" ones 3–19 words.
func BenchmarkEmbed(b *testing.B) {
	e := newTiny(b, nil) // defaults, except one thread

	ctx := b.Context()
	for _, set := range []struct {
		name  string
		texts []string
	}{
		{"short", shortTexts(256)},
		{"medium", sampleTexts(256)},
	} {
		for _, mode := range []string{"batched", "single"} {
			b.Run(fmt.Sprintf("texts=%s/mode=%s", set.name, mode), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if mode == "batched" {
						if _, err := e.Embed(ctx, set.texts); err != nil {
							b.Fatal(err)
						}
						continue
					}
					for _, t := range set.texts {
						if _, err := e.Embed(ctx, []string{t}); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(b.N*len(set.texts))/b.Elapsed().Seconds(), "texts/s")
			})
		}
	}
}

func shortTexts(n int) []string {
	words := strings.Fields("ok done retry tests pass failed build lint saved file read write grep")
	out := make([]string, n)
	for i := range out {
		k := 1 + i%3
		parts := make([]string, k)
		for j := range parts {
			parts[j] = words[(i*5+j*7)%len(words)]
		}
		out[i] = strings.Join(parts, " ")
	}
	return out
}
