package retention

import (
	"cmp"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"slices"
	"strconv"
	"strings"
)

// WriteJSON writes {"rows": rows} as indented JSON.
func WriteJSON(w io.Writer, rows []Row) error {
	if rows == nil {
		rows = []Row{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(struct {
		Rows []Row `json:"rows"`
	}{rows}); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}

// table is the figures of one (dataset, category, metric): value by
// method and ratio.
type table struct {
	dataset  string
	category int
	metric   string
	methods  []string
	ratios   []float64
	values   map[string]map[float64]Row
}

// tables groups rows into one table per (dataset, category, metric), in
// row order.
func tables(rows []Row) []*table {
	var out []*table
	index := map[string]*table{}
	for _, r := range rows {
		key := fmt.Sprintf("%s/%d/%s", r.Dataset, r.Category, r.Metric)
		t, ok := index[key]
		if !ok {
			t = &table{dataset: r.Dataset, category: r.Category, metric: r.Metric, values: map[string]map[float64]Row{}}
			index[key] = t
			out = append(out, t)
		}
		if !slices.Contains(t.methods, r.Method) {
			t.methods = append(t.methods, r.Method)
			t.values[r.Method] = map[float64]Row{}
		}
		if !slices.Contains(t.ratios, r.Ratio) {
			t.ratios = append(t.ratios, r.Ratio)
		}
		t.values[r.Method][r.Ratio] = r
	}
	for _, t := range out {
		slices.Sort(t.ratios)
	}
	slices.SortStableFunc(out, func(a, b *table) int {
		return cmp.Or(
			cmp.Compare(slices.Index(datasetOrder, a.dataset), slices.Index(datasetOrder, b.dataset)),
			cmp.Compare(categoryRank(a.category), categoryRank(b.category)),
			cmp.Compare(slices.Index(metricOrder, a.metric), slices.Index(metricOrder, b.metric)),
		)
	})
	return out
}

// categoryRank orders pooled rows first, then category 5, then 1–4.
func categoryRank(c int) int {
	switch c {
	case 0:
		return 0
	case 5:
		return 1
	}
	return 1 + c
}

var metricTitles = map[string]string{
	UncoveredRecall:     "uncovered_recall — evidence turns no observation cites, kept (headline)",
	EvidenceRecall:      "evidence_recall — evidence turns kept",
	KeptOrCoveredRecall: "kept_or_covered_recall — evidence turns kept or cited by an observation",
	CoveredTokenShare:   "covered_token_share — share of kept tokens spent on turns an observation cites (lower is better)",
	AllEvidenceKept:     "all_evidence_kept — questions with every evidence turn kept",
	ArgumentRecall:      "argument_recall — gold action argument values present in kept turns",
	NeededRecall:        "needed_recall — needed prefix turns kept",
	EditContextRecall:   "edit_context_recall — the edited file and its touched lines, viewed earlier, still shown by a kept turn",
	PairIntegrity:       "pair_integrity — touched tool-call pairs kept whole (must be 1)",
	MsPerCompaction:     "ms_per_compaction — wall time per compaction, milliseconds",
	CallsKept:           "calls_kept — share of the prefix's tool calls kept, arguments verbatim",
}

var datasetTitles = map[string]string{
	LoCoMo:       "LoCoMo",
	LoCoMoBlind:  "LoCoMo, blind (compacted at session boundaries, questions unknown)",
	Tau:          "tau-bench (system prompt inside the ratio, the protocol's mode)",
	TauNonSystem: "tau-bench (budget = ratio × non-system tokens, system prompt kept on top)",
	Claude:       "Claude Code transcripts",
	SWE:          "SWE-agent trajectories",
}

// MarkdownOptions adds context to [WriteMarkdown]. The zero value writes
// the tables alone.
type MarkdownOptions struct {
	Header []string            // lines written under the title
	Notes  map[string][]string // per-dataset remarks, from Results.Notes
	// Detail, when false, limits LoCoMo's per-category tables (1–4) to
	// uncovered_recall and evidence_recall.
	Detail bool
}

// WriteMarkdown writes one table per dataset, category and metric: a row
// per method, a column per ratio, each cell the value to three decimals
// (milliseconds to two).
func WriteMarkdown(w io.Writer, rows []Row, o *MarkdownOptions) error {
	if o == nil {
		o = &MarkdownOptions{}
	}
	var b strings.Builder
	b.WriteString("# Retention report\n\n")
	for _, h := range o.Header {
		b.WriteString(h + "\n")
	}
	if len(o.Header) > 0 {
		b.WriteString("\n")
	}
	dataset, category := "", -1
	for _, t := range tables(rows) {
		if t.dataset != dataset {
			dataset, category = t.dataset, -1
			fmt.Fprintf(&b, "## %s\n\n", cmp.Or(datasetTitles[t.dataset], t.dataset))
			for _, n := range o.Notes[t.dataset] {
				fmt.Fprintf(&b, "- %s\n", n)
			}
			if len(o.Notes[t.dataset]) > 0 {
				b.WriteString("\n")
			}
		}
		if t.category != category {
			category = t.category
			switch {
			case (t.dataset == LoCoMo || t.dataset == LoCoMoBlind) && category == 0:
				b.WriteString("### Categories 1–4 (answerable questions)\n\n")
			case category == 5:
				b.WriteString("### Category 5 (adversarial questions)\n\n")
			case category > 0:
				fmt.Fprintf(&b, "### Category %d only\n\n", category)
			}
		}
		if (t.dataset == LoCoMo || t.dataset == LoCoMoBlind) && category >= 1 && category <= 4 && !o.Detail &&
			t.metric != UncoveredRecall && t.metric != EvidenceRecall {
			continue
		}
		fmt.Fprintf(&b, "**%s**\n\n| method |", cmp.Or(metricTitles[t.metric], t.metric))
		for _, r := range t.ratios {
			fmt.Fprintf(&b, " %s |", strconv.FormatFloat(r, 'f', -1, 64))
		}
		b.WriteString("\n|---|")
		for range t.ratios {
			b.WriteString("---:|")
		}
		b.WriteString("\n")
		for _, m := range t.methods {
			fmt.Fprintf(&b, "| %s |", m)
			for _, ratio := range t.ratios {
				r, ok := t.values[m][ratio]
				switch {
				case !ok:
					b.WriteString(" – |")
				case t.metric == MsPerCompaction:
					fmt.Fprintf(&b, " %.2f |", r.Value)
				default:
					fmt.Fprintf(&b, " %.3f |", r.Value)
				}
			}
			b.WriteString("\n")
		}
		if n := sampleSize(t); n != "" {
			fmt.Fprintf(&b, "\n<sub>n = %s</sub>\n", n)
		}
		b.WriteString("\n")
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write markdown: %w", err)
	}
	return nil
}

// sampleSize describes the N of a table's first method (the same for every
// method of a deterministic cell).
func sampleSize(t *table) string {
	if len(t.methods) == 0 {
		return ""
	}
	var parts []string
	for _, ratio := range t.ratios {
		if r, ok := t.values[t.methods[0]][ratio]; ok {
			parts = append(parts, strconv.Itoa(r.N))
		}
	}
	if len(parts) == 0 || t.metric == PairIntegrity {
		return ""
	}
	if slices.Equal(parts, slices.Repeat(parts[:1], len(parts))) {
		parts = parts[:1]
	}
	return strings.Join(parts, ", ") + " (" + t.methods[0] + ")"
}

// panel is one chart of the SVG: a metric of a dataset.
type panel struct {
	dataset, metric, title string
}

var panels = []panel{
	{LoCoMo, UncoveredRecall, "LoCoMo: uncovered_recall"},
	{LoCoMoBlind, UncoveredRecall, "LoCoMo blind: uncovered_recall"},
	{Tau, ArgumentRecall, "tau-bench: argument_recall"},
	{TauNonSystem, ArgumentRecall, "tau-bench, system outside the ratio: argument_recall"},
	{Claude, NeededRecall, "Claude Code: needed_recall"},
}

var palette = []string{"#d62728", "#ff7f0e", "#1f77b4", "#7f7f7f", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"}

// WriteSVG writes a self-contained SVG chart: one panel per dataset present
// in rows (LoCoMo uncovered_recall over categories 1–4 in both protocols,
// tau argument_recall in both modes, Claude needed_recall), recall against ratio, one line per method, with
// axes, ticks and a shared legend.
func WriteSVG(w io.Writer, rows []Row) error {
	var ts []*table
	var titles []string
	for _, p := range panels {
		for _, t := range tables(rows) {
			if t.dataset == p.dataset && t.metric == p.metric && t.category == 0 {
				ts = append(ts, t)
				titles = append(titles, p.title)
			}
		}
	}
	var methods []string
	for _, t := range ts {
		for _, m := range t.methods {
			if !slices.Contains(methods, m) {
				methods = append(methods, m)
			}
		}
	}
	const (
		pw, ph       = 300.0, 220.0 // plot area
		left, top    = 56.0, 40.0
		gap          = 72.0
		legendLine   = 18.0
		bottomMargin = 48.0
	)
	width := left + float64(max(len(ts), 1))*(pw+gap) + 10
	legendTop := top + ph + bottomMargin
	height := legendTop + legendLine*float64((len(methods)+2)/3) + 16
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	if len(ts) == 0 {
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f">no data</text>`+"\n", left, top+20)
	}
	for k, t := range ts {
		x0 := left + float64(k)*(pw+gap)
		lo, hi := t.ratios[0], t.ratios[len(t.ratios)-1]
		xOf := func(r float64) float64 {
			if hi == lo {
				return x0 + pw/2
			}
			return x0 + (r-lo)/(hi-lo)*pw
		}
		yOf := func(v float64) float64 { return top + (1-v)*ph }
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-weight="bold">%s</text>`+"\n", x0+pw/2, top-16, html.EscapeString(titles[k]))
		for i := 0; i <= 5; i++ {
			v := float64(i) / 5
			y := yOf(v)
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e5e5e5"/>`+"\n", x0, y, x0+pw, y)
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%.1f</text>`+"\n", x0-6, y+4, v)
		}
		for _, r := range t.ratios {
			x := xOf(r)
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>`+"\n", x, top+ph, x, top+ph+5)
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x, top+ph+18, strconv.FormatFloat(r, 'f', -1, 64))
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>`+"\n", x0, top, x0, top+ph)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>`+"\n", x0, top+ph, x0+pw, top+ph)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">target ratio</text>`+"\n", x0+pw/2, top+ph+36)
		fmt.Fprintf(&b, `<text transform="translate(%.1f %.1f) rotate(-90)" text-anchor="middle">recall</text>`+"\n", x0-40, top+ph/2)
		for _, m := range t.methods {
			color := palette[slices.Index(methods, m)%len(palette)]
			widthPx := 1.5
			if m == "chitta" {
				widthPx = 3
			}
			var pts []string
			for _, r := range t.ratios {
				if row, ok := t.values[m][r]; ok {
					pts = append(pts, fmt.Sprintf("%.1f,%.1f", xOf(r), yOf(row.Value)))
				}
			}
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="%.1f" points="%s"><title>%s</title></polyline>`+"\n", color, widthPx, strings.Join(pts, " "), html.EscapeString(m))
			for _, p := range pts {
				xy := strings.Split(p, ",")
				fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="2.5" fill="%s"/>`+"\n", xy[0], xy[1], color)
			}
		}
	}
	for i, m := range methods {
		x := left + float64(i%3)*220
		y := legendTop + float64(i/3)*legendLine
		color := palette[i%len(palette)]
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="3"/>`+"\n", x, y-4, x+24, y-4, color)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s</text>`+"\n", x+30, y, html.EscapeString(m))
	}
	b.WriteString("</svg>\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write svg: %w", err)
	}
	return nil
}
