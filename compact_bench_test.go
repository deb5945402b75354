package chitta_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/chittatest"
)

// benchConversation is a deterministic conversation of n messages with tool
// groups every few turns.
func benchConversation(n int) []chitta.Message {
	r := rand.New(rand.NewPCG(uint64(n), 99))
	vocab := strings.Fields("the build failed because parseConfig returned an error on line 42 of config.yaml so we retry deploy with the staging cluster and check logs")
	say := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = vocab[r.IntN(len(vocab))]
		}
		return strings.Join(w, " ")
	}
	msgs := []chitta.Message{msg(chitta.RoleSystem, say(50))}
	for len(msgs) < n {
		switch r.IntN(6) {
		case 0:
			id := fmt.Sprint("call", len(msgs))
			msgs = append(msgs,
				chitta.Message{Role: chitta.RoleAssistant, Content: say(20), ToolCallIDs: []string{id}},
				chitta.Message{Role: chitta.RoleTool, Content: say(80), ToolResultIDs: []string{id}})
		case 1, 2:
			msgs = append(msgs, msg(chitta.RoleUser, say(10+r.IntN(40))))
		default:
			msgs = append(msgs, msg(chitta.RoleAssistant, say(20+r.IntN(100))))
		}
	}
	return msgs[:n]
}

// precomputed is an embedder that returns vectors computed in advance, so
// that a benchmark measures Compact's own overhead, not embedding.
type precomputed map[string][]float32

func (p precomputed) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = p[t]
	}
	return out, nil
}

// BenchmarkCompact measures the compaction pass itself. "embed=none" is the
// baseline without vectors; "embed=precomputed" adds semantic scoring with
// 384-d vectors looked up from a table (embedding cost excluded). ns/msg
// is the per-message overhead.
func BenchmarkCompact(b *testing.B) {
	const dims = 384
	for _, n := range []int{60, 1000, 10000} {
		msgs := benchConversation(n)
		table := precomputed{}
		for _, m := range msgs {
			table[m.Content] = chittatest.SeededVector(m.Content, dims)
		}
		query := "why did parseConfig fail"
		table[query] = chittatest.SeededVector(query, dims)
		run := func(name string, opts *chitta.Options) {
			b.Run(fmt.Sprintf("msgs=%d/%s", n, name), func(b *testing.B) {
				b.ReportAllocs()
				ctx := b.Context()
				for b.Loop() {
					if _, err := chitta.Compact(ctx, msgs, opts); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/msg")
			})
		}
		run("embed=none", &chitta.Options{Query: query})
		run("embed=precomputed", &chitta.Options{Query: query, Embedder: table})
	}
}
