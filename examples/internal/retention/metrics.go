package retention

import (
	"github.com/chitta-go/chitta"
)

// Metric names, as they appear in report.json.
const (
	EvidenceRecall      = "evidence_recall"
	KeptOrCoveredRecall = "kept_or_covered_recall"
	UncoveredRecall     = "uncovered_recall"
	CoveredTokenShare   = "covered_token_share"
	AllEvidenceKept     = "all_evidence_kept"
	ArgumentRecall      = "argument_recall"
	PairIntegrity       = "pair_integrity"
	NeededRecall        = "needed_recall"
	EditContextRecall   = "edit_context_recall"
	MsPerCompaction     = "ms_per_compaction"
)

// Dataset names, as they appear in report.json.
const (
	LoCoMo       = "locomo"
	LoCoMoBlind  = "locomo-blind"  // compacted at session boundaries, questions unknown
	Tau          = "tau"           // the protocol: system prompt inside the ratio
	TauNonSystem = "tau-nonsystem" // budget = ratio × non-system tokens, system kept on top
	Claude       = "claude"
	SWE          = "swe"
)

// Frac is a ratio accumulated over many observations: the value is
// Num/Den. The zero value is an empty fraction.
type Frac struct {
	Num, Den float64
	N        int // number of observations (questions, cuts, compactions)
}

// Add adds num/den as one observation.
func (f *Frac) Add(num, den float64) {
	f.Num += num
	f.Den += den
	f.N++
}

// Value returns Num/Den, or empty when Den is 0.
func (f Frac) Value(empty float64) float64 {
	if f.Den == 0 {
		return empty
	}
	return f.Num / f.Den
}

// Tally holds the fractions of one (dataset, method, ratio, category)
// cell, by metric name. The zero value is ready to use; a Tally is not
// safe for concurrent use.
type Tally struct {
	m map[string]*Frac
}

// Add adds num/den to metric.
func (t *Tally) Add(metric string, num, den float64) {
	if t.m == nil {
		t.m = map[string]*Frac{}
	}
	f, ok := t.m[metric]
	if !ok {
		f = &Frac{}
		t.m[metric] = f
	}
	f.Add(num, den)
}

// Get returns the fraction of metric (zero when absent).
func (t *Tally) Get(metric string) Frac {
	if f, ok := t.m[metric]; ok {
		return *f
	}
	return Frac{}
}

// Pairs counts the tool-call pairs of msgs that the selection touches (at
// least one side kept) and keeps intact (both sides kept). A pair is a
// message carrying the result of call ID x and the call it answers: the
// nearest message before it that issues x (real trajectories reuse IDs),
// or the first one when none precedes it. Results whose call is not in
// msgs are ignored.
func Pairs(msgs []chitta.Message, kept []bool) (intact, touched int) {
	callers := map[string][]int{}
	for i, m := range msgs {
		for _, id := range m.ToolCallIDs {
			callers[id] = append(callers[id], i)
		}
	}
	for j, m := range msgs {
		for _, id := range m.ToolResultIDs {
			cs := callers[id]
			if len(cs) == 0 {
				continue
			}
			i := cs[0]
			for _, k := range cs {
				if k < j {
					i = k
				}
			}
			if !kept[i] && !kept[j] {
				continue
			}
			touched++
			if kept[i] && kept[j] {
				intact++
			}
		}
	}
	return intact, touched
}

// addPairs adds a selection's intact and touched pairs to t; the metric's
// value over no touched pair at all is 1 (nothing was broken).
func addPairs(t *Tally, msgs []chitta.Message, kept []bool) {
	intact, touched := Pairs(msgs, kept)
	t.Add(PairIntegrity, float64(intact), float64(touched))
}
