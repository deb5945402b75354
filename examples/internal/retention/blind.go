package retention

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/chitta-go/chitta"
)

// blindQueryTurns is how many of the last user turns before a session
// boundary form the blind protocol's query.
const blindQueryTurns = 2

// Boundary is one compaction point of the blind protocol: the end of a
// session.
type Boundary struct {
	End   int    // the prefix is Messages[:End]
	Query string // the last user turns of the prefix, oldest first, one per line
}

// Boundaries returns a boundary at the end of every session of c (the last
// one is the end of the conversation, when its questions are asked), read
// from the session number of each turn's dia_id ("D<session>:<turn>").
func (c *Conversation) Boundaries() []Boundary {
	var out []Boundary
	for i := range c.Messages {
		if i+1 < len(c.Messages) && session(c.DiaIDs[i]) == session(c.DiaIDs[i+1]) {
			continue
		}
		out = append(out, Boundary{End: i + 1, Query: lastUserTurns(c.Messages[:i+1], blindQueryTurns)})
	}
	return out
}

// session returns the session part of a dia_id ("D3" of "D3:14").
func session(diaID string) string {
	s, _, _ := strings.Cut(diaID, ":")
	return s
}

// lastUserTurns joins the contents of the last n user messages of msgs,
// oldest first.
func lastUserTurns(msgs []chitta.Message, n int) string {
	var turns []string
	for i := len(msgs) - 1; i >= 0 && len(turns) < n; i-- {
		if msgs[i].Role == chitta.RoleUser && strings.TrimSpace(msgs[i].Content) != "" {
			turns = append(turns, msgs[i].Content)
		}
	}
	for i, j := 0, len(turns)-1; i < j; i, j = i+1, j-1 {
		turns[i], turns[j] = turns[j], turns[i]
	}
	return strings.Join(turns, "\n")
}

// LoCoMoBlind evaluates compaction that cannot know the questions. Each
// conversation is compacted once per method and ratio at every session
// boundary, with the last two user turns of the prefix as query and, as
// memory, the observations whose cited turns all lie in the prefix (what
// the agent could have learned by then). Every question's evidence turns
// inside the prefix are then scored against that one kept set, with the
// metrics of [Evaluator.LoCoMo] ("covered" meaning cited by one of those
// observations); questions with no evidence in the prefix are skipped
// there. ms_per_compaction counts once per boundary, in category 0.
func (e *Evaluator) LoCoMoBlind(ctx context.Context, convs []Conversation) error {
	if err := e.check(); err != nil {
		return err
	}
	var nBoundaries, nScored, nTexts int
	var cold time.Duration
	for ci := range convs {
		c := &convs[ci]
		bounds := c.Boundaries()
		var queries []string
		for _, b := range bounds {
			queries = append(queries, b.Query)
		}
		texts := distinct(c.Messages, queries)
		d, err := e.warm(ctx, texts)
		if err != nil {
			return fmt.Errorf("locomo-blind %s: %w", c.ID, err)
		}
		cold += d
		nTexts += len(texts)
		nBoundaries += len(bounds)
		type point struct {
			task    Task
			covered []bool
		}
		points := make([]point, len(bounds))
		for k, b := range bounds {
			var facts []string
			covered := make([]bool, b.End)
			for _, o := range c.Observations {
				if len(o.Cites) == 0 || o.Cites[len(o.Cites)-1] >= b.End {
					continue
				}
				facts = append(facts, o.Text)
				for _, i := range o.Cites {
					covered[i] = true
				}
			}
			store, err := e.memoryStore(ctx, fmt.Sprintf("%s/blind%d", c.ID, k), facts)
			if err != nil {
				return fmt.Errorf("locomo-blind %s: %w", c.ID, err)
			}
			points[k] = point{Task{Messages: c.Messages[:b.End], Query: b.Query, Store: store}, covered}
			for _, q := range c.Questions {
				if len(prefixEvidence(q.Evidence, b.End)) > 0 {
					nScored++
				}
			}
		}
		for _, ratio := range e.Ratios {
			for _, m := range e.Methods {
				start := time.Now()
				for run := range m.Runs() {
					for _, p := range points {
						task := p.task
						task.Ratio = ratio
						out, ms, err := e.run(ctx, m, task, run)
						if err != nil {
							return fmt.Errorf("locomo-blind %s: %w", c.ID, err)
						}
						e.Results.Tally(LoCoMoBlind, m.Name(), ratio, 0).Add(MsPerCompaction, ms, 1)
						for _, q := range c.Questions {
							ev := prefixEvidence(q.Evidence, len(task.Messages))
							if len(ev) == 0 {
								continue
							}
							cats := []int{q.Category}
							if q.Category >= 1 && q.Category <= 4 {
								cats = append(cats, 0)
							}
							for _, cat := range cats {
								addEvidence(e.Results.Tally(LoCoMoBlind, m.Name(), ratio, cat), ev, p.covered, out)
							}
						}
					}
				}
				e.progress("locomo-blind %s ratio %.2f %-14s %d boundaries × %d runs  %v", c.ID, ratio, m.Name(), len(points), m.Runs(), time.Since(start).Round(time.Millisecond))
			}
		}
	}
	e.Results.Note(LoCoMoBlind, fmt.Sprintf("%d conversations compacted at %d session boundaries (the last one the end of the conversation), the query being the last %d user turns before the boundary; %d (boundary, question) pairs with evidence in the prefix; memory: the observations whose cited turns all precede the boundary", len(convs), nBoundaries, blindQueryTurns, nScored))
	e.Results.Note(LoCoMoBlind, coldNote(cold, nTexts))
	return nil
}

// prefixEvidence returns the evidence turns before end (evidence is
// ascending).
func prefixEvidence(ev []int, end int) []int {
	for k, i := range ev {
		if i >= end {
			return ev[:k]
		}
	}
	return ev
}
