package chitta_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/chittatest"
)

// output is a tool result of n distinct words, so that a cut keeps a
// recognisable head and tail.
func output(tag string, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = fmt.Sprintf("%s%d", tag, i)
	}
	return strings.Join(w, " ")
}

// keys returns the top-level keys of a JSON object, in order.
func keys(t *testing.T, obj []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(obj))
	tok, err := dec.Token()
	require.NoError(t, err)
	require.Equal(t, json.Delim('{'), tok)
	var out []string
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		out = append(out, k.(string))
		var v json.RawMessage
		require.NoError(t, dec.Decode(&v))
	}
	return out
}

// compactMasked parses data, compacts it keeping everything (ratio 1) with
// mask, and checks what every masked result must satisfy: the output
// marshals and parses back with the same linkage, every unmasked survivor
// is byte for byte its input, every masked one has the input's keys in
// order and no more tokens, and the budget is the original size.
func compactMasked(t *testing.T, data string, mask *chitta.MaskOptions) (in []chitta.Message, res *chitta.Result) {
	t.Helper()
	in, err := chitta.ParseMessages([]byte(data))
	require.NoError(t, err)
	res, err = chitta.Compact(t.Context(), in, &chitta.Options{TargetRatio: 1, Tokens: words, Mask: mask})
	require.NoError(t, err)
	checkMasked(t, in, res)
	return in, res
}

func checkMasked(t *testing.T, in []chitta.Message, res *chitta.Result) {
	t.Helper()
	out, err := chitta.MarshalMessages(res.Messages)
	require.NoError(t, err)
	back, err := chitta.ParseMessages(out)
	require.NoError(t, err, "%s", out)
	require.Len(t, back, len(res.Kept))
	before, after, masked, saved := 0, 0, 0, 0
	for _, s := range res.Scores {
		before += s.OriginalTokens
		assert.LessOrEqual(t, s.Tokens, s.OriginalTokens, "message %d grew", s.Index)
		if !s.Masked {
			assert.Equal(t, s.OriginalTokens, s.Tokens)
		}
		if s.Kept {
			after += s.Tokens
			if s.Masked {
				masked++
				saved += s.OriginalTokens - s.Tokens
			}
		}
	}
	for k, i := range res.Kept {
		got, want := res.Messages[k], in[i]
		assert.Equal(t, want.Role, got.Role)
		assert.Equal(t, want.ToolCallIDs, got.ToolCallIDs, "message %d", i)
		assert.Equal(t, want.ToolResultIDs, got.ToolResultIDs, "message %d", i)
		assert.Equal(t, got.Content, back[k].Content, "message %d: Content is what the JSON says", i)
		if !legacy(want) { // legacy linkage is named after message indices
			assert.Equal(t, want.ToolCallIDs, back[k].ToolCallIDs, "message %d", i)
			assert.Equal(t, want.ToolResultIDs, back[k].ToolResultIDs, "message %d", i)
		}
		assert.Equal(t, res.Scores[i].Tokens, words.CountTokens(got.Content)+got.MediaTokens, "message %d", i)
		if !res.Scores[i].Masked {
			assert.Equal(t, string(want.Raw), string(got.Raw), "unmasked message %d is verbatim", i)
			assert.Equal(t, want.Content, got.Content)
			continue
		}
		if want.Raw != nil {
			assert.Equal(t, keys(t, want.Raw), keys(t, got.Raw), "message %d keeps its keys", i)
		}
		assert.Contains(t, got.Content, chitta.MaskPrefix)
	}
	// Masking changes no linkage: whenever the same survivors unmasked are
	// a conversation providers accept, the masked ones are too, as
	// returned and as read back from their JSON.
	survivors := make([]chitta.Message, len(res.Kept))
	for k, i := range res.Kept {
		survivors[k] = in[i]
	}
	if chitta.Validate(survivors) == nil {
		assert.NoError(t, chitta.Validate(res.Messages))
		assert.NoError(t, chitta.Validate(back))
	}
	assert.Equal(t, before, res.Stats.BeforeTokens)
	assert.Equal(t, after, res.Stats.AfterTokens)
	assert.Equal(t, masked, res.Stats.Masked)
	assert.Equal(t, saved, res.Stats.MaskedTokens)
}

func legacy(m chitta.Message) bool {
	for _, id := range append(slices.Clone(m.ToolCallIDs), m.ToolResultIDs...) {
		if strings.HasPrefix(id, "function_call@") {
			return true
		}
	}
	return m.Role == "function"
}

// The formats: each issues two calls of read_file with a 200-word result
// and, last, one call of grep with a 150-word result.
var maskFormats = []struct {
	name string
	data string
	// results are the indices of the result messages, oldest first.
	results []int
}{
	{"openai", `[
{"role":"system","content":"be brief"},
{"role":"user","content":"look at a.go and b.go"},
{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.go\"}"}}]},
{"role":"tool","tool_call_id":"c1","content":"` + output("a", 200) + `"},
{"role":"assistant","content":null,"tool_calls":[{"id":"c2","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"b.go\"}"}}]},
{"role":"tool","tool_call_id":"c2","content":[{"type":"text","text":"` + output("b", 200) + `"}]},
{"role":"assistant","content":"now grep","tool_calls":[{"id":"c3","type":"function","function":{"name":"grep","arguments":"{\"q\":\"x\"}"}}]},
{"content":"` + output("g", 150) + `","tool_call_id":"c3","role":"tool","name":"grep"}
]`, []int{3, 5, 7}},
	{"openai-custom", `[
{"role":"user","content":"look at a.go and b.go"},
{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"custom","custom":{"name":"read_file","input":"a.go"}}]},
{"role":"tool","tool_call_id":"c1","content":"` + output("a", 200) + `"},
{"role":"assistant","content":null,"tool_calls":[{"id":"c2","type":"custom","custom":{"name":"read_file","input":"b.go"}}]},
{"role":"tool","tool_call_id":"c2","content":"` + output("b", 200) + `"},
{"role":"assistant","content":null,"tool_calls":[{"id":"c3","type":"custom","custom":{"name":"grep","input":"x"}}]},
{"role":"tool","tool_call_id":"c3","content":"` + output("g", 150) + `"}
]`, []int{2, 4, 6}},
	// A custom call whose serializer writes the function member as null.
	{"openai-custom-null-function", `[
{"role":"user","content":"look at a.go and b.go"},
{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"custom","function":null,"custom":{"name":"read_file","input":"a.go"}}]},
{"role":"tool","tool_call_id":"c1","content":"` + output("a", 200) + `"},
{"role":"assistant","content":null,"tool_calls":[{"id":"c2","type":"custom","function":null,"custom":{"name":"read_file","input":"b.go"}}]},
{"role":"tool","tool_call_id":"c2","content":"` + output("b", 200) + `"},
{"role":"assistant","content":null,"tool_calls":[{"id":"c3","type":"custom","function":null,"custom":{"name":"grep","input":"x"}}]},
{"role":"tool","tool_call_id":"c3","content":"` + output("g", 150) + `"}
]`, []int{2, 4, 6}},
	{"legacy-function", `[
{"role":"user","content":"look at a.go and b.go"},
{"role":"assistant","content":null,"function_call":{"name":"read_file","arguments":"{\"path\":\"a.go\"}"}},
{"role":"function","name":"read_file","content":"` + output("a", 200) + `"},
{"role":"assistant","content":null,"function_call":{"name":"read_file","arguments":"{\"path\":\"b.go\"}"}},
{"role":"function","content":"` + output("b", 200) + `"},
{"role":"assistant","content":null,"function_call":{"name":"grep","arguments":"{\"q\":\"x\"}"}},
{"role":"function","name":"grep","content":"` + output("g", 150) + `"}
]`, []int{2, 4, 6}},
	{"anthropic", `[
{"role":"user","content":"look at a.go and b.go"},
{"role":"assistant","content":[{"type":"text","text":"reading"},{"type":"tool_use","id":"t1","name":"read_file","input":{"path":"a.go"}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"` + output("a", 200) + `"}]},
{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"read_file","input":{"path":"b.go"}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","is_error":false,"content":[{"type":"text","text":"` + output("b", 200) + `"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}]},
{"role":"assistant","content":[{"type":"tool_use","id":"t3","name":"grep","input":{"q":"x"}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"t3","content":"` + output("g", 150) + `"}]}
]`, []int{2, 4, 6}},
	// eino: a tool message whose output is in its parts (content empty
	// or beside them); the placeholder goes in content, the parts go.
	{"eino-parts", `[
{"role":"user","content":"look at a.go and b.go"},
{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.go\"}"}}]},
{"role":"tool","content":"","tool_call_id":"c1","multi_content":[{"type":"text","text":"` + output("a", 200) + `"}]},
{"role":"assistant","content":"","tool_calls":[{"id":"c2","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"b.go\"}"}}]},
{"role":"tool","content":"` + output("b", 100) + `","tool_call_id":"c2","user_input_multi_content":[{"type":"text","text":"` + output("c", 100) + `"}],"multi_content":null},
{"role":"assistant","content":"","tool_calls":[{"id":"c3","type":"function","function":{"name":"grep","arguments":"{\"q\":\"x\"}"}}]},
{"role":"tool","content":"","tool_call_id":"c3","multi_content":[{"type":"text","text":"` + output("g", 150) + `"}]}
]`, []int{2, 4, 6}},
	{"swe-agent", `[
{"role":"system","content":"SETTING: you are a programmer","agent":"main","message_type":"system_prompt"},
{"role":"user","content":"fix the issue","agent":"main","message_type":"observation"},
{"role":"assistant","content":"open a","thought":"open a","action":"open a.go","agent":"main","tool_calls":[{"function":{"arguments":"{\"path\":\"a.go\"}","name":"read_file"},"id":"s1","type":"function"}],"message_type":"action"},
{"role":"tool","content":"` + output("a", 200) + `","agent":"main","tool_call_ids":["s1"],"message_type":"observation"},
{"role":"assistant","content":"open b","agent":"main","tool_calls":[{"function":{"arguments":"{\"path\":\"b.go\"}","name":"read_file"},"id":"s2","type":"function"}],"message_type":"action"},
{"role":"tool","content":"` + output("b", 200) + `","agent":"main","tool_call_ids":["s2"],"message_type":"observation"},
{"role":"assistant","content":"grep","agent":"main","tool_calls":[{"function":{"arguments":"{\"q\":\"x\"}","name":"grep"},"id":"s3","type":"function"}],"message_type":"action"},
{"role":"tool","content":"` + output("g", 150) + `","agent":"main","tool_call_ids":["s3"],"message_type":"observation"}
]`, []int{3, 5, 7}},
}

func TestMaskFormats(t *testing.T) {
	t.Parallel()
	for _, f := range maskFormats {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			in, res := compactMasked(t, f.data, &chitta.MaskOptions{KeepRecent: 1})
			require.Len(t, res.Messages, len(in), "ratio 1 keeps everything")
			require.NoError(t, chitta.Validate(in))
			require.NoError(t, chitta.Validate(res.Messages), "every masked result passes Validate")
			old1, old2, recent := f.results[0], f.results[1], f.results[2]
			assert.Equal(t, "[chitta: read_file output elided (200 tokens)]", res.Messages[old1].Content)
			assert.True(t, strings.HasPrefix(res.Messages[old2].Content, "[chitta: read_file output elided ("), res.Messages[old2].Content)
			assert.Equal(t, in[recent], res.Messages[recent], "the newest result is kept verbatim")
			for i, m := range in {
				if len(m.ToolCallIDs) > 0 {
					assert.Equal(t, m, res.Messages[i], "call %d verbatim", i)
				}
			}
			assert.Equal(t, 2, res.Stats.Masked)
			assert.True(t, res.Scores[old1].Masked)
			assert.Equal(t, 200, res.Scores[old1].OriginalTokens)
			assert.Equal(t, 6, res.Scores[old1].Tokens)
			if f.name == "eino-parts" {
				for _, i := range []int{old1, old2} {
					var w map[string]any
					require.NoError(t, json.Unmarshal(res.Messages[i].Raw, &w))
					assert.Nil(t, w["multi_content"], "message %d: the parts are gone", i)
					assert.Nil(t, w["user_input_multi_content"], "message %d: the parts are gone", i)
				}
			}
			if f.name == "openai" || strings.HasPrefix(f.name, "openai-custom") || f.name == "swe-agent" || f.name == "legacy-function" {
				var w map[string]any
				require.NoError(t, json.Unmarshal(res.Messages[old2].Raw, &w))
				assert.IsType(t, "", w["content"], "a masked tool message has string content")
			}
		})
	}
}

// The memory ID in a placeholder is that of the excerpt DistillNovel
// stores for the masked message, and recall can bring it back.
func TestMaskNamesDistilledMemory(t *testing.T) {
	t.Parallel()
	for _, f := range maskFormats {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			in, err := chitta.ParseMessages([]byte(f.data))
			require.NoError(t, err)
			store := &chittatest.Store{}
			opts := &chitta.Options{TargetRatio: 1, Tokens: words, Embedder: chittatest.SeededEmbedder{Dims: 16}, Store: store, DistillNovel: true, Mask: &chitta.MaskOptions{KeepRecent: 1}}
			res, err := chitta.Compact(t.Context(), in, opts)
			require.NoError(t, err)
			require.NoError(t, res.DistillErr)
			checkMasked(t, in, res)
			old := f.results[0]
			require.Len(t, res.Distilled, 2, "the two masked results, though kept, are distilled")
			d := res.Distilled[0]
			assert.Equal(t, old, d.Index)
			assert.Equal(t, fmt.Sprintf("[chitta: read_file output elided (200 tokens); excerpt in memory %s]", d.ID), res.Messages[old].Content)
			require.Len(t, store.Memories, 2)
			assert.Equal(t, d.ID, store.Memories[0].ID)
			assert.Contains(t, store.Memories[0].Text, "a0 a1 a2")
			assert.Equal(t, chitta.MemoryID(d.Kind, d.Text), d.ID)

			// A store that fails: the placeholders name no memory.
			opts.Store = &chittatest.Store{AddErr: errors.New("disk full")}
			res, err = chitta.Compact(t.Context(), in, opts)
			require.NoError(t, err)
			require.Error(t, res.DistillErr)
			checkMasked(t, in, res)
			assert.Equal(t, "[chitta: read_file output elided (200 tokens)]", res.Messages[old].Content)
		})
	}
}

func TestMaskNilIsVerbatim(t *testing.T) {
	t.Parallel()
	for _, f := range maskFormats {
		in, err := chitta.ParseMessages([]byte(f.data))
		require.NoError(t, err)
		for _, ratio := range []float64{0.2, 0.5, 1} {
			plain, err := chitta.Compact(t.Context(), in, &chitta.Options{TargetRatio: ratio, Tokens: words})
			require.NoError(t, err)
			for k, i := range plain.Kept {
				assert.Equal(t, in[i], plain.Messages[k])
				assert.Equal(t, plain.Scores[i].Tokens, plain.Scores[i].OriginalTokens)
				assert.False(t, plain.Scores[i].Masked)
			}
			assert.Zero(t, plain.Stats.Masked)
			// A mask that applies to nothing changes nothing either.
			none, err := chitta.Compact(t.Context(), in, &chitta.Options{TargetRatio: ratio, Tokens: words, Mask: &chitta.MaskOptions{MinTokens: 1000, Actions: chitta.ActionsOff}})
			require.NoError(t, err)
			assert.Equal(t, plain, none, "%s at %v", f.name, ratio)
		}
	}
}

// Anthropic parallel calls: one user message carries two results and a
// text block; each result is judged on its own and the text stays.
func TestMaskAnthropicParallelBlocks(t *testing.T) {
	t.Parallel()
	data := `[
{"role":"user","content":"compare"},
{"role":"assistant","content":[{"type":"tool_use","id":"p1","name":"read_file","input":{"path":"a"}},{"type":"tool_use","id":"p2","name":"list","input":{}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"p1","content":[{"type":"text","text":"` + output("a", 120) + `"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]},{"type":"tool_result","tool_use_id":"p2","content":"` + output("s", 20) + `"},{"type":"text","text":"and keep going"}]},
{"role":"assistant","content":[{"type":"tool_use","id":"p3","name":"grep","input":{"q":"x"}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"p3","content":"` + output("g", 150) + `"}]}
]`
	in, res := compactMasked(t, data, &chitta.MaskOptions{KeepRecent: 1, MinTokens: 50})
	got := res.Messages[2]
	assert.Equal(t, "[chitta: read_file output elided (121 tokens)]\n"+output("s", 20)+"\nand keep going", got.Content, "the image counts as one token, the small result and the text stay")
	var blocks []map[string]any
	var w struct{ Content json.RawMessage }
	require.NoError(t, json.Unmarshal(got.Raw, &w))
	require.NoError(t, json.Unmarshal(w.Content, &blocks))
	require.Len(t, blocks, 3)
	assert.Equal(t, "p1", blocks[0]["tool_use_id"])
	assert.Equal(t, "[chitta: read_file output elided (121 tokens)]", blocks[0]["content"])
	assert.Contains(t, string(got.Raw), `{"type":"tool_result","tool_use_id":"p2","content":"`+output("s", 20)+`"},{"type":"text","text":"and keep going"}`, "the other blocks are byte for byte")
	assert.Equal(t, in[4], res.Messages[4])
}

func TestMaskEdges(t *testing.T) {
	t.Parallel()
	openai := maskFormats[0].data
	tests := []struct {
		name   string
		mask   chitta.MaskOptions
		masked []int // result messages masked or cut
		check  func(t *testing.T, res *chitta.Result)
	}{
		{"defaults keep the newest three", chitta.MaskOptions{}, nil, nil},
		{"keep recent 2", chitta.MaskOptions{KeepRecent: 2}, []int{3}, nil},
		{"keep recent 1", chitta.MaskOptions{KeepRecent: 1}, []int{3, 5}, nil},
		{"min tokens above the results", chitta.MaskOptions{KeepRecent: 1, MinTokens: 201}, nil, nil},
		{"min tokens equal to the size masks", chitta.MaskOptions{KeepRecent: 1, MinTokens: 200}, []int{3, 5}, nil},
		{"exclude a tool", chitta.MaskOptions{KeepRecent: 1, ExcludeTools: []string{"read_file"}}, nil, nil},
		{"exclude is exact", chitta.MaskOptions{KeepRecent: 1, ExcludeTools: []string{"Read_File"}}, []int{3, 5}, nil},
		{"max result cuts the recent one", chitta.MaskOptions{MaxResultTokens: 40}, []int{3, 5, 7}, func(t *testing.T, res *chitta.Result) {
			c := res.Messages[7].Content
			assert.LessOrEqual(t, words.CountTokens(c), 40)
			assert.True(t, strings.HasPrefix(c, "g0 g1 g2"), c)
			assert.True(t, strings.HasSuffix(c, "g148 g149"), c)
			assert.Contains(t, c, "\n[chitta: grep output cut from 150 tokens to head and tail]\n")
		}},
		{"max result equal to the size leaves it", chitta.MaskOptions{MaxResultTokens: 150, KeepRecent: 3}, []int{3, 5}, nil},
		{"max result below the marker leaves the marker alone", chitta.MaskOptions{MaxResultTokens: 3}, []int{3, 5, 7}, func(t *testing.T, res *chitta.Result) {
			for _, i := range []int{3, 5, 7} {
				assert.Regexp(t, `^\[chitta: \w+ output cut from \d+ tokens to head and tail\]$`, res.Messages[i].Content, "message %d", i)
			}
		}},
		{"masking wins over cutting", chitta.MaskOptions{KeepRecent: 1, MaxResultTokens: 40}, []int{3, 5, 7}, func(t *testing.T, res *chitta.Result) {
			assert.Equal(t, "[chitta: read_file output elided (200 tokens)]", res.Messages[3].Content)
		}},
		{"excluded tools are not cut", chitta.MaskOptions{MaxResultTokens: 40, ExcludeTools: []string{"grep", "read_file"}}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, res := compactMasked(t, openai, &tt.mask)
			var masked []int
			for _, s := range res.Scores {
				if s.Masked {
					masked = append(masked, s.Index)
				}
			}
			assert.Equal(t, tt.masked, masked)
			if tt.check != nil {
				tt.check(t, res)
			}
		})
	}
}

func TestMaskInvalidOptions(t *testing.T) {
	t.Parallel()
	for _, m := range []chitta.MaskOptions{{KeepRecent: -1}, {MinTokens: -1}, {MaxResultTokens: -1}, {Actions: chitta.ActionsOff + 1}} {
		_, err := chitta.Compact(t.Context(), []chitta.Message{msg(chitta.RoleUser, "x")}, &chitta.Options{Mask: &m})
		require.ErrorIs(t, err, chitta.ErrInvalidOption)
		assert.Contains(t, err.Error(), "Mask.")
	}
}

// Selection runs on masked sizes against the budget of the original
// tokens: at a ratio where the unmasked run must drop calls, masking keeps
// every call.
func TestMaskBudgetUsesOriginalTokens(t *testing.T) {
	t.Parallel()
	in, err := chitta.ParseMessages([]byte(maskFormats[0].data))
	require.NoError(t, err)
	plain, err := chitta.Compact(t.Context(), in, &chitta.Options{TargetRatio: 0.4, Tokens: words})
	require.NoError(t, err)
	masked, err := chitta.Compact(t.Context(), in, &chitta.Options{TargetRatio: 0.4, Tokens: words, Mask: &chitta.MaskOptions{KeepRecent: 1}})
	require.NoError(t, err)
	checkMasked(t, in, masked)
	assert.Equal(t, plain.Stats.BeforeTokens, masked.Stats.BeforeTokens)
	assert.Equal(t, plain.Stats.TargetTokens, masked.Stats.TargetTokens)
	assert.LessOrEqual(t, masked.Stats.AfterTokens, masked.Stats.TargetTokens)
	calls := func(r *chitta.Result) (n int) {
		for _, m := range r.Messages {
			if len(m.ToolCallIDs) > 0 {
				n++
			}
		}
		return n
	}
	assert.Less(t, calls(plain), 3)
	assert.Equal(t, 3, calls(masked))
}

// Messages built in Go (no Raw) are masked in Content and marshal in
// OpenAI form.
func TestMaskGoMessages(t *testing.T) {
	t.Parallel()
	in := []chitta.Message{
		msg(chitta.RoleUser, "go"),
		{Role: chitta.RoleAssistant, Content: "call", ToolCallIDs: []string{"x"}},
		{Role: chitta.RoleTool, Content: output("r", 120), ToolResultIDs: []string{"x"}},
		{Role: chitta.RoleAssistant, Content: "call", ToolCallIDs: []string{"y"}},
		{Role: chitta.RoleTool, Content: output("q", 120), ToolResultIDs: []string{"y"}},
	}
	res, err := chitta.Compact(t.Context(), in, &chitta.Options{TargetRatio: 1, Tokens: words, Mask: &chitta.MaskOptions{KeepRecent: 1}})
	require.NoError(t, err)
	checkMasked(t, in, res)
	assert.Equal(t, "[chitta: a tool output elided (120 tokens)]", res.Messages[2].Content)
	assert.Nil(t, res.Messages[2].Raw)
	assert.Equal(t, in[4], res.Messages[4])
}

// Shapes masking does not rewrite (their results stay verbatim): a
// Responses output item that also has a content member or whose output is
// an object (a screenshot), and a result whose content carries nested tool
// linkage.
func TestMaskLeavesOtherShapes(t *testing.T) {
	t.Parallel()
	big := output("o", 150)
	data := `[
{"role":"user","content":"go"},
{"type":"computer_call","call_id":"r1","action":{"type":"screenshot"}},
{"type":"computer_call_output","call_id":"r1","output":{"type":"computer_screenshot","image_url":"data:image/png;base64,` + big + `"}},
{"type":"function_call","call_id":"r2","name":"read_file","arguments":"{}"},
{"type":"function_call_output","call_id":"r2","output":"` + big + `","content":"` + big + `"},
{"role":"assistant","content":[{"type":"tool_use","id":"n1","name":"agent","input":{}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"n1","content":[{"type":"tool_result","tool_use_id":"inner","content":"` + big + `"}]}]},
{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"ls","arguments":"{}"}}]},
{"role":"tool","tool_call_id":"c","content":"` + output("r", 20) + `"}
]`
	in, res := compactMasked(t, data, &chitta.MaskOptions{KeepRecent: 1, MinTokens: 10})
	for i := range in {
		assert.False(t, res.Scores[i].Masked, "message %d", i)
	}
	// The same with the last result old enough: only it is masked.
	_, res = compactMasked(t, strings.TrimSuffix(data, "\n]")+`,
{"role":"assistant","content":null,"tool_calls":[{"id":"d","type":"function","function":{"name":"ls","arguments":"{}"}}]},
{"role":"tool","tool_call_id":"d","content":"x"}]`, &chitta.MaskOptions{KeepRecent: 1, MinTokens: 10})
	var masked []int
	for _, s := range res.Scores {
		if s.Masked {
			masked = append(masked, s.Index)
		}
	}
	assert.Equal(t, []int{8}, masked)
}

// OpenAI Responses output items are masked like OpenAI tool messages: the
// output (a string or content parts) becomes the placeholder string, named
// after the call item's name; call_id, type and every other member stay.
func TestMaskResponsesItems(t *testing.T) {
	t.Parallel()
	big := output("o", 150)
	for _, tc := range []struct {
		name, call, result, want string
	}{
		{"function_call_output string",
			`{"type":"function_call","call_id":"r1","name":"read_file","arguments":"{}"}`,
			`{"type":"function_call_output","call_id":"r1","output":"` + big + `","status":"completed"}`,
			`{"type":"function_call_output","call_id":"r1","output":"[chitta: read_file output elided (150 tokens)]","status":"completed"}`},
		{"function_call_output parts",
			`{"type":"function_call","id":"fc_1","call_id":"r1","name":"grep","arguments":"{}"}`,
			`{"type":"function_call_output","call_id":"r1","output":[{"type":"input_text","text":"` + big + `"},{"type":"input_image","image_url":"data:x"}]}`,
			`{"type":"function_call_output","call_id":"r1","output":"[chitta: grep output elided (151 tokens)]"}`},
		{"custom_tool_call_output",
			`{"type":"custom_tool_call","call_id":"r1","name":"apply_patch","input":"*** Begin Patch"}`,
			`{"type":"custom_tool_call_output","call_id":"r1","output":"` + big + `"}`,
			`{"type":"custom_tool_call_output","call_id":"r1","output":"[chitta: apply_patch output elided (150 tokens)]"}`},
		{"call without a name",
			`{"type":"function_call","call_id":"r1","arguments":"{}"}`,
			`{"type":"function_call_output","call_id":"r1","output":"` + big + `"}`,
			`{"type":"function_call_output","call_id":"r1","output":"[chitta: a tool output elided (150 tokens)]"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			data := `[{"role":"user","content":"go"},` + tc.call + `,` + tc.result + `,` +
				`{"type":"function_call","call_id":"r9","name":"ls","arguments":"{}"},{"type":"function_call_output","call_id":"r9","output":"x"},{"role":"user","content":"next"}]`
			in, res := compactMasked(t, data, &chitta.MaskOptions{KeepRecent: 1, MinTokens: 10, ExcludeTools: []string{"none"}})
			require.True(t, res.Scores[2].Masked)
			assert.JSONEq(t, tc.want, string(res.Messages[2].Raw))
			assert.Equal(t, in[1], res.Messages[1], "the call stays verbatim")
			// Recent (KeepRecent 2 counts it): verbatim.
			_, res = compactMasked(t, data, &chitta.MaskOptions{KeepRecent: 2, MinTokens: 10})
			assert.False(t, res.Scores[2].Masked)
		})
	}
}

// framed adds 4 tokens of framing per message, as a provider tokenizer
// does (chitta.FramingCounter).
type framed struct{}

func (framed) CountTokens(s string) int            { return words.CountTokens(s) }
func (framed) FramingTokens(m *chitta.Message) int { return 4 }

// With a FramingCounter, the placeholder names the result's own size and
// the masked message keeps its framing.
func TestMaskFramingCounter(t *testing.T) {
	t.Parallel()
	in, err := chitta.ParseMessages([]byte(maskFormats[0].data))
	require.NoError(t, err)
	res, err := chitta.Compact(t.Context(), in, &chitta.Options{TargetRatio: 1, Tokens: framed{}, Mask: &chitta.MaskOptions{KeepRecent: 1}})
	require.NoError(t, err)
	assert.Equal(t, "[chitta: read_file output elided (200 tokens)]", res.Messages[3].Content)
	assert.Equal(t, 204, res.Scores[3].OriginalTokens)
	assert.Equal(t, 6+4, res.Scores[3].Tokens)
	before, after := 0, 0
	for _, s := range res.Scores {
		before += s.OriginalTokens
		after += s.Tokens
	}
	assert.Equal(t, before, res.Stats.BeforeTokens)
	assert.Equal(t, after, res.Stats.AfterTokens)
}

// MaxResultTokens below the size of the cut marker: a result larger than
// the cap is still replaced by the marker alone, never left whole. It was
// left whole, so that a tighter cap (5) returned a 520-token result that
// a looser one (50) cut to 50.
func TestMaskMaxResultTokensBelowMarker(t *testing.T) {
	t.Parallel()
	var words []string
	for i := range 400 {
		words = append(words, fmt.Sprintf("word%d", i))
	}
	wire := `[{"role":"user","content":"hi there"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":"` + strings.Join(words, " ") + `"}]`
	msgs, err := chitta.ParseMessages([]byte(wire))
	require.NoError(t, err)
	whole := chitta.EstimateTokens(msgs[2].Content)
	prev := 0
	for limit := 60; limit >= 1; limit-- {
		res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: 1, Mask: &chitta.MaskOptions{MaxResultTokens: limit}})
		require.NoError(t, err)
		require.Len(t, res.Messages, 3)
		got := res.Scores[2].Tokens
		assert.Less(t, got, whole, "cap %d: the result is cut", limit)
		assert.Contains(t, res.Messages[2].Content, "[chitta: f output cut from", "cap %d", limit)
		if prev > 0 {
			assert.LessOrEqual(t, got, prev, "cap %d: a tighter cap never returns more", limit)
		}
		prev = got
		_, err = chitta.ParseMessages([]byte("[" + string(res.Messages[1].Raw) + "," + string(res.Messages[2].Raw) + "]"))
		require.NoError(t, err, "cap %d: the cut result still parses", limit)
	}
}

// A tool message that also carries reasoning_content (eino) is masked with
// its Content read back from the rewritten JSON, which still holds the
// reasoning: the returned Content is what the JSON says.
func TestMaskToolReasoning(t *testing.T) {
	t.Parallel()
	data := `[
{"role":"user","content":"look at a.go"},
{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{}"}}]},
{"role":"tool","content":"` + output("a", 200) + `","tool_call_id":"c1","reasoning_content":"why I read it"},
{"role":"assistant","content":"","tool_calls":[{"id":"c2","type":"function","function":{"name":"grep","arguments":"{}"}}]},
{"role":"tool","content":"` + output("g", 150) + `","tool_call_id":"c2"}
]`
	_, res := compactMasked(t, data, &chitta.MaskOptions{KeepRecent: 1})
	require.True(t, res.Scores[2].Masked)
	assert.Contains(t, res.Messages[2].Content, "why I read it")
	assert.Contains(t, res.Messages[2].Content, "[chitta: read_file output elided (")
}

// A message whose Raw is JSON null (what encoding/json decodes a null
// json.RawMessage to, and what MarshalJSON treats as unset) is masked as
// one without Raw, with and without a MaskCache; two such results of one
// length and linkage are not taken for one another by the cache.
func TestMaskRawNullIsNoRaw(t *testing.T) {
	t.Parallel()
	conv := func(raw json.RawMessage, tag string) []chitta.Message {
		return []chitta.Message{
			msg(chitta.RoleUser, "go"),
			{Role: chitta.RoleAssistant, Content: "call", ToolCallIDs: []string{"x"}, Raw: raw},
			{Role: chitta.RoleTool, Content: output(tag, 120), ToolResultIDs: []string{"x"}, Raw: raw},
			{Role: chitta.RoleAssistant, Content: "call", ToolCallIDs: []string{"y"}, Raw: raw},
			{Role: chitta.RoleTool, Content: output("q", 120), ToolResultIDs: []string{"y"}, Raw: raw},
		}
	}
	for _, tc := range []struct {
		name  string
		raw   json.RawMessage
		cache bool
	}{
		{"null", json.RawMessage("null"), false},
		{"null with spaces", json.RawMessage(" null\n"), false},
		{"null cached", json.RawMessage("null"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts := func() *chitta.Options {
				o := &chitta.Options{TargetRatio: 1, Tokens: words, Mask: &chitta.MaskOptions{KeepRecent: 1}}
				if tc.cache {
					o.Mask.Cache = chitta.NewMaskCache()
				}
				return o
			}
			want, err := chitta.Compact(t.Context(), conv(nil, "r"), opts())
			require.NoError(t, err)
			require.True(t, want.Scores[2].Masked)
			o := opts()
			for _, tag := range []string{"r", "s"} { // same length, other words
				res, err := chitta.Compact(t.Context(), conv(tc.raw, tag), o)
				require.NoError(t, err)
				assert.Equal(t, want.Scores, res.Scores)
				require.Len(t, res.Messages, 5)
				assert.Equal(t, want.Messages[2].Content, res.Messages[2].Content)
				assert.Empty(t, res.Messages[2].Raw)
				assert.Equal(t, output("q", 120), res.Messages[4].Content)
				out, err := chitta.MarshalMessages(res.Messages)
				require.NoError(t, err)
				assert.NotContains(t, string(out), tag+"0 ")
			}
		})
	}
}

// A message whose MediaTokens its Raw does not show (set by the caller)
// keeps them when masked (keptMedia), and its count says so: a whole
// result (an OpenAI tool message) as well as a tool_result block beside
// text, elided or cut, with the default estimate (which counts a
// placeholder from its parts), a TokenCounterFunc and a MaskCache.
func TestMaskUnshownMediaCounted(t *testing.T) {
	t.Parallel()
	data := `[{"role":"user","content":"go"},
{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},
{"role":"tool","tool_call_id":"c1","content":"` + output("w", 120) + `"},
{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"` + output("v", 120) + `"},{"type":"text","text":"note"}]},
{"role":"assistant","content":"ok"}]`
	tests := []struct {
		name   string
		tokens chitta.TokenCounter
		mask   chitta.MaskOptions
	}{
		{"elided, estimate", nil, chitta.MaskOptions{KeepRecent: 1, MinTokens: 1}},
		{"elided, estimate, cached", nil, chitta.MaskOptions{KeepRecent: 1, MinTokens: 1, Cache: chitta.NewMaskCache()}},
		{"elided, words", words, chitta.MaskOptions{KeepRecent: 1, MinTokens: 1}},
		{"elided, words, cached", words, chitta.MaskOptions{KeepRecent: 1, MinTokens: 1, Cache: chitta.NewMaskCache()}},
		{"cut, estimate", nil, chitta.MaskOptions{MaxResultTokens: 20}},
		{"cut, words", words, chitta.MaskOptions{MaxResultTokens: 20}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in, err := chitta.ParseMessages([]byte(data))
			require.NoError(t, err)
			in[2].MediaTokens, in[4].MediaTokens = 50, 50
			count := tt.tokens
			if count == nil {
				count = chitta.TokenCounterFunc(chitta.EstimateTokens)
			}
			for range 2 { // a MaskCache cold, then warm
				res, err := chitta.Compact(t.Context(), in, &chitta.Options{TargetRatio: 1, Tokens: tt.tokens, Mask: &tt.mask})
				require.NoError(t, err)
				require.True(t, res.Scores[2].Masked)
				sum := 0
				for k, i := range res.Kept {
					got := res.Messages[k]
					if res.Scores[i].Masked {
						assert.Equal(t, 50, got.MediaTokens, "message %d keeps the media its Raw does not show", i)
					}
					assert.Equal(t, count.CountTokens(got.Content)+got.MediaTokens, res.Scores[i].Tokens, "message %d: Tokens counts what is returned", i)
					sum += res.Scores[i].Tokens
				}
				assert.Equal(t, sum, res.Stats.AfterTokens)
			}
		})
	}
}

// A result that answers calls of several tools (a SWE-agent observation
// with several tool_call_ids) is the result of each of them: ExcludeTools
// naming any one keeps it whole, whichever call its IDs list first.
func TestMaskExcludeSharedResult(t *testing.T) {
	t.Parallel()
	data := func(ids string) string {
		return `[{"role":"system","content":"SETTING: you are a programmer","agent":"main","message_type":"system_prompt"},
{"role":"user","content":"fix the issue","agent":"main","message_type":"observation"},
{"role":"assistant","content":"look","agent":"main","tool_calls":[{"function":{"arguments":"{}","name":"read_file"},"id":"s1","type":"function"},{"function":{"arguments":"{}","name":"grep"},"id":"s2","type":"function"}],"message_type":"action"},
{"role":"tool","content":"` + output("a", 200) + `","agent":"main","tool_call_ids":` + ids + `,"message_type":"observation"},
{"role":"assistant","content":"grep","agent":"main","tool_calls":[{"function":{"arguments":"{}","name":"grep"},"id":"s3","type":"function"}],"message_type":"action"},
{"role":"tool","content":"` + output("g", 150) + `","agent":"main","tool_call_ids":["s3"],"message_type":"observation"}]`
	}
	tests := []struct {
		name    string
		ids     string
		exclude []string
		masked  bool
	}{
		{"the first call's tool", `["s1","s2"]`, []string{"read_file"}, false},
		{"the second call's tool", `["s1","s2"]`, []string{"grep"}, false},
		{"the second call's tool, ids reversed", `["s2","s1"]`, []string{"read_file"}, false},
		{"neither tool", `["s1","s2"]`, []string{"bash"}, true},
		{"no exclusion", `["s1","s2"]`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, res := compactMasked(t, data(tt.ids), &chitta.MaskOptions{KeepRecent: 1, ExcludeTools: tt.exclude})
			assert.Equal(t, tt.masked, res.Scores[3].Masked)
		})
	}
}
