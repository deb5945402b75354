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

// A run on the Responses API that loads a deferred tool with a tool
// search (items 1 and 2: tool_search_call and the tool_search_output
// holding the loaded definitions), runs Bash, then calls (item 5) a tool.
func responsesSearchRun(loaded, call, output string) []string {
	return []string{
		deferredPrompt,
		`{"type":"tool_search_call","call_id":"s1","arguments":{"query":"tracker"},"execution":"client"}`,
		`{"type":"tool_search_output","call_id":"s1","execution":"client","tools":[` + loaded + `]}`,
		`{"type":"function_call","call_id":"b1","name":"Bash","arguments":"{\"command\":\"go test ./...\"}"}`,
		`{"type":"function_call_output","call_id":"b1","output":"` + strings.Repeat("ok ", 40) + `"}`,
		call, output,
	}
}

// noCallIDs removes the call_id of the tool search items of run.
func noCallIDs(run []string) []string {
	for i, m := range run {
		if strings.Contains(m, `"type":"tool_search_`) {
			run[i] = strings.Replace(m, `"call_id":"s1",`, "", 1)
		}
	}
	return run
}

const (
	responsesTaskCall   = `{"type":"function_call","call_id":"t1","name":"TaskUpdate","arguments":"{\"taskId\":\"3\"}"}`
	responsesTaskResult = `{"type":"function_call_output","call_id":"t1","output":"Updated task #3 status"}`
	serverSearch        = `{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"tool_search_tool_regex","input":{"query":"task"}},{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"TaskUpdate"}]}},{"type":"text","text":"Found the tracker tool."}]}`
	serverSearchOther   = `{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"tool_search_tool_regex","input":{"query":"web"}},{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"WebFetch"}]}}]}`
)

// TestCompactKeepsToolLoaderShapes: the tool-search rule follows
// Anthropic's server tool search (a tool_search_tool_result in the
// assistant's message) and the Responses API's tool_search_output items
// as it follows tool_reference blocks in tool results, with and without
// Mask: a kept call of a loaded tool keeps the message that loaded it.
// On main the rule saw neither shape (kept [0 4 5] and [0 5 6]).
func TestCompactKeepsToolLoaderShapes(t *testing.T) {
	t.Parallel()
	fn := `{"type":"function","name":"TaskUpdate","parameters":{"type":"object"}}`
	tests := []struct {
		name string
		msgs []string
		want []int
	}{
		{"server tool search", []string{deferredPrompt, serverSearch, bashCall, bashResult(), taskCall, taskResult}, []int{0, 1, 4, 5}},
		{"server tool search loading another tool", []string{deferredPrompt, serverSearchOther, bashCall, bashResult(), taskCall, taskResult}, []int{0, 4, 5}},
		{"Responses function", responsesSearchRun(fn, responsesTaskCall, responsesTaskResult), []int{0, 1, 2, 5, 6}},
		{"Responses function in a namespace", responsesSearchRun(`{"type":"namespace","name":"crm","description":"CRM","tools":[`+fn+`]}`,
			`{"type":"function_call","call_id":"t1","namespace":"crm","name":"TaskUpdate","arguments":"{\"taskId\":\"3\"}"}`, responsesTaskResult), []int{0, 1, 2, 5, 6}},
		{"Responses custom tool", responsesSearchRun(`{"type":"custom","name":"apply_patch"}`,
			`{"type":"custom_tool_call","call_id":"t1","name":"apply_patch","input":"*** patch"}`, `{"type":"custom_tool_call_output","call_id":"t1","output":"patched"}`), []int{0, 1, 2, 5, 6}},
		{"Responses output loading another tool", responsesSearchRun(`{"type":"function","name":"WebFetch"}`, responsesTaskCall, responsesTaskResult), []int{0, 5, 6}},
		// A search the server ran may come without call_id: the output
		// pairs with the call right before it.
		{"Responses, no call_id", noCallIDs(responsesSearchRun(fn, responsesTaskCall, responsesTaskResult)), []int{0, 1, 2, 5, 6}},
	}
	for _, tt := range tests {
		for _, mask := range []*chitta.MaskOptions{nil, {}} {
			t.Run(fmt.Sprintf("%s/mask=%v", tt.name, mask != nil), func(t *testing.T) {
				t.Parallel()
				msgs, err := chitta.ParseMessages([]byte("[" + strings.Join(tt.msgs, ",") + "]"))
				require.NoError(t, err)
				require.NoError(t, chitta.Validate(msgs))
				opts := &chitta.Options{MaxTokens: 1, Tokens: chitta.TokenCounterFunc(chitta.CountWords), Mask: mask} // nothing but the pins fits
				res, err := chitta.Compact(t.Context(), msgs, opts)
				require.NoError(t, err)
				assert.Equal(t, tt.want, res.Kept)
				require.NoError(t, chitta.Validate(res.Messages))
			})
		}
	}
}

// TestMaskKeepsToolLoaderShapes: masking leaves whole a server tool
// search's result and a Responses tool_search_output, while the other
// results of the conversation are masked.
func TestMaskKeepsToolLoaderShapes(t *testing.T) {
	t.Parallel()
	tools := make([]string, 30)
	for k := range tools {
		tools[k] = fmt.Sprintf(`{"type":"function","name":"Tool%02d","description":"tracker tool %d","parameters":{"type":"object"}}`, k, k)
	}
	tools[0] = `{"type":"function","name":"TaskUpdate","parameters":{"type":"object"}}`
	steps := func(call func(id string) string, result func(id string) string) []string {
		var out []string
		for k := range 6 {
			id := fmt.Sprintf("b%d", k)
			out = append(out, call(id), result(id))
		}
		return out
	}
	responses := responsesSearchRun(strings.Join(tools, ","), responsesTaskCall, responsesTaskResult)
	responses = slices.Concat(responses[:3], steps(func(id string) string {
		return `{"type":"function_call","call_id":"` + id + `","name":"Bash","arguments":"{\"command\":\"go test ./...\"}"}`
	}, func(id string) string {
		return `{"type":"function_call_output","call_id":"` + id + `","output":"` + strings.Repeat("ok fine ", 30) + `"}`
	}), responses[5:])
	server := slices.Concat([]string{deferredPrompt, serverSearch}, steps(func(id string) string {
		return strings.Replace(bashCall, `"b1"`, `"`+id+`"`, 1)
	}, func(id string) string {
		return strings.Replace(bashResult(), `"b1"`, `"`+id+`"`, 1)
	}), []string{taskCall, taskResult})
	for _, tt := range []struct {
		name   string
		msgs   []string
		loader int
	}{{"server tool search", server, 1}, {"Responses", responses, 2}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			msgs, err := chitta.ParseMessages([]byte("[" + strings.Join(tt.msgs, ",") + "]"))
			require.NoError(t, err)
			require.NoError(t, chitta.Validate(msgs))
			for _, mask := range []chitta.MaskOptions{{KeepRecent: 1, MinTokens: 5}, {KeepRecent: 20, MinTokens: 1 << 20, MaxResultTokens: 3}, {}} {
				res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: 0.9, Tokens: chitta.TokenCounterFunc(chitta.CountWords), Mask: &mask})
				require.NoError(t, err)
				require.Contains(t, res.Kept, tt.loader, "%+v", mask)
				assert.False(t, res.Scores[tt.loader].Masked, "the loader is left whole (%+v)", mask)
				assert.Equal(t, string(msgs[tt.loader].Raw), string(res.Messages[slices.Index(res.Kept, tt.loader)].Raw), "%+v", mask)
				if mask.MinTokens == 5 {
					assert.Positive(t, res.Stats.Masked, "the other results are masked")
				}
			}
		})
	}
}

// TestParseToolSearchOutput: ParseMessages reads a Responses
// tool_search_output as the names of the function and custom tools it
// loads, then the JSON of every tool definition it holds (the model is
// sent them), as adapt/openai does; it carries its call_id, else the ID
// ParseMessages gives the tool_search_call right before it when that has
// no call_id either (a search the server ran), else its id. On main its
// text was empty (the definitions counted 0 tokens), and an output and
// call without call_id were not paired.
func TestParseToolSearchOutput(t *testing.T) {
	t.Parallel()
	call := `{"type":"tool_search_call","call_id":"s1","arguments":{"query":"x"}}`
	tests := []struct {
		name, item string
		text       string
		ids        []string
		call       string // item 0, call by default
		callIDs    []string
	}{
		{"a function and an MCP server", `{"type":"tool_search_output","call_id":"s1","tools":[{"type":"function","name":"TaskUpdate","parameters":{"type": "object"}},{"type":"mcp","server_label":"gh"}]}`,
			"TaskUpdate\n" + `{"type":"function","name":"TaskUpdate","parameters":{"type":"object"}}` + "\n" + `{"type":"mcp","server_label":"gh"}`, []string{"s1"}, "", nil},
		{"a namespace, no call_id", `{"type":"tool_search_output","id":"tso_1","execution":"server","tools":[{"type":"namespace","name":"crm","tools":[{"type":"custom","name":"apply_patch"}]}]}`,
			"apply_patch\n" + `{"type":"namespace","name":"crm","tools":[{"type":"custom","name":"apply_patch"}]}`, []string{"tso_1"}, "", nil},
		{"no tools", `{"type":"tool_search_output","call_id":"s1","tools":[]}`, "", []string{"s1"}, "", nil},
		{"a server search without call_id", `{"type":"tool_search_output","call_id":null,"id":"tso_1","execution":"server","tools":[]}`, "", []string{"tool_search@0"},
			`{"type":"tool_search_call","id":"tsc_1","execution":"server","arguments":{"query":"x"}}`, []string{"tool_search@0"}},
		{"an output without call_id after another item", `{"type":"tool_search_output","id":"tso_1","tools":[]}`, "", []string{"tso_1"},
			`{"type":"function_call","name":"Bash","arguments":"{}"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			first, callIDs := call, []string{"s1"}
			if tt.call != "" {
				first, callIDs = tt.call, tt.callIDs
			}
			msgs, err := chitta.ParseMessages([]byte(`[` + first + `,` + tt.item + `]`))
			require.NoError(t, err)
			assert.Equal(t, callIDs, msgs[0].ToolCallIDs)
			assert.Equal(t, chitta.RoleTool, msgs[1].Role)
			assert.Equal(t, tt.text, msgs[1].Content)
			assert.Equal(t, tt.ids, msgs[1].ToolResultIDs)
		})
	}
	for _, tools := range []string{`{"type":"function"}`, `"TaskUpdate"`, `7`} {
		_, err := chitta.ParseMessages([]byte(`[{"type":"tool_search_output","call_id":"s1","tools":` + tools + `}]`))
		require.ErrorIs(t, err, chitta.ErrInvalidMessages, tools)
		var me *chitta.MessageError
		require.ErrorAs(t, err, &me, tools)
		assert.Equal(t, "tools", me.Field, tools)
		assert.Contains(t, me.Msg, "want an array", tools)
	}
}

// TestParseServerToolSearchResult: ParseMessages reads a server tool
// search's tool_search_tool_result as the names of the tools it loads, as
// adapt/anthropic does (on main: its JSON), and an error result as its
// JSON; both carry the server_tool_use's ID.
func TestParseServerToolSearchResult(t *testing.T) {
	t.Parallel()
	errResult := `{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"tool_search_tool_result_error","error_code":"unavailable"}}`
	tests := []struct {
		name, msg, text string
	}{
		{"loads", serverSearch, "tool_search_tool_regex {\"query\":\"task\"}\nTaskUpdate\nFound the tracker tool."},
		{"an error", `{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"tool_search_tool_regex","input":{"query":"x"}},` + errResult + `]}`,
			"tool_search_tool_regex {\"query\":\"x\"}\n" + errResult},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			msgs, err := chitta.ParseMessages([]byte("[" + deferredPrompt + "," + tt.msg + "]"))
			require.NoError(t, err)
			assert.Equal(t, tt.text, msgs[1].Content)
			assert.Equal(t, []string{"srvtoolu_1"}, msgs[1].ToolCallIDs)
			assert.Equal(t, []string{"srvtoolu_1"}, msgs[1].ToolResultIDs)
		})
	}
}
