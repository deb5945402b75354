package retention

import (
	"cmp"
	"math"
	"slices"
)

// Row is one figure of the report, as written to report.json. Category is
// set only for LoCoMo rows restricted to one question category (1–5); a
// LoCoMo row without it pools the answerable categories 1–4. N is the
// number of observations behind the figure (evidence turns, argument
// values, needed turns, tool pairs or compactions).
type Row struct {
	Dataset  string  `json:"dataset"`
	Method   string  `json:"method"`
	Ratio    float64 `json:"ratio"`
	Metric   string  `json:"metric"`
	Value    float64 `json:"value"`
	Category int     `json:"category,omitempty"`
	N        int     `json:"n"`
}

// metricOrder is the order of metrics in rows and tables.
var metricOrder = []string{
	UncoveredRecall, EvidenceRecall, KeptOrCoveredRecall, CoveredTokenShare, AllEvidenceKept,
	ArgumentRecall, NeededRecall, EditContextRecall, PairIntegrity, MsPerCompaction,
	CallsKept,
}

var datasetOrder = []string{LoCoMo, LoCoMoBlind, Tau, TauNonSystem, Claude, SWE}

type cellKey struct {
	dataset, method string
	ratio           float64
	category        int
}

// Results collects tallies by dataset, method, ratio and category, and
// notes about the data. The zero value is empty and ready to use; Results
// is not safe for concurrent use.
type Results struct {
	cells   map[cellKey]*Tally
	methods []string // in first-seen order
	// Notes holds remarks about each dataset (counts, skipped items), in
	// the order they were added.
	Notes map[string][]string
}

// Tally returns the tally of one cell, creating it.
func (r *Results) Tally(dataset, method string, ratio float64, category int) *Tally {
	if r.cells == nil {
		r.cells = map[cellKey]*Tally{}
	}
	if !slices.Contains(r.methods, method) {
		r.methods = append(r.methods, method)
	}
	k := cellKey{dataset, method, ratio, category}
	t, ok := r.cells[k]
	if !ok {
		t = &Tally{}
		r.cells[k] = t
	}
	return t
}

// Note records a remark about a dataset.
func (r *Results) Note(dataset, note string) {
	if r.Notes == nil {
		r.Notes = map[string][]string{}
	}
	r.Notes[dataset] = append(r.Notes[dataset], note)
}

// Rows returns every figure in a fixed order: dataset (locomo, tau,
// claude), method (first-seen order), ratio, category, metric. Metrics with
// nothing to measure are left out, except pair_integrity, which is 1 when
// no pair was touched. Values are rounded to 6 decimals. The caller owns
// the slice.
func (r *Results) Rows() []Row {
	keys := make([]cellKey, 0, len(r.cells))
	for k := range r.cells {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b cellKey) int {
		return cmp.Or(
			cmp.Compare(slices.Index(datasetOrder, a.dataset), slices.Index(datasetOrder, b.dataset)),
			cmp.Compare(a.dataset, b.dataset),
			cmp.Compare(slices.Index(r.methods, a.method), slices.Index(r.methods, b.method)),
			cmp.Compare(a.ratio, b.ratio),
			cmp.Compare(a.category, b.category),
		)
	})
	var rows []Row
	for _, k := range keys {
		t := r.cells[k]
		for _, m := range metricOrder {
			f := t.Get(m)
			if f.N == 0 {
				continue
			}
			empty := math.NaN()
			if m == PairIntegrity {
				empty = 1
			}
			v := f.Value(empty)
			if math.IsNaN(v) {
				continue
			}
			n := int(f.Den)
			if m == MsPerCompaction || m == AllEvidenceKept || m == CoveredTokenShare {
				n = f.N
			}
			rows = append(rows, Row{
				Dataset: k.dataset, Method: k.method, Ratio: k.ratio, Metric: m,
				Value: math.Round(v*1e6) / 1e6, Category: k.category, N: n,
			})
		}
	}
	return rows
}
