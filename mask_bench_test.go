package chitta_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/internal/testkit/fakes"
)

// benchWire is a deterministic OpenAI-format conversation of about n
// messages, parsed (so every message has Raw, as in a harness): a third
// of them tool results of 20–300 words.
func benchWire(n int) []chitta.Message {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	vocab := strings.Fields("the build failed because parseConfig returned an error on line 42 of config.yaml so we retry deploy with the staging cluster and check logs")
	say := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = vocab[r.IntN(len(vocab))]
		}
		return strings.Join(w, " ")
	}
	parts := []string{`{"role":"system","content":"` + say(50) + `"}`}
	for len(parts) < n {
		if r.IntN(3) == 0 {
			parts = append(parts, `{"role":"user","content":"`+say(10+r.IntN(40))+`"}`)
			continue
		}
		id := fmt.Sprint("call", len(parts))
		parts = append(parts,
			`{"role":"assistant","content":null,"tool_calls":[{"id":"`+id+`","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"`+say(1)+`.go\"}"}}]}`,
			`{"role":"tool","tool_call_id":"`+id+`","content":"`+say(20+r.IntN(280))+`"}`)
	}
	msgs, err := chitta.ParseMessages([]byte("[" + strings.Join(parts, ",") + "]"))
	if err != nil {
		panic(err)
	}
	return msgs
}

// BenchmarkCompactMask measures what masking adds to a compaction:
// "mask=off" is the baseline, "mask=on" masks with the defaults, both
// with precomputed 384-d vectors (embedding cost excluded) and at ratio
// 0.3.
func BenchmarkCompactMask(b *testing.B) {
	const dims = 384
	for _, n := range []int{100, 1000} {
		msgs := benchWire(n)
		table := precomputed{}
		for _, m := range msgs {
			table[m.Content] = fakes.SeededVector(m.Content, dims)
		}
		query := "why did parseConfig fail"
		table[query] = fakes.SeededVector(query, dims)
		for _, mask := range []*chitta.MaskOptions{nil, {}} {
			name := "mask=off"
			if mask != nil {
				name = "mask=on"
			}
			opts := &chitta.Options{Query: query, Embedder: table, TargetRatio: 0.3, Mask: mask}
			b.Run(fmt.Sprintf("msgs=%d/%s", n, name), func(b *testing.B) {
				b.ReportAllocs()
				ctx := b.Context()
				for b.Loop() {
					if _, err := chitta.Compact(ctx, msgs, opts); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
