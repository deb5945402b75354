package genai_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/chitta-go/chitta"
	adapter "github.com/chitta-go/chitta/adapt/genai"
	"github.com/chitta-go/chitta/adapt/internal/adaptkit"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
)

var fileText = strings.Repeat("line of file content here ", 60)

// readFiles is the lead's reproduction: 10 × (user ask, function call,
// {"output": file} response), the calls with IDs.
func readFiles() []*genai.Content {
	var c []*genai.Content
	for i := range 10 {
		id := fmt.Sprintf("call-%d", i)
		c = append(c,
			genai.NewContentFromText(fmt.Sprintf("Show me file %d", i), genai.RoleUser),
			genai.NewContentFromParts([]*genai.Part{{FunctionCall: &genai.FunctionCall{ID: id, Name: "read_file", Args: map[string]any{"path": fmt.Sprintf("f%d.go", i)}}}}, genai.RoleModel),
			genai.NewContentFromParts([]*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: id, Name: "read_file", Response: map[string]any{"output": fileText}}}}, genai.RoleUser),
		)
	}
	return c
}

// parallel has parallel calls without IDs (paired by position), answered
// in one content with a text part, by two tools; grep answers with a JSON
// map, read_file with {"output": s} or {"error": s}.
func parallel() []*genai.Content {
	var c []*genai.Content
	for i := range 8 {
		out := map[string]any{"output": fileText}
		if i%3 == 2 {
			out = map[string]any{"error": "cannot read: " + fileText}
		}
		c = append(c,
			genai.NewContentFromText(fmt.Sprintf("Look into bug %d", i), genai.RoleUser),
			genai.NewContentFromParts([]*genai.Part{
				genai.NewPartFromFunctionCall("read_file", map[string]any{"path": fmt.Sprintf("f%d.go", i)}),
				genai.NewPartFromFunctionCall("grep", map[string]any{"pattern": fmt.Sprintf("BUG-%d", i)}),
			}, genai.RoleModel),
			genai.NewContentFromParts([]*genai.Part{
				genai.NewPartFromText("both results:"),
				genai.NewPartFromFunctionResponse("read_file", out),
				genai.NewPartFromFunctionResponse("grep", map[string]any{"matches": []any{fmt.Sprintf("f%d.go:%d BUG-%d", i, 10+i, i), strings.Repeat("context line ", 50)}, "count": float64(i + 2)}),
			}, genai.RoleUser),
		)
	}
	return append(c, genai.NewContentFromText("So what is the fix?", genai.RoleUser))
}

// responses returns the function responses of c, in part order.
func responses(c *genai.Content) []*genai.FunctionResponse {
	var out []*genai.FunctionResponse
	for _, p := range c.Parts {
		if p != nil && p.FunctionCall == nil && p.FunctionResponse != nil {
			out = append(out, p.FunctionResponse)
		}
	}
	return out
}

func TestCompactMasks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		conv func() []*genai.Content
		opts *chitta.Options
	}{
		{"by ID", readFiles, &chitta.Options{TargetRatio: 0.3, Mask: &chitta.MaskOptions{}}},
		{"by position, parallel", parallel, &chitta.Options{TargetRatio: 0.3, Mask: &chitta.MaskOptions{}}},
		{"actions off, restore", parallel, &chitta.Options{TargetRatio: 0.5, Mask: &chitta.MaskOptions{Actions: chitta.ActionsOff, Restore: true}}},
		{"no values listed", parallel, &chitta.Options{TargetRatio: 0.2, Mask: &chitta.MaskOptions{ListValues: -1}}},
		{"bytes counter", parallel, &chitta.Options{TargetRatio: 0.3, Mask: &chitta.MaskOptions{}, Tokens: chitta.TokenCounterFunc(func(s string) int { return (len(s) + 3) / 4 })}},
		{"mask cache", readFiles, &chitta.Options{TargetRatio: 0.3, Mask: &chitta.MaskOptions{Cache: chitta.NewMaskCache()}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in, out, res := adapttest.Masked(t, tc.conv, adapter.Compact, adapter.Messages, tc.opts)
			adapttest.ValidWire(t, out, "the returned values")
			require.Positive(t, res.Stats.Masked)
			for j, i := range res.Kept {
				if !res.Scores[i].Masked {
					assert.Same(t, in[i], out[j], "message %d: the caller's pointer", i)
					continue
				}
				require.NotSame(t, in[i], out[j])
				require.Len(t, out[j].Parts, len(in[i].Parts))
				assert.NotSame(t, &in[i].Parts[0], &out[j].Parts[0], "message %d: a new Parts slice", i)
				for k, p := range out[j].Parts {
					q := in[i].Parts[k]
					if p == q {
						continue
					}
					require.NotNil(t, p.FunctionResponse, "message %d part %d: only responses are replaced", i, k)
					assert.NotSame(t, q.FunctionResponse, p.FunctionResponse)
					assert.Equal(t, q.FunctionResponse.ID, p.FunctionResponse.ID)
					assert.Equal(t, q.FunctionResponse.Name, p.FunctionResponse.Name)
					require.Len(t, p.FunctionResponse.Response, 1)
					key := "output"
					if _, ok := q.FunctionResponse.Response["error"]; ok {
						key = "error"
					}
					text, ok := p.FunctionResponse.Response[key].(string)
					require.True(t, ok, "message %d part %d: {%q: text}", i, k, key)
					assert.True(t, strings.HasPrefix(text, chitta.MaskPrefix+q.FunctionResponse.Name+" output elided"), "the placeholder names the tool: %q", text)
				}
			}
		})
	}
}

// TestCompactMasksMultiResult: one content holding a text part and two
// responses has each judged on its own (grep's is excluded and kept
// whole, read_file's masked), its text part kept.
func TestCompactMasksMultiResult(t *testing.T) {
	t.Parallel()
	opts := &chitta.Options{TargetRatio: 0.3, Mask: &chitta.MaskOptions{ExcludeTools: []string{"grep"}}}
	in, out, res := adapttest.Masked(t, parallel, adapter.Compact, adapter.Messages, opts)
	adapttest.ValidWire(t, out, "the returned values")
	some := 0
	for j, i := range res.Kept {
		if !res.Scores[i].Masked {
			continue
		}
		some++
		assert.Same(t, in[i].Parts[0], out[j].Parts[0], "message %d: the text part is kept", i)
		rs, orig := responses(out[j]), responses(in[i])
		require.Len(t, rs, 2)
		assert.Contains(t, fmt.Sprint(rs[0].Response), "[chitta: read_file output elided")
		assert.Same(t, orig[1], rs[1], "message %d: grep (excluded) is the caller's", i)
	}
	assert.Positive(t, some)
}

// TestCompactCutsRecent: MaxResultTokens cuts even the newest result, to
// head and tail around a marker naming the tool.
func TestCompactCutsRecent(t *testing.T) {
	t.Parallel()
	opts := &chitta.Options{TargetRatio: 1, Mask: &chitta.MaskOptions{MaxResultTokens: 60}}
	in, out, res := adapttest.Masked(t, readFiles, adapter.Compact, adapter.Messages, opts)
	adapttest.ValidWire(t, out, "the returned values")
	require.Equal(t, len(in), len(out))
	last := responses(out[len(out)-1])[0].Response["output"].(string)
	assert.Contains(t, last, "[chitta: read_file output cut from")
	assert.True(t, strings.HasPrefix(last, "line of file"), "the head is kept: %q", last)
	assert.Equal(t, 10, res.Stats.Masked)
}

// TestCompactMaskCacheSame: with a MaskCache, compacting again (the
// cache now warm) returns what compacting without one does.
func TestCompactMaskCacheSame(t *testing.T) {
	t.Parallel()
	cache := chitta.NewMaskCache()
	want, _, err := adapter.Compact(t.Context(), parallel(), &chitta.Options{TargetRatio: 0.3, Mask: &chitta.MaskOptions{}})
	require.NoError(t, err)
	for range 2 {
		got, _, err := adapter.Compact(t.Context(), parallel(), &chitta.Options{TargetRatio: 0.3, Mask: &chitta.MaskOptions{Cache: cache}})
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	assert.Positive(t, cache.Stats().Hits)
}

func TestCompactMaskNilUnchanged(t *testing.T) {
	t.Parallel()
	in := readFiles()
	out, res, err := adapter.Compact(t.Context(), in, &chitta.Options{TargetRatio: 0.3})
	require.NoError(t, err)
	assert.Zero(t, res.Stats.Masked)
	for j, i := range res.Kept {
		assert.Same(t, in[i], out[j])
	}
}

func ExampleCompact_mask() {
	var msgs []*genai.Content
	for i := range 4 {
		id := fmt.Sprintf("call-%d", i)
		msgs = append(msgs,
			genai.NewContentFromText(fmt.Sprintf("Show me file %d", i), genai.RoleUser),
			genai.NewContentFromParts([]*genai.Part{{FunctionCall: &genai.FunctionCall{ID: id, Name: "read_file", Args: map[string]any{"path": fmt.Sprintf("f%d.go", i)}}}}, genai.RoleModel),
			genai.NewContentFromParts([]*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: id, Name: "read_file", Response: map[string]any{"output": strings.Repeat("package main ", 100)}}}}, genai.RoleUser),
		)
	}
	out, res, err := adapter.Compact(context.Background(), msgs, &chitta.Options{TargetRatio: 0.5, Mask: &chitta.MaskOptions{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(out), "of", len(msgs), "kept,", res.Stats.Masked, "masked")
	fmt.Println(out[2].Parts[0].FunctionResponse.Response["output"])
	fmt.Println(msgs[2].Parts[0].FunctionResponse.Response["output"] == out[2].Parts[0].FunctionResponse.Response["output"])
	// Output:
	// 12 of 12 kept, 3 masked
	// [chitta: read_file output elided (260 tokens)]
	// false
}

// randomContents draws a conversation: user turns, model turns of 1 to 3
// parallel calls (with IDs, or without and paired by position, or with
// IDs answered by responses without, paired by position too) answered in
// one user content (a text part sometimes first) by text outputs, errors
// or JSON responses of random sizes.
func randomContents(rng *rand.Rand) []*genai.Content {
	tools := []string{"read_file", "grep", "run"}
	words := func(n int) string { return strings.Repeat(fmt.Sprintf("w%d ", rng.IntN(50)), n) }
	var c []*genai.Content
	for turn := range 2 + rng.IntN(8) {
		c = append(c, genai.NewContentFromText("ask "+words(1+rng.IntN(5)), genai.RoleUser))
		var calls, resps []*genai.Part
		if rng.IntN(4) == 0 {
			resps = append(resps, genai.NewPartFromText("results "+words(1+rng.IntN(3))))
		}
		ids := rng.IntN(3) // 0: none, 1: calls and responses, 2: calls only
		for k := range 1 + rng.IntN(3) {
			name := tools[rng.IntN(len(tools))]
			call := &genai.FunctionCall{Name: name, Args: map[string]any{"arg": words(1)}}
			resp := &genai.FunctionResponse{Name: name}
			if ids > 0 {
				call.ID = fmt.Sprintf("id-%d-%d", turn, k)
			}
			if ids == 1 {
				resp.ID = call.ID
			}
			switch size := rng.IntN(300); rng.IntN(3) {
			case 0:
				resp.Response = map[string]any{"output": words(size)}
			case 1:
				resp.Response = map[string]any{"error": words(size)}
			default:
				resp.Response = map[string]any{"rows": []any{words(size), float64(size)}, "code": fmt.Sprintf("C%d", size)}
			}
			calls = append(calls, &genai.Part{FunctionCall: call})
			resps = append(resps, &genai.Part{FunctionResponse: resp})
		}
		c = append(c, genai.NewContentFromParts(calls, genai.RoleModel), genai.NewContentFromParts(resps, genai.RoleUser))
	}
	return append(c, genai.NewContentFromText("done?", genai.RoleUser))
}

func TestCompactMaskProperty(t *testing.T) {
	t.Parallel()
	adapttest.MaskProperty(t, 150, randomContents, adapter.Compact, adapter.Messages, func(c *genai.Content) []string {
		var out []string
		for _, r := range responses(c) {
			out = append(out, adaptkit.JSON(r.Response))
		}
		return out
	})
}
