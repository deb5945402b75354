// Command agentloop shows chitta inside a Go agent loop, with no network and
// no model: a scripted "model" fixes a bug in a repository with tool calls
// (one parallel pair among them), the loop appends the tool results, and
// before every model call it asks a chitta.Compactor for the context to
// send: the previous context plus the new messages while they fit in the
// budget (so the provider's prompt cache keeps serving the prefix), a
// compaction down to the target when they do not. The model also calls a
// remember tool, which the loop executes against a memory store, so that
// compactions drop first the turns the memory already covers.
//
//	go run ./examples/agentloop [-relevance-reserve 0.5 -lexical 0.3]
//
// It prints every step, and at each compaction what was kept and dropped
// (role, tokens, score, memory coverage), checks that no tool call was
// separated from its results, and ends with the share of prompt tokens the
// cache served and the estimated billed input. The output is deterministic.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chitta-go/chitta"
)

// The loop's context policy: when the context would exceed budget tokens,
// compact it to at most target tokens, always keeping the last keepLast
// turns (and the tool-call groups they belong to).
const (
	budget   = 450
	target   = 300
	keepLast = 4
)

// policy is the loop's choice of chitta.Options.RelevanceReserve and
// Lexical; the zero value is the seed formula alone.
type policy struct {
	reserve, lexical float64
}

// parseFlags reads -relevance-reserve and -lexical (RETENTION.md measures
// the preset 0.5 and 0.3), each 0 to 1. Usage and flag errors go to
// stderr.
func parseFlags(args []string, stderr io.Writer) (policy, error) {
	var p policy
	fs := flag.NewFlagSet("agentloop", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Float64Var(&p.reserve, "relevance-reserve", 0, "share of the free budget filled first by the turns most similar to the task and least held by memory (the rest: least covered, newest first), 0 to 1 (0 = off)")
	fs.Float64Var(&p.lexical, "lexical", 0, "weight of the conversation's own BM25 score in the similarity, 0 to 1 (0 = off)")
	if err := fs.Parse(args); err != nil {
		return p, err
	}
	if fs.NArg() > 0 {
		return p, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err := checkShare("relevance-reserve", p.reserve); err != nil {
		return p, err
	}
	return p, checkShare("lexical", p.lexical)
}

// checkShare reports a share flag outside [0, 1] (NaN included).
func checkShare(name string, v float64) error {
	if v >= 0 && v <= 1 {
		return nil
	}
	return fmt.Errorf("-%s %v: want 0 to 1", name, v)
}

func main() {
	os.Exit(cli(os.Args[1:], os.Stdout, os.Stderr))
}

// cli runs the command and returns its exit status: 0, or 1 after
// printing the error (-h prints the usage and exits 0).
func cli(args []string, stdout, stderr io.Writer) int {
	p, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err == nil {
		_, err = simulatePolicy(context.Background(), stdout, p)
	}
	if err != nil {
		fmt.Fprintln(stderr, "agentloop:", err)
		return 1
	}
	return 0
}

// run plays the scripted session with the seed formula and writes the
// report to w.
func run(ctx context.Context, w io.Writer) error {
	_, err := simulate(ctx, w)
	return err
}

// compaction records one Compact call of the loop, for the report and the
// tests.
type compaction struct {
	Input         []chitta.Message
	Result        *chitta.Result
	WithoutMemory *chitta.Result // the same call with no store, for contrast
}

// agent is the loop's state: the whole conversation, the context the
// provider saw last, the memory, and the Compactor that decides each
// context.
type agent struct {
	w         io.Writer
	full      []chitta.Message // the whole conversation; #n is full[n]
	sent      []chitta.Message // the context of the last model call
	sentLen   int              // len(full) at the last model call
	store     chitta.MemoryStore
	emb       *chitta.CachedEmbedder
	compactor *chitta.Compactor
	opts      *chitta.Options // the Compactor's options, for the report's contrast
	calls     int             // tool calls issued, for IDs
	memories  int
	log       []compaction

	prompt, cached int     // prompt tokens sent, and served by the cache
	billed, full0  float64 // estimated billed input, and with the whole conversation sent every call
}

// session is what simulate returns for the tests.
type session struct {
	Compactions []compaction
	Cache       chitta.CacheStats
	Calls       []chitta.Stats // every model call's context
}

// simulate runs the scripted session with the seed formula, writing the
// report to w.
func simulate(ctx context.Context, w io.Writer) (*session, error) {
	return simulatePolicy(ctx, w, policy{})
}

// simulatePolicy runs the scripted session compacting with p.
func simulatePolicy(ctx context.Context, w io.Writer, p policy) (*session, error) {
	// The embedded defaults: a HashEmbedder behind a CachedEmbedder, so
	// that each compaction embeds only the turns added since the last one,
	// and an in-memory HNSWStore for what the model remembers.
	hash := chitta.NewHashEmbedder(0)
	emb := chitta.NewCachedEmbedder(hash, 0)
	store, err := chitta.NewHNSWStore(hash.Dimensions(), nil)
	if err != nil {
		return nil, err
	}
	// The Compactor's Query is fixed for its life: here the task the
	// session is about, the first prompt.
	opts := &chitta.Options{
		Query:    script[0].user,
		KeepLast: keepLast,
		Embedder: emb,
		Store:    store,

		RelevanceReserve: p.reserve,
		Lexical:          p.lexical,
	}
	compactor, err := chitta.NewCompactor(opts, chitta.Policy{MaxTokens: budget, TargetTokens: target})
	if err != nil {
		return nil, err
	}
	a := &agent{w: w, store: store, emb: emb, compactor: compactor, opts: opts}
	fmt.Fprintf(w, "chitta agent loop · scripted, no network · Compactor: previous context + new messages up to %d tokens, else compact to %d\n", budget, target)
	if p != (policy{}) {
		fmt.Fprintf(w, "relevance reserve %v, lexical %v\n", p.reserve, p.lexical)
	}
	fmt.Fprintln(w)
	if err := a.append(wire{Role: "system", Content: ptr(systemPrompt)}); err != nil {
		return nil, err
	}
	var calls []chitta.Stats
	for _, ex := range script {
		if err := a.append(wire{Role: "user", Content: ptr(ex.user)}); err != nil {
			return nil, err
		}
		a.event("user", quote(ex.user, 52))
		for _, st := range ex.steps {
			// Before each model call: the context to send.
			res, err := a.context(ctx)
			if err != nil {
				return nil, err
			}
			calls = append(calls, res.Stats)
			if err := a.model(ctx, st); err != nil {
				return nil, err
			}
		}
	}
	fmt.Fprintf(w, "done · %d model calls, %d compactions · %d messages, %d in the last context · %d memories\n",
		len(calls), len(a.log), len(a.full), len(a.sent), a.memories)
	fmt.Fprintf(w, "prompt cache: %.0f%% of %d prompt tokens read from it; billed input %.0f tokens, %.2f× sending the whole history\n",
		100*float64(a.cached)/float64(a.prompt), a.prompt, a.billed, a.billed/a.full0)
	cs := emb.Stats()
	fmt.Fprintf(w, "CachedEmbedder: %d texts asked for, %d embedded: each text once, however many compactions see it\n", cs.Hits+cs.Misses, cs.Misses)
	return &session{Compactions: a.log, Cache: cs, Calls: calls}, nil
}

// model plays one scripted step: the assistant message, then its tool
// results.
func (a *agent) model(ctx context.Context, st step) error {
	msg := wire{Role: "assistant"}
	if st.text != "" {
		msg.Content = ptr(st.text)
	}
	var shown []string
	for _, c := range st.calls {
		a.calls++
		args, err := json.Marshal(map[string]string{argName(c.name): c.arg})
		if err != nil {
			return err
		}
		wc := wireCall{ID: fmt.Sprintf("call_%d", a.calls), Type: "function"}
		wc.Function.Name, wc.Function.Arguments = c.name, string(args)
		msg.ToolCalls = append(msg.ToolCalls, wc)
		shown = append(shown, c.name+"("+preview(c.arg, 22)+")")
	}
	if err := a.append(msg); err != nil {
		return err
	}
	for i, c := range st.calls {
		result := c.result
		if c.name == "remember" {
			id, err := a.remember(ctx, c.arg)
			if err != nil {
				return err
			}
			result = "stored memory " + id
			shown[i] = "remember → " + id + " " + quote(c.arg, 40)
		}
		if err := a.append(wire{Role: "tool", Content: ptr(result), ToolCallID: msg.ToolCalls[i].ID}); err != nil {
			return err
		}
	}
	if len(shown) == 0 {
		a.event("model", quote(st.text, 52))
		return nil
	}
	if len(shown) > 1 {
		shown[len(shown)-1] += "  (parallel)"
	}
	a.event("model", strings.Join(shown, " ‖ "))
	return nil
}

// remember stores a fact the model asked to keep and returns its ID.
func (a *agent) remember(ctx context.Context, text string) (string, error) {
	vecs, err := a.emb.Embed(ctx, []string{text})
	if err != nil {
		return "", fmt.Errorf("embed memory: %w", err)
	}
	a.memories++
	id := fmt.Sprintf("m%d", a.memories)
	m := chitta.Memory{
		ID:         id,
		Text:       text,
		Kind:       chitta.KindFact,
		Confidence: 0.9,
		Vector:     vecs[0],
		CreatedAt:  time.Date(2026, 1, 1, 0, a.memories, 0, 0, time.UTC), // fixed: the output is deterministic
		Source:     "agentloop",
	}
	if err := a.store.Add(ctx, m); err != nil {
		return "", fmt.Errorf("remember %s: %w", id, err)
	}
	return id, nil
}

// context asks the Compactor for the context of the next model call. This
// is the pattern to copy: keep the whole conversation, hand it to the
// Compactor before every call and send res.Messages, which are the
// caller's messages, verbatim and in order.
func (a *agent) context(ctx context.Context) (*chitta.Result, error) {
	size := a.tokens()
	res, err := a.compactor.Compact(ctx, a.full)
	if err != nil {
		return nil, fmt.Errorf("compact: %w", err)
	}
	a.sent, a.sentLen = res.Messages, len(a.full)
	st := res.Stats
	a.prompt += st.AfterTokens
	a.cached += st.CachedTokens
	a.billed += st.BilledInput
	a.full0 += st.BilledFull
	if err := checkPairs(res.Messages); err != nil {
		return nil, fmt.Errorf("model call %d: %w", len(a.log)+1, err)
	}
	if !st.Compacted {
		return res, nil
	}
	// For the report only: the same compaction without the memory, to show
	// which decisions the memory changed. A real loop stops above.
	noMem := *a.opts
	noMem.Store, noMem.MaxTokens = nil, target
	without, err := chitta.Compact(ctx, a.full, &noMem)
	if err != nil {
		return nil, fmt.Errorf("compact without memory: %w", err)
	}
	a.log = append(a.log, compaction{Input: a.full, Result: res, WithoutMemory: without})
	a.report(res, without, size)
	return res, nil
}

// report prints one compaction: a row per kept-or-dropped unit (a lone
// message, or a tool call with its results) and a summary. Messages are
// numbered by their place in the whole session, so a number means the same
// message in every compaction.
func (a *agent) report(res, without *chitta.Result, size int) {
	w, st := a.w, res.Stats
	fmt.Fprintf(w, "\n── compaction %d · context %d > %d tokens · conversation %d tokens\n", len(a.log), size, budget, st.BeforeTokens)
	fmt.Fprintf(w, "   turns    role               tok  score  cover   (system prompt always kept)\n")
	covered := 0
	var changed []string
	for _, u := range units(res.Scores) {
		first, last := res.Scores[u[0]], res.Scores[u[len(u)-1]]
		tok, score, cover, isCovered := 0, 0.0, 0.0, false
		for _, i := range u {
			s := res.Scores[i]
			tok += s.Tokens
			score, cover = max(score, s.Score), max(cover, s.Coverage)
			if !s.Kept && s.Coverage >= chitta.DefaultNovelThreshold {
				isCovered = true
			}
			if !s.Kept && without.Scores[i].Kept {
				changed = append(changed, fmt.Sprintf("#%d", i))
			}
		}
		span := fmt.Sprintf("#%d", first.Index)
		if len(u) > 1 {
			span += fmt.Sprintf("-%d", last.Index)
		}
		if first.Role.Pinned() {
			continue // system: always kept, said in the header
		}
		status := "kept"
		switch {
		case first.Pinned:
			status = "kept  (pinned)"
		case isCovered:
			status = "drop  covered by memory"
			covered += len(u)
		case !first.Kept:
			status = "drop"
		}
		fmt.Fprintf(w, "   %-8s %-17s %4d  %5.2f  %5.2f  %s\n", span, unitRole(res.Scores, u), tok, score, cover, status)
	}
	fmt.Fprintf(w, "   → %d tokens (target %d), %d of %d messages dropped, %d covered by memory; tool pairs intact ✓\n",
		st.AfterTokens, st.TargetTokens, st.Dropped, len(res.Scores), covered)
	if len(changed) > 0 {
		fmt.Fprintf(w, "   memory changed the choice: without it %s would have been kept\n", strings.Join(changed, " "))
	}
	fmt.Fprintln(w)
}

// units returns the messages grouped as Compact keeps or drops them: system
// messages alone, a tool call with its results together; in input order.
func units(scores []chitta.TurnScore) [][]int {
	var out [][]int
	at := map[int]int{} // unit → position in out
	for _, s := range scores {
		if s.Role.Pinned() {
			out = append(out, []int{s.Index})
			continue
		}
		if k, ok := at[s.Unit]; ok {
			out[k] = append(out[k], s.Index)
			continue
		}
		at[s.Unit] = len(out)
		out = append(out, []int{s.Index})
	}
	return out
}

// unitRole names a unit: "user", or "assistant+tool" for a call and its
// result, "assistant+2 tools" for a parallel pair.
func unitRole(scores []chitta.TurnScore, u []int) string {
	r := string(scores[u[0]].Role)
	switch len(u) {
	case 1:
		return r
	case 2:
		return r + "+" + string(scores[u[1]].Role)
	}
	return fmt.Sprintf("%s+%d %ss", r, len(u)-1, scores[u[1]].Role)
}

var errBrokenPair = errors.New("tool call separated from its result")

// checkPairs reports a kept tool call whose result was dropped, or a kept
// result whose call was dropped: what a provider would reject.
func checkPairs(msgs []chitta.Message) error {
	calls, results := map[string]bool{}, map[string]bool{}
	for _, m := range msgs {
		for _, id := range m.ToolCallIDs {
			calls[id] = true
		}
		for _, id := range m.ToolResultIDs {
			results[id] = true
		}
	}
	for id := range calls {
		if !results[id] {
			return fmt.Errorf("%w: call %s kept without its result", errBrokenPair, id)
		}
	}
	for id := range results {
		if !calls[id] {
			return fmt.Errorf("%w: result of %s kept without its call", errBrokenPair, id)
		}
	}
	return nil
}

// tokens estimates the context the next model call would send without a
// compaction: the last context plus the messages added since.
func (a *agent) tokens() int {
	n := 0
	for _, m := range a.sent {
		n += chitta.EstimateTokens(m.Content)
	}
	for _, m := range a.full[a.sentLen:] {
		n += chitta.EstimateTokens(m.Content)
	}
	return n
}

// event prints one line of the session with the context size after it.
func (a *agent) event(who, what string) {
	fmt.Fprintf(a.w, "%-5s  %-62s ctx %4d\n", who, what, a.tokens())
}

// wire is a chat message in OpenAI's wire format, as an agent holds it.
type wire struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content"`
	ToolCalls  []wireCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type wireCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// append adds a wire message to the history. chitta keeps the JSON in
// Message.Raw and hands it back verbatim, so what survives compaction goes
// back to the provider byte for byte.
func (a *agent) append(wm wire) error {
	data, err := json.Marshal(wm)
	if err != nil {
		return err
	}
	var m chitta.Message
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("message %d: %w", len(a.full), err)
	}
	a.full = append(a.full, m)
	return nil
}

func argName(tool string) string {
	switch tool {
	case "remember":
		return "text"
	case "grep":
		return "pattern"
	case "go_test":
		return "packages"
	}
	return "path"
}

func ptr(s string) *string { return &s }

// preview collapses white space and cuts s to max runes.
func preview(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max-1]) + "…"
}

func quote(s string, max int) string { return "“" + preview(s, max) + "”" }
