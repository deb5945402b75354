package chitta_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// Anthropic messages of a Claude Code run that loads deferred tools with
// its ToolSearch tool: the search's result holds a tool_reference to each
// tool it loads, and the API gives the model a loaded tool's schema only
// while such a reference is in the conversation.
const (
	deferredPrompt = `{"role":"user","content":"update the tracker once the tests pass"}`
	bashCall       = `{"role":"assistant","content":[{"type":"tool_use","id":"b1","name":"Bash","input":{"command":"go test ./..."}}]}`
	taskCall       = `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"TaskUpdate","input":{"taskId":"3","status":"completed"}}]}`
	taskResult     = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"Updated task #3 status"}]}`
)

func searchCall(id, names string) string {
	return `{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"ToolSearch","input":{"query":"select:` + names + `"}}]}`
}

func searchResult(id string, names ...string) string {
	var refs []string
	for _, n := range names {
		refs = append(refs, `{"type":"tool_reference","tool_name":"`+n+`"}`)
	}
	return `{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":[` + strings.Join(refs, ",") + `]}]}`
}

func bashResult() string {
	return `{"role":"user","content":[{"type":"tool_result","tool_use_id":"b1","content":"` + strings.Repeat("ok ", 40) + `"}]}`
}

// TestCompactKeepsToolLoader: a kept call of a tool that a tool search
// loaded keeps a result that loads it (the nearest before the call,
// pinned with its call), so the model keeps the schema of the tool it
// calls; a dropped call pins nothing, and FreeSelection turns the rule off.
func TestCompactKeepsToolLoader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		msgs  []string
		opts  chitta.Options
		want  []int
		extra []int // pinned by the rule
	}{
		{
			name: "the live step calls a loaded tool",
			msgs: []string{deferredPrompt, searchCall("s1", "TaskUpdate"), searchResult("s1", "TaskUpdate"), bashCall, bashResult(), taskCall, taskResult},
			want: []int{0, 1, 2, 5, 6}, extra: []int{1, 2},
		},
		{
			name: "of two results loading the tool, the nearest before the call",
			msgs: []string{deferredPrompt, searchCall("s1", "TaskUpdate,TaskList"), searchResult("s1", "TaskUpdate", "TaskList"), searchCall("s2", "TaskUpdate"), searchResult("s2", "TaskUpdate"), taskCall, taskResult},
			want: []int{0, 3, 4, 5, 6}, extra: []int{3, 4},
		},
		{
			name: "a dropped call pins nothing",
			msgs: []string{deferredPrompt, searchCall("s1", "TaskUpdate"), searchResult("s1", "TaskUpdate"), taskCall, taskResult, bashCall, bashResult()},
			want: []int{0, 5, 6},
		},
		{
			name: "a result loading other tools is not needed",
			msgs: []string{deferredPrompt, searchCall("s1", "WebFetch"), searchResult("s1", "WebFetch"), bashCall, bashResult(), taskCall, taskResult},
			want: []int{0, 5, 6},
		},
		{
			name: "FreeSelection turns the rule off",
			msgs: []string{deferredPrompt, searchCall("s1", "TaskUpdate"), searchResult("s1", "TaskUpdate"), bashCall, bashResult(), taskCall, taskResult},
			opts: chitta.Options{FreeSelection: true, KeepLast: 2},
			want: []int{5, 6},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			msgs, err := chitta.ParseMessages([]byte("[" + strings.Join(tt.msgs, ",") + "]"))
			require.NoError(t, err)
			require.NoError(t, chitta.Validate(msgs))
			opts := tt.opts
			opts.MaxTokens, opts.Tokens = 1, chitta.TokenCounterFunc(chitta.CountWords) // nothing but the pins fits
			res, err := chitta.Compact(t.Context(), msgs, &opts)
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.Kept)
			if !opts.FreeSelection { // which may lose the live turn
				require.NoError(t, chitta.Validate(res.Messages))
			}
			for _, i := range tt.extra {
				assert.True(t, res.Scores[i].Pinned, "message %d is pinned", i)
			}
		})
	}
}

// TestCompactToolLoaderWithinBudget: the loading result is charged to the
// budget like every pin, so within the budget it displaces what the fill
// would have kept instead and the result stays within the budget.
func TestCompactToolLoaderWithinBudget(t *testing.T) {
	t.Parallel()
	msgs, err := chitta.ParseMessages([]byte("[" + strings.Join([]string{deferredPrompt, searchCall("s1", "TaskUpdate"), searchResult("s1", "TaskUpdate"), bashCall, bashResult(), taskCall, taskResult}, ",") + "]"))
	require.NoError(t, err)
	counter := chitta.TokenCounterFunc(chitta.CountWords)
	pins := 0
	for _, i := range []int{0, 1, 2, 5, 6} {
		pins += counter.CountTokens(msgs[i].Content)
	}
	res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{MaxTokens: pins, Tokens: counter})
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2, 5, 6}, res.Kept)
	assert.False(t, res.Stats.OverBudget)
	assert.LessOrEqual(t, res.Stats.AfterTokens, pins)
}

// TestCompactToolLoaderProperties: on random Claude Code-like runs that
// load deferred tools, under random budgets and options, every kept call
// of a loaded tool has a kept result loading it, the result is valid, and
// it exceeds the budget only when the pins do.
func TestCompactToolLoaderProperties(t *testing.T) {
	t.Parallel()
	tools := []string{"TaskUpdate", "TaskList", "WebFetch", "Bash"}
	counter := chitta.TokenCounterFunc(chitta.CountWords)
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 15))
		parts := []string{deferredPrompt}
		loaded := map[string]bool{}
		for step := range 4 + r.IntN(12) {
			id := fmt.Sprint("c", step)
			switch r.IntN(5) {
			case 0:
				var names []string
				for _, n := range tools[:3] {
					if r.IntN(2) == 0 {
						names = append(names, n)
						loaded[n] = true
					}
				}
				if len(names) == 0 {
					names = append(names, "TaskList")
					loaded["TaskList"] = true
				}
				parts = append(parts, searchCall(id, strings.Join(names, ",")), searchResult(id, names...))
			case 1:
				parts = append(parts, `{"role":"user","content":"`+strings.Repeat("next ", 1+r.IntN(20))+`"}`)
			default:
				name := tools[r.IntN(len(tools))]
				parts = append(parts,
					`{"role":"assistant","content":[{"type":"text","text":"`+strings.Repeat("so ", r.IntN(10))+`"},{"type":"tool_use","id":"`+id+`","name":"`+name+`","input":{}}]}`,
					`{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+id+`","content":"`+strings.Repeat("out ", r.IntN(60))+`"}]}`)
			}
		}
		msgs, err := chitta.ParseMessages([]byte("[" + strings.Join(parts, ",") + "]"))
		require.NoError(t, err)
		require.NoError(t, chitta.Validate(msgs), "seed %d", seed)
		opts := &chitta.Options{TargetRatio: 0.05 + 0.9*r.Float64(), Tokens: counter, Query: "update the tracker"}
		if r.IntN(2) == 0 {
			opts.Embedder, opts.RelevanceReserve, opts.Lexical = chitta.NewHashEmbedder(64), 0.5, 0.3
		}
		res, err := chitta.Compact(t.Context(), msgs, opts)
		require.NoError(t, err)
		require.NoError(t, chitta.Validate(res.Messages), "seed %d: kept %v", seed, res.Kept)
		pinned := 0
		for _, s := range res.Scores {
			if s.Pinned {
				pinned += s.Tokens
			}
		}
		assert.Equal(t, pinned > res.Stats.TargetTokens, res.Stats.OverBudget, "seed %d", seed)
		if !res.Stats.OverBudget {
			assert.LessOrEqual(t, res.Stats.AfterTokens, res.Stats.TargetTokens, "seed %d", seed)
		}
		// Every kept call of a tool loaded before it has a kept result
		// loading it (anywhere: the schema is sent while one is there).
		loads := func(j int, n string) bool { return strings.Contains(string(msgs[j].Raw), `"tool_name":"`+n+`"`) }
		loadedBefore := func(i int, n string) bool {
			for j := range i {
				if loads(j, n) {
					return true
				}
			}
			return false
		}
		for i, m := range msgs {
			if !res.Scores[i].Kept {
				continue
			}
			for _, n := range tools {
				if !strings.Contains(string(m.Raw), `"name":"`+n+`"`) || !loadedBefore(i, n) {
					continue
				}
				assert.True(t, slices.ContainsFunc(res.Kept, func(j int) bool { return loads(j, n) }),
					"seed %d: kept call %d of %s keeps a result loading it (kept %v)", seed, i, n, res.Kept)
			}
		}
	}
}

// TestMaskKeepsToolReferences: masking never rewrites a tool result that
// loads tools (tool_reference blocks): a placeholder in its place would
// unload the schemas the tool-search rule keeps it for. Other results of
// the conversation are still masked.
func TestMaskKeepsToolReferences(t *testing.T) {
	t.Parallel()
	names := make([]string, 30)
	for k := range names {
		names[k] = fmt.Sprintf("mcp__tracker__tool_%02d", k)
	}
	msgs, err := chitta.ParseMessages([]byte("[" + strings.Join([]string{
		deferredPrompt, searchCall("s1", strings.Join(names, ",")), searchResult("s1", names...),
		bashCall, bashResult(), bashCall, bashResult(), bashCall, bashResult(), taskCall, taskResult,
	}, ",") + "]"))
	require.NoError(t, err)
	// The later bash calls reuse the ID b1; give each its own.
	for k, i := range []int{3, 5, 7} {
		id := fmt.Sprintf("b%d", k+1)
		msgs[i].ToolCallIDs, msgs[i+1].ToolResultIDs = []string{id}, []string{id}
		msgs[i].Raw = []byte(strings.Replace(string(msgs[i].Raw), `"b1"`, `"`+id+`"`, 1))
		msgs[i+1].Raw = []byte(strings.Replace(string(msgs[i+1].Raw), `"b1"`, `"`+id+`"`, 1))
	}
	require.NoError(t, chitta.Validate(msgs))
	tests := []struct {
		name  string
		mask  chitta.MaskOptions
		ratio float64
	}{
		{"small MinTokens", chitta.MaskOptions{KeepRecent: 1, MinTokens: 5}, 1},
		{"MaxResultTokens cuts even recent results", chitta.MaskOptions{KeepRecent: 20, MinTokens: 1 << 20, MaxResultTokens: 10}, 1},
		{"defaults, a tight budget (degraded action records)", chitta.MaskOptions{}, 0.3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mask := tt.mask
			res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: tt.ratio, Mask: &mask})
			require.NoError(t, err)
			require.NoError(t, chitta.Validate(res.Messages))
			require.Contains(t, res.Kept, 2, "the loading result is kept: the live call's tool was loaded by it")
			assert.False(t, res.Scores[2].Masked, "the loading result is not masked")
			out, err := chitta.MarshalMessages(res.Messages)
			require.NoError(t, err)
			assert.Equal(t, len(names), strings.Count(string(out), `"tool_reference"`), "every reference survives")
			if tt.ratio == 1 {
				assert.Positive(t, res.Stats.Masked, "other results are still masked")
			}
		})
	}
}
