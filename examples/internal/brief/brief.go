package brief

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/claudecode"
)

// DefaultMaxTokens is the brief's cap when Options.MaxTokens is 0, in
// chitta's estimate (words × 1.3).
const DefaultMaxTokens = 1500

// Fixed shape of a brief.
const (
	// Header is the brief's first line.
	Header = "Preservation brief from chitta: keep the items below verbatim in the summary; " +
		"they exist only in this conversation, not in memory."
	excerptWords  = 30  // words of prose per excerpt
	artifactShare = 0.8 // of the budget for artifacts before excerpts are placed
	maxHeld       = 3   // memories quoted on the held line
	heldWords     = 14  // words per quoted memory
)

// Options configures [Build]. A nil *Options, and the zero value of every
// field, means the documented default.
type Options struct {
	// MaxTokens caps the brief, in words × 1.3. 0 means DefaultMaxTokens
	// (1 500); negative is an error.
	MaxTokens int
	// MaxChars caps the brief's length in UTF-16 code units, what
	// JavaScript's String.length counts (Claude Code cuts a hook's output
	// longer than 10 000 of them: see the precompact hook). The cap in
	// words lets a brief of long paths and commands run far past that.
	// 0 means no cap; negative is an error.
	MaxChars int
	// NovelThreshold is the coverage at or above which a dropped turn
	// counts as held by memory. 0 means chitta.DefaultNovelThreshold.
	NovelThreshold float64
	// Masked are lines naming the tool calls whose output chitta.Options.Mask
	// elided (see MaskedCalls), listed after the first share of artifacts.
	// nil lists none.
	Masked []string
}

// Item is one artifact carried by a brief, with the turn it was taken from
// and that turn's score.
type Item struct {
	Artifact
	Turn  int     // index in the window of the best-ranked turn carrying it
	Score float64 // that turn's chitta score
}

// Brief is a built brief.
type Brief struct {
	Text     string // the brief, lines separated by \n, no trailing newline
	Tokens   int    // chitta.EstimateTokens(Text)
	Items    []Item // the artifacts carried, in rank order
	Excerpts int    // excerpts carried
	Masked   int    // masked calls carried
	Left     int    // artifacts left out by the cap
}

// candidate is an item or excerpt being placed.
type candidate struct {
	item    Item
	excerpt string
	masked  string // a masked-call line
}

// Build returns the brief of a compacted window: turns are the window,
// scores Compact's scores of claudecode.Messages(turns) (one per turn), and
// held the texts of the memories that cover the dropped turns (what the
// summary may shorten). Artifacts come from the kept turns and the dropped
// turns whose coverage is below the novelty threshold, ranked by the best
// score among the turns carrying them (ties: the later turn first); the
// excerpts are the kept uncovered turns' prose, best score first. The
// output is deterministic. It returns an error for a bad option or when
// scores does not match turns.
func Build(turns []claudecode.Turn, scores []chitta.TurnScore, held []string, opts *Options) (*Brief, error) {
	o, err := resolve(opts)
	if err != nil {
		return nil, err
	}
	if len(scores) != len(turns) {
		return nil, fmt.Errorf("brief: %d scores for %d turns", len(scores), len(turns))
	}
	var sources, excerpts []int
	covered := 0
	for i, s := range scores {
		uncovered := s.Coverage < o.NovelThreshold
		if s.Kept || uncovered {
			sources = append(sources, i)
		}
		if s.Kept && uncovered {
			excerpts = append(excerpts, i)
		}
		if !s.Kept && !uncovered {
			covered++
		}
	}
	byScore := func(a, b int) int {
		if c := cmp.Compare(scores[b].Score, scores[a].Score); c != 0 {
			return c
		}
		return b - a
	}
	slices.SortStableFunc(sources, byScore)
	slices.SortStableFunc(excerpts, byScore)
	score := func(i int) float64 { return scores[i].Score }
	return build(turns, sources, excerpts, score, heldLine(held, covered), o)
}

// Recent is the baseline Build is measured against: every turn's artifacts
// and excerpts, the most recent first, under the same cap and layout, with
// no memory line.
func Recent(turns []claudecode.Turn, opts *Options) (*Brief, error) {
	o, err := resolve(opts)
	if err != nil {
		return nil, err
	}
	order := make([]int, len(turns))
	for i := range order {
		order[i] = len(turns) - 1 - i
	}
	return build(turns, order, order, func(int) float64 { return 0 }, "", o)
}

func resolve(opts *Options) (Options, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	switch {
	case o.MaxTokens < 0:
		return o, fmt.Errorf("brief: MaxTokens %d, want >= 0 (0 means %d)", o.MaxTokens, DefaultMaxTokens)
	case o.MaxTokens == 0:
		o.MaxTokens = DefaultMaxTokens
	}
	if o.MaxChars < 0 {
		return o, fmt.Errorf("brief: MaxChars %d, want >= 0 (0 means no cap)", o.MaxChars)
	}
	if o.NovelThreshold == 0 {
		o.NovelThreshold = chitta.DefaultNovelThreshold
	}
	return o, nil
}

// heldLine names what memory already holds.
func heldLine(held []string, covered int) string {
	if covered == 0 || len(held) == 0 {
		return "Memory holds none of these turns yet."
	}
	var quotes []string
	for _, h := range held[:min(len(held), maxHeld)] {
		quotes = append(quotes, "“"+words(oneLine(h), heldWords)+"”")
	}
	return fmt.Sprintf("Memory already holds what %d dropped turns say (the summary may shorten it): %s.", covered, strings.Join(quotes, "; "))
}

// build places the artifacts of the turns in order and the excerpts of
// the turns in excerptOrder under the cap and renders the brief.
func build(turns []claudecode.Turn, order, excerptOrder []int, score func(int) float64, held string, o Options) (*Brief, error) {
	var arts []candidate
	seen := make(map[Artifact]bool)
	tools := ToolNames(turns)
	for _, i := range order {
		for _, a := range Extract(&turns[i], tools) {
			if !seen[a] {
				seen[a] = true
				arts = append(arts, candidate{item: Item{Artifact: a, Turn: i, Score: score(i)}})
			}
		}
	}
	var exs []candidate
	for _, i := range excerptOrder {
		t := &turns[i]
		if claudecode.Boilerplate(t) {
			continue
		}
		p := t.Prompt // what the user typed, system reminders removed
		if p == "" {
			p = claudecode.Prose(t)
		}
		if p != "" {
			exs = append(exs, candidate{item: Item{Turn: i, Score: score(i)}, excerpt: fmt.Sprintf("[%s] %s", t.Message.Role, words(oneLine(p), excerptWords))})
		}
	}

	l := &layout{held: held}
	capWords := maxWords(o.MaxTokens)
	capChars := o.MaxChars
	if capChars == 0 {
		capChars = math.MaxInt
	}
	l.n, l.c = l.words(), l.chars()
	if l.n > capWords || l.c > capChars {
		l.held = ""
		if l.n, l.c = l.words(), l.chars(); l.n > capWords || l.c > capChars {
			return &Brief{Text: "", Left: len(arts)}, nil
		}
	}
	placed := make([]bool, len(arts))
	fill := func(cands []candidate, placedOf []bool, limit, limitChars int) {
		for k, c := range cands {
			if placedOf != nil && placedOf[k] {
				continue
			}
			if cost, chars := l.cost(c), l.charCost(c); l.n+cost <= limit && l.c+chars <= limitChars {
				l.add(c, cost, chars)
				if placedOf != nil {
					placedOf[k] = true
				}
			}
		}
	}
	share := func(fixed, limit int) int {
		if limit == math.MaxInt {
			return limit
		}
		return fixed + int(artifactShare*float64(limit-fixed))
	}
	fill(arts, placed, share(l.n, capWords), share(l.c, capChars))
	var mcs []candidate
	for _, line := range o.Masked {
		mcs = append(mcs, candidate{masked: line})
	}
	fill(mcs, nil, capWords, capChars)
	fill(exs, nil, capWords, capChars)
	fill(arts, placed, capWords, capChars)

	text := l.render()
	b := &Brief{Text: text, Tokens: chitta.EstimateTokens(text), Excerpts: len(l.excerpts), Masked: len(l.masked)}
	for k, c := range arts {
		if placed[k] {
			b.Items = append(b.Items, c.item)
		} else {
			b.Left++
		}
	}
	if b.Tokens > o.MaxTokens { // cannot happen: every word is counted
		return nil, fmt.Errorf("brief: %d tokens over the cap of %d", b.Tokens, o.MaxTokens)
	}
	if n := Chars(text); n > capChars || n != l.c { // cannot happen: every character is counted
		return nil, fmt.Errorf("brief: %d characters (%d counted), cap %d", n, l.c, capChars)
	}
	return b, nil
}

// maxWords is the most words whose estimate (words × 13 / 10) fits tokens.
func maxWords(tokens int) int {
	w := tokens * 10 / 13
	for chitta.EstimateTokens(strings.Repeat("w ", w+1)) <= tokens {
		w++
	}
	return w
}

// Section titles, by kind; paths, identifiers and URLs are listed on one
// line, the rest one per line.
var sections = [numKinds]struct {
	title  string
	inline bool
}{
	Constraint: {"User constraints:", false},
	Error:      {"Errors:", false},
	Command:    {"Commands that ran:", false},
	Path:       {"Files:", true},
	Identifier: {"Identifiers and numbers:", true},
	URL:        {"URLs:", true},
}

const excerptTitle = "Kept turns memory does not hold:"

// layout is a brief being filled; it counts words exactly as
// chitta.CountWords will count the rendered text.
type layout struct {
	n        int // words so far
	c        int // characters so far, as Chars counts them
	held     string
	items    [numKinds][]string
	masked   []string
	excerpts []string
}

func (l *layout) words() int {
	n := chitta.CountWords(Header) + chitta.CountWords(l.held)
	for k, items := range l.items {
		if len(items) == 0 {
			continue
		}
		n += chitta.CountWords(sections[k].title)
		for _, it := range items {
			n += chitta.CountWords(it)
			if !sections[k].inline {
				n++ // the bullet
			}
		}
	}
	if len(l.masked) > 0 {
		n += chitta.CountWords(maskedTitle)
		for _, m := range l.masked {
			n += 1 + chitta.CountWords(m)
		}
	}
	if len(l.excerpts) > 0 {
		n += chitta.CountWords(excerptTitle)
		for _, e := range l.excerpts {
			n += 1 + chitta.CountWords(e)
		}
	}
	return n
}

// cost is the words c adds.
func (l *layout) cost(c candidate) int {
	if c.masked != "" {
		n := 1 + chitta.CountWords(c.masked)
		if len(l.masked) == 0 {
			n += chitta.CountWords(maskedTitle)
		}
		return n
	}
	if c.excerpt != "" {
		n := 1 + chitta.CountWords(c.excerpt)
		if len(l.excerpts) == 0 {
			n += chitta.CountWords(excerptTitle)
		}
		return n
	}
	k := c.item.Kind
	n := chitta.CountWords(c.item.Text)
	if !sections[k].inline {
		n++
	}
	if len(l.items[k]) == 0 {
		n += chitta.CountWords(sections[k].title)
	}
	return n
}

// chars is the length of the rendered layout, as Chars counts it.
func (l *layout) chars() int { return Chars(l.render()) }

// charCost is the characters c adds to the rendered layout: a line of its
// own (its "- " bullet and the newline before it) or, in an inline
// section, ", " and the item, plus the section's title line if c is its
// first entry.
func (l *layout) charCost(c candidate) int {
	line := func(text string, first bool, title string) int {
		n := 1 + 2 + Chars(text) // "\n- " and the text
		if first {
			n += 1 + Chars(title)
		}
		return n
	}
	switch {
	case c.masked != "":
		return line(c.masked, len(l.masked) == 0, maskedTitle)
	case c.excerpt != "":
		return line(c.excerpt, len(l.excerpts) == 0, excerptTitle)
	}
	k := c.item.Kind
	s := sections[k]
	if !s.inline {
		return line(c.item.Text, len(l.items[k]) == 0, s.title)
	}
	if len(l.items[k]) == 0 {
		return 1 + Chars(s.title) + 1 + Chars(c.item.Text) // "\n", title, " ", item
	}
	return 2 + Chars(c.item.Text) // ", " and the item
}

// Chars returns the length of s in UTF-16 code units, what JavaScript's
// String.length counts (a rune above U+FFFF counts 2, an invalid byte 1, as
// its decoding to U+FFFD does).
func Chars(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

func (l *layout) add(c candidate, cost, chars int) {
	l.n += cost
	l.c += chars
	if c.masked != "" {
		l.masked = append(l.masked, c.masked)
		return
	}
	if c.excerpt != "" {
		l.excerpts = append(l.excerpts, c.excerpt)
		return
	}
	l.items[c.item.Kind] = append(l.items[c.item.Kind], c.item.Text)
}

func (l *layout) render() string {
	lines := []string{Header}
	for k, items := range l.items {
		if len(items) == 0 {
			continue
		}
		s := sections[k]
		if s.inline {
			lines = append(lines, s.title+" "+strings.Join(items, ", "))
			continue
		}
		lines = append(lines, s.title)
		for _, it := range items {
			lines = append(lines, "- "+it)
		}
	}
	if len(l.masked) > 0 {
		lines = append(lines, maskedTitle)
		for _, m := range l.masked {
			lines = append(lines, "- "+m)
		}
	}
	if len(l.excerpts) > 0 {
		lines = append(lines, excerptTitle)
		for _, e := range l.excerpts {
			lines = append(lines, "- "+e)
		}
	}
	if l.held != "" {
		lines = append(lines, l.held)
	}
	return strings.Join(lines, "\n")
}

// oneLine joins the lines of s with spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// words returns the first n words of s, each at most MaxWordRunes runes,
// with "…" where it cut.
func words(s string, n int) string {
	f := strings.Fields(s)
	cut := len(f) > n
	if cut {
		f = f[:n]
	}
	out := CutWords(strings.Join(f, " "), MaxWordRunes)
	if cut {
		out += "…"
	}
	return out
}

// MaxWordRunes bounds one word of the prose a brief quotes (an excerpt, the
// held line, a masked call's input): a longer word, such as a pasted token
// or minified JSON, is cut to its first MaxWordRunes runes and "…". The cap
// counts words, so without it one word could make the brief any size.
const MaxWordRunes = 64

// CutWords returns s with every word (a run of non-space characters) longer
// than maxRunes runes cut to its first maxRunes runes followed by "…"; the
// white space between words is kept as it is. s is returned unchanged when
// no word is longer.
func CutWords(s string, maxRunes int) string {
	var b strings.Builder
	done := 0 // bytes of s already in b
	for start := 0; start < len(s); {
		r, size := utf8.DecodeRuneInString(s[start:])
		if unicode.IsSpace(r) {
			start += size
			continue
		}
		end, runes, cutAt := start, 0, -1
		for end < len(s) {
			r, size := utf8.DecodeRuneInString(s[end:])
			if unicode.IsSpace(r) {
				break
			}
			if runes == maxRunes {
				cutAt = end
			}
			runes++
			end += size
		}
		if cutAt >= 0 {
			b.WriteString(s[done:cutAt])
			b.WriteString("…")
			done = end
		}
		start = end
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}
