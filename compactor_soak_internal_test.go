package chitta

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta/internal/testkit/wiregen"
)

// soakTurns sets the length of TestCompactorSoak's sessions: 0 means the
// default run (1 000 turns per configuration; 80 under -race, 100 with
// -short, a few seconds either way); go test -run CompactorSoak
// -soak.turns=20000 runs a long one.
var soakTurns = flag.Int("soak.turns", 0, "turns of each TestCompactorSoak session (0: the default length)")

// soakSeed shifts the seeds of TestCompactorSoak's sessions, to explore
// others than the default ones (0).
var soakSeed = flag.Uint64("soak.seed", 0, "added to the seed of each TestCompactorSoak session")

// soakGen writes the steps of a simulated agent session as provider JSON
// (OpenAI chat and Anthropic messages, and now and then a wiregen
// conversation in another format), parsed by ParseMessages so that Raw is
// set.
type soakGen struct {
	r    *rand.Rand
	call int
}

var soakVocab = []string{"deploy", "config", "parseConfig", "error", "the", "test", "fix", "user", "memory",
	"go", "build", "ok", "flight", "cancel", "JG7FMM", "MCO", "2024-05-01", "retry", "timeout", "cache"}

// say returns lo to hi words of soakVocab.
func (g *soakGen) say(lo, hi int) string {
	n := lo + g.r.IntN(hi-lo+1)
	w := make([]string, n)
	for i := range w {
		w[i] = soakVocab[g.r.IntN(len(soakVocab))]
	}
	return strings.Join(w, " ")
}

// soakQ returns s as a JSON string.
func soakQ(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// output is a tool's output: mostly short, sometimes a large JSON
// document (which masking elides, listing its values).
func (g *soakGen) output() string {
	if g.r.IntN(4) == 0 {
		var b strings.Builder
		b.WriteString(`{"items":[`)
		for i := range 10 + g.r.IntN(60) {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":"R%05d","status":%s,"n":%d}`, g.r.IntN(100000), soakQ(g.say(1, 4)), g.r.IntN(1000))
		}
		b.WriteString(`]}`)
		return b.String()
	}
	return g.say(1, 60)
}

// step returns the JSON array of the messages one step of the loop
// appends; prompt forces a user prompt (the first step).
func (g *soakGen) step(prompt bool) string {
	r := g.r
	var msgs []string
	add := func(s ...string) { msgs = append(msgs, s...) }
	anthropic := r.IntN(2) == 0
	switch k := r.IntN(20); {
	case prompt || k < 4:
		switch {
		case r.IntN(30) == 0: // an image the provider bills (MediaTokens)
			add(`{"role":"user","content":[{"type":"text","text":` + soakQ(g.say(1, 10)) + `},{"type":"image","source":{"type":"url","url":"https://example.com/shot.png"}}]}`)
		case r.IntN(30) == 0:
			add(`{"role":"user","content":[{"type":"text","text":` + soakQ(g.say(1, 10)) + `},{"type":"image_url","image_url":{"url":"https://example.com/a.png","detail":"low"}}]}`)
		case anthropic:
			add(`{"role":"user","content":[{"type":"text","text":` + soakQ(g.say(1, 30)) + `}]}`)
		default:
			add(`{"role":"user","content":` + soakQ(g.say(1, 30)) + `}`)
		}
	case k < 7:
		if anthropic {
			add(`{"role":"assistant","content":[{"type":"text","text":` + soakQ(g.say(1, 40)) + `}]}`)
		} else {
			add(`{"role":"assistant","content":` + soakQ(g.say(1, 40)) + `}`)
		}
	case k == 7:
		add(`{"role":"system","content":` + soakQ(g.say(1, 8)) + `}`)
	case k == 8: // another format now and then, whole conversations of it
		f := wiregen.Formats[r.IntN(len(wiregen.Formats))]
		return wiregen.Conversation(r, f, wiregen.Options{})
	default: // parallel tool calls and their results
		n := 1 + r.IntN(3)
		ids := make([]string, n)
		for j := range ids {
			g.call++
			ids[j] = fmt.Sprintf("call_%d", g.call)
			if r.IntN(20) == 0 {
				ids[j] = "reused" // real trajectories reuse IDs
			}
		}
		if n > 1 && slices.Contains(ids, "reused") {
			for j := range ids { // a reused ID once per message
				if ids[j] == "reused" && j > 0 {
					ids[j] = fmt.Sprintf("call_%d_b", g.call)
				}
			}
		}
		tool := []string{"get_reservation", "read_file", "grep", "bash"}[r.IntN(4)]
		if anthropic {
			var blocks []string
			if r.IntN(2) == 0 {
				blocks = append(blocks, `{"type":"text","text":`+soakQ(g.say(1, 10))+`}`)
			}
			for _, id := range ids {
				blocks = append(blocks, `{"type":"tool_use","id":"`+id+`","name":"`+tool+`","input":{"q":`+soakQ(g.say(1, 4))+`}}`)
			}
			add(`{"role":"assistant","content":[` + strings.Join(blocks, ",") + `]}`)
			var results []string
			for _, id := range ids {
				if r.IntN(40) == 0 { // a screenshot
					results = append(results, `{"type":"tool_result","tool_use_id":"`+id+`","content":[{"type":"text","text":`+soakQ(g.say(1, 5))+`},{"type":"image","source":{"type":"url","url":"https://example.com/s.png"}}]}`)
					continue
				}
				results = append(results, `{"type":"tool_result","tool_use_id":"`+id+`","content":`+soakQ(g.output())+`}`)
			}
			if r.IntN(2) == 0 { // all results in one message
				add(`{"role":"user","content":[` + strings.Join(results, ",") + `]}`)
			} else {
				for _, res := range results {
					add(`{"role":"user","content":[` + res + `]}`)
				}
			}
		} else {
			var calls []string
			for _, id := range ids {
				calls = append(calls, `{"id":"`+id+`","type":"function","function":{"name":"`+tool+`","arguments":`+soakQ(`{"q":`+soakQ(g.say(1, 4))+`}`)+`}}`)
			}
			add(`{"role":"assistant","content":null,"tool_calls":[` + strings.Join(calls, ",") + `]}`)
			order := slices.Clone(ids)
			if r.IntN(3) == 0 {
				slices.Reverse(order) // parallel calls answered out of order
			}
			for _, id := range order {
				add(`{"role":"tool","tool_call_id":"` + id + `","content":` + soakQ(g.output()) + `}`)
			}
		}
	}
	return "[" + strings.Join(msgs, ",") + "]"
}

// goStep returns a tool call and its result built in Go (no Raw), the
// result's Content long enough (>= 512 bytes) for MaskCache to hash it
// once by its identity.
func (g *soakGen) goStep() []Message {
	g.call++
	id := fmt.Sprintf("go_%d", g.call)
	return []Message{
		{Role: RoleAssistant, Content: "bash " + g.say(1, 5), ToolCallIDs: []string{id}},
		{Role: RoleTool, Content: g.say(120, 400), ToolResultIDs: []string{id}},
	}
}

// soakMemoryRef finds the memory a placeholder names.
var soakMemoryRef = regexp.MustCompile(`excerpt in memory [^\]\s;]+`)

// soakConfig is one Options and Policy combination of TestCompactorSoak.
type soakConfig struct {
	name   string
	policy Policy
	// opts returns fresh Options (no caches), the store they use (nil for
	// none) and the CalibratedCounter they count with (nil for none).
	opts func(t *testing.T) (*Options, *HNSWStore, *CalibratedCounter)
	// reference: every compaction must equal Compact of the conversation
	// with a fresh copy of the Options (uncached), as the Compactor
	// documents; off where the store changes (DistillNovel) or counts
	// change (CalibratedCounter).
	reference bool
}

// cancelEmbedder cancels its context when armed and asked to embed
// anything: a ctx done in the middle of a Compactor call.
type cancelEmbedder struct {
	e      Embedder
	mu     sync.Mutex
	cancel context.CancelFunc
}

func (c *cancelEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.mu.Lock()
	cancel := c.cancel
	c.cancel = nil
	c.mu.Unlock()
	if cancel != nil && len(texts) > 0 {
		cancel()
		return nil, ctx.Err()
	}
	return c.e.Embed(ctx, texts)
}

func (c *cancelEmbedder) arm(cancel context.CancelFunc) {
	c.mu.Lock()
	c.cancel = cancel
	c.mu.Unlock()
}

func (c *cancelEmbedder) Dimensions() int { return 64 }

// cancelStore is an HNSWStore whose Add cancels its context when armed:
// a ctx done in the middle of distillation, which is no error of Compact
// (Result.DistillErr says so).
type cancelStore struct {
	*HNSWStore
	mu     sync.Mutex
	cancel context.CancelFunc
}

func (s *cancelStore) Add(ctx context.Context, m Memory) error {
	s.mu.Lock()
	cancel := s.cancel
	s.cancel = nil
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return s.HNSWStore.Add(ctx, m)
}

func (s *cancelStore) arm(cancel context.CancelFunc) {
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
}

var soakConfigs = []soakConfig{
	{
		name:   "plain",
		policy: Policy{MaxTokens: 2000},
		opts: func(*testing.T) (*Options, *HNSWStore, *CalibratedCounter) {
			return &Options{KeepLast: 1}, nil, nil
		},
		reference: true,
	},
	{
		name:   "mask-reserve-lexical",
		policy: Policy{MaxTokens: 3000, TargetTokens: 1200},
		opts: func(*testing.T) (*Options, *HNSWStore, *CalibratedCounter) {
			return &Options{
				Embedder: NewHashEmbedder(64), Query: "fix the config error for flight JG7FMM",
				RelevanceReserve: 0.5, Lexical: 0.3, Rescale: true,
				Mask: &MaskOptions{KeepRecent: 2, MinTokens: 40, MaxResultTokens: 300},
			}, nil, nil
		},
		reference: true,
	},
	{
		name:   "mask-distill-hnsw-horizon",
		policy: Policy{MaxTokens: 2500, TargetTokens: 1000, Horizon: 8},
		opts: func(t *testing.T) (*Options, *HNSWStore, *CalibratedCounter) {
			store, err := NewHNSWStore(64, nil)
			require.NoError(t, err)
			return &Options{
				Embedder: NewHashEmbedder(64), Store: store, DistillNovel: true,
				Mask: &MaskOptions{KeepRecent: 1, MinTokens: 30, Restore: true},
			}, store, nil
		},
	},
	{
		name:   "tiny-budget",
		policy: Policy{MaxTokens: 300, TargetTokens: 250},
		opts: func(*testing.T) (*Options, *HNSWStore, *CalibratedCounter) {
			return &Options{
				Embedder: NewHashEmbedder(64), Query: "cancel flight", KeepLast: 3, GeminiTurns: true,
				Mask: &MaskOptions{KeepRecent: 1, MinTokens: 10, MaxResultTokens: 60},
			}, nil, nil
		},
		reference: true,
	},
	{
		name:   "calibrated-mask-query-horizon",
		policy: Policy{MaxTokens: 2000, Horizon: 4, HardLimit: 300},
		opts: func(*testing.T) (*Options, *HNSWStore, *CalibratedCounter) {
			cc := NewCalibratedCounter(NewCachedTokenCounter(nil, 0))
			return &Options{
				Embedder: NewHashEmbedder(64), Query: "retry the build timeout", RelevanceReserve: 0.3,
				Tokens: cc, KeepLast: 2, Mask: &MaskOptions{MinTokens: 50, Actions: ActionsOff},
			}, nil, cc
		},
	},
}

// TestCompactorSoak drives one Compactor per configuration through a long
// simulated agent session (prompts, replies, parallel tool calls in
// OpenAI and Anthropic JSON, other formats now and then; truncated and
// edited history, Reset, concurrent calls, calls cancelled mid-way) and
// checks every result against what the Compactor documents.
func TestCompactorSoak(t *testing.T) {
	t.Parallel()
	turns := soakLength(1000, 100, 80)
	for ci, cfg := range soakConfigs {
		t.Run(cfg.name, func(t *testing.T) {
			t.Parallel()
			runSoak(t, cfg, uint64(ci+1)+*soakSeed*1000, turns)
		})
	}
}

// soakLength returns the number of turns of a soak session: -soak.turns
// when set, else def, short under -short, race under the race detector.
func soakLength(def, short, race int) int {
	switch {
	case *soakTurns > 0:
		return *soakTurns
	case testing.Short():
		return short
	case soakRace:
		return race
	}
	return def
}

// soakPrev is the last call whose result the test knows to be the
// Compactor's state.
type soakPrev struct {
	known   bool
	unknown bool // after concurrent calls: the Compactor holds one of them
	conv    []Message
	res     *Result
	masked  map[int]bool // input indices of masked survivors; nil when unknown
}

// runSoak drives one Compactor under cfg through turns turns drawn from
// seed. The conversation is the same on every run; the Compactor's state
// after the concurrent calls depends on which ran last, and so, from
// there, do its results (each is checked all the same).
func runSoak(t *testing.T, cfg soakConfig, seed uint64, turns int) {
	ctx := t.Context()
	r := rand.New(rand.NewPCG(seed, 0x50a6))
	g := &soakGen{r: r}
	opts, store, calib := cfg.opts(t)
	var ce *cancelEmbedder
	if opts.Embedder != nil {
		ce = &cancelEmbedder{e: opts.Embedder}
		opts.Embedder = ce
	}
	var cs *cancelStore
	if store != nil {
		cs = &cancelStore{HNSWStore: store}
		opts.Store = cs
	}
	c, err := NewCompactor(opts, cfg.policy)
	require.NoError(t, err)

	var conv []Message
	var bounds []int  // start index of each step in conv
	var prompts []int // the steps that start with a user prompt
	prev := soakPrev{}
	distilled := map[string]bool{}
	lens := [2]int{} // lengths of the conversations of the last two calls
	longest := 0     // of every call so far
	counts := map[string]int{}
	named := map[string]string{} // placeholder memory references, by role and content of the message
	parse := func(data string) []Message {
		msgs, err := ParseMessages([]byte(data))
		require.NoError(t, err, "%s", data)
		return msgs
	}
	appendStep := func(first bool) {
		var msgs []Message
		if !first && r.IntN(15) == 0 {
			msgs = g.goStep()
		} else {
			msgs = parse(g.step(first))
		}
		if len(msgs) > 0 && msgs[0].Role == RoleUser && len(msgs[0].ToolResultIDs) == 0 {
			prompts = append(prompts, len(bounds))
		}
		bounds = append(bounds, len(conv))
		conv = append(conv, msgs...)
	}
	call := func(ctx context.Context, msgs []Message) (*Result, error) {
		res, err := c.Compact(ctx, msgs)
		if err == nil {
			lens[0], lens[1] = lens[1], len(msgs)
		}
		longest = max(longest, len(msgs))
		return res, err
	}

	appendStep(true)
	for turn := 0; turn < turns; turn++ {
		// History edits, now and then.
		switch k := r.IntN(200); {
		case k == 0 && len(bounds) > 4: // truncation: the last steps undone
			cut := len(bounds) - 1 - r.IntN(min(len(bounds)-1, 5))
			conv, bounds = conv[:bounds[cut]:bounds[cut]], bounds[:cut]
			for len(prompts) > 0 && prompts[len(prompts)-1] >= cut {
				prompts = prompts[:len(prompts)-1]
			}
			counts["truncate"]++
		case k == 1 && len(conv) > 2: // an earlier plain message edited
			for range 10 {
				i := r.IntN(len(conv))
				m := conv[i]
				if (m.Role != RoleUser && m.Role != RoleAssistant) || len(m.ToolCallIDs)+len(m.ToolResultIDs) > 0 || !hasRaw(m.Raw) {
					continue
				}
				edited := parse(`[{"role":"` + string(m.Role) + `","content":` + soakQ("edited "+g.say(1, 20)) + `}]`)
				conv = append(conv[:i:i], conv[i:]...) // a new array: the caller does not edit in place
				conv[i] = edited[0]
				counts["edit"]++
				break
			}
		case k == 4: // an empty conversation: a new one starts
			res, err := call(ctx, nil)
			require.NoError(t, err)
			require.Empty(t, res.Messages)
			require.NotNil(t, res.Messages)
			prev = soakPrev{known: true, res: res, masked: map[int]bool{}}
			counts["empty"]++
		case k == 5 || k == 6: // a bad new message: an error, and nothing changes
			bad := Message{Role: RoleUser, Content: "look", MediaTokens: -1}
			want := ErrInvalidTokenCount
			if k == 6 {
				bad, want = Message{Role: "critic", Content: "no weight for me"}, ErrUnknownRole
			}
			res, err := call(ctx, append(conv[:len(conv):len(conv)], bad))
			require.ErrorIs(t, err, want)
			require.Nil(t, res)
			counts["bad"]++
		case k == 2:
			c.Reset()
			prev = soakPrev{}
			counts["reset"]++
		case k == 3 && len(prompts) > 2: // the history before a prompt dropped
			s := prompts[len(prompts)/2+r.IntN(len(prompts)-len(prompts)/2)]
			if s == 0 {
				break
			}
			off := bounds[s]
			conv = slices.Clone(conv[off:])
			bounds = bounds[s:]
			for i := range bounds {
				bounds[i] -= off
			}
			var kept []int
			for _, p := range prompts {
				if p >= s {
					kept = append(kept, p-s)
				}
			}
			prompts = kept
			counts["window"]++
		}

		steps := 1
		if r.IntN(6) == 0 {
			steps = 2 + r.IntN(3) // the loop ran several steps between calls
		}
		for range steps {
			appendStep(len(conv) == 0)
		}
		if last := bounds[len(bounds)-1]; len(conv)-last > 1 && r.IntN(6) == 0 {
			// The loop calls while the step's calls are still being
			// answered (parallel calls answered one by one).
			for end := last + 1; end < len(conv); end++ {
				res, err := call(ctx, conv[:end])
				require.NoError(t, err, "turn %d", turn)
				prev = checkSoakResult(t, cfg, c, conv[:end], res, &prev)
				for _, d := range res.Distilled {
					distilled[d.ID] = true
				}
				counts["pending"]++
			}
		}

		switch {
		case r.IntN(60) == 0: // two goroutines calling at once
			a, b := conv[:bounds[len(bounds)-1]], conv
			var wg sync.WaitGroup
			results := make([]*Result, 2)
			errs := make([]error, 2)
			for j, in := range [][]Message{a, b} {
				wg.Go(func() { results[j], errs[j] = c.Compact(ctx, in) })
			}
			// A call whose ctx is already done returns its error and
			// changes nothing; a CalibratedCounter observes meanwhile.
			wg.Go(func() {
				done, cancel := context.WithCancel(ctx)
				cancel()
				if res, err := c.Compact(done, b); err == nil || res != nil {
					t.Errorf("a call with a done ctx: %v, %v", res, err)
				}
				if calib != nil {
					calib.Observe(a, 50+len(a)*20)
				}
			})
			wg.Wait()
			for j, in := range [][]Message{a, b} {
				require.NoError(t, errs[j])
				checkSoakResult(t, cfg, c, in, results[j], nil)
				for _, d := range results[j].Distilled {
					distilled[d.ID] = true
				}
			}
			// The Compactor holds one of the two calls.
			c.sem <- struct{}{}
			last := len(c.input)
			<-c.sem
			require.True(t, last == len(a) || last == len(b), "turn %d: the Compactor holds %d messages, want %d or %d", turn, last, len(a), len(b))
			lens = [2]int{len(a), len(b)}
			longest = max(longest, len(b))
			prev = soakPrev{unknown: true}
			counts["concurrent"]++
			continue
		case ce != nil && r.IntN(10) == 0: // cancelled in the middle of a call
			cctx, cancel := context.WithCancel(ctx)
			if cs != nil && r.IntN(2) == 0 {
				cs.arm(cancel) // while distilling
			} else {
				ce.arm(cancel) // while embedding
			}
			res, err := call(cctx, conv)
			ce.arm(nil)
			if cs != nil {
				cs.arm(nil)
			}
			cancel()
			if err != nil {
				require.ErrorIs(t, err, context.Canceled, "turn %d", turn)
				require.Nil(t, res)
				counts["cancelled"]++
				// The state is as before: the next call checks against prev.
			} else {
				prev = checkSoakResult(t, cfg, c, conv, res, &prev)
				for _, d := range res.Distilled {
					distilled[d.ID] = true
				}
				if res.DistillErr != nil {
					require.ErrorIs(t, res.DistillErr, context.Canceled)
					counts["distill-cancelled"]++
				}
			}
			continue
		}

		res, err := call(ctx, conv)
		require.NoError(t, err, "turn %d", turn)
		prev = checkSoakResult(t, cfg, c, conv, res, &prev)
		if res.Stats.Compacted && opts.DistillNovel {
			// A placeholder that named a memory keeps naming it in later
			// compactions (the Compactor remembers what it stored).
			for j, i := range res.Kept {
				if !res.Scores[i].Masked {
					continue
				}
				key := string(conv[i].Role) + "\x00" + conv[i].Content
				got := soakMemoryRef.FindString(res.Messages[j].Content)
				if want, ok := named[key]; ok && got != want {
					t.Fatalf("turn %d: message %d's placeholder names %q, an earlier one %q", turn, i, got, want)
				}
				if got != "" {
					named[key] = got
					counts["named"]++
				}
			}
		}
		if res.Stats.Compacted {
			counts["compacted"]++
			if res.Stats.Masked > 0 {
				counts["masked"]++
			}
		}
		for _, d := range res.Distilled {
			distilled[d.ID] = true
		}
		if calib != nil && r.IntN(3) > 0 { // the provider's usage for the call
			reported := 40
			for i := range res.Messages {
				reported += 4 + len(res.Messages[i].Content)/3 + res.Messages[i].MediaTokens
			}
			calib.Observe(res.Messages, reported)
		}
		checkSoakMemory(t, c, lens, longest, distilled, store, calib)
	}
	t.Logf("%s: %d turns, %d messages at the end, %v, %d memories distilled", cfg.name, turns, len(conv), counts, len(distilled))
	require.Positive(t, counts["compacted"], "no compaction")
	if opts.Mask != nil {
		require.Positive(t, counts["masked"], "no compaction masked anything")
	}
	if opts.DistillNovel {
		require.NotEmpty(t, distilled, "nothing distilled")
	}
}

// checkSoakResult checks res, the Compactor's answer to conv, and returns
// what the next call is checked against. With prev nil (concurrent calls)
// only what holds in any order is checked.
func checkSoakResult(t *testing.T, cfg soakConfig, c *Compactor, conv []Message, res *Result, prev *soakPrev) soakPrev {
	t.Helper()
	st := &res.Stats
	require.NotNil(t, res)
	require.Equal(t, len(res.Messages), len(res.Kept))
	require.Equal(t, len(res.Kept), st.Kept)
	require.Equal(t, len(conv)-len(res.Kept), st.Dropped)
	for j, i := range res.Kept {
		if i < 0 || i >= len(conv) || j > 0 && res.Kept[j-1] >= i {
			t.Fatalf("Kept[%d] = %d of %d: out of range or not increasing (%v)", j, i, len(conv), res.Kept)
		}
	}
	// The input is validated only when the result fails: a result that
	// passes needs no excuse.
	if err := Validate(res.Messages); err != nil && Validate(conv) == nil {
		t.Fatalf("the input passes Validate, the result does not: %v", err)
	}

	masked := map[int]bool{}
	if st.Compacted {
		require.Equal(t, len(conv), len(res.Scores))
		require.Equal(t, c.policy.TargetTokens, st.TargetTokens)
		before, after, nMasked, maskedTok, pinned := 0, 0, 0, 0, 0
		kept := map[int]bool{}
		for _, i := range res.Kept {
			kept[i] = true
		}
		for i := range res.Scores {
			s := &res.Scores[i]
			if s.Index != i || s.Kept != kept[i] {
				t.Fatalf("Scores[%d]: Index %d, Kept %v; want %d, %v", i, s.Index, s.Kept, i, kept[i])
			}
			before += s.OriginalTokens
			if !s.Kept {
				continue
			}
			after += s.Tokens
			if s.Pinned {
				pinned += s.Tokens
			}
			if s.Masked {
				nMasked++
				maskedTok += s.OriginalTokens - s.Tokens
				masked[i] = true
			}
		}
		require.Equal(t, before, st.BeforeTokens)
		require.Equal(t, after, st.AfterTokens)
		require.Equal(t, nMasked, st.Masked)
		require.Equal(t, maskedTok, st.MaskedTokens)
		if !st.OverBudget {
			require.LessOrEqual(t, st.AfterTokens, st.TargetTokens, "over budget without OverBudget")
		} else {
			require.Greater(t, pinned, st.TargetTokens, "OverBudget, but the pinned messages fit")
		}
		if cfg.reference {
			ro, _, _ := cfg.opts(t)
			ro.MaxTokens = c.policy.TargetTokens
			want, err := Compact(t.Context(), conv, ro)
			require.NoError(t, err)
			require.Equal(t, want.Kept, res.Kept, "the compaction differs from Compact's")
			for j := range want.Messages {
				if !sameMessage(&want.Messages[j], &res.Messages[j]) {
					t.Fatalf("message %d differs from Compact's:\n got %q\nwant %q", want.Kept[j], res.Messages[j].Raw, want.Messages[j].Raw)
				}
			}
			ws, gs := want.Stats, *st
			gs.Compacted, gs.StablePrefix, gs.CachedTokens, gs.BilledInput, gs.BilledFull, gs.BilledRatio = false, 0, 0, 0, 0, 0
			require.Equal(t, ws, gs)
		}
	} else {
		require.Nil(t, res.Scores)
		require.Equal(t, c.policy.MaxTokens, st.TargetTokens)
		require.False(t, st.OverBudget)
		limit := c.policy.MaxTokens
		if c.policy.Horizon > 0 {
			limit += c.policy.HardLimit
		}
		require.LessOrEqual(t, st.AfterTokens, limit, "a call between compactions over the limit")
		if prev != nil && prev.known && extendsConv(conv, prev.conv) {
			// The doc's promise: the previous survivors, then the new messages.
			n0, pm := len(prev.conv), prev.res
			require.Equal(t, len(pm.Messages)+len(conv)-n0, len(res.Messages))
			for j := range pm.Messages {
				if !sameMessage(&pm.Messages[j], &res.Messages[j]) || pm.Kept[j] != res.Kept[j] {
					t.Fatalf("survivor %d changed between compactions", j)
				}
			}
			for j := n0; j < len(conv); j++ {
				k := len(pm.Messages) + j - n0
				if res.Kept[k] != j || !sameMessage(&conv[j], &res.Messages[k]) {
					t.Fatalf("new message %d not returned as given", j)
				}
			}
			require.Equal(t, pm.Stats.Masked, st.Masked)
			require.Equal(t, pm.Stats.MaskedTokens, st.MaskedTokens)
			require.Equal(t, len(pm.Messages), st.StablePrefix, "the previous result is the stable prefix")
			require.GreaterOrEqual(t, st.AfterTokens, pm.Stats.AfterTokens)
			masked = prev.masked
		} else if prev != nil && !prev.unknown {
			// Afresh: nothing was compacted, so everything is returned.
			require.Equal(t, len(conv), len(res.Messages))
			require.Zero(t, st.Masked)
			for j := range conv {
				if res.Kept[j] != j || !sameMessage(&conv[j], &res.Messages[j]) {
					t.Fatalf("afresh: message %d not returned as given", j)
				}
			}
		}
		if prev == nil || prev.unknown || (prev.known && prev.masked == nil) {
			masked = nil // after concurrent calls: which survivors are masked is unknown
		}
	}
	// The prompt-cache figures: the stable prefix is what the previous
	// result shares with this one, its tokens as returned the hit.
	if prev != nil && !prev.unknown {
		var last []Message
		if prev.known {
			last = prev.res.Messages
		}
		require.Equal(t, commonPrefix(res.Messages, last), st.StablePrefix, "StablePrefix")
		hit := 0
		if st.Compacted {
			for _, i := range res.Kept[:st.StablePrefix] {
				hit += res.Scores[i].Tokens
			}
		} else if prev.known && extendsConv(conv, prev.conv) {
			hit = prev.res.Stats.AfterTokens
		} else {
			c.sem <- struct{}{}
			for _, i := range res.Kept[:st.StablePrefix] {
				hit += c.tokens[i] // afresh: nothing masked
			}
			<-c.sem
		}
		require.Equal(t, hit, st.CachedTokens, "CachedTokens")
		pr := c.policy.Pricing
		billed := (pr.CacheRead*float64(hit) + pr.CacheWrite*float64(st.AfterTokens-hit)) / pr.Input
		require.InDelta(t, billed, st.BilledInput, 1e-9*max(1, billed), "BilledInput")
		// Sending the whole conversation would hit the cache on the
		// messages it shares with the previous call's.
		var lastConv []Message
		if prev.known {
			lastConv = prev.conv
		}
		k, full, fullHit := commonPrefix(conv, lastConv), true, 0
		switch {
		case st.Compacted:
			for i := range k {
				fullHit += res.Scores[i].OriginalTokens
			}
		case k == len(lastConv): // extends: counted as before
			c.sem <- struct{}{}
			for _, n := range c.tokens[:k] {
				fullHit += n
			}
			<-c.sem
		default:
			full = false // counted again since, which a CalibratedCounter may count otherwise
		}
		if full {
			want := (pr.CacheRead*float64(fullHit) + pr.CacheWrite*float64(st.BeforeTokens-fullHit)) / pr.Input
			require.InDelta(t, want, st.BilledFull, 1e-9*max(1, want), "BilledFull")
		}
		if st.BilledFull > 0 {
			require.InDelta(t, st.BilledInput/st.BilledFull, st.BilledRatio, 1e-12, "BilledRatio")
		}
	}
	for j, i := range res.Kept {
		got, in := &res.Messages[j], &conv[i]
		// Masked or not, a survivor keeps its role and its tool linkage.
		if in.Role != got.Role || !slices.Equal(in.ToolCallIDs, got.ToolCallIDs) || !slices.Equal(in.ToolResultIDs, got.ToolResultIDs) {
			t.Fatalf("survivor %d changed its role or tool linkage", i)
		}
		if masked != nil && !masked[i] && (!sameMessage(in, got) || string(in.Raw) != string(got.Raw)) {
			t.Fatalf("unmasked survivor %d is not its input message (compacted %v)\nin  %q\ngot %q", i, st.Compacted, in.Raw, got.Raw)
		}
	}
	if prev == nil {
		return soakPrev{}
	}
	return soakPrev{known: true, conv: conv, res: res, masked: masked}
}

// extendsConv reports whether conv starts with every message of p.
func extendsConv(conv, p []Message) bool {
	return len(conv) >= len(p) && commonPrefix(conv, p) == len(p)
}

// checkSoakMemory checks that the Compactor's retained state stays within
// what the docs promise: its copy of the conversation and result, the IDs
// it stored, and each cache's documented bound. lens are the lengths of
// the conversations of the last two calls.
func checkSoakMemory(t *testing.T, c *Compactor, lens [2]int, longest int, distilled map[string]bool, store *HNSWStore, calib *CalibratedCounter) {
	t.Helper()
	c.sem <- struct{}{}
	defer func() { <-c.sem }()
	n := lens[1]
	require.Equal(t, n, len(c.input))
	require.Equal(t, n, len(c.tokens))
	require.LessOrEqual(t, cap(c.input), max(2*n, n+512), "the copy of the conversation holds more than it")
	require.LessOrEqual(t, cap(c.tokens), max(2*n, n+512))
	require.Equal(t, len(c.kept), len(c.result))
	require.LessOrEqual(t, len(c.kept), n)
	require.LessOrEqual(t, cap(c.result), max(2*n, n+512))
	require.LessOrEqual(t, len(c.saved), len(c.kept))
	total := 0
	for _, k := range c.tokens {
		total += k
	}
	require.Equal(t, total, c.total)
	require.Equal(t, len(distilled), len(c.stored), "stored IDs are the memories distilled")
	if store != nil {
		require.LessOrEqual(t, len(c.stored), store.Len())
	}
	if e, ok := c.opts.Embedder.(*CachedEmbedder); ok {
		s := e.Stats()
		require.LessOrEqual(t, s.Len, s.Capacity)
		// The capacity grows to the largest Embed call only: the
		// conversations the test sent, plus the query.
		require.LessOrEqual(t, s.Capacity, max(DefaultCacheCapacity, longest+1))
	}
	if tc, ok := c.opts.Tokens.(*CachedTokenCounter); ok {
		tc.mu.Lock()
		require.LessOrEqual(t, len(tc.cur), tc.capacity)
		require.LessOrEqual(t, len(tc.old), tc.capacity)
		require.LessOrEqual(t, tc.capacity, max(DefaultCacheCapacity, longest))
		tc.mu.Unlock()
	}
	if calib != nil {
		calib.mu.Lock()
		require.LessOrEqual(t, len(calib.cur), CalibrationMemory)
		require.LessOrEqual(t, len(calib.old), CalibrationMemory)
		require.LessOrEqual(t, len(calib.recent), CalibrationWindow)
		calib.mu.Unlock()
	}
	// The caches keep the last two compactions' entries, past twice the
	// current one's plus 1 024: per message at most a few entries (a
	// message, its words, its forms).
	if m := c.opts.Mask; m != nil && m.Cache != nil {
		mc := m.Cache
		mc.mu.Lock()
		bound := 3*longest + 1024
		require.LessOrEqual(t, len(mc.entries), bound, "MaskCache entries")
		require.LessOrEqual(t, len(mc.words), bound, "MaskCache words")
		require.LessOrEqual(t, len(mc.forms), 3*bound, "MaskCache forms")
		require.LessOrEqual(t, len(mc.idents), 2*longest+8, "MaskCache idents")
		mc.mu.Unlock()
	}
	if cc := c.opts.CoverageCache; cc != nil {
		cc.mu.Lock()
		require.LessOrEqual(t, len(cc.entries), 3*longest+1024, "CoverageCache entries")
		cc.mu.Unlock()
	}
}

// TestCompactorSoakMemory runs a long session whose conversation the
// caller keeps bounded (it drops the history before a recent prompt once
// the conversation passes 300 messages), with every cache of a Compactor
// in use and a CalibratedCounter observing fake usage: once the caches
// are full, the live heap must stop growing. It is not parallel: the heap
// is the process's, and parallel tests start only after the serial ones.
func TestCompactorSoakMemory(t *testing.T) {
	turns := max(soakLength(6000, 1000, 600), 600) // fewer make the heap samples noise
	ctx := t.Context()
	r := rand.New(rand.NewPCG(99, 0x50a6))
	g := &soakGen{r: r}
	calib := NewCalibratedCounter(NewCachedTokenCounter(nil, 256))
	opts := &Options{
		Embedder: NewCachedEmbedder(NewHashEmbedder(64), 256), Query: "fix the config error",
		Lexical: 0.3, RelevanceReserve: 0.3, Tokens: calib,
		Mask: &MaskOptions{KeepRecent: 2, MinTokens: 40},
	}
	c, err := NewCompactor(opts, Policy{MaxTokens: 2500, TargetTokens: 1000})
	require.NoError(t, err)
	var conv []Message
	var prompts []int // indices in conv of user prompts
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	// The live heap, sampled: the first half's peak after the caches
	// fill (from turn/4 on), and the second half's.
	var first, second uint64
	every := max(1, turns/40)
	var lens [2]int
	longest := 0
	compacted := 0
	for turn := range turns {
		var msgs []Message
		if len(conv) > 0 && r.IntN(5) == 0 {
			msgs = g.goStep()
		} else {
			msgs, err = ParseMessages([]byte(g.step(len(conv) == 0)))
			require.NoError(t, err)
		}
		if len(msgs) > 0 && msgs[0].Role == RoleUser && len(msgs[0].ToolResultIDs) == 0 {
			prompts = append(prompts, len(conv))
		}
		conv = append(conv, msgs...)
		if len(conv) > 300 && len(prompts) > 1 {
			// The caller's own window: the history before the latest
			// prompt but one is dropped, into a new array.
			off := prompts[len(prompts)-2]
			conv = slices.Clone(conv[off:])
			prompts = []int{0, prompts[len(prompts)-1] - off}
		}
		res, err := c.Compact(ctx, conv)
		require.NoError(t, err)
		lens[0], lens[1] = lens[1], len(conv)
		longest = max(longest, len(conv))
		if res.Stats.Compacted {
			compacted++
		}
		reported := 40
		for i := range res.Messages {
			reported += 4 + len(res.Messages[i].Content)/3
		}
		calib.Observe(res.Messages, reported)
		if turn%every == 0 {
			checkSoakMemory(t, c, lens, longest, nil, nil, calib)
		}
		if turn >= turns/4 && turn%every == 0 {
			h := heap()
			runtime.KeepAlive(c) // live at every sample
			if turn < turns/2 {
				first = max(first, h)
			} else {
				second = max(second, h)
			}
		}
	}
	t.Logf("%d turns, %d compactions: live heap peaks %d KiB over turns %d–%d, %d KiB over the second half", turns, compacted, first>>10, turns/4, turns/2, second>>10)
	require.Positive(t, compacted)
	require.LessOrEqual(t, second, first+first/2+1<<20, "the live heap's peak grew by more than half over the second half")
}
