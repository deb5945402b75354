package chitta_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/chittatest"
)

// benchSay returns a function that draws k words from r.
func benchSay(r *rand.Rand) func(k int) string {
	vocab := strings.Fields("the build failed because parseConfig returned an error on line 42 of config.yaml so we retry deploy with the staging cluster and check logs")
	return func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = vocab[r.IntN(len(vocab))]
		}
		return strings.Join(w, " ")
	}
}

// benchWire is a deterministic OpenAI-format conversation of about n
// messages, parsed (so every message has Raw, as in a harness): a third
// of them tool results of 20–300 words.
func benchWire(n int) []chitta.Message {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	say := benchSay(r)
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
			table[m.Content] = chittatest.SeededVector(m.Content, dims)
		}
		query := "why did parseConfig fail"
		table[query] = chittatest.SeededVector(query, dims)
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

// benchParallel is a deterministic Anthropic-format conversation of about
// n messages, parsed: assistant messages issuing 1–4 tool_use blocks, each
// answered by one user message holding as many tool_result blocks (20–300
// words each, a third of them as text blocks) and, every other time, a
// text block after them — the messages masking rewrites block by block.
func benchParallel(n int) []chitta.Message {
	r := rand.New(rand.NewPCG(uint64(n), 11))
	say := benchSay(r)
	parts := []string{`{"role":"user","content":"` + say(30) + `"}`}
	for len(parts) < n {
		if r.IntN(4) == 0 {
			parts = append(parts, `{"role":"user","content":[{"type":"text","text":"`+say(10+r.IntN(40))+`"}]}`)
			continue
		}
		var uses, results []string
		for k := range 1 + r.IntN(4) {
			id := fmt.Sprint("toolu_", len(parts), "_", k)
			uses = append(uses, `{"type":"tool_use","id":"`+id+`","name":"read_file","input":{"path":"`+say(1)+`.go"}}`)
			content := `"` + say(20+r.IntN(280)) + `"`
			if r.IntN(3) == 0 {
				content = `[{"type":"text","text":"` + say(20+r.IntN(280)) + `"}]`
			}
			results = append(results, `{"type":"tool_result","tool_use_id":"`+id+`","content":`+content+`}`)
		}
		if r.IntN(2) == 0 {
			results = append(results, `{"type":"text","text":"`+say(5)+`"}`)
		}
		parts = append(parts,
			`{"role":"assistant","content":[{"type":"text","text":"`+say(8)+`"},`+strings.Join(uses, ",")+`]}`,
			`{"role":"user","content":[`+strings.Join(results, ",")+`]}`)
	}
	msgs, err := chitta.ParseMessages([]byte("[" + strings.Join(parts, ",") + "]"))
	if err != nil {
		panic(err)
	}
	return msgs
}

// BenchmarkCompactMaskParallel is BenchmarkCompactMask on benchParallel's
// Anthropic conversation, whose results share their messages with other
// results and text ("mask=off" the baseline).
func BenchmarkCompactMaskParallel(b *testing.B) {
	msgs := benchParallel(1000)
	for _, mask := range []*chitta.MaskOptions{nil, {}} {
		name := "mask=off"
		if mask != nil {
			name = "mask=on"
		}
		opts := &chitta.Options{TargetRatio: 0.3, Mask: mask}
		b.Run("msgs=1000/"+name, func(b *testing.B) {
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
