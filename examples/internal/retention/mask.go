package retention

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/chitta-go/chitta"
)

// Dataset names of the masking evaluation, as they appear in report.json.
const (
	// MaskTau is tau-bench in the protocol's mode: the budget is floor(ratio
	// × prefix tokens), the system prompt included and charged first.
	MaskTau = "mask-tau"
	// MaskTauNonSystem is tau-bench with the system prompt outside the
	// ratio: the budget is floor(ratio × non-system tokens) plus the system
	// prompt, which is kept on top.
	MaskTauNonSystem = "mask-tau-nonsystem"
	// MaskClaude is the Claude Code transcripts.
	MaskClaude = "mask-claude"
	// MaskSWE is the SWE-agent trajectories.
	MaskSWE = "mask-swe"
)

// CallsKept is the share of the prefix's tool calls kept (a kept call's
// arguments are always verbatim: masking rewrites results only).
const CallsKept = "calls_kept"

// MaskRow is one configuration the masking evaluation compares:
// chitta.Compact with default options, the dataset's query, and Mask
// (nil: no masking). RelevanceReserve and Lexical set the options of the
// same names (0: off; the relevance-reserve preset is 0.5 and 0.3). A
// MaskRow is a plain value.
type MaskRow struct {
	Name                      string
	Mask                      *chitta.MaskOptions
	RelevanceReserve, Lexical float64
}

// maskOutcome is what one row kept: per input message, whether it was
// kept and the text it was returned with (its Content, masked or not).
type maskOutcome struct {
	kept  []bool
	texts []string
	res   *chitta.Result
}

// compactRow compacts msgs with row's options and the shared environment;
// maxTokens > 0 replaces the ratio. Every masked output is checked with
// chitta.Validate whenever the same survivors unmasked pass it.
func (e *Evaluator) compactRow(ctx context.Context, row MaskRow, msgs []chitta.Message, query string, ratio float64, maxTokens int) (maskOutcome, float64, error) {
	opts := &chitta.Options{Query: query, TargetRatio: ratio, MaxTokens: maxTokens, Embedder: e.Env.Embedder, Tokens: e.Env.Tokens, Mask: row.Mask,
		RelevanceReserve: row.RelevanceReserve, Lexical: row.Lexical}
	start := time.Now()
	res, err := chitta.Compact(ctx, msgs, opts)
	ms := float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		return maskOutcome{}, 0, fmt.Errorf("%s: compact: %w", row.Name, err)
	}
	out := maskOutcome{kept: make([]bool, len(msgs)), texts: make([]string, len(msgs)), res: res}
	survivors := make([]chitta.Message, len(res.Kept))
	for k, i := range res.Kept {
		out.kept[i] = true
		out.texts[i] = res.Messages[k].Content
		survivors[k] = msgs[i]
	}
	if row.Mask != nil && chitta.Validate(survivors) == nil {
		if err := chitta.Validate(res.Messages); err != nil {
			return maskOutcome{}, 0, fmt.Errorf("%s: masked output invalid: %w", row.Name, err)
		}
	}
	return out, ms, nil
}

// interleave returns rows rotated by k, so that over the cuts every row
// runs first equally often and machine noise falls on all rows alike
// (ms_per_compaction compares them).
func interleave(rows []MaskRow, k int) []MaskRow {
	k %= max(len(rows), 1)
	return append(slices.Clone(rows[k:]), rows[:k]...)
}

// addCallsKept adds the share of the tool calls of msgs (non-pinned
// messages issuing them) that out kept.
func addCallsKept(t *Tally, msgs []chitta.Message, out maskOutcome) {
	calls, kept := 0, 0
	for i, m := range msgs {
		if m.Role.Pinned() {
			continue
		}
		calls += len(m.ToolCallIDs)
		if out.kept[i] {
			kept += len(m.ToolCallIDs)
		}
	}
	if calls > 0 {
		t.Add(CallsKept, float64(kept), float64(calls))
	}
}

// returnedMention reports whether v occurs verbatim in the text a kept
// message was returned with.
func returnedMention(out maskOutcome, v string) bool {
	for i, k := range out.kept {
		if k && strings.Contains(out.texts[i], v) {
			return true
		}
	}
	return false
}

// tallyCall compacts one cut before a tool call with row and tallies its
// time, pair integrity, calls kept and, when the call has argument values,
// how many of them the returned messages still mention.
func (e *Evaluator) tallyCall(ctx context.Context, dataset string, row MaskRow, msgs []chitta.Message, query string, values []string, ratio float64, maxTokens int) error {
	t := e.Results.Tally(dataset, row.Name, ratio, 0)
	out, ms, err := e.compactRow(ctx, row, msgs, query, ratio, maxTokens)
	if err != nil {
		return fmt.Errorf("%s: %w", dataset, err)
	}
	t.Add(MsPerCompaction, ms, 1)
	addPairs(t, msgs, out.kept)
	addCallsKept(t, msgs, out)
	if len(values) == 0 {
		return nil
	}
	found := 0
	for _, v := range values {
		if returnedMention(out, v) {
			found++
		}
	}
	t.Add(ArgumentRecall, float64(found), float64(len(values)))
	return nil
}

// MaskTau evaluates rows on every gold action of every run, as [Evaluator.Tau]
// does, in both budget modes ([MaskTau], [MaskTauNonSystem]). Per cut it
// adds calls_kept, argument_recall (the action's argument values found
// verbatim in the text of a kept message as returned, so a value only in a
// masked result counts as lost), pair_integrity and ms_per_compaction.
func (e *Evaluator) MaskTau(ctx context.Context, runs []Run, rows []MaskRow) error {
	if err := e.check(); err != nil {
		return err
	}
	type cutCase struct {
		msgs        []chitta.Message
		query       string
		values      []string
		sys, nonsys int
	}
	var cases []cutCase
	nValues := 0
	for _, r := range runs {
		cuts, _ := r.Cuts()
		for _, c := range cuts {
			prefix := r.Messages[:c.Index]
			cc := cutCase{msgs: prefix, query: lastUser(prefix)}
			for _, v := range ArgumentValues(c.Action.Args) {
				if !mentionedBy(prefix, v, true) && mentionedBy(prefix, v, false) {
					cc.values = append(cc.values, v)
				}
			}
			nValues += len(cc.values)
			for _, m := range prefix {
				if m.Role.Pinned() {
					cc.sys += e.tokens(m.Content)
				} else {
					cc.nonsys += e.tokens(m.Content)
				}
			}
			cases = append(cases, cc)
		}
	}
	var texts []string
	for _, c := range cases {
		texts = append(texts, distinct(c.msgs, []string{c.query})...)
	}
	texts = distinct(nil, texts)
	if _, err := e.warm(ctx, texts); err != nil {
		return fmt.Errorf("mask tau: %w", err)
	}
	for _, ratio := range e.Ratios {
		for _, dataset := range []string{MaskTau, MaskTauNonSystem} {
			start := time.Now()
			for k, c := range cases {
				maxTokens := 0
				if dataset == MaskTauNonSystem {
					maxTokens = max(1, c.sys+int(math.Floor(ratio*float64(c.nonsys)*(1+1e-12))))
				}
				for _, row := range interleave(rows, k) {
					if err := e.tallyCall(ctx, dataset, row, c.msgs, c.query, c.values, ratio, maxTokens); err != nil {
						return err
					}
				}
			}
			e.progress("%s ratio %.2f %d rows × %d cuts  %v", dataset, ratio, len(rows), len(cases), time.Since(start).Round(time.Millisecond))
		}
	}
	note := fmt.Sprintf("%d runs, %d cuts (one before each gold action a run issues), %d argument values measured (values in the system prompt or never seen in the prefix left out); argument values count only if still in the text a kept message is returned with", len(runs), len(cases), nValues)
	e.Results.Note(MaskTau, note)
	e.Results.Note(MaskTauNonSystem, note+"; the budget is floor(ratio × non-system tokens) plus the system prompt, kept on top (chitta.Options.MaxTokens)")
	return nil
}

// MaskClaude evaluates rows on the cuts of every session ([Session.Cuts]
// with o), with an empty memory store. Per cut it adds calls_kept,
// needed_recall (a needed prefix turn counts only if a term that made it
// needed is still in the text it is returned with), pair_integrity and
// ms_per_compaction.
func (e *Evaluator) MaskClaude(ctx context.Context, sessions []Session, o *CutOptions, rows []MaskRow) error {
	if err := e.check(); err != nil {
		return err
	}
	type cutCase struct {
		s   Session
		cut ClaudeCut
	}
	var cases []cutCase
	var texts []string
	nNeeded := 0
	for _, s := range sessions {
		var queries []string
		for _, c := range s.Cuts(o) {
			cases = append(cases, cutCase{s, c})
			queries = append(queries, c.Query)
			nNeeded += len(c.Needed)
		}
		texts = append(texts, distinct(s.Messages, queries)...)
	}
	if _, err := e.warm(ctx, distinct(nil, texts)); err != nil {
		return fmt.Errorf("mask claude: %w", err)
	}
	for _, ratio := range e.Ratios {
		start := time.Now()
		for k, c := range cases {
			msgs := c.s.Messages[:c.cut.Index]
			for _, row := range interleave(rows, k) {
				t := e.Results.Tally(MaskClaude, row.Name, ratio, 0)
				out, ms, err := e.compactRow(ctx, row, msgs, c.cut.Query, ratio, 0)
				if err != nil {
					return fmt.Errorf("mask claude %s: %w", c.s.ID, err)
				}
				t.Add(MsPerCompaction, ms, 1)
				addPairs(t, msgs, out.kept)
				addCallsKept(t, msgs, out)
				kept := 0
				for _, i := range c.cut.Needed {
					if out.kept[i] && mentionsAny(out.texts[i], msgs[i].Content, c.cut.Terms) {
						kept++
					}
				}
				t.Add(NeededRecall, float64(kept), float64(len(c.cut.Needed)))
			}
		}
		e.progress("%s ratio %.2f %d rows × %d cuts  %v", MaskClaude, ratio, len(rows), len(cases), time.Since(start).Round(time.Millisecond))
	}
	e.Results.Note(MaskClaude, fmt.Sprintf("%d sessions, %d cuts, %d needed turns; no memory store; a needed turn counts as kept only if a term that made it needed is still in the text it is returned with", len(sessions), len(cases), nNeeded))
	return nil
}

// mentionsAny reports whether returned holds one of the terms that
// original holds.
func mentionsAny(returned, original string, terms []string) bool {
	for _, t := range terms {
		if strings.Contains(original, t) && strings.Contains(returned, t) {
			return true
		}
	}
	return false
}

// MaskNextCalls evaluates rows on trajectories without gold labels
// (SWE-agent): before every message that issues tool calls, the prefix is
// compacted with the last user message as query, and argument_recall is
// the share of the next calls' argument values (those present in a
// non-pinned prefix message and not in the system prompt) found in the
// text of a kept message as returned. It also adds calls_kept,
// pair_integrity and ms_per_compaction, under dataset.
func (e *Evaluator) MaskNextCalls(ctx context.Context, dataset string, runs []Run, rows []MaskRow) error {
	if err := e.check(); err != nil {
		return err
	}
	type cutCase struct {
		msgs   []chitta.Message
		query  string
		values []string
	}
	var cases []cutCase
	var texts []string
	for _, r := range runs {
		for i, calls := range r.Calls {
			if len(calls) == 0 || i == 0 {
				continue
			}
			prefix := r.Messages[:i]
			cc := cutCase{msgs: prefix, query: lastUser(prefix)}
			for _, c := range calls {
				for _, v := range ArgumentValues(c.Args) {
					if !mentionedBy(prefix, v, true) && mentionedBy(prefix, v, false) {
						cc.values = append(cc.values, v)
					}
				}
			}
			cases = append(cases, cc)
			texts = append(texts, distinct(prefix, []string{cc.query})...)
		}
	}
	if _, err := e.warm(ctx, distinct(nil, texts)); err != nil {
		return fmt.Errorf("%s: %w", dataset, err)
	}
	nValues := 0
	for _, c := range cases {
		nValues += len(c.values)
	}
	for _, ratio := range e.Ratios {
		for k, c := range cases {
			for _, row := range interleave(rows, k) {
				if err := e.tallyCall(ctx, dataset, row, c.msgs, c.query, c.values, ratio, 0); err != nil {
					return err
				}
			}
		}
	}
	e.Results.Note(dataset, fmt.Sprintf("%d trajectories, %d cuts (one before each message issuing tool calls), %d argument values of the next calls measured", len(runs), len(cases), nValues))
	return nil
}

// LoadSWEHistory reads one SWE-agent trajectory file ({history:
// [messages]}, OpenAI-format messages whose tool results link back
// through tool_call_ids) as a [Run] without gold actions, through
// [LoadTau]'s reader. Errors wrap [ErrInvalidData].
func LoadSWEHistory(name string, r io.Reader) (Run, error) {
	var f struct {
		History json.RawMessage `json:"history"`
	}
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		return Run{}, fmt.Errorf("%w: swe %s: %v", ErrInvalidData, name, err)
	}
	if len(f.History) == 0 || f.History[0] != '[' {
		return Run{}, fmt.Errorf("%w: swe %s: history: want an array of messages", ErrInvalidData, name)
	}
	traj, err := json.Marshal(struct {
		Traj json.RawMessage `json:"traj"`
	}{f.History})
	if err != nil {
		return Run{}, fmt.Errorf("%w: swe %s: %v", ErrInvalidData, name, err)
	}
	return LoadTau(name, bytes.NewReader(traj))
}
