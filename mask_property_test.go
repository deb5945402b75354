package chitta_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/chittatest"
)

// randomWireConversation writes a conversation as a JSON array mixing
// OpenAI tool messages (string and part content), legacy function calls,
// Anthropic blocks (parallel results, text and image parts, is_error),
// SWE-agent tool messages and OpenAI Responses function call items, with
// result sizes around the mask thresholds.
func randomWireConversation(r *rand.Rand) string {
	words := func(tag string, n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = fmt.Sprintf("%s%d<&>", tag, r.IntN(50))
		}
		return strings.Join(w, " ")
	}
	size := func() int { return []int{0, 3, 20, 99, 100, 101, 250}[r.IntN(7)] }
	q := func(s string) string { return string(jsonQuote(s)) }
	var out []string
	if r.IntN(2) == 0 {
		out = append(out, `{"role":"system","content":`+q(words("sys", 5))+`}`)
	}
	out = append(out, `{"role":"user","content":`+q(words("task", 4))+`}`)
	call := 0
	tools := []string{"read_file", "grep", "bash", "Read"}
	for n := 2 + r.IntN(14); len(out) < n; {
		tool := tools[r.IntN(len(tools))]
		call++
		id := fmt.Sprintf("id%d", call)
		if r.IntN(8) == 0 {
			id = "reused"
		}
		switch r.IntN(7) {
		case 0:
			out = append(out, `{"role":"user","content":`+q(words("u", 1+r.IntN(20)))+`}`)
		case 1:
			out = append(out,
				`{"role":"assistant","content":null,"tool_calls":[{"id":"`+id+`","type":"function","function":{"name":"`+tool+`","arguments":"{\"p\":1}"}}]}`,
				`{ "role" : "tool", "tool_call_id":"`+id+`","name":"`+tool+`", "content" : `+q(words("o", size()))+` }`)
			if r.IntN(3) == 0 {
				out[len(out)-1] = `{"role":"tool","tool_call_id":"` + id + `","content":[{"type":"text","text":` + q(words("p", size())) + `}]}`
			}
		case 2:
			out = append(out,
				`{"role":"assistant","function_call":{"name":"`+tool+`","arguments":"{}"}}`,
				`{"role":"function","name":"`+tool+`","content":`+q(words("f", size()))+`}`)
		case 3:
			k := 1 + r.IntN(3)
			var uses, results []string
			for j := range k {
				bid := fmt.Sprintf("%s_%d", id, j)
				uses = append(uses, `{"type":"tool_use","id":"`+bid+`","name":"`+tools[r.IntN(len(tools))]+`","input":{"q":"x"}}`)
				content := q(words("a", size()))
				if r.IntN(3) == 0 {
					content = `[{"type":"text","text":` + q(words("t", size())) + `},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]`
				}
				results = append(results, `{"type":"tool_result","tool_use_id":"`+bid+`","is_error":false,"content":`+content+`}`)
			}
			if r.IntN(2) == 0 {
				results = append(results, `{"type":"text","text":`+q(words("note", 3))+`}`)
			}
			out = append(out,
				`{"role":"assistant","content":[{"type":"text","text":"go"},`+strings.Join(uses, ",")+`]}`,
				`{"role":"user","content":[`+strings.Join(results, ",")+`]}`)
		case 4:
			out = append(out,
				`{"role":"assistant","content":"act","agent":"main","tool_calls":[{"function":{"arguments":"{}","name":"`+tool+`"},"id":"`+id+`","type":"function"}]}`,
				`{"role":"tool","content":`+q(words("s", size()))+`,"agent":"main","tool_call_ids":["`+id+`"],"message_type":"observation"}`)
		case 5:
			output := q(words("i", size()))
			if r.IntN(3) == 0 {
				output = `[{"type":"input_text","text":` + q(words("k", size())) + `}]`
			}
			out = append(out,
				`{"type":"function_call","call_id":"`+id+`","name":"`+tool+`","arguments":"{}"}`,
				`{"type":"function_call_output","call_id":"`+id+`","output":`+output+`}`)
		default:
			out = append(out, `{"role":"assistant","content":`+q(words("x", 1+r.IntN(30)))+`}`)
		}
	}
	return "[" + strings.Join(out, ",\n") + "]"
}

func jsonQuote(s string) []byte {
	b, _ := chitta.Message{Role: "x", Content: s}.MarshalJSON()
	// {"role":"x","content":"…"}: cut out the content string.
	str := string(b)
	i := strings.Index(str, `"content":`) + len(`"content":`)
	return []byte(str[i : len(str)-1])
}

// Every masked result parses, keeps its pairing, never grows, and the
// output stays within the budget of the original tokens.
func TestMaskProperties(t *testing.T) {
	t.Parallel()
	valid := 0
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 13))
		data := randomWireConversation(r)
		in, err := chitta.ParseMessages([]byte(data))
		require.NoError(t, err, "seed %d: %s", seed, data)
		mask := &chitta.MaskOptions{KeepRecent: r.IntN(4), MinTokens: []int{0, 1, 50, 101}[r.IntN(4)]}
		if r.IntN(2) == 0 {
			mask.MaxResultTokens = []int{5, 30, 90, 200}[r.IntN(4)]
		}
		if r.IntN(4) == 0 {
			mask.ExcludeTools = []string{"grep"}
		}
		mask.Actions, mask.Restore = chitta.MaskActions(r.IntN(4)), r.IntN(3) == 0
		mask.ListValues = []int{0, -1, 2}[r.IntN(3)]
		opts := &chitta.Options{TargetRatio: 0.05 + 0.95*r.Float64(), Tokens: words, Mask: mask, KeepLast: r.IntN(3)}
		if r.IntN(2) == 0 {
			opts.Embedder, opts.Store, opts.DistillNovel = chittatest.SeededEmbedder{Dims: 8}, &chittatest.Store{}, true
		}
		res, err := chitta.Compact(t.Context(), in, opts)
		require.NoError(t, err, "seed %d", seed)
		checkMasked(t, in, res)
		checkPairs(t, in, res)
		if chitta.Validate(in) == nil {
			valid++
		}
		plain, err := chitta.Compact(t.Context(), in, &chitta.Options{TargetRatio: opts.TargetRatio, Tokens: words, KeepLast: opts.KeepLast})
		require.NoError(t, err)
		require.Equal(t, plain.Stats.BeforeTokens, res.Stats.BeforeTokens)
		require.Equal(t, plain.Stats.TargetTokens, res.Stats.TargetTokens)
		if !res.Stats.OverBudget {
			require.LessOrEqual(t, res.Stats.AfterTokens, res.Stats.TargetTokens, "seed %d", seed)
		}
	}
	require.Greater(t, valid, 100, "most drawn conversations are valid, so that checkMasked checks Validate")
}

// checkPairs checks that a kept result has its call and a kept call its
// results (the nearest earlier call of an ID, as Compact pairs them).
func checkPairs(t *testing.T, in []chitta.Message, res *chitta.Result) {
	t.Helper()
	kept := make([]bool, len(in))
	for _, i := range res.Kept {
		kept[i] = true
	}
	callers := map[string][]int{}
	for i, m := range in {
		if m.Role.Pinned() {
			continue
		}
		for _, id := range m.ToolCallIDs {
			callers[id] = append(callers[id], i)
		}
		for _, id := range m.ToolResultIDs {
			cs := callers[id]
			if len(cs) == 0 {
				continue
			}
			require.Equal(t, kept[cs[len(cs)-1]], kept[i], "call %d and result %d stay together", cs[len(cs)-1], i)
		}
	}
}

func FuzzMask(f *testing.F) {
	for seed := range uint64(6) {
		f.Add([]byte(randomWireConversation(rand.New(rand.NewPCG(seed, 13)))), uint8(1), uint8(5))
	}
	f.Add([]byte(`[{"role":"tool","Content":"a b c d e","content":"f g h i j k"}]`), uint8(0), uint8(0))
	f.Add([]byte(`[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"tool_result","tool_use_id":"u","content":"x y z"}]}]}]`), uint8(0), uint8(2))
	f.Add([]byte(`[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","CONTENT":"a b c d","content":"e f g h"},"bare"]}]`), uint8(0), uint8(2))
	f.Add([]byte(`[{"role":"user","content":"go"},{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":"{\"id\": \"AB12\", \"n\": 42, \"k\": [\"X9\", -7, \"a\\\"b1\"], \"t\": \"x y\"}"}]`), uint8(0), uint8(0))
	f.Add([]byte(`[{"role":"user","content":"go"},{"role":"assistant","content":"","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":"a b","multi_content":[{"type":"text","text":"c d e f g h"}],"user_input_multi_content":null,"multi_content":[{"type":"text","text":"i j k l m"}],"reasoning_content":"n o"}]`), uint8(0), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, minTokens, maxResult uint8) {
		in, err := chitta.ParseMessages(data)
		if err != nil {
			return
		}
		mask := &chitta.MaskOptions{KeepRecent: 1, MinTokens: int(minTokens%20) + 1, MaxResultTokens: int(maxResult % 40)}
		res, err := chitta.Compact(t.Context(), in, &chitta.Options{TargetRatio: 1, Tokens: words, Mask: mask, RoleWeights: anyRole(in)})
		require.NoError(t, err)
		checkMasked(t, in, res)
		// A MaskCache, cold then warm, changes nothing.
		cached := *mask
		cached.Cache = chitta.NewMaskCache()
		for range 2 {
			again, err := chitta.Compact(t.Context(), in, &chitta.Options{TargetRatio: 1, Tokens: words, Mask: &cached, RoleWeights: anyRole(in)})
			require.NoError(t, err)
			require.Equal(t, res.Messages, again.Messages)
			require.Equal(t, res.Scores, again.Scores)
		}
		// Under a tight budget, call units are degraded and restored.
		mask.ListValues, mask.Restore = int(minTokens%4)-1, maxResult%2 == 0
		res, err = chitta.Compact(t.Context(), in, &chitta.Options{TargetRatio: 0.3, Tokens: words, Mask: mask, RoleWeights: anyRole(in)})
		require.NoError(t, err)
		checkMasked(t, in, res)
		checkPairs(t, in, res)
	})
}

// anyRole gives every role of msgs a weight, so that Compact accepts
// whatever roles the fuzzer writes.
func anyRole(msgs []chitta.Message) map[chitta.Role]float64 {
	w := map[chitta.Role]float64{}
	for _, m := range msgs {
		if !m.Role.Pinned() {
			w[m.Role] = 1
		}
	}
	return w
}

// randomJSONResults writes a conversation of OpenAI tool calls whose
// results are JSON objects of identifier-like values (so placeholders list
// them, and the value-once rule leaves some out), some Anthropic messages
// with several results, and tool names with white space or too long for a
// label.
func randomJSONResults(r *rand.Rand) string {
	q := func(s string) string { return string(jsonQuote(s)) }
	names := []string{"get_reservation_details", "search flights", "a\u00a0tool", strings.Repeat("tool", 20), "Read"}
	value := func() string { return fmt.Sprintf("%c%c%d", 'A'+r.IntN(3), 'A'+r.IntN(3), r.IntN(30)) }
	result := func() string {
		fields := make([]string, 1+r.IntN(60))
		for k := range fields {
			fields[k] = fmt.Sprintf(`"k%d": "%s"`, k, value())
		}
		return "{" + strings.Join(fields, ", ") + "}"
	}
	out := []string{`{"role":"system","content":"policy"}`, `{"role":"user","content":` + q("book "+value()) + `}`}
	for call := range 4 + r.IntN(12) {
		id := fmt.Sprintf("call%d", call)
		name := names[r.IntN(len(names))]
		switch r.IntN(4) {
		case 0:
			out = append(out, `{"role":"user","content":`+q("and "+value()+" please")+`}`)
		case 1:
			out = append(out,
				`{"role":"assistant","content":[{"type":"tool_use","id":"`+id+`a","name":`+q(name)+`,"input":{"id":"`+value()+`"}},{"type":"tool_use","id":"`+id+`b","name":"Read","input":{}}]}`,
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+id+`a","content":`+q(result())+`},{"type":"tool_result","tool_use_id":"`+id+`b","content":`+q(result())+`},{"type":"text","text":"next"}]}`)
		default:
			out = append(out,
				`{"role":"assistant","content":null,"tool_calls":[{"id":"`+id+`","type":"function","function":{"name":`+q(name)+`,"arguments":`+q(`{"id":"`+value()+`"}`)+`}}]}`,
				`{"role":"tool","tool_call_id":"`+id+`","name":`+q(name)+`,"content":`+q(result())+`}`)
		}
	}
	return "[" + strings.Join(out, ",\n") + "]"
}

// With the default token counter (Tokens nil, or a CachedTokenCounter
// wrapping it), a placeholder's tokens are computed from its parts instead
// of counting its text: every Result equals the one Compact returns when
// the same estimate comes as a TokenCounterFunc, whose placeholders are
// written and counted.
func TestMaskEstimateCount(t *testing.T) {
	t.Parallel()
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 31))
		data := randomJSONResults(r)
		if seed%4 == 3 {
			data = randomWireConversation(r)
		}
		in, err := chitta.ParseMessages([]byte(data))
		require.NoError(t, err, "seed %d: %s", seed, data)
		mask := chitta.MaskOptions{KeepRecent: r.IntN(4), MinTokens: []int{0, 1, 30}[r.IntN(3)], Actions: chitta.MaskActions(r.IntN(4)), ListValues: []int{0, 3}[r.IntN(2)]}
		opts := chitta.Options{TargetRatio: 0.1 + 0.8*r.Float64(), Tokens: chitta.TokenCounterFunc(chitta.EstimateTokens), Mask: &mask}
		if r.IntN(2) == 0 {
			opts.Embedder, opts.Store, opts.DistillNovel = chittatest.SeededEmbedder{Dims: 8}, &chittatest.Store{}, true
		}
		want, err := chitta.Compact(t.Context(), in, &opts)
		require.NoError(t, err)
		for _, tc := range []chitta.TokenCounter{nil, chitta.NewCachedTokenCounter(nil, 0)} {
			o := opts
			o.Tokens = tc
			if o.Store != nil {
				o.Store = &chittatest.Store{}
			}
			got, err := chitta.Compact(t.Context(), in, &o)
			require.NoError(t, err)
			at := fmt.Sprintf("seed %d, counter %T", seed, tc)
			require.Equal(t, want.Scores, got.Scores, at)
			require.Equal(t, want.Stats, got.Stats, at)
			require.Equal(t, want.Kept, got.Kept, at)
			require.Equal(t, want.Messages, got.Messages, at)
		}
	}
}
