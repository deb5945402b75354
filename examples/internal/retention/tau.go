package retention

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/chitta-go/chitta"
)

// Run is one tau-bench trajectory: its messages (OpenAI format, read by
// [chitta.ParseMessages]), the tool calls each message issues, and the
// gold actions of its task.
type Run struct {
	Name     string
	Messages []chitta.Message
	Calls    [][]Call // tool calls issued by each message
	Actions  []Call   // info.task.actions
}

// Call is a tool call: a name and its arguments (a JSON object).
type Call struct {
	Name string
	Args json.RawMessage
}

// Cut is the point just before the assistant message that issues the
// tool call matching a gold action.
type Cut struct {
	Action Call
	Index  int // the issuing message; the prefix is Messages[:Index]
}

// LoadTau reads one tau-bench result file ({task_id, reward, info.task.
// actions, traj}). Errors wrap [ErrInvalidData].
func LoadTau(name string, r io.Reader) (Run, error) {
	var f struct {
		Info struct {
			Task struct {
				Actions []struct {
					Name   string          `json:"name"`
					Kwargs json.RawMessage `json:"kwargs"`
				} `json:"actions"`
			} `json:"task"`
		} `json:"info"`
		Traj []json.RawMessage `json:"traj"`
	}
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		return Run{}, fmt.Errorf("%w: tau %s: %v", ErrInvalidData, name, err)
	}
	run := Run{Name: name}
	for _, a := range f.Info.Task.Actions {
		run.Actions = append(run.Actions, Call{Name: a.Name, Args: a.Kwargs})
	}
	var err error
	if run.Messages, run.Calls, err = parseOpenAI(f.Traj); err != nil {
		return Run{}, fmt.Errorf("%w: tau %s: traj%w", ErrInvalidData, name, err)
	}
	return run, nil
}

// Cuts matches each gold action, in order, to the first tool call not yet
// matched with the same name and equal arguments, and returns a cut before
// the message issuing it. Actions the trajectory never issues are
// returned in missing.
func (r Run) Cuts() (cuts []Cut, missing []Call) {
	used := map[[2]int]bool{}
	for _, a := range r.Actions {
		found := false
	search:
		for i, calls := range r.Calls {
			for k, c := range calls {
				if used[[2]int{i, k}] || c.Name != a.Name || !sameJSON(c.Args, a.Args) {
					continue
				}
				used[[2]int{i, k}] = true
				cuts = append(cuts, Cut{Action: a, Index: i})
				found = true
				break search
			}
		}
		if !found {
			missing = append(missing, a)
		}
	}
	return cuts, missing
}

// sameJSON reports whether a and b decode to equal values.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if decodeNumber(a, &x) != nil || decodeNumber(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func decodeNumber(raw json.RawMessage, v *any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	return d.Decode(v)
}

// ArgumentValues returns the distinct leaf values of a call's arguments
// (strings, and numbers as written), walking object keys in sorted order;
// booleans and nulls are left out.
func ArgumentValues(args json.RawMessage) []string {
	var v any
	if decodeNumber(args, &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if x != "" && !slices.Contains(out, x) {
				out = append(out, x)
			}
		case json.Number:
			if !slices.Contains(out, x.String()) {
				out = append(out, x.String())
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k])
			}
		}
	}
	walk(v)
	return out
}

// lastUser returns the content of the last user message of msgs that does
// not carry tool results, or "".
func lastUser(msgs []chitta.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == chitta.RoleUser && len(msgs[i].ToolResultIDs) == 0 && strings.TrimSpace(msgs[i].Content) != "" {
			return msgs[i].Content
		}
	}
	return ""
}

// Tau evaluates every gold action of every run: the prefix before the
// message issuing the action is compacted with the last user message as
// query and no memory store, in two modes. Dataset [Tau] is the protocol's
// mode: the budget is floor(ratio × prefix tokens), the system prompt
// included and charged first (tau-bench's policy prompt is about half of a
// run's tokens, so at low ratios it alone exceeds the budget). Dataset
// [TauNonSystem] puts the system prompt outside the ratio: the budget is
// floor(ratio × non-system tokens) plus the system prompt, kept on top.
// Per cut it adds argument_recall (the action's argument values found
// verbatim in a kept message, over those found in an unpinned prefix
// message; values the system prompt already holds are left out, as every
// method keeps it), pair_integrity and ms_per_compaction.
func (e *Evaluator) Tau(ctx context.Context, runs []Run) error {
	if err := e.check(); err != nil {
		return err
	}
	type cutCase struct {
		task        Task
		values      []string
		sys, nonsys int // tokens of the pinned and the other messages
	}
	var cases []cutCase
	var nCuts, nMissing, unseen, inSystem, nValues int
	for _, r := range runs {
		cuts, missing := r.Cuts()
		nCuts += len(cuts)
		nMissing += len(missing)
		for _, c := range cuts {
			prefix := r.Messages[:c.Index]
			var vals []string
			for _, v := range ArgumentValues(c.Action.Args) {
				switch {
				case mentionedBy(prefix, v, true):
					inSystem++
				case mentionedBy(prefix, v, false):
					vals = append(vals, v)
				default:
					unseen++
				}
			}
			nValues += len(vals)
			cc := cutCase{task: Task{Messages: prefix, Query: lastUser(prefix)}, values: vals}
			cc.sys, cc.nonsys = e.splitTokens(prefix)
			cases = append(cases, cc)
		}
	}
	cold, nTexts, err := e.warmTasks(ctx, len(cases), func(k int) Task { return cases[k].task })
	if err != nil {
		return fmt.Errorf("tau: %w", err)
	}
	var over []string
	for _, ratio := range e.Ratios {
		n := 0
		for _, c := range cases {
			if c.sys > int(ratio*float64(c.sys+c.nonsys)) {
				n++
			}
		}
		over = append(over, fmt.Sprintf("%d at %v", n, ratio))
		for _, dataset := range []string{Tau, TauNonSystem} {
			for _, m := range e.Methods {
				start := time.Now()
				t := e.Results.Tally(dataset, m.Name(), ratio, 0)
				for run := range m.Runs() {
					for _, c := range cases {
						task := c.task
						task.Ratio = ratio
						if dataset == TauNonSystem {
							task.MaxTokens = nonSystemBudget(ratio, c.sys, c.nonsys)
						}
						out, ms, err := e.run(ctx, m, task, run)
						if err != nil {
							return fmt.Errorf("%s: %w", dataset, err)
						}
						t.Add(MsPerCompaction, ms, 1)
						addPairs(t, task.Messages, out.Kept)
						if len(c.values) == 0 {
							continue
						}
						found := 0
						for _, v := range c.values {
							if keptMention(task.Messages, out.Kept, v) {
								found++
							}
						}
						t.Add(ArgumentRecall, float64(found), float64(len(c.values)))
					}
				}
				e.progress("%s ratio %.2f %-14s %d cuts × %d runs  %v", dataset, ratio, m.Name(), len(cases), m.Runs(), time.Since(start).Round(time.Millisecond))
			}
		}
	}
	e.Results.Note(Tau, fmt.Sprintf("cuts where the system prompt alone exceeds the budget, so that no method keeps anything else: %s (of %d)", strings.Join(over, ", "), len(cases)))
	e.Results.Note(TauNonSystem, "the budget is floor(ratio × the prefix's non-system tokens) plus the system prompt, which is kept on top (chitta.Options.MaxTokens)")
	for _, d := range []string{Tau, TauNonSystem} {
		e.Results.Note(d, fmt.Sprintf("%d runs, %d gold actions matched to a tool call (%d never issued by the run), %d argument values measured; %d values already in the system prompt and %d never seen in the prefix were left out", len(runs), nCuts, nMissing, nValues, inSystem, unseen))
		e.Results.Note(d, coldNote(cold, nTexts))
	}
	return nil
}

// splitTokens returns the tokens of the pinned (system, developer) and of
// the other messages of msgs.
func (e *Evaluator) splitTokens(msgs []chitta.Message) (sys, nonsys int) {
	for _, m := range msgs {
		if m.Role.Pinned() {
			sys += e.tokens(m.Content)
		} else {
			nonsys += e.tokens(m.Content)
		}
	}
	return sys, nonsys
}

// warmTasks warms the embedding cache with the distinct texts and queries
// of the n tasks task(0) … task(n−1) (see warm) and returns the cold time
// and the number of texts.
func (e *Evaluator) warmTasks(ctx context.Context, n int, task func(int) Task) (time.Duration, int, error) {
	var texts []string
	for k := range n {
		t := task(k)
		texts = append(texts, distinct(t.Messages, []string{t.Query})...)
	}
	texts = distinct(nil, texts)
	cold, err := e.warm(ctx, texts)
	return cold, len(texts), err
}

// nonSystemBudget returns the token budget that keeps floor(ratio ×
// nonsys) tokens besides the sys tokens of the system prompt (at least 1,
// since a MaxTokens of 0 means "use the ratio").
func nonSystemBudget(ratio float64, sys, nonsys int) int {
	return max(1, sys+int(math.Floor(ratio*float64(nonsys)*(1+1e-12))))
}

// mentionedBy reports whether v occurs verbatim in a pinned (pinned true)
// or unpinned (pinned false) message of msgs.
func mentionedBy(msgs []chitta.Message, v string, pinned bool) bool {
	for _, m := range msgs {
		if m.Role.Pinned() == pinned && strings.Contains(m.Content, v) {
			return true
		}
	}
	return false
}

// keptMention reports whether v occurs verbatim in a kept message.
func keptMention(msgs []chitta.Message, kept []bool, v string) bool {
	for i, m := range msgs {
		if kept[i] && strings.Contains(m.Content, v) {
			return true
		}
	}
	return false
}
