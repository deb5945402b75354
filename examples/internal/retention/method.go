// Package retention measures what a compaction method keeps of a
// conversation: it loads third-party conversations (LoCoMo, tau-bench,
// Claude Code transcripts), compacts them with chitta and with baselines at
// the same token budget, scores the survivors against labels the data
// carries, and writes the figures as Markdown, JSON and SVG.
//
// Every method sees the same messages, the same query, the same embedder,
// the same token counter and the same budget, floor(ratio × tokens), with
// system messages kept and charged first, and every method keeps or drops a
// tool call together with its results (the groups chitta itself forms), so
// the figures differ only by which turns each method prefers.
package retention

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/chitta-go/chitta"
)

// Task is one compaction to perform: the messages, the query about the
// upcoming turn, the ratio of tokens to keep, and the memory store of the
// agent (nil when the data has none). Methods read a Task and never modify
// its messages or store (chitta.Compact does not write to the store unless
// distillation is on, which no method here turns on).
type Task struct {
	Messages []chitta.Message
	Query    string
	Ratio    float64
	Store    chitta.MemoryStore
	// MaxTokens, when > 0, is an absolute budget used instead of Ratio
	// (chitta.Options.MaxTokens): pinned messages are charged first.
	MaxTokens int
}

// Outcome is what a method kept. Kept has one entry per task message;
// Result is chitta's own result for the chitta methods and nil for the
// baselines. The caller owns every slice.
type Outcome struct {
	Kept   []bool
	Tokens []int // token count of every message, by the shared counter
	Result *chitta.Result
}

// Env is what every method shares: the embedder and the token counter.
// A nil Tokens means chitta's default estimate; a nil Embedder leaves the
// chitta methods with recency and structure only. Both must be safe for
// concurrent use if methods run concurrently.
type Env struct {
	Embedder chitta.Embedder
	Tokens   chitta.TokenCounter
}

// Method is one way of choosing what to keep under a token budget.
// Runs is how many seeded runs its figures average (1 for a deterministic
// method); Select performs run number run, 0 ≤ run < Runs().
// Implementations are safe for concurrent use.
type Method interface {
	Name() string
	Runs() int
	Select(ctx context.Context, env Env, t Task, run int) (Outcome, error)
}

// Chitta compacts with [chitta.Compact]. The zero value is chitta's default
// configuration with the task's memory store. A Chitta is a plain value,
// safe for concurrent use.
type Chitta struct {
	// Label is the method's name; "" means "chitta".
	Label string
	// NoMemory compacts without the memory store (chitta-nomem).
	NoMemory bool
	// KeepLast and RoleWeights are passed to [chitta.Options].
	KeepLast    int
	RoleWeights map[chitta.Role]float64
	// Rescale sets [chitta.Options.Rescale]: the semantic and coverage
	// terms are min–max rescaled to [0, 1] over the task's messages
	// (chitta-norm).
	Rescale bool
	// FreeSelection sets [chitta.Options.FreeSelection]: the original
	// greedy rule, without the live turn and first user turn pinned
	// (chitta-free).
	FreeSelection bool
	// RelevanceReserve and Lexical set [chitta.Options.RelevanceReserve]
	// and [chitta.Options.Lexical] (chitta-reserve: 0.5 and 0.3).
	RelevanceReserve, Lexical float64
	// PlanQuery, when true, appends to the task's query the last assistant
	// message that issues no tool call (the agent's latest stated plan).
	PlanQuery bool
}

// Name returns the label.
func (c Chitta) Name() string {
	if c.Label == "" {
		return "chitta"
	}
	return c.Label
}

// Runs returns 1: chitta is deterministic.
func (c Chitta) Runs() int { return 1 }

// Select runs chitta.Compact on the task.
func (c Chitta) Select(ctx context.Context, env Env, t Task, _ int) (Outcome, error) {
	query := t.Query
	if c.PlanQuery {
		if plan := lastAssistantText(t.Messages); plan != "" {
			query = strings.TrimSpace(query + "\n" + plan)
		}
	}
	opts := &chitta.Options{
		Query:       query,
		TargetRatio: t.Ratio,
		KeepLast:    c.KeepLast,
		Embedder:    env.Embedder,
		RoleWeights: c.RoleWeights,
		Rescale:     c.Rescale,
		Tokens:      env.Tokens,
		MaxTokens:   t.MaxTokens,

		FreeSelection:    c.FreeSelection,
		RelevanceReserve: c.RelevanceReserve,
		Lexical:          c.Lexical,
	}
	if !c.NoMemory && t.Store != nil {
		opts.Store = t.Store
	}
	res, err := chitta.Compact(ctx, t.Messages, opts)
	if err != nil {
		return Outcome{}, fmt.Errorf("compact: %w", err)
	}
	out := Outcome{Kept: make([]bool, len(t.Messages)), Tokens: make([]int, len(t.Messages)), Result: res}
	for i, s := range res.Scores {
		out.Tokens[i] = s.Tokens
	}
	for _, i := range res.Kept {
		out.Kept[i] = true
	}
	return out, nil
}

// lastAssistantText returns the content of the last assistant message of
// msgs that issues no tool call, or "".
func lastAssistantText(msgs []chitta.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Role == chitta.RoleAssistant && len(m.ToolCallIDs) == 0 && strings.TrimSpace(m.Content) != "" {
			return m.Content
		}
	}
	return ""
}

// Recency keeps the newest tool-call groups that fit, newest first, with
// the same first-fit rule as chitta (a group too large for what is left is
// skipped and older ones are still tried).
type Recency struct{}

// Name returns "recency".
func (Recency) Name() string { return "recency" }

// Runs returns 1.
func (Recency) Runs() int { return 1 }

// Select keeps the newest groups that fit.
func (Recency) Select(ctx context.Context, env Env, t Task, _ int) (Outcome, error) {
	scores, budget, err := layout(ctx, env, t)
	if err != nil {
		return Outcome{}, err
	}
	return newestFirst(scores, budget), nil
}

// newestFirst keeps the pinned messages of scores, then the newest groups
// that fit in budget, first fit.
func newestFirst(scores []chitta.TurnScore, budget int) Outcome {
	us := units(scores)
	slices.SortFunc(us, func(a, b unit) int { return cmp.Compare(b.last, a.last) })
	return Outcome{Kept: pack(scores, budget, us), Tokens: tokensOf(scores)}
}

// RecencyLive is truncation that keeps what chitta's default pins at any
// budget: system messages and the live turn (the last user prompt and the
// latest step with its results, and the tool-search results that loaded
// the tools it calls), the pins of a one-token compaction, as
// [NeededCeiling] pins them. They are charged to the budget first
// (possibly exceeding it, as chitta's pins do); then the newest tool-call
// groups that fit are kept, first fit, as by [Recency]. It is the
// truncation an agent can use: [Recency] may drop the live turn, which an
// agent cannot (it would lose the output it is working on and issue the
// call again). chitta may pin an earlier prompt too when its own selection
// starts after one (Options.FreeSelection); RecencyLive does not.
type RecencyLive struct{}

// Name returns "recency-live".
func (RecencyLive) Name() string { return "recency-live" }

// Runs returns 1.
func (RecencyLive) Runs() int { return 1 }

// Select keeps chitta's pins, then the newest groups that fit.
func (RecencyLive) Select(ctx context.Context, env Env, t Task, _ int) (Outcome, error) {
	scores, budget, err := layout(ctx, env, t)
	if err != nil {
		return Outcome{}, err
	}
	if err := pinLive(ctx, env, t, scores); err != nil {
		return Outcome{}, err
	}
	return newestFirst(scores, budget), nil
}

// Random keeps tool-call groups in a seeded random order, first fit. Run r
// uses the PCG stream (Seed, r), so the figures are deterministic for a
// fixed Seed. Seeds is the number of runs; 0 means 5.
type Random struct {
	Seed  uint64
	Seeds int
}

// Name returns "random".
func (Random) Name() string { return "random" }

// Runs returns the number of seeds (default 5).
func (r Random) Runs() int {
	if r.Seeds <= 0 {
		return 5
	}
	return r.Seeds
}

// Select keeps groups in random order.
func (r Random) Select(ctx context.Context, env Env, t Task, run int) (Outcome, error) {
	scores, budget, err := layout(ctx, env, t)
	if err != nil {
		return Outcome{}, err
	}
	us := units(scores)
	rng := rand.New(rand.NewPCG(r.Seed, uint64(run)))
	rng.Shuffle(len(us), func(i, j int) { us[i], us[j] = us[j], us[i] })
	return Outcome{Kept: pack(scores, budget, us), Tokens: tokensOf(scores)}, nil
}

// layout runs chitta.Compact without embedder or store to obtain, at no
// embedding cost, the token count, tool-call group and pin of every message
// and the budget, exactly as chitta computes them. The baselines pin what
// the original design pins (system messages; FreeSelection).
func layout(ctx context.Context, env Env, t Task) ([]chitta.TurnScore, int, error) {
	res, err := chitta.Compact(ctx, t.Messages, &chitta.Options{TargetRatio: t.Ratio, MaxTokens: t.MaxTokens, Tokens: env.Tokens, FreeSelection: true})
	if err != nil {
		return nil, 0, fmt.Errorf("layout: %w", err)
	}
	return res.Scores, res.Stats.TargetTokens, nil
}

// pinLive marks as pinned, in scores (from layout), every message of each
// tool-call group that chitta's default configuration pins whatever the
// budget: the pins of a one-token compaction, where nothing but the pins
// is kept (system and developer messages, the live turn with its prompt,
// and the tool-search results that loaded the tools the live turn calls;
// see [chitta.Options.FreeSelection]).
func pinLive(ctx context.Context, env Env, t Task, scores []chitta.TurnScore) error {
	res, err := chitta.Compact(ctx, t.Messages, &chitta.Options{MaxTokens: 1, Tokens: env.Tokens})
	if err != nil {
		return fmt.Errorf("live pins: %w", err)
	}
	pinnedUnit := map[int]bool{} // chitta pins whole groups
	for i, s := range res.Scores {
		if s.Pinned {
			pinnedUnit[scores[i].Unit] = true
		}
	}
	for i := range scores {
		if pinnedUnit[scores[i].Unit] {
			scores[i].Pinned = true
		}
	}
	return nil
}

func tokensOf(scores []chitta.TurnScore) []int {
	out := make([]int, len(scores))
	for i, s := range scores {
		out[i] = s.Tokens
	}
	return out
}

// unit is a tool-call group of unpinned messages.
type unit struct {
	members []int
	cost    int
	last    int
	score   float64
}

// units returns the groups of unpinned messages, ordered by first member.
func units(scores []chitta.TurnScore) []unit {
	byRoot := map[int]int{}
	var out []unit
	for i, s := range scores {
		if s.Pinned {
			continue
		}
		k, ok := byRoot[s.Unit]
		if !ok {
			k = len(out)
			byRoot[s.Unit] = k
			out = append(out, unit{})
		}
		u := &out[k]
		u.members = append(u.members, i)
		u.cost += s.Tokens
		u.last = max(u.last, i)
	}
	return out
}

// pack keeps every pinned message, then the units in the given order, each
// one if it fits in what is left of the budget.
func pack(scores []chitta.TurnScore, budget int, order []unit) []bool {
	kept := make([]bool, len(scores))
	used := 0
	for i, s := range scores {
		if s.Pinned {
			kept[i] = true
			used += s.Tokens
		}
	}
	for _, u := range order {
		if used+u.cost > budget {
			continue
		}
		used += u.cost
		for _, i := range u.members {
			kept[i] = true
		}
	}
	return kept
}
