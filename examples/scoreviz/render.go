package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/chitta-go/chitta"
)

// chart is everything the picture shows.
type chart struct {
	Source    string  // input name for the header
	Query     string  // Options.Query
	Budget    string  // "keep 40%" or "max 1200 tokens"
	Facts     int     // memories loaded with -memory
	Threshold float64 // coverage at which a dropped turn counts as covered
	Msgs      []chitta.Message
	Res       *chitta.Result
}

// status classifies one turn for drawing.
type status int

const (
	stKept status = iota
	stPinned
	stSystem
	stDropped
	stCovered
)

func (c *chart) status(s chitta.TurnScore) status {
	switch {
	case s.Role.Pinned():
		return stSystem
	case s.Kept && s.Pinned:
		return stPinned
	case s.Kept:
		return stKept
	case s.Coverage >= c.Threshold:
		return stCovered
	}
	return stDropped
}

var statusText = [...]string{
	stKept:    "kept",
	stPinned:  "kept (pinned: live turn, first user turn or KeepLast)",
	stSystem:  "kept (system, always)",
	stDropped: "dropped",
	stCovered: "dropped · covered by memory",
}

var statusClass = [...]string{
	stKept:    "kept",
	stPinned:  "kept pinned",
	stSystem:  "system",
	stDropped: "dropped",
	stCovered: "dropped covered",
}

// esc writes s as XML character data, safe in element text and in quoted
// attribute values of both SVG and HTML. Characters XML cannot carry are
// replaced by U+FFFD.
func esc(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s)) // writes to a bytes.Buffer never fail
	return b.String()
}

// preview returns s with runs of white space collapsed, cut to max runes.
func preview(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max]) + "…"
}

func f2(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
func f3(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
func px(x float64) string { return strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64) }

// tooltip is the hover text of one turn: role, tokens, status and the score
// breakdown.
func (c *chart) tooltip(s chitta.TurnScore) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s · %d tokens · %s", s.Index, s.Role, s.Tokens, statusText[c.status(s)])
	if !s.Role.Pinned() {
		fmt.Fprintf(&b, "\nscore %s = %s × (0.3×%s + 0.4×%s + 0.3×(1 − %s))",
			f3(s.Score), f2(s.Structural), f3(s.Recency), f3(s.Semantic), f3(s.Coverage))
		fmt.Fprintf(&b, "\nrecency %s · semantic %s · coverage %s · structural %s",
			f3(s.Recency), f3(s.Semantic), f3(s.Coverage), f2(s.Structural))
		if s.Unit != s.Index {
			fmt.Fprintf(&b, "\ntool-call group of turn #%d", s.Unit)
		}
	}
	if p := preview(c.Msgs[s.Index].Content, 240); p != "" {
		b.WriteString("\n\n" + p)
	}
	return b.String()
}

// Palette.
const (
	colKept     = "#1f9d55"
	colKeptDark = "#13663a"
	colDropped  = "#aab4bf"
	colCovered  = "#7c3aed"
	colSystem   = "#3b6fd8"
	colSystemBg = "#d5e1f7"
	colGrid     = "#e5e7eb"
	colText     = "#1f2937"
	colMuted    = "#6b7280"
	fontFamily  = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"
)

var roleColor = map[chitta.Role]string{
	chitta.RoleSystem:    colSystem,
	chitta.RoleDeveloper: colSystem,
	chitta.RoleUser:      colText,
	chitta.RoleAssistant: "#2563eb",
	chitta.RoleTool:      colMuted,
}

func roleLetter(s chitta.TurnScore, m chitta.Message) string {
	if m.Role == chitta.RoleUser && len(m.ToolResultIDs) > 0 {
		return "T" // an Anthropic-style tool result
	}
	if s.Role == "" {
		return "?"
	}
	r, _ := utf8.DecodeRuneInString(string(s.Role))
	return strings.ToUpper(string(r))
}

// writeSVG draws the chart. With header it carries its own title and totals
// (the standalone .svg); without, the HTML page shows them.
func writeSVG(w io.Writer, c *chart, header bool) {
	scores := c.Res.Scores
	n := len(scores)
	const (
		padL, padR = 56.0, 24.0
		plotH      = 300.0
		minStep    = 5.0
	)
	width := math.Max(1152, padL+padR+float64(n)*minStep)
	plotW := width - padL - padR
	headH := 0.0
	if header {
		headH = 86
	}
	top := headH + 22
	base := top + plotH
	height := base + 90

	// The axis ends at the first quarter above the best score, so that low
	// scoring passes still fill the plot; the labels keep it honest.
	yMax := 0.25
	for _, s := range scores {
		for s.Score > yMax {
			yMax += 0.25
		}
	}
	step := plotW
	if n > 0 {
		step = plotW / float64(n)
	}
	barW := math.Max(1, math.Min(step*0.74, 48))
	center := func(i int) float64 { return padL + (float64(i)+0.5)*step }
	yOf := func(v float64) float64 { return base - v/yMax*plotH }

	st := c.Res.Stats
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="%s" role="img" aria-label="chitta scoring pass"`,
		px(width), px(height), px(width), px(height), esc(fontFamily))
	fmt.Fprintf(w, ` data-turns="%d" data-before-tokens="%d" data-after-tokens="%d" data-dropped="%d" data-kept="%d">`+"\n",
		n, st.BeforeTokens, st.AfterTokens, st.Dropped, st.Kept)
	fmt.Fprintf(w, `<title>%s</title>`+"\n", esc("chitta scoring pass: "+c.Source))
	fmt.Fprintf(w, `<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">`+
		`<rect width="6" height="6" fill="#ede9fe"/><rect width="2.5" height="6" fill="%s"/></pattern></defs>`+"\n", colCovered)
	fmt.Fprintf(w, `<rect width="100%%" height="100%%" fill="#ffffff"/>`+"\n")

	if header {
		fmt.Fprintf(w, `<text x="%s" y="30" font-size="20" font-weight="700" fill="%s">chitta scoring pass <tspan font-weight="400" fill="%s">%s</tspan></text>`+"\n",
			px(padL), colText, colMuted, esc("· "+c.Source))
		fmt.Fprintf(w, `<text x="%s" y="54" font-size="13" fill="%s">%s</text>`+"\n", px(padL), colMuted, esc(c.subtitle()))
		fmt.Fprintf(w, `<text x="%s" y="76" font-size="14" fill="%s">`, px(padL), colText)
		fmt.Fprintf(w, `<tspan font-weight="700" id="stat-before">%d</tspan> tokens before → <tspan font-weight="700" id="stat-after">%d</tspan> after · <tspan font-weight="700" id="stat-dropped">%d</tspan> of %d turns dropped (%s%% of tokens) · <tspan font-weight="700" id="stat-covered">%s%%</tspan> of dropped tokens covered by memory</text>`+"\n",
			st.BeforeTokens, st.AfterTokens, st.Dropped, n, strconv.FormatFloat(st.DroppedPct, 'f', 1, 64), strconv.FormatFloat(st.CoveredDroppedPct, 'f', 0, 64))
	}

	// Grid and y axis.
	fmt.Fprintf(w, `<g class="axis" font-size="11" fill="%s">`+"\n", colMuted)
	for v := 0.0; v <= yMax+1e-9; v += 0.25 {
		y := yOf(v)
		fmt.Fprintf(w, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"/>`, px(padL), px(y), px(width-padR), px(y), colGrid)
		fmt.Fprintf(w, `<text x="%s" y="%s" text-anchor="end">%s</text>`+"\n", px(padL-8), px(y+4), f2(v))
	}
	fmt.Fprintf(w, `<text transform="translate(16 %s) rotate(-90)" text-anchor="middle" font-size="12">score</text>`+"\n", px(top+plotH/2))
	fmt.Fprintf(w, `<text x="%s" y="%s" text-anchor="end">S system · U user · A assistant · T tool — hover a bar for its score breakdown</text>`+"\n", px(width-padR), px(top-9))
	fmt.Fprintf(w, "</g>\n")

	// Bars.
	fmt.Fprintf(w, `<g class="bars">`+"\n")
	for _, s := range scores {
		stt := c.status(s)
		x := center(s.Index) - barW/2
		v := s.Score
		if stt == stSystem {
			v = yMax
		}
		h := math.Max(1.5, v/yMax*plotH)
		fmt.Fprintf(w, `<g class="turn %s" data-index="%d" data-role="%s" data-tokens="%d" data-score="%s" data-kept="%t" data-covered="%t" data-pinned="%t">`,
			statusClass[stt], s.Index, esc(string(s.Role)), s.Tokens, f3(s.Score), s.Kept, stt == stCovered, s.Pinned)
		fmt.Fprintf(w, `<title>%s</title>`, esc(c.tooltip(s)))
		var fill, extra string
		switch stt {
		case stKept, stPinned:
			fill = colKept
		case stSystem:
			fill, extra = colSystemBg, ` stroke="`+colSystem+`" stroke-width="1"`
		case stDropped:
			fill, extra = colDropped, ` fill-opacity="0.55"`
		case stCovered:
			fill, extra = "url(#hatch)", ` stroke="`+colCovered+`" stroke-width="1"`
		}
		fmt.Fprintf(w, `<rect class="bar" x="%s" y="%s" width="%s" height="%s" rx="1.5" fill="%s"%s/>`, px(x), px(base-h), px(barW), px(h), fill, extra)
		if stt == stPinned { // a dark cap marks a pinned turn
			fmt.Fprintf(w, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"/>`, px(x), px(base-h), px(barW), px(math.Min(4, h)), colKeptDark)
		}
		fmt.Fprintf(w, "</g>\n")
	}
	fmt.Fprintf(w, "</g>\n")
	fmt.Fprintf(w, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"/>`+"\n", px(padL), px(base), px(width-padR), px(base), colMuted)

	// Role letters, tool-call groups and turn numbers under the axis.
	if step >= 9 {
		fmt.Fprintf(w, `<g class="roles" font-size="10" font-weight="600" text-anchor="middle">`)
		for _, s := range scores {
			col := roleColor[s.Role]
			if col == "" {
				col = colText
			}
			fmt.Fprintf(w, `<text x="%s" y="%s" fill="%s">%s</text>`, px(center(s.Index)), px(base+14), col, esc(roleLetter(s, c.Msgs[s.Index])))
		}
		fmt.Fprintf(w, "</g>\n")
	}
	fmt.Fprintf(w, `<g class="groups" stroke-width="2" fill="none">`)
	for _, g := range groups(scores) {
		col := colDropped
		if scores[g[0]].Kept {
			col = colKept
		}
		y := base + 24
		fmt.Fprintf(w, `<path d="M%s %sH%s" stroke="%s"/>`, px(center(g[0])), px(y), px(center(g[len(g)-1])), col)
		for _, i := range g {
			fmt.Fprintf(w, `<path d="M%s %sv-5" stroke="%s"/>`, px(center(i)), px(y), col)
		}
	}
	fmt.Fprintf(w, "</g>\n")
	every := labelEvery(step)
	fmt.Fprintf(w, `<g class="index" font-size="10" fill="%s" text-anchor="middle">`, colMuted)
	for i := 0; i < n; i += every {
		fmt.Fprintf(w, `<text x="%s" y="%s">%d</text>`, px(center(i)), px(base+42), i)
	}
	fmt.Fprintf(w, `<text x="%s" y="%s" text-anchor="end">turn</text>`, px(padL-8), px(base+42))
	fmt.Fprintf(w, "</g>\n")

	writeLegend(w, c, padL, base+76)
	fmt.Fprintf(w, "</svg>\n")
}

func writeLegend(w io.Writer, c *chart, x, y float64) {
	type item struct{ swatch, label string }
	sw := func(fill, extra string) string {
		return `<rect y="-11" width="14" height="14" rx="2" fill="` + fill + `"` + extra + `/>`
	}
	items := []item{{sw(colKept, ""), "kept"}}
	for _, s := range c.Res.Scores {
		if c.status(s) == stPinned {
			items = append(items, item{sw(colKept, "") + `<rect y="-11" width="14" height="4" fill="` + colKeptDark + `"/>`, "pinned (live turn, first user turn, KeepLast)"})
			break
		}
	}
	items = append(items, []item{
		{sw(colDropped, ` fill-opacity="0.55"`), "dropped"},
		{sw("url(#hatch)", ` stroke="`+colCovered+`"`), "dropped, covered by memory (coverage ≥ " + f2(c.Threshold) + ")"},
		{sw(colSystemBg, ` stroke="`+colSystem+`"`), "system, always kept"},
		{`<path d="M0 -2H14M1 -2v-5M13 -2v-5" stroke="` + colKept + `" stroke-width="2" fill="none"/>`, "tool call + its results"},
	}...)
	fmt.Fprintf(w, `<g class="legend" font-size="12" fill="%s">`, colText)
	for _, it := range items {
		fmt.Fprintf(w, `<g transform="translate(%s %s)">%s<text x="20">%s</text></g>`, px(x), px(y), it.swatch, esc(it.label))
		x += 40 + float64(utf8.RuneCountInString(it.label))*6.9
	}
	fmt.Fprintf(w, "</g>\n")
}

// groups returns the tool-call groups with more than one member, each
// ascending, in order of their first member.
func groups(scores []chitta.TurnScore) [][]int {
	byUnit := map[int][]int{}
	var order []int
	for _, s := range scores {
		if s.Role.Pinned() {
			continue
		}
		if _, ok := byUnit[s.Unit]; !ok {
			order = append(order, s.Unit)
		}
		byUnit[s.Unit] = append(byUnit[s.Unit], s.Index)
	}
	var out [][]int
	for _, u := range order {
		if g := byUnit[u]; len(g) > 1 {
			out = append(out, g)
		}
	}
	return out
}

// labelEvery returns how many turns apart the turn numbers are printed so
// that they stay about 28 px apart.
func labelEvery(step float64) int {
	for _, k := range []int{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000} {
		if float64(k)*step >= 28 {
			return k
		}
	}
	return 1000
}

func (c *chart) subtitle() string {
	parts := []string{}
	if c.Query != "" {
		parts = append(parts, "query “"+preview(c.Query, 120)+"”")
	} else {
		parts = append(parts, "no query (neutral semantic score)")
	}
	parts = append(parts, c.Budget, "budget "+strconv.Itoa(c.Res.Stats.TargetTokens)+" tokens")
	if c.Facts > 0 {
		parts = append(parts, strconv.Itoa(c.Facts)+" memories")
	} else {
		parts = append(parts, "no memory")
	}
	return strings.Join(parts, " · ")
}

const pageCSS = `
body{margin:0;background:#f6f7f9;color:#1f2937;font-family:system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif}
main{max-width:1152px;margin:0 auto;padding:20px 24px 40px}
*{box-sizing:border-box}
h1{font-size:22px;margin:0 0 4px}
h1 span{font-weight:400;color:#6b7280}
p.sub{margin:0 0 14px;color:#6b7280;font-size:14px}
.stats{display:flex;gap:12px;margin-bottom:14px}
.stat{flex:1;background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:10px 14px}
.stat b{display:block;font-size:24px}
.stat small{color:#6b7280;font-size:12px}
.chart{background:#fff;border:1px solid #e5e7eb;border-radius:8px;overflow-x:auto}
.chart svg{display:block;width:100%;height:auto;min-width:800px}
h2{font-size:16px;margin:28px 0 8px}
table{border-collapse:collapse;width:100%;background:#fff;font-size:12px}
th,td{border-bottom:1px solid #eef0f2;padding:4px 8px;text-align:right;vertical-align:top}
th{background:#f9fafb;position:sticky;top:0}
td.t,th.t{text-align:left}
td.c{text-align:left;color:#374151;max-width:520px}
tr.dropped td{color:#9ca3af}
tr.covered td.s{color:#7c3aed}
tr.kept td.s{color:#1f9d55;font-weight:600}
tr.system td.s{color:#3b6fd8;font-weight:600}
`

// writeHTML writes a self-contained page: header with totals, the chart and
// a table of every turn. The page is well-formed XML as well as HTML.
func writeHTML(w io.Writer, c *chart) {
	st := c.Res.Stats
	n := len(c.Res.Scores)
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>\n<title>%s</title>\n<style>%s</style></head>\n<body><main>\n",
		esc("chitta scoring pass · "+c.Source), pageCSS)
	fmt.Fprintf(w, "<h1>chitta scoring pass <span>· %s</span></h1>\n", esc(c.Source))
	fmt.Fprintf(w, "<p class=\"sub\">%s</p>\n", esc(c.subtitle()))
	fmt.Fprintf(w, "<div class=\"stats\">\n")
	stat := func(id, value, label string) {
		fmt.Fprintf(w, "<div class=\"stat\"><b id=\"%s\">%s</b><small>%s</small></div>\n", id, esc(value), esc(label))
	}
	stat("stat-before", strconv.Itoa(st.BeforeTokens), "tokens before")
	stat("stat-after", strconv.Itoa(st.AfterTokens), "tokens after (budget "+strconv.Itoa(st.TargetTokens)+")")
	stat("stat-dropped", strconv.Itoa(st.Dropped), "of "+strconv.Itoa(n)+" turns dropped · "+strconv.FormatFloat(st.DroppedPct, 'f', 1, 64)+"% of tokens")
	stat("stat-covered", strconv.FormatFloat(st.CoveredDroppedPct, 'f', 0, 64)+"%", "of dropped tokens covered by memory")
	fmt.Fprintf(w, "</div>\n<div class=\"chart\">\n")
	writeSVG(w, c, false)
	fmt.Fprintf(w, "</div>\n<h2>Turns</h2>\n<table>\n<thead><tr><th>#</th><th class=\"t\">role</th><th>tokens</th><th>score</th><th>recency</th><th>semantic</th><th>coverage</th><th>weight</th><th class=\"t\">status</th><th class=\"t\">content</th></tr></thead>\n<tbody>\n")
	for _, s := range c.Res.Scores {
		stt := c.status(s)
		fmt.Fprintf(w, "<tr class=\"%s\"><td>%d</td><td class=\"t\">%s</td><td>%d</td>", statusClass[stt], s.Index, esc(string(s.Role)), s.Tokens)
		if stt == stSystem {
			fmt.Fprintf(w, "<td>–</td><td>–</td><td>–</td><td>–</td><td>–</td>")
		} else {
			fmt.Fprintf(w, "<td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>", f3(s.Score), f3(s.Recency), f3(s.Semantic), f3(s.Coverage), f2(s.Structural))
		}
		fmt.Fprintf(w, "<td class=\"t s\">%s</td><td class=\"c\">%s</td></tr>\n", esc(statusText[stt]), esc(preview(c.Msgs[s.Index].Content, 160)))
	}
	fmt.Fprintf(w, "</tbody></table>\n</main></body></html>\n")
}
