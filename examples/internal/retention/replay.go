package retention

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/chitta-go/chitta"
)

// Strategies of the session replay: how an agent loop decides the context
// of each model call.
const (
	// StrategyEveryTurn calls chitta.Compact at the target before every
	// model call.
	StrategyEveryTurn = "compact-every-turn"
	// StrategyCompactor asks a chitta.Compactor (water marks: compact to
	// the target past the window, append in between).
	StrategyCompactor = "compactor"
	// StrategyRecency keeps the newest tool-call groups that fit in the
	// window, first fit (truncation).
	StrategyRecency = "recency-truncation"
	// StrategyNone sends the whole conversation, over the window or not.
	StrategyNone = "no-compaction"
)

// Strategies lists the replay strategies in report order.
var Strategies = []string{StrategyEveryTurn, StrategyCompactor, StrategyRecency, StrategyNone}

// Replayed is one conversation replayed model call by model call: a call is
// made before every assistant message (with the messages before it), at
// every probe, and nowhere else.
type Replayed struct {
	Name     string
	Messages []chitta.Message
	// Query is chitta's Options.Query for the whole session (a Compactor's
	// query is fixed for its life).
	Query  string
	Probes []Probe
}

// Probe checks what the context of the model call made with Messages[:At]
// still holds: evidence messages (indices into Messages) or argument values
// (found verbatim in a message of the context).
type Probe struct {
	At       int
	Evidence []int
	Values   []string
}

// ReplayConfig configures [Replay].
type ReplayConfig struct {
	Env Env
	// Window is the context size: the Compactor's MaxTokens and recency's
	// budget. Required (>= 2).
	Window int
	// Target is the size a compaction cuts down to: the Compactor's
	// TargetTokens and compact-every-turn's budget. 0 means Window/2.
	Target int
	// Horizon and Pricing are passed to the Compactor's Policy; Pricing
	// also prices every strategy's calls (zero fields: Anthropic's).
	Horizon int
	Pricing chitta.Pricing
	// Strategies to replay; nil means all of [Strategies].
	Strategies []string
}

// ReplayStats sums one strategy's calls over the sessions of a replay.
type ReplayStats struct {
	Strategy     string
	Sessions     int
	Calls        int
	Compactions  int     // calls whose context does not extend the previous call's
	PromptTokens int     // tokens sent, over all calls
	CachedTokens int     // of those, the leading messages identical to the previous call's context
	Billed       float64 // estimated billed input, in uncached input tokens
	OverWindow   int     // calls whose context exceeds the window
	MaxPrompt    int     // largest context sent
	Retention    Frac    // evidence or argument values found at the probes
}

// CacheShare returns the share of prompt tokens served by the cache.
func (s ReplayStats) CacheShare() float64 {
	if s.PromptTokens == 0 {
		return 0
	}
	return float64(s.CachedTokens) / float64(s.PromptTokens)
}

// Replay plays every session call by call under each strategy and returns
// the sums, one per strategy in the order asked. The billing follows
// chitta's model (see chitta.Pricing): a call reads from the cache the
// leading messages it shares with the previous call's context and writes
// the rest.
func Replay(ctx context.Context, cfg ReplayConfig, sessions []Replayed) ([]ReplayStats, error) {
	if cfg.Window < 2 {
		return nil, fmt.Errorf("%w: replay window %d, want >= 2", ErrInvalidConfig, cfg.Window)
	}
	if cfg.Target == 0 {
		cfg.Target = cfg.Window / 2
	}
	strategies := cfg.Strategies
	if strategies == nil {
		strategies = Strategies
	}
	pr := cfg.Pricing
	pr.Input = cmpOr(pr.Input, chitta.DefaultInputPrice)
	pr.CacheWrite = cmpOr(pr.CacheWrite, chitta.DefaultCacheWritePrice)
	pr.CacheRead = cmpOr(pr.CacheRead, chitta.DefaultCacheReadPrice)
	tokens := cfg.Env.Tokens
	if tokens == nil {
		tokens = chitta.TokenCounterFunc(chitta.EstimateTokens)
	}
	out := make([]ReplayStats, 0, len(strategies))
	for _, name := range strategies {
		st := ReplayStats{Strategy: name}
		for _, s := range sessions {
			next, err := newStrategy(name, cfg, s.Query)
			if err != nil {
				return nil, err
			}
			size := make([]int, len(s.Messages))
			for i, m := range s.Messages {
				size[i] = tokens.CountTokens(m.Content)
			}
			var prev []int
			for _, at := range callPoints(s) {
				prompt, err := next(ctx, s.Messages[:at])
				if err != nil {
					return nil, fmt.Errorf("replay %s %s call at %d: %w", name, s.Name, at, err)
				}
				total, hit := 0, 0
				shared := 0
				for shared < min(len(prompt), len(prev)) && prompt[shared] == prev[shared] {
					shared++
				}
				for k, i := range prompt {
					total += size[i]
					if k < shared {
						hit += size[i]
					}
				}
				if st.Calls > 0 && prev != nil && shared < len(prev) {
					st.Compactions++
				}
				st.Calls++
				st.PromptTokens += total
				st.CachedTokens += hit
				st.Billed += (pr.CacheRead*float64(hit) + pr.CacheWrite*float64(total-hit)) / pr.Input
				st.MaxPrompt = max(st.MaxPrompt, total)
				if total > cfg.Window {
					st.OverWindow++
				}
				for _, p := range s.Probes {
					if p.At == at {
						probe(&st.Retention, s.Messages, prompt, p)
					}
				}
				prev = prompt
			}
			st.Sessions++
		}
		out = append(out, st)
	}
	return out, nil
}

func cmpOr(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

// callPoints returns the prefix lengths at which a session makes a model
// call, ascending: before each assistant message and at each probe.
func callPoints(s Replayed) []int {
	var at []int
	for i, m := range s.Messages {
		if i > 0 && m.Role == chitta.RoleAssistant {
			at = append(at, i)
		}
	}
	for _, p := range s.Probes {
		at = append(at, p.At)
	}
	slices.Sort(at)
	return slices.Compact(at)
}

// probe adds to f what the context prompt (indices into msgs) still holds
// of p.
func probe(f *Frac, msgs []chitta.Message, prompt []int, p Probe) {
	if len(p.Evidence) > 0 {
		found := 0
		for _, e := range p.Evidence {
			if slices.Contains(prompt, e) {
				found++
			}
		}
		f.Add(float64(found), float64(len(p.Evidence)))
	}
	if len(p.Values) > 0 {
		found := 0
		for _, v := range p.Values {
			if slices.ContainsFunc(prompt, func(i int) bool { return strings.Contains(msgs[i].Content, v) }) {
				found++
			}
		}
		f.Add(float64(found), float64(len(p.Values)))
	}
}

// newStrategy returns a function giving the context of a call (indices
// into the conversation, ascending) for one session.
func newStrategy(name string, cfg ReplayConfig, query string) (func(context.Context, []chitta.Message) ([]int, error), error) {
	opts := &chitta.Options{Query: query, Embedder: cfg.Env.Embedder, Tokens: cfg.Env.Tokens}
	switch name {
	case StrategyEveryTurn:
		o := *opts
		o.MaxTokens = cfg.Target
		return func(ctx context.Context, msgs []chitta.Message) ([]int, error) {
			res, err := chitta.Compact(ctx, msgs, &o)
			if err != nil {
				return nil, err
			}
			return res.Kept, nil
		}, nil
	case StrategyCompactor:
		c, err := chitta.NewCompactor(opts, chitta.Policy{MaxTokens: cfg.Window, TargetTokens: cfg.Target, Horizon: cfg.Horizon, Pricing: cfg.Pricing})
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidConfig, err)
		}
		return func(ctx context.Context, msgs []chitta.Message) ([]int, error) {
			res, err := c.Compact(ctx, msgs)
			if err != nil {
				return nil, err
			}
			return res.Kept, nil
		}, nil
	case StrategyRecency:
		return func(ctx context.Context, msgs []chitta.Message) ([]int, error) {
			return recencyWindow(ctx, msgs, cfg.Window, cfg.Env.Tokens)
		}, nil
	case StrategyNone:
		return func(_ context.Context, msgs []chitta.Message) ([]int, error) {
			all := make([]int, len(msgs))
			for i := range all {
				all[i] = i
			}
			return all, nil
		}, nil
	}
	return nil, fmt.Errorf("%w: unknown replay strategy %q", ErrInvalidConfig, name)
}

// recencyWindow keeps the system messages and then the newest tool-call
// groups that fit in window tokens, first fit.
func recencyWindow(ctx context.Context, msgs []chitta.Message, window int, tokens chitta.TokenCounter) ([]int, error) {
	layout, err := chitta.Compact(ctx, msgs, &chitta.Options{MaxTokens: window, Tokens: tokens, FreeSelection: true})
	if err != nil {
		return nil, err
	}
	type group struct{ members []int }
	var groups []*group
	byUnit := map[int]*group{}
	used := 0
	keep := make([]bool, len(msgs))
	for _, s := range layout.Scores {
		if s.Pinned {
			keep[s.Index] = true
			used += s.Tokens
			continue
		}
		g := byUnit[s.Unit]
		if g == nil {
			g = &group{}
			byUnit[s.Unit] = g
			groups = append(groups, g)
		}
		g.members = append(g.members, s.Index)
	}
	// Newest first: groups are in order of their first member, and a
	// group's last member decides its age.
	slices.SortStableFunc(groups, func(a, b *group) int { return b.members[len(b.members)-1] - a.members[len(a.members)-1] })
	for _, g := range groups {
		cost := 0
		for _, i := range g.members {
			cost += layout.Scores[i].Tokens
		}
		if used+cost > window {
			continue
		}
		used += cost
		for _, i := range g.members {
			keep[i] = true
		}
	}
	var out []int
	for i, k := range keep {
		if k {
			out = append(out, i)
		}
	}
	return out, nil
}

// LoCoMoReplays returns one session per conversation, probed for the
// evidence of every answerable question (categories 1–4): after the last
// message (the protocol: the questions come after the conversation), or,
// with afterSession, at the end of the session that holds the question's
// last evidence turn (many more context states, so a steadier figure).
// The query is empty: the loop does not know the questions.
func LoCoMoReplays(convs []Conversation, afterSession bool) []Replayed {
	var out []Replayed
	for _, c := range convs {
		s := Replayed{Name: c.ID, Messages: c.Messages}
		for _, q := range c.Questions {
			if q.Category < 1 || q.Category > 4 || len(q.Evidence) == 0 {
				continue
			}
			at := len(c.Messages)
			if afterSession && len(c.DiaIDs) == len(c.Messages) {
				last := slices.Max(q.Evidence)
				session, _, _ := strings.Cut(c.DiaIDs[last], ":")
				for j := last + 1; j < len(c.Messages); j++ {
					if next, _, _ := strings.Cut(c.DiaIDs[j], ":"); next != session {
						at = j
						break
					}
				}
			}
			s.Probes = append(s.Probes, Probe{At: at, Evidence: q.Evidence})
		}
		out = append(out, s)
	}
	return out
}

// TauReplays returns one session per run, with the task's first user
// message as query, probed at each gold action's model call for the
// action's argument values that an unpinned message before the call holds
// and no system message does (every strategy keeps the system prompt).
func TauReplays(runs []Run) []Replayed {
	var out []Replayed
	for _, r := range runs {
		s := Replayed{Name: r.Name, Messages: r.Messages}
		for _, m := range r.Messages {
			if m.Role == chitta.RoleUser && len(m.ToolResultIDs) == 0 {
				s.Query = m.Content
				break
			}
		}
		cuts, _ := r.Cuts()
		for _, c := range cuts {
			prefix := r.Messages[:c.Index]
			var vals []string
			for _, v := range ArgumentValues(c.Action.Args) {
				inSystem := slices.ContainsFunc(prefix, func(m chitta.Message) bool { return m.Role.Pinned() && strings.Contains(m.Content, v) })
				seen := slices.ContainsFunc(prefix, func(m chitta.Message) bool { return !m.Role.Pinned() && strings.Contains(m.Content, v) })
				if seen && !inSystem {
					vals = append(vals, v)
				}
			}
			if len(vals) > 0 {
				s.Probes = append(s.Probes, Probe{At: c.Index, Values: vals})
			}
		}
		out = append(out, s)
	}
	return out
}

// LoadSWEAgent reads a SWE-agent trajectory file (.traj.json) as a session
// without probes: its "history" messages, in OpenAI form with tool_call_ids.
// Errors wrap [ErrInvalidData].
func LoadSWEAgent(name string, r io.Reader) (Replayed, error) {
	var f struct {
		History json.RawMessage `json:"history"`
	}
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		return Replayed{}, fmt.Errorf("%w: swe-agent %s: %v", ErrInvalidData, name, err)
	}
	msgs, err := chitta.ParseMessages(f.History)
	if err != nil {
		return Replayed{}, fmt.Errorf("%w: swe-agent %s: history: %w", ErrInvalidData, name, err)
	}
	s := Replayed{Name: name, Messages: msgs}
	for _, m := range msgs {
		if m.Role == chitta.RoleUser && len(m.ToolResultIDs) == 0 {
			s.Query = m.Content
			break
		}
	}
	return s, nil
}
