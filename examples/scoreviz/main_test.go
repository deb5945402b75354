package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chitta-go/chitta"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	sampleConv  = "../sample/coding-session.json"
	sampleFacts = "../sample/facts.txt"
	sampleQuery = "make TestFetchRetry fast and deterministic"
)

// node is a parsed XML element.
type node struct {
	Name     string
	Attr     map[string]string
	Text     string // character data directly inside the element
	Children []*node
}

// parseXML parses doc strictly and returns its root element.
func parseXML(t *testing.T, doc []byte) *node {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	root := &node{Name: "#document"}
	stack := []*node{root}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "output is not well-formed XML")
		top := stack[len(stack)-1]
		switch tk := tok.(type) {
		case xml.StartElement:
			n := &node{Name: tk.Name.Local, Attr: map[string]string{}}
			for _, a := range tk.Attr {
				n.Attr[a.Name.Local] = a.Value
			}
			top.Children = append(top.Children, n)
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			top.Text += string(tk)
		}
	}
	require.Len(t, stack, 1, "unclosed elements")
	require.Len(t, root.Children, 1, "want one root element")
	return root.Children[0]
}

// find returns every element below n (n included) for which ok is true, in
// document order.
func find(n *node, ok func(*node) bool) []*node {
	var out []*node
	if ok(n) {
		out = append(out, n)
	}
	for _, c := range n.Children {
		out = append(out, find(c, ok)...)
	}
	return out
}

func hasClass(n *node, class string) bool {
	return strings.Contains(" "+n.Attr["class"]+" ", " "+class+" ")
}

// text returns all character data inside n.
func text(n *node) string {
	s := n.Text
	for _, c := range n.Children {
		s += text(c)
	}
	return s
}

func byID(t *testing.T, root *node, id string) string {
	t.Helper()
	got := find(root, func(n *node) bool { return n.Attr["id"] == id })
	require.Len(t, got, 1, "element #%s", id)
	return strings.TrimSpace(text(got[0]))
}

// extractSVG returns the one <svg>…</svg> element of an HTML page.
func extractSVG(t *testing.T, page []byte) []byte {
	t.Helper()
	require.Equal(t, 1, bytes.Count(page, []byte("<svg")), "one <svg> element")
	require.Equal(t, 1, bytes.Count(page, []byte("</svg>")), "one </svg> end tag")
	i, j := bytes.Index(page, []byte("<svg")), bytes.Index(page, []byte("</svg>"))
	require.Less(t, i, j)
	return page[i : j+len("</svg>")]
}

// render runs the command with args plus -o <dir>/name and returns the file.
func render(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), name)
	var stderr bytes.Buffer
	err := run(t.Context(), append(args, "-o", out), strings.NewReader(""), io.Discard, &stderr)
	require.NoError(t, err, stderr.String())
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	return data
}

// compactSample computes, independently of the renderer, the Result the
// picture must show.
func compactSample(t *testing.T, ratio float64) ([]chitta.Message, *chitta.Result) {
	t.Helper()
	ctx := t.Context()
	data, err := os.ReadFile(sampleConv)
	require.NoError(t, err)
	msgs, err := chitta.ParseMessages(data)
	require.NoError(t, err)
	emb := newEmbedder()
	store, _, err := loadMemory(ctx, sampleFacts, emb, io.Discard)
	require.NoError(t, err)
	res, err := chitta.Compact(ctx, msgs, &chitta.Options{Query: sampleQuery, TargetRatio: ratio, Embedder: emb, Store: store})
	require.NoError(t, err)
	return msgs, res
}

// checkBars verifies one bar per message, in order, agreeing with res.
func checkBars(t *testing.T, svg *node, res *chitta.Result) {
	t.Helper()
	bars := find(svg, func(n *node) bool { return n.Name == "g" && hasClass(n, "turn") })
	require.Len(t, bars, len(res.Scores), "one bar per message")
	before, after, dropped, covered := 0, 0, 0, 0
	for i, b := range bars {
		s := res.Scores[i]
		assert.Equal(t, strconv.Itoa(i), b.Attr["data-index"])
		assert.Equal(t, string(s.Role), b.Attr["data-role"])
		assert.Equal(t, strconv.FormatBool(s.Kept), b.Attr["data-kept"], "bar %d", i)
		tok, err := strconv.Atoi(b.Attr["data-tokens"])
		require.NoError(t, err)
		assert.Equal(t, s.Tokens, tok)
		score, err := strconv.ParseFloat(b.Attr["data-score"], 64)
		require.NoError(t, err)
		assert.InDelta(t, s.Score, score, 0.0005)
		rects := find(b, func(n *node) bool { return n.Name == "rect" && hasClass(n, "bar") })
		require.Len(t, rects, 1, "bar %d", i)
		titles := find(b, func(n *node) bool { return n.Name == "title" })
		require.Len(t, titles, 1, "bar %d hover text", i)
		assert.Contains(t, titles[0].Text, string(s.Role)+" · "+strconv.Itoa(s.Tokens)+" tokens")
		if !s.Role.Pinned() {
			for _, term := range []string{"recency", "semantic", "coverage", "structural"} {
				assert.Contains(t, titles[0].Text, term)
			}
		}
		before += tok
		if b.Attr["data-kept"] == "true" {
			after += tok
		} else {
			dropped++
		}
		if b.Attr["data-covered"] == "true" {
			covered++
			assert.False(t, s.Kept, "bar %d: only dropped turns are marked covered", i)
			assert.GreaterOrEqual(t, s.Coverage, chitta.DefaultNovelThreshold)
		}
	}
	st := res.Stats
	assert.Equal(t, st.BeforeTokens, before)
	assert.Equal(t, st.AfterTokens, after)
	assert.Equal(t, st.Dropped, dropped)
	assert.Equal(t, strconv.Itoa(st.BeforeTokens), svg.Attr["data-before-tokens"])
	assert.Equal(t, strconv.Itoa(st.AfterTokens), svg.Attr["data-after-tokens"])
	assert.Equal(t, strconv.Itoa(st.Dropped), svg.Attr["data-dropped"])
}

func checkTotals(t *testing.T, root *node, st chitta.Stats) {
	t.Helper()
	assert.Equal(t, strconv.Itoa(st.BeforeTokens), byID(t, root, "stat-before"))
	assert.Equal(t, strconv.Itoa(st.AfterTokens), byID(t, root, "stat-after"))
	assert.Equal(t, strconv.Itoa(st.Dropped), byID(t, root, "stat-dropped"))
	assert.Equal(t, strconv.FormatFloat(st.CoveredDroppedPct, 'f', 0, 64)+"%", byID(t, root, "stat-covered"))
}

func TestSampleSVG(t *testing.T) {
	t.Parallel()
	_, res := compactSample(t, 0.4)
	out := render(t, "pass.svg", "-in", sampleConv, "-memory", sampleFacts, "-query", sampleQuery, "-ratio", "0.4")
	svg := parseXML(t, out)
	require.Equal(t, "svg", svg.Name)
	checkBars(t, svg, res)
	checkTotals(t, svg, res.Stats)
	require.Positive(t, res.Stats.Dropped, "the sample must drop turns for the picture to mean anything")
}

func TestSampleHTML(t *testing.T) {
	t.Parallel()
	msgs, res := compactSample(t, 0.4)
	out := render(t, "pass.html", "-in", sampleConv, "-memory", sampleFacts, "-query", sampleQuery)
	require.True(t, bytes.HasPrefix(out, []byte("<!DOCTYPE html>")))
	page := parseXML(t, out) // the page is well-formed XML too
	require.Equal(t, "html", page.Name)
	checkTotals(t, page, res.Stats)
	checkBars(t, parseXML(t, extractSVG(t, out)), res)
	rows := find(page, func(n *node) bool { return n.Name == "tr" && n.Attr["class"] != "" })
	assert.Len(t, rows, len(msgs), "one table row per message")
	for _, ref := range []string{"<link", "<script", "<img", "src=", "href=", "@import", "url(http", "url(/"} {
		assert.False(t, bytes.Contains(out, []byte(ref)), "self-contained page: found %q", ref)
	}
}

func TestCoveredDropsAreMarked(t *testing.T) {
	t.Parallel()
	fact := "The deploy script pushes the image to registry.internal:5000 and restarts the api pods one by one."
	conv := []map[string]string{
		{"role": "system", "content": "You are a deployment assistant."},
		{"role": "user", "content": "How does the deploy script work?"},
		{"role": "assistant", "content": fact},
		{"role": "user", "content": "Now add a health check to the api service before traffic shifts."},
		{"role": "assistant", "content": "I will add a readiness probe on /healthz with a 5 second period and wire it into the rollout."},
	}
	dir := t.TempDir()
	in, facts := filepath.Join(dir, "conv.json"), filepath.Join(dir, "facts.txt")
	data, err := json.Marshal(conv)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(in, data, 0o644))
	// "..." has nothing to embed: it is skipped with a warning, not fatal.
	require.NoError(t, os.WriteFile(facts, []byte("# known\n\n"+fact+"\n...\n"), 0o644))

	svg := parseXML(t, render(t, "pass.svg", "-in", in, "-memory", facts, "-ratio", "0.5", "-query", "health check"))
	bars := find(svg, func(n *node) bool { return n.Name == "g" && hasClass(n, "turn") })
	require.Len(t, bars, len(conv))
	assert.Equal(t, "false", bars[2].Attr["data-kept"], "the remembered answer is dropped")
	assert.Equal(t, "true", bars[2].Attr["data-covered"], "and marked as covered by memory")
	assert.True(t, hasClass(bars[0], "system"))
	for _, i := range []int{1, 3, 4} {
		assert.Equal(t, "false", bars[i].Attr["data-covered"], "bar %d", i)
	}
	// Without the memory nothing is covered.
	svg = parseXML(t, render(t, "pass.svg", "-in", in, "-ratio", "0.5", "-query", "health check"))
	for _, b := range find(svg, func(n *node) bool { return n.Name == "g" && hasClass(n, "turn") }) {
		assert.Equal(t, "false", b.Attr["data-covered"])
	}
}

const hostile = "</svg><script>alert('x')</script> & <b>\"quoted\"</b> ]]> \x01\x7f <!-- -->"

func hostileConversation(t *testing.T) string {
	t.Helper()
	conv := []map[string]string{
		{"role": "system", "content": hostile},
		{"role": "user", "content": hostile},
		{"role": "assistant", "content": "fine"},
		{"role": "user", "content": "again: " + hostile},
	}
	data, err := json.Marshal(conv)
	require.NoError(t, err)
	in := filepath.Join(t.TempDir(), "conv.json")
	require.NoError(t, os.WriteFile(in, data, 0o644))
	return in
}

func TestEscaping(t *testing.T) {
	t.Parallel()
	in := hostileConversation(t)
	for _, name := range []string{"pass.svg", "pass.html"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out := render(t, name, "-in", in, "-query", hostile)
			assert.False(t, bytes.Contains(out, []byte("<script")), "script escaped")
			assert.False(t, bytes.Contains(out, []byte("<b>")), "markup escaped")
			root := parseXML(t, out)
			svgDoc := out
			if name == "pass.html" {
				svgDoc = extractSVG(t, out)
			}
			svg := parseXML(t, svgDoc)
			bars := find(svg, func(n *node) bool { return n.Name == "g" && hasClass(n, "turn") })
			require.Len(t, bars, 4)
			title := text(find(bars[1], func(n *node) bool { return n.Name == "title" })[0])
			assert.Contains(t, title, "</svg><script>alert('x')</script> & <b>\"quoted\"</b>", "text survives, escaped")
			assert.Contains(t, text(root), "</svg><script>", "query and content shown as text")
		})
	}
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"pass.svg", "pass.html"} {
		args := []string{"-in", sampleConv, "-memory", sampleFacts, "-query", sampleQuery, "-keep-last", "2"}
		a, b := render(t, name, args...), render(t, name, args...)
		assert.Equal(t, a, b, name)
	}
}

func TestStdinStdout(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(sampleConv)
	require.NoError(t, err)
	var stdout bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-in", "-", "-query", sampleQuery}, bytes.NewReader(data), &stdout, io.Discard))
	page := parseXML(t, stdout.Bytes())
	assert.Equal(t, "html", page.Name)
	msgs, err := chitta.ParseMessages(data)
	require.NoError(t, err)
	bars := find(parseXML(t, extractSVG(t, stdout.Bytes())), func(n *node) bool { return n.Name == "g" && hasClass(n, "turn") })
	assert.Len(t, bars, len(msgs))
}

func TestErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"role":"user"}`), 0o644))
	tests := []struct {
		name string
		args []string
		is   error
		msg  string
	}{
		{"no input", []string{"-o", "x.html"}, errUsage, "-in is required"},
		{"bad extension", []string{"-in", sampleConv, "-o", "x.png"}, errUsage, ".html or .svg"},
		{"stray argument", []string{"-in", sampleConv, "extra"}, errUsage, "extra"},
		{"not an array", []string{"-in", bad}, chitta.ErrInvalidMessages, "bad.json"},
		{"ratio out of range", []string{"-in", sampleConv, "-ratio", "1.5"}, chitta.ErrInvalidTargetRatio, "TargetRatio"},
		{"negative keep-last", []string{"-in", sampleConv, "-keep-last", "-1"}, chitta.ErrInvalidOption, "KeepLast"},
		{"missing memory", []string{"-in", sampleConv, "-memory", filepath.Join(dir, "none.txt")}, os.ErrNotExist, "none.txt"},
		{"missing input", []string{"-in", filepath.Join(dir, "none.json")}, os.ErrNotExist, "none.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout bytes.Buffer
			err := run(t.Context(), tc.args, strings.NewReader(""), &stdout, io.Discard)
			require.ErrorIs(t, err, tc.is)
			assert.Contains(t, err.Error(), tc.msg)
			assert.Zero(t, stdout.Len(), "nothing written on error")
		})
	}
}

// FuzzRender checks that any message text yields well-formed output with
// one bar per message and no markup leaking out of the text.
func FuzzRender(f *testing.F) {
	f.Add(hostile, "user", "q")
	f.Add("plain text", "assistant", "")
	f.Add("\xff\xfe invalid utf-8 \x00", "tool", "</title>")
	f.Add("]]><![CDATA[", "system", "&amp;")
	f.Fuzz(func(t *testing.T, content, role, query string) {
		switch role {
		case "system", "user", "assistant", "tool":
		default:
			role = "user"
		}
		msgs := []chitta.Message{
			{Role: chitta.RoleSystem, Content: "sys"},
			{Role: chitta.Role(role), Content: content},
			{Role: chitta.RoleUser, Content: content + " " + query},
		}
		res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Query: query, Embedder: newEmbedder()})
		require.NoError(t, err)
		c := &chart{Source: content, Query: query, Budget: "keep 40%", Threshold: 0.5, Msgs: msgs, Res: res}
		var svg, page bytes.Buffer
		writeSVG(&svg, c, true)
		writeHTML(&page, c)
		for _, out := range [][]byte{svg.Bytes(), extractSVG(t, page.Bytes())} {
			bars := find(parseXML(t, out), func(n *node) bool { return n.Name == "g" && hasClass(n, "turn") })
			require.Len(t, bars, len(msgs))
		}
		parseXML(t, page.Bytes())
	})
}

func TestKeepLastIsMarked(t *testing.T) {
	t.Parallel()
	for _, keep := range []int{0, 3} {
		svg := parseXML(t, render(t, "pass.svg", "-in", sampleConv, "-ratio", "0.2", "-keep-last", strconv.Itoa(keep)))
		bars := find(svg, func(n *node) bool { return n.Name == "g" && hasClass(n, "turn") })
		require.NotEmpty(t, bars)
		pinned := 0
		for _, b := range bars {
			if hasClass(b, "pinned") {
				pinned++
				assert.Equal(t, "true", b.Attr["data-kept"])
			}
		}
		legend := text(find(svg, func(n *node) bool { return n.Name == "g" && hasClass(n, "legend") })[0])
		// The live turn is always pinned; KeepLast pins more.
		assert.GreaterOrEqual(t, pinned, max(keep, 1), "the live turn and the last %d turns with their tool groups", keep)
		assert.Contains(t, legend, "pinned (live turn")
	}
}

func TestAnthropicBlocksAndRequestBody(t *testing.T) {
	t.Parallel()
	body := `{"model": "claude", "messages": [
	 {"role": "user", "content": "List the files, then read go.mod."},
	 {"role": "assistant", "content": [{"type": "text", "text": "Listing."},
	   {"type": "tool_use", "id": "tu_1", "name": "ls", "input": {"path": "."}},
	   {"type": "tool_use", "id": "tu_2", "name": "read", "input": {"path": "go.mod"}}]},
	 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "go.mod main.go"},
	   {"type": "tool_result", "tool_use_id": "tu_2", "content": [{"type": "text", "text": "module example.com/x"}]}]},
	 {"role": "assistant", "content": "Two files; the module is example.com/x."}]}`
	in := filepath.Join(t.TempDir(), "body.json")
	require.NoError(t, os.WriteFile(in, []byte(body), 0o644))
	svg := parseXML(t, render(t, "pass.svg", "-in", in, "-ratio", "1"))
	bars := find(svg, func(n *node) bool { return n.Name == "g" && hasClass(n, "turn") })
	require.Len(t, bars, 4)
	for _, b := range bars {
		assert.Equal(t, "true", b.Attr["data-kept"], "ratio 1 keeps everything")
	}
	roles := find(svg, func(n *node) bool { return n.Name == "g" && hasClass(n, "roles") })
	require.Len(t, roles, 1)
	assert.Equal(t, "UATA", strings.ReplaceAll(text(roles[0]), " ", ""), "a user message of tool results is drawn as T")
	groups := find(svg, func(n *node) bool { return n.Name == "g" && hasClass(n, "groups") })
	require.Len(t, groups, 1)
	// One bracket (a line and two ticks) joins the call to its results.
	assert.Len(t, groups[0].Children, 3)
}
