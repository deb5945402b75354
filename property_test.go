package chitta_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/chittatest"
	"github.com/chitta-go/chitta/internal/testkit/wiregen"
)

// randomConversations returns n random conversations drawn from seed.
func randomConversations(seed uint64, n int) [][]chitta.Message {
	r := rand.New(rand.NewPCG(seed, seed))
	convs := make([][]chitta.Message, n)
	for i := range convs {
		convs[i] = randomConversation(r)
	}
	return convs
}

// randomConversation builds a conversation with system messages, plain
// turns, OpenAI-style and Anthropic-style tool groups (parallel calls
// included), orphan results and empty messages.
func randomConversation(r *rand.Rand) []chitta.Message {
	var msgs []chitta.Message
	vocab := []string{"deploy", "config", "parseConfig", "error", "the", "test", "fix", "user", "memory", "go", "build", "ok"}
	say := func() string {
		n := r.IntN(40)
		w := make([]string, n)
		for i := range w {
			w[i] = vocab[r.IntN(len(vocab))]
		}
		return strings.Join(w, " ")
	}
	n := 1 + r.IntN(40)
	call := 0
	for len(msgs) < n {
		switch r.IntN(10) {
		case 0:
			msgs = append(msgs, msg([]chitta.Role{chitta.RoleSystem, chitta.RoleDeveloper}[r.IntN(2)], say()))
		case 1, 2:
			k := 1 + r.IntN(3)
			a := chitta.Message{Role: chitta.RoleAssistant, Content: say()}
			var results []chitta.Message
			anthropic := r.IntN(2) == 0
			for range k {
				call++
				id := fmt.Sprintf("c%d", call)
				if r.IntN(8) == 0 && !slices.Contains(a.ToolCallIDs, "reused") {
					// Real trajectories reuse IDs across turns (one
					// ID twice in a message's calls would give one call
					// two results, which providers refuse).
					id = "reused"
				}
				a.ToolCallIDs = append(a.ToolCallIDs, id)
				role := chitta.RoleTool
				if anthropic {
					role = chitta.RoleUser
				}
				results = append(results, chitta.Message{Role: role, Content: say(), ToolResultIDs: []string{id}})
			}
			msgs = append(msgs, a)
			if anthropic && k > 1 && r.IntN(2) == 0 { // all results in one message
				m := chitta.Message{Role: chitta.RoleUser, Content: say()}
				for _, res := range results {
					m.ToolResultIDs = append(m.ToolResultIDs, res.ToolResultIDs...)
				}
				results = []chitta.Message{m}
			}
			msgs = append(msgs, results...)
		case 3:
			msgs = append(msgs, chitta.Message{Role: chitta.RoleTool, Content: say(), ToolResultIDs: []string{"missing"}})
		default:
			msgs = append(msgs, msg([]chitta.Role{chitta.RoleUser, chitta.RoleAssistant}[r.IntN(2)], say()))
		}
	}
	for i := range msgs {
		if r.IntN(6) == 0 { // an image or two, as the provider bills them
			msgs[i].MediaTokens = 1 + r.IntN(2*chitta.AnthropicMaxImageTokens)
		}
	}
	return msgs
}

func randomOptions(r *rand.Rand) *chitta.Options {
	o := &chitta.Options{TargetRatio: 0.05 + 0.95*r.Float64()}
	if r.IntN(4) == 0 {
		o.TargetRatio = 0
	}
	if r.IntN(5) == 0 {
		o.MaxTokens = r.IntN(200)
	}
	if r.IntN(3) == 0 {
		o.KeepLast = r.IntN(4)
	}
	o.Rescale = r.IntN(3) == 0
	if r.IntN(2) == 0 {
		o.RelevanceReserve = r.Float64()
	}
	if r.IntN(2) == 0 {
		o.Lexical = r.Float64()
	}
	if r.IntN(3) > 0 {
		o.Embedder = chittatest.SeededEmbedder{Dims: 8}
		o.Query = "fix the config error"
	}
	if r.IntN(2) == 0 {
		st := &chittatest.Store{}
		for i := range r.IntN(5) {
			st.Memories = append(st.Memories, chitta.Memory{ID: fmt.Sprint(i), Vector: chittatest.SeededVector(fmt.Sprint("mem", i), 8)})
		}
		o.Store = st
	}
	if o.Embedder != nil && r.IntN(3) == 0 {
		// An asymmetric query side, or one of another dimension (which
		// Compact ignores with a warning).
		o.QueryEmbedder = []chitta.Embedder{prefixed("query: ", 8), chittatest.SeededEmbedder{Dims: 4}}[r.IntN(2)]
	}
	return o
}

// ignoresQuery reports whether randomOptions drew a QueryEmbedder whose
// vectors Compact ignores (another dimension than Embedder's).
func ignoresQuery(o *chitta.Options) bool {
	q, ok := o.QueryEmbedder.(chittatest.SeededEmbedder)
	return ok && q.Dims != 8
}

// checkInvariants asserts every property a compaction must have.
func checkInvariants(t *testing.T, msgs []chitta.Message, res *chitta.Result) {
	t.Helper()
	st := res.Stats
	require.Len(t, res.Scores, len(msgs))
	require.Len(t, res.Messages, len(res.Kept))
	kept := make([]bool, len(msgs))
	for i, k := range res.Kept {
		if i > 0 {
			require.Greater(t, k, res.Kept[i-1], "kept indices ascend (original order)")
		}
		require.Equal(t, msgs[k].Content, res.Messages[i].Content, "survivors are verbatim")
		require.Equal(t, msgs[k].Role, res.Messages[i].Role)
		kept[k] = true
	}
	before, after, pinned := 0, 0, 0
	for i, s := range res.Scores {
		require.Equal(t, i, s.Index)
		require.Equal(t, kept[i], s.Kept)
		require.False(t, math.IsNaN(s.Score))
		before += s.Tokens
		require.GreaterOrEqual(t, s.Tokens, msgs[i].MediaTokens, "a message counts its media")
		if s.Kept {
			after += s.Tokens
		}
		if s.Pinned {
			pinned += s.Tokens
			require.True(t, s.Kept, "pinned messages are kept")
		}
		if msgs[i].Role.Pinned() {
			require.True(t, s.Kept, "system and developer messages are kept")
		} else {
			require.GreaterOrEqual(t, s.Semantic, 0.0)
			require.LessOrEqual(t, s.Semantic, 1.0)
			require.GreaterOrEqual(t, s.Coverage, 0.0)
			require.LessOrEqual(t, s.Coverage, 1.0)
		}
	}
	require.Equal(t, before, st.BeforeTokens)
	require.Equal(t, after, st.AfterTokens)
	require.Equal(t, len(msgs)-len(res.Kept), st.Dropped)
	if pinned <= st.TargetTokens {
		require.LessOrEqual(t, after, st.TargetTokens, "budget respected")
		require.False(t, st.OverBudget)
	} else {
		require.True(t, st.OverBudget)
	}
	// Tool groups are intact: a kept result has its call, a kept call has
	// its results (among non-system messages of the input).
	// A result answers the nearest earlier call with its ID (or the first
	// call when none precedes it).
	callers := map[string][]int{}
	for i, m := range msgs {
		if !m.Role.Pinned() {
			for _, id := range m.ToolCallIDs {
				callers[id] = append(callers[id], i)
			}
		}
	}
	answered := func(id string, i int) (int, bool) {
		cs := callers[id]
		if len(cs) == 0 {
			return 0, false
		}
		c := cs[0]
		for _, k := range cs {
			if k < i {
				c = k
			}
		}
		return c, true
	}
	unitCost := map[int]int{}
	unitKept := map[int]bool{}
	for i, m := range msgs {
		if m.Role.Pinned() {
			continue
		}
		unitCost[res.Scores[i].Unit] += res.Scores[i].Tokens
		unitKept[res.Scores[i].Unit] = kept[i]
		for _, id := range m.ToolResultIDs {
			if c, ok := answered(id, i); ok {
				require.Equal(t, kept[c], kept[i], "call %d and result %d stay together", c, i)
				require.Equal(t, res.Scores[c].Unit, res.Scores[i].Unit)
			}
		}
	}
	// First fit: a dropped group did not fit when it was considered, and
	// the budget only fills up, so it cannot fit now either.
	for u, cost := range unitCost {
		if !unitKept[u] {
			require.Greater(t, after+cost, st.TargetTokens, "dropped group %d would have fit", u)
		}
	}
	if st.BeforeTokens > 0 {
		require.InDelta(t, 100*float64(before-after)/float64(before), st.DroppedPct, 1e-9)
	}
}

func TestCompactProperties(t *testing.T) {
	t.Parallel()
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 42))
		msgs := randomConversation(r)
		opts := randomOptions(r)
		res, err := chitta.Compact(t.Context(), msgs, opts)
		require.NoError(t, err, "seed %d", seed)
		checkInvariants(t, msgs, res)
		again, err := chitta.Compact(t.Context(), msgs, opts)
		require.NoError(t, err)
		require.Equal(t, res.Kept, again.Kept, "deterministic (seed %d)", seed)
		require.Equal(t, res.Scores, again.Scores)

		// The reserve never changes a score, and without a query neither
		// option changes anything.
		base := *opts
		base.RelevanceReserve = 0
		if opts.Query == "" {
			base.Lexical = 0
		}
		ref, err := chitta.Compact(t.Context(), msgs, &base)
		require.NoError(t, err)
		for i := range ref.Scores {
			a, b := ref.Scores[i], res.Scores[i]
			a.Kept, b.Kept, a.Pinned, b.Pinned = false, false, false, false // selection, not score
			require.Equal(t, a, b, "seed %d: score %d changed by the reserve", seed, i)
		}
		if opts.Query == "" {
			require.Equal(t, ref.Kept, res.Kept, "seed %d: no query, no change", seed)
		}
	}
}

func FuzzCompact(f *testing.F) {
	f.Add([]byte(`[{"role":"system","content":"s"},{"role":"user","content":"hello world"},{"role":"assistant","content":"x","tool_calls":[{"id":"a","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":"r"}]`), 0.4, uint8(1))
	f.Add([]byte(`[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"n","input":{}}]}]`), 0.05, uint8(0))
	f.Add([]byte(`[]`), 1.0, uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, ratio float64, keep uint8) {
		msgs, err := chitta.ParseMessages(data)
		if err != nil {
			return
		}
		opts := &chitta.Options{TargetRatio: ratio, KeepLast: int(keep % 8), Embedder: chittatest.SeededEmbedder{Dims: 4}, Query: "q", Store: &chittatest.Store{}}
		res, err := chitta.Compact(t.Context(), msgs, opts)
		if err != nil {
			valid := ratio == 0 || (ratio >= chitta.MinTargetRatio && ratio <= chitta.MaxTargetRatio)
			if !valid {
				require.ErrorIs(t, err, chitta.ErrInvalidTargetRatio)
				return
			}
			require.ErrorIs(t, err, chitta.ErrUnknownRole)
			return
		}
		checkInvariants(t, msgs, res)
		if chitta.Validate(msgs) == nil {
			require.NoError(t, chitta.Validate(res.Messages), "the result of a valid conversation is valid")
		}
	})
}

func FuzzParseMessages(f *testing.F) {
	for _, s := range []string{
		`[{"role":"user","content":"hi"}]`,
		`[{"role":"assistant","content":null,"tool_calls":[{"id":"1","type":"function","function":{"name":"x","arguments":"{}"}}]},{"role":"tool","tool_call_id":"1","content":"ok"}]`,
		`[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"Read","input":{"p":1}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"}]}]}]`,
		`[{"role":"assistant","function_call":{"name":"f","arguments":"{}"}},{"role":"function","content":"r"}]`,
		`[{"role":"tool","tool_call_ids":["a"],"content":"x"}]`,
		`{"role":"user"}`, `[1]`, `[{"role":5}]`, "[{\"role\":\"user\",\"content\":\"\xff\"}]",
		// Responses items, langchaingo and genai shapes (message_shapes.go).
		`[{"type":"reasoning","id":"rs","summary":[{"type":"summary_text","text":"plan"}]},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"ok"},{"type":"compaction","encrypted_content":"x"}]`,
		`[{"role":"human","text":"hi"},{"role":"ai","parts":[{"type":"tool_call","tool_call":{"id":"t","type":"function","function":{"name":"f","arguments":"{}"}}}]},{"role":"tool","parts":[{"type":"tool_response","tool_response":{"tool_call_id":"t","name":"f","content":"r"}}]}]`,
		`[{"role":"model","parts":[{"functionCall":{"name":"f","args":{"a":1}}},{"functionCall":{"name":"g","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"r":1}}},{"functionResponse":{"name":"g","response":{}}}]}]`,
		`[{"type":"function_call","call_id":5}]`, `[{"parts":[{"functionCall":1}]}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, err := chitta.ParseMessages(data)
		if err != nil {
			require.ErrorIs(t, err, chitta.ErrInvalidMessages)
			return
		}
		// MarshalMessages is byte-exact, so re-parsing gives equal messages.
		out, err := chitta.MarshalMessages(msgs)
		require.NoError(t, err)
		back, err := chitta.ParseMessages(out)
		require.NoError(t, err)
		require.Len(t, back, len(msgs))
		for i := range msgs {
			require.Equal(t, msgs[i], back[i])
		}
		again, err := chitta.MarshalMessages(back)
		require.NoError(t, err)
		require.Equal(t, string(out), string(again), "MarshalMessages(ParseMessages(x)) is x")
		// json.Marshal compacts and escapes <>&, which can change how tool
		// arguments render in Content, but never roles or tool linkage.
		std, err := json.Marshal(msgs)
		require.NoError(t, err)
		back, err = chitta.ParseMessages(std)
		require.NoError(t, err)
		require.Len(t, back, len(msgs))
		for i := range msgs {
			require.Equal(t, msgs[i].Role, back[i].Role)
			require.Equal(t, msgs[i].ToolCallIDs, back[i].ToolCallIDs)
			require.Equal(t, msgs[i].ToolResultIDs, back[i].ToolResultIDs)
		}
	})
}

// randomWireOptions draws Options for a wire conversation: every selection
// and masking option, and several token counters.
func randomWireOptions(r *rand.Rand) *chitta.Options {
	o := randomOptions(r)
	o.FreeSelection = r.IntN(8) == 0
	switch r.IntN(6) {
	case 0:
		o.Tokens = words
	case 1:
		o.Tokens = chitta.NewCachedTokenCounter(words, 0)
	case 2:
		c := chitta.NewCalibratedCounter(words)
		c.Observe([]chitta.Message{{Role: chitta.RoleUser, Content: "a b c"}}, 7)
		o.Tokens = c
	case 3:
		o.Tokens = framed{}
	}
	if r.IntN(2) == 0 {
		m := &chitta.MaskOptions{KeepRecent: r.IntN(4), MinTokens: []int{0, 1, 20, 101}[r.IntN(4)]}
		if r.IntN(2) == 0 {
			m.MaxResultTokens = []int{5, 30, 90}[r.IntN(3)]
		}
		if r.IntN(4) == 0 {
			m.ExcludeTools = []string{"grep"}
		}
		m.Actions, m.Restore, m.ListValues = chitta.MaskActions(r.IntN(4)), r.IntN(3) == 0, []int{0, -1, 2}[r.IntN(3)]
		if r.IntN(2) == 0 {
			m.Cache = chitta.NewMaskCache()
		}
		o.Mask = m
	}
	return o
}

// checkWire checks a compaction of the wire conversation in: the invariants
// of checkInvariants (order, verbatim survivors but for masked results,
// pins, budget, tool groups, stats), Validate of the result whenever in
// passes it (unless FreeSelection), and a byte-exact round trip of the
// result through MarshalMessages and ParseMessages.
func checkWire(t *testing.T, in []chitta.Message, opts *chitta.Options, res *chitta.Result, what string) {
	t.Helper()
	require.Len(t, res.Messages, len(res.Kept), what)
	for k, i := range res.Kept {
		if k > 0 {
			require.Greater(t, i, res.Kept[k-1], "%s: kept indices ascend", what)
		}
		got, want := res.Messages[k], in[i]
		require.Equal(t, want.Role, got.Role, what)
		require.Equal(t, want.ToolCallIDs, got.ToolCallIDs, "%s: message %d", what, i)
		require.Equal(t, want.ToolResultIDs, got.ToolResultIDs, "%s: message %d", what, i)
		// A Compactor's result between compactions has no Scores: its
		// first StablePrefix messages are the previous result's (the
		// caller checks them), the others are new and verbatim.
		if masked := res.Scores != nil && res.Scores[i].Masked; !masked && (res.Scores != nil || k >= res.Stats.StablePrefix) {
			require.Equal(t, want, got, "%s: message %d is verbatim", what, i)
		}
	}
	st := res.Stats
	require.Equal(t, len(res.Kept), st.Kept, what)
	require.Equal(t, len(in)-len(res.Kept), st.Dropped, what)
	if res.Scores != nil {
		require.Len(t, res.Scores, len(in))
		after, before, pinned := 0, 0, 0
		for _, s := range res.Scores {
			before += s.OriginalTokens
			if s.Kept {
				after += s.Tokens
			}
			if s.Pinned {
				pinned += s.Tokens
			}
		}
		require.Equal(t, before, st.BeforeTokens, what)
		require.Equal(t, after, st.AfterTokens, what)
		require.Equal(t, pinned > st.TargetTokens, st.OverBudget, "%s: OverBudget iff the pinned messages (%d) exceed the budget (%d)", what, pinned, st.TargetTokens)
		if !st.OverBudget {
			require.LessOrEqual(t, after, st.TargetTokens, what)
		}
	}
	for i, m := range in {
		if m.Role.Pinned() {
			require.Contains(t, res.Kept, i, "%s: system message %d kept", what, i)
		}
	}
	if last := lastFree(in); last >= 0 && !opts.FreeSelection && res.Scores != nil {
		require.True(t, res.Scores[last].Kept, "%s: the last message (%d) is kept, a call waiting for its result too", what, last)
	}
	if chitta.Validate(in) == nil && !opts.FreeSelection {
		require.NoError(t, chitta.Validate(res.Messages), "%s: the result of a valid conversation is valid", what)
	}
	if !opts.FreeSelection && turnOpensWithThinking(in) {
		require.True(t, turnOpensWithThinking(res.Messages), "%s: the live turn still opens with its thinking block (kept %v)", what, res.Kept)
	}
	if len(res.Messages) > 0 {
		require.NotEmpty(t, res.Kept)
	}
	b, err := chitta.MarshalMessages(res.Messages)
	require.NoError(t, err, what)
	back, err := chitta.ParseMessages(b)
	require.NoError(t, err, "%s: %s", what, b)
	require.Len(t, back, len(res.Messages), what)
	for k := range back {
		if opts.FreeSelection { // a reasoning item may be dropped from before the item that carries it
			break
		}
		require.Equal(t, wiregen.NamedIDs(res.Messages[k].ToolCallIDs), wiregen.NamedIDs(back[k].ToolCallIDs), "%s: message %d's calls read back", what, res.Kept[k])
		// A Responses reasoning item's run of calls may extend over a
		// dropped item that ended it: a call after it then reads back
		// with the reasoning too.
		require.Subset(t, wiregen.NamedIDs(back[k].ToolResultIDs), wiregen.NamedIDs(res.Messages[k].ToolResultIDs), "%s: message %d's results read back", what, res.Kept[k])
	}
	again, err := chitta.MarshalMessages(back)
	require.NoError(t, err)
	require.Equal(t, string(b), string(again), "%s: MarshalMessages(ParseMessages(x)) is x", what)
}

// Compact of a random valid conversation in every format, under random
// options, keeps it valid and every invariant true.
func TestCompactWireProperties(t *testing.T) {
	t.Parallel()
	valid := 0
	for seed := range uint64(800) {
		if compactWireTrial(t, seed) {
			valid++
		}
	}
	require.Greater(t, valid, 400, "most drawn conversations are valid")
}

// compactWireTrial compacts the conversation and options that seed draws
// and checks the result (checkWire); it reports whether the conversation
// is valid.
func compactWireTrial(t *testing.T, seed uint64) bool {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 77))
	format := wiregen.Formats[r.IntN(len(wiregen.Formats))]
	data := wiregen.Conversation(r, format, wiregen.Options{Pending: r.IntN(6) == 0})
	in, err := chitta.ParseMessages([]byte(data))
	require.NoError(t, err, "seed %d: %s", seed, data)
	out, err := chitta.MarshalMessages(in)
	require.NoError(t, err)
	require.Equal(t, data, string(out), "seed %d: byte-exact round trip", seed)
	opts := randomWireOptions(r)
	what := fmt.Sprintf("seed %d (%s)", seed, format)
	defer logOnFailure(t, what, data)()
	res, err := chitta.Compact(t.Context(), in, opts)
	require.NoError(t, err, what)
	checkWire(t, in, opts, res, what)
	require.Equal(t, totalTokens(counter(opts), res.Messages), res.Stats.AfterTokens, "%s: AfterTokens counts what is returned", what)
	return chitta.Validate(in) == nil
}

// FuzzCompactWire runs the trials of TestCompactWireProperties and
// TestCompactorWireProperties on the seeds the fuzzer draws.
func FuzzCompactWire(f *testing.F) {
	for _, seed := range []uint64{0, 335, 1512, 1924} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		compactWireTrial(t, seed)
		compactorWireTrial(t, seed)
	})
}

// logOnFailure returns a function that logs data when t has failed, to be
// deferred (require's FailNow runs deferred calls).
func logOnFailure(t *testing.T, what, data string) func() {
	return func() {
		if t.Failed() {
			t.Logf("%s: %s", what, data)
		}
	}
}

// counter is the counter Compact uses for opts.
func counter(opts *chitta.Options) chitta.TokenCounter {
	if opts.Tokens == nil {
		return chitta.TokenCounterFunc(chitta.EstimateTokens)
	}
	return opts.Tokens
}

// A Compactor fed a growing random valid conversation, step by step,
// returns a valid conversation every time, made of the input's messages
// in order (verbatim but for masked results), with stats that count what
// it returns and a StablePrefix that really is the previous result's.
func TestCompactorWireProperties(t *testing.T) {
	t.Parallel()
	for seed := range uint64(1600) {
		compactorWireTrial(t, seed)
	}
}

// compactorWireTrial feeds a Compactor the conversation that seed draws,
// cut anywhere (at every message for even seeds), and checks every result.
func compactorWireTrial(t *testing.T, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 91))
	format := wiregen.Formats[r.IntN(len(wiregen.Formats))]
	data := wiregen.Conversation(r, format, wiregen.Options{})
	full, err := chitta.ParseMessages([]byte(data))
	require.NoError(t, err)
	opts := randomWireOptions(r)
	opts.FreeSelection = false
	cal, _ := opts.Tokens.(*chitta.CalibratedCounter)
	total := totalTokens(counter(opts), full)
	maxTok := 2 + r.IntN(max(2, total/2))
	policy := chitta.Policy{MaxTokens: maxTok}
	if r.IntN(3) == 0 {
		policy.Horizon = 1 + r.IntN(20)
	}
	c, err := chitta.NewCompactor(opts, policy)
	require.NoError(t, err)
	what := fmt.Sprintf("seed %d (%s)", seed, format)
	func() {
		defer logOnFailure(t, what, data)()
		var prev *chitta.Result
		for end := 0; end < len(full); {
			end = min(len(full), end+1+r.IntN(4)*int(seed%2))
			in := full[:end]
			if r.IntN(10) == 0 && end > 2 { // an edited history starts afresh
				in = slices.Clone(in)
				in[end-2].Content += " edited"
			}
			res, err := c.Compact(t.Context(), in)
			require.NoError(t, err, what)
			step := fmt.Sprintf("%s, %d messages", what, end)
			checkWire(t, in, opts, res, step)
			// A CalibratedCounter's counts change as it observes; the
			// Compactor keeps those of the last compaction.
			counted := cal == nil || res.Stats.Compacted
			if counted {
				require.Equal(t, totalTokens(counter(opts), res.Messages), res.Stats.AfterTokens, "%s: AfterTokens counts what is returned", step)
			}
			require.LessOrEqual(t, res.Stats.CachedTokens, res.Stats.AfterTokens, step)
			if prev != nil {
				require.LessOrEqual(t, res.Stats.StablePrefix, min(len(prev.Messages), len(res.Messages)), step)
				if counted {
					require.Equal(t, totalTokens(counter(opts), res.Messages[:res.Stats.StablePrefix]), res.Stats.CachedTokens, "%s: CachedTokens counts the stable prefix", step)
				}
				for k := range res.Stats.StablePrefix {
					require.Equal(t, prev.Messages[k], res.Messages[k], "%s: StablePrefix %d claims message %d unchanged", step, res.Stats.StablePrefix, k)
				}
				if res.Stats.StablePrefix < min(len(prev.Messages), len(res.Messages)) {
					k := res.Stats.StablePrefix
					require.NotEqual(t, prev.Messages[k], res.Messages[k], "%s: StablePrefix is the longest", step)
				}
			}
			prev = res
			if cal != nil { // the provider bills half a token more per word, and 30 of its own
				cal.Observe(res.Messages, 30+totalTokens(words, res.Messages)*3/2)
			}
		}
	}()
}

// lastFree is the index of the last non-system message of msgs, or -1.
func lastFree(msgs []chitta.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if !msgs[i].Role.Pinned() {
			return i
		}
	}
	return -1
}

// turnOpensWithThinking reports whether the first assistant message after
// the last prompt (a user message without tool results) opens with a
// thinking block, as Anthropic wants of the last turn with thinking on.
func turnOpensWithThinking(msgs []chitta.Message) bool {
	from := 0
	for i, m := range msgs {
		if m.Role == chitta.RoleUser && len(m.ToolResultIDs) == 0 {
			from = i + 1
		}
	}
	for _, m := range msgs[from:] {
		if m.Role == chitta.RoleAssistant {
			return m.OpensWithThinking
		}
	}
	return false
}
