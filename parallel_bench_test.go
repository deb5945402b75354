package chitta_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/chitta-go/chitta"
)

// benchParallelCalls is a conversation whose one assistant message issues
// calls parallel tool calls: a prompt, the calls, their results, an answer
// and a new turn. "openai" answers each call with its own tool message,
// "anthropic" all of them with tool_result blocks of one user message.
// The seed is fixed.
func benchParallelCalls(calls int, format string) []chitta.Message {
	r := rand.New(rand.NewPCG(uint64(calls), 7))
	vocab := strings.Fields("grep the config for parseConfig then read main.go and list the failing tests in pkg server")
	say := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = vocab[r.IntN(len(vocab))]
		}
		return strings.Join(w, " ")
	}
	parts := []string{`{"role":"user","content":"` + say(12) + `"}`}
	uses := make([]string, calls)
	results := make([]string, calls)
	for i := range uses {
		id, out := fmt.Sprint("call_", i), say(5+r.IntN(40))
		if format == "anthropic" {
			uses[i] = `{"type":"tool_use","id":"` + id + `","name":"grep","input":{"q":"` + say(2) + `"}}`
			results[i] = `{"type":"tool_result","tool_use_id":"` + id + `","content":"` + out + `"}`
		} else {
			uses[i] = `{"id":"` + id + `","type":"function","function":{"name":"grep","arguments":"{\"q\":\"` + say(2) + `\"}"}}`
			results[i] = `{"role":"tool","tool_call_id":"` + id + `","content":"` + out + `"}`
		}
	}
	if format == "anthropic" {
		parts = append(parts, `{"role":"assistant","content":[`+strings.Join(uses, ",")+`]}`,
			`{"role":"user","content":[`+strings.Join(results, ",")+`]}`)
	} else {
		parts = append(parts, `{"role":"assistant","content":null,"tool_calls":[`+strings.Join(uses, ",")+`]}`)
		parts = append(parts, results...)
	}
	parts = append(parts, `{"role":"assistant","content":"`+say(30)+`"}`,
		`{"role":"user","content":"`+say(12)+`"}`, `{"role":"assistant","content":"`+say(20)+`"}`)
	msgs, err := chitta.ParseMessages([]byte("[" + strings.Join(parts, ",") + "]"))
	if err != nil {
		panic(err)
	}
	return msgs
}

// BenchmarkCompactParallelCalls compacts benchParallelCalls's conversation
// without and with masking (every result masked: MinTokens 1). Time should
// grow about linearly in calls: calls=1000 is the baseline, and 8 000 /
// 16 000 / 32 000 should cost about 8 / 16 / 32 times as much.
func BenchmarkCompactParallelCalls(b *testing.B) {
	for _, format := range []string{"openai", "anthropic"} {
		for _, calls := range []int{1000, 8000, 16000, 32000} {
			msgs := benchParallelCalls(calls, format)
			for _, mask := range []*chitta.MaskOptions{nil, {MinTokens: 1}} {
				name := "mask=off"
				if mask != nil {
					name = "mask=on"
				}
				opts := &chitta.Options{TargetRatio: 0.3, Mask: mask}
				b.Run(fmt.Sprintf("%s/calls=%d/%s", format, calls, name), func(b *testing.B) {
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
}
