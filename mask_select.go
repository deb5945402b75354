package chitta

import (
	"cmp"
	"slices"
	"strings"
	"sync"
)

// maskForm holds the forms masking gives one message besides its whole
// form: the masked one (mask, before selection) and the degraded one
// (every result masked; built on demand by keepActions).
type maskForm struct {
	masked, degraded *maskedMessage
	maskedTokens     int
	degradedTokens   int
	tried            bool // degraded was computed (it may be nil)
	switched         bool // listed in pass.switched
}

// setMasked records mm, of n tokens, as the masked form of message i and
// makes it the current one.
func (p *pass) setMasked(i int, mm *maskedMessage, n int) {
	p.initForms()
	p.forms[i].masked, p.forms[i].maskedTokens = mm, n
	p.use(i, mm, n)
}

func (p *pass) initForms() {
	if p.masked == nil {
		s := p.scratchOf()
		p.masked = carve(&s.masked, len(p.msgs))[:len(p.msgs)]
		p.forms = carve(&s.states, len(p.msgs))[:len(p.msgs)]
	}
}

// use makes mm (nil: the whole message), of n tokens, the form in which
// message i is selected and returned.
func (p *pass) use(i int, mm *maskedMessage, n int) {
	if p.masked[i] == mm {
		return
	}
	p.masked[i] = mm
	s := &p.scores[i]
	s.Tokens, s.Masked = n, mm != nil
	if f := &p.forms[i]; !f.switched {
		f.switched = true
		p.switched = append(p.switched, i)
	}
}

// resetForms returns every message that keepActions degraded or
// restoreMasked restored to its masked form, at the start of each fill
// round (unit costs are those of the masked forms).
func (p *pass) resetForms() {
	for _, i := range p.switched {
		f, s := &p.forms[i], &p.scores[i]
		f.switched = false
		p.masked[i], s.Masked = f.masked, f.masked != nil
		if s.Tokens = s.OriginalTokens; f.masked != nil {
			s.Tokens = f.maskedTokens
		}
	}
	p.switched = p.switched[:0]
}

// degrade returns the degraded form of message i (every result masked,
// see MaskOptions.Actions) and its tokens, or nil when it would be no
// smaller than the masked form (or the whole message).
func (p *pass) degrade(o *resolved, i int) (*maskedMessage, int) {
	p.initForms()
	f := &p.forms[i]
	if !f.tried {
		f.tried = true
		m := &p.msgs[i]
		if (isResultRole(m.Role) || len(m.ToolResultIDs) > 0) && (f.masked == nil || !f.masked.all) && p.scores[i].OriginalTokens > p.shortestPlaceholder(o) {
			f.degraded, f.degradedTokens = p.rewrite(o, i, nil, true)
		}
		limit := p.scores[i].OriginalTokens
		if f.masked != nil {
			limit = f.maskedTokens
		}
		if f.degraded != nil && f.degradedTokens >= limit {
			f.degraded = nil
		}
	}
	return f.degraded, f.degradedTokens
}

// keepActions keeps, with masking on and MaskOptions.Actions not
// ActionsOff, the tool-call groups not kept yet, in the order Actions
// names (cands is in selection order: the formula's, or with
// RelevanceReserve the novelty fill's), first fit within free tokens,
// each in its cheapest form (degraded: every result masked); then, newest
// first, it returns the degraded messages to their masked form while that
// fits. It returns the tokens it kept.
func (p *pass) keepActions(o *resolved, cands []unit, free int) int {
	if o.mask == nil || o.mask.actions == ActionsOff || free <= 0 {
		return 0
	}
	p.initForms()
	acts := carve(&p.scratchOf().units, len(cands))
	for _, u := range cands {
		if !p.scores[u.members[0]].Kept && slices.ContainsFunc(u.members, func(i int) bool { return len(p.msgs[i].ToolCallIDs) > 0 }) {
			acts = append(acts, u)
		}
	}
	switch o.mask.actions {
	case ActionsOldestFirst:
		slices.SortFunc(acts, func(a, b unit) int { return cmp.Compare(a.last, b.last) })
	case ActionsNewestFirst:
		slices.SortFunc(acts, func(a, b unit) int { return cmp.Compare(b.last, a.last) })
	}
	used := 0
	for _, u := range acts {
		used += u.cost
	}
	fitsAll := used <= free // every group fits as it is: nothing to degrade
	used = 0
	var seen *valueSet // nil until a kept form lists values
	defer func() { seen.release() }()
	var kept []int             // members of the kept groups
	var forms []*maskedMessage // a group's, reused from group to group
	var tokens []int
	for _, u := range acts {
		forms, tokens = slices.Grow(forms[:0], len(u.members))[:len(u.members)], slices.Grow(tokens[:0], len(u.members))[:len(u.members)]
		for k, i := range u.members {
			forms[k], tokens[k] = p.masked[i], p.scores[i].Tokens
			if fitsAll {
				continue
			}
			if mm, n := p.degrade(o, i); mm != nil {
				forms[k], tokens[k] = mm, n
			}
		}
		low, lists := 0, false // what the group costs at the least, its values all left out
		for k := range forms {
			if forms[k].lists() {
				low, lists = low+p.shortestPlaceholder(o), true
			} else {
				low += tokens[k]
			}
		}
		if used+low > free {
			continue
		}
		mark, cost := seen.mark(), low
		if lists { // leave out what the kept text shows
			if seen == nil {
				seen = p.seenKept(o)
			} else {
				p.flushSeen(o, seen)
			}
			mark, cost = seen.mark(), 0
			for k, i := range u.members {
				forms[k], tokens[k] = p.listOnce(o, i, forms[k], tokens[k], seen)
				cost += tokens[k]
			}
		}
		if used+cost > free {
			seen.undo(mark)
			continue
		}
		used += cost
		for k, i := range u.members {
			if forms[k] != p.masked[i] {
				p.use(i, forms[k], tokens[k])
			}
			p.scores[i].Kept = true
			kept = append(kept, i)
			if !lists && seen != nil { // read only if a later group lists values
				seen.pending = append(seen.pending, i)
			}
		}
	}
	slices.Sort(kept)
	for _, i := range slices.Backward(kept) { // the newest results whole first
		f, s := &p.forms[i], &p.scores[i]
		cur := p.masked[i]
		if f.degraded == nil || cur == nil || cur != f.degraded && cur.base != f.degraded {
			continue
		}
		mm, n := f.masked, s.OriginalTokens
		if mm != nil {
			mm, n = p.omit(o, i, mm, f.maskedTokens, cur.omitted)
		}
		if used+n-s.Tokens <= free {
			used += n - s.Tokens
			p.use(i, mm, n)
		}
	}
	return used
}

// restoreMasked, with MaskOptions.Restore, returns kept masked messages to
// their whole form, newest first, while their growth fits in the free
// tokens left.
func (p *pass) restoreMasked(o *resolved, free int) {
	if o.mask == nil || !o.mask.restore || p.masked == nil {
		return
	}
	for i := len(p.msgs) - 1; i >= 0 && free > 0; i-- {
		s := &p.scores[i]
		if !s.Kept || p.masked[i] == nil {
			continue
		}
		if grow := s.OriginalTokens - s.Tokens; grow <= free {
			free -= grow
			p.use(i, nil, s.OriginalTokens)
		}
	}
}

// shortestPlaceholder returns the tokens of the shortest placeholder
// masking writes: a message no larger cannot shrink (for a counter whose
// count does not fall as text grows), so degrade does not try.
func (p *pass) shortestPlaceholder(o *resolved) int {
	if p.minPlaceholder == 0 {
		p.minPlaceholder = max(1, o.tokens.CountTokens(MaskPrefix+"x output elided (1 tokens)]"))
	}
	return p.minPlaceholder
}

// valueSet is the set of identifier-like words visible in the text kept
// so far (see listOnce), each known by its valueHash, with an undo log so
// that a group that does not fit leaves it as it was. A nil *valueSet is
// empty and stays empty.
type valueSet struct {
	m       hashSet
	log     []uint64 // values added while logging, in order
	logging bool
	pending []int // kept messages whose text is not read yet (see flushSeen)
}

// valueSetPool holds emptied *valueSet, so that calls reuse their slots.
var valueSetPool sync.Pool

// newValueSet returns an empty valueSet (release returns it to the pool).
func newValueSet() *valueSet {
	if s, ok := valueSetPool.Get().(*valueSet); ok {
		return s
	}
	return new(valueSet)
}

// release empties s and returns it to valueSetPool; nil is left alone.
func (s *valueSet) release() {
	if s == nil {
		return
	}
	s.m.reset()
	s.log, s.logging, s.pending = s.log[:0], false, s.pending[:0]
	valueSetPool.Put(s)
}

func (s *valueSet) has(v string) bool {
	if s == nil {
		return false
	}
	return s.m.has(valueHash(v))
}

// add adds the value of hash h and reports whether it was new.
func (s *valueSet) add(h uint64) bool {
	if s == nil {
		return false
	}
	if !s.m.add(h) {
		return false
	}
	if s.logging {
		s.log = append(s.log, h)
	}
	return true
}

// addAll adds the values of hashes hs.
func (s *valueSet) addAll(hs []uint64) {
	if s == nil {
		return
	}
	for _, h := range hs {
		s.add(h)
	}
}

// mark returns the point undo returns to.
func (s *valueSet) mark() int {
	if s == nil {
		return 0
	}
	return len(s.log)
}

// undo removes the values added since mark k.
func (s *valueSet) undo(k int) {
	if s == nil {
		return
	}
	for _, h := range slices.Backward(s.log[k:]) {
		s.m.remove(h)
	}
	s.log = s.log[:k]
}

// addText adds the words of text that a placeholder could list (see
// valueWords).
func (s *valueSet) addText(text string) {
	if s == nil {
		return
	}
	for _, w := range valueWords(nil, text) {
		s.add(valueHash(w))
	}
}

// valueWords appends to dst the words of text that a placeholder could
// list: maximal runs of the bytes a value may hold (valueByte) that
// isIdentifierLike accepts, each also without a trailing '.' or ':'
// (which end a sentence more often than a value). One pass over text.
func valueWords(dst []string, text string) []string {
	for i := 0; i < len(text); {
		if valueClass[text[i]] == 0 {
			i++
			continue
		}
		var flags uint8
		j := i
		for j < len(text) && valueClass[text[j]] != 0 {
			flags |= valueClass[text[j]]
			j++
		}
		// isIdentifierLike: a digit, or upper case without lower case.
		if flags&vbDigit != 0 || flags&(vbUpper|vbLower) == vbUpper {
			w := text[i:j]
			if len(w) >= 2 && len(w) <= maxListedValue {
				dst = append(dst, w)
			}
			if c := w[len(w)-1]; c == '.' || c == ':' {
				if t := strings.TrimRight(w, ".:"); len(t) >= 2 && len(t) <= maxListedValue {
					dst = append(dst, t)
				}
			}
		}
		i = j
	}
	return dst
}

// Classes of valueClass.
const (
	vbValue uint8 = 1 << iota // a byte a value may hold
	vbDigit
	vbUpper
	vbLower
)

// valueClass classifies the bytes of a value (see isIdentifierLike): 0
// for a byte no value holds.
var valueClass = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case c >= '0' && c <= '9':
			t[c] = vbValue | vbDigit
		case c >= 'A' && c <= 'Z':
			t[c] = vbValue | vbUpper
		case c >= 'a' && c <= 'z':
			t[c] = vbValue | vbLower
		case strings.IndexByte("_-.:/@+#", byte(c)) >= 0:
			t[c] = vbValue
		}
	}
	return t
}()

// valueByte reports whether c may occur in a listed value (see
// isIdentifierLike; numbers use a subset).
func valueByte(c byte) bool { return valueClass[c] != 0 }

// seenKept returns the values visible in the non-system messages kept so
// far: the words of each whole one, and the listed values of each masked
// one. (System and developer messages are left out: their ids rarely
// recur in tool output, and reading a long policy prompt on every call
// would cost more than it saves.)
func (p *pass) seenKept(o *resolved) *valueSet {
	s := newValueSet()
	for i := range p.msgs {
		if p.scores[i].Kept && !p.msgs[i].Role.Pinned() {
			p.addSeen(o, s, i, p.masked[i])
		}
	}
	s.logging = true // what is kept so far is never undone
	return s
}

// flushSeen adds to s, for good, what the kept messages it has not read
// yet show (those of groups that list no values, read only once a later
// group does).
func (p *pass) flushSeen(o *resolved, s *valueSet) {
	if len(s.pending) == 0 {
		return
	}
	s.logging = false
	for _, i := range s.pending {
		p.addSeen(o, s, i, p.masked[i])
	}
	s.logging, s.pending = true, s.pending[:0]
}

// lists reports whether a placeholder of mm lists values.
func (mm *maskedMessage) lists() bool {
	return mm != nil && slices.ContainsFunc(mm.results, func(r toolResult) bool { return r.action == maskResult && len(r.values) > 0 })
}

// addSeen adds to s what message i shows in form mm (nil: whole): the
// words of its text, or of the results mm leaves whole and the values its
// placeholders list (the rest of a rewritten message is left out: s may
// miss a value, never hold one that is not shown).
func (p *pass) addSeen(o *resolved, s *valueSet, i int, mm *maskedMessage) {
	if s == nil {
		return
	}
	if mm == nil {
		if p.words == nil {
			p.words = carve(&p.scratchOf().words, len(p.msgs))[:len(p.msgs)]
		}
		if p.words[i] == nil { // as listValues, the first maxValueScan bytes (mask_cache.go)
			p.words[i] = o.mask.cache.wordsOf(p.msgs[i].Content)
		}
		s.addAll(p.words[i])
		return
	}
	for _, r := range p.info(o, i).results {
		if r.tokens >= 0 && !slices.ContainsFunc(mm.results, func(x toolResult) bool { return x.block == r.block }) {
			s.addText(r.text)
		}
	}
	for _, r := range mm.results {
		if r.action == maskResult {
			s.addAll(r.hashes)
		}
	}
}

// listOnce returns message i's form mm (of n tokens; nil: whole) with the
// values its placeholders list that seen already holds left out, and its
// tokens, and adds what it shows to seen: a value visible in the text kept
// so far (a pinned message, a kept call's arguments, an older kept
// placeholder) is listed once. mm itself is never modified.
func (p *pass) listOnce(o *resolved, i int, mm *maskedMessage, n int, seen *valueSet) (*maskedMessage, int) {
	if seen == nil || mm == nil {
		p.addSeen(o, seen, i, mm)
		return mm, n
	}
	for _, r := range p.info(o, i).results { // the results it leaves whole
		if r.tokens >= 0 && !slices.ContainsFunc(mm.results, func(x toolResult) bool { return x.block == r.block }) {
			seen.addText(r.text)
		}
	}
	var omitted []uint64
	for _, r := range mm.results {
		if r.action != maskResult {
			continue
		}
		for _, h := range r.hashes {
			if !seen.add(h) { // also listed once within the message
				if omitted == nil { // room for every value it lists
					omitted = carve(&p.scratchOf().hashes, listedHashes(mm))
				}
				omitted = append(omitted, h)
			}
		}
	}
	if len(omitted) == 0 {
		return mm, n
	}
	return p.omit(o, i, mm, n, omitted)
}

// listedHashes returns how many values mm's placeholders list.
func listedHashes(mm *maskedMessage) int {
	n := 0
	for _, r := range mm.results {
		if r.action == maskResult {
			n += len(r.hashes)
		}
	}
	return n
}

// omit returns a copy of mm (of n tokens), the form of message i, whose
// placeholders do not list the values whose hashes are in omitted, and
// its tokens; mm, n when the copy cannot be built or is no smaller.
func (p *pass) omit(o *resolved, i int, mm *maskedMessage, n int, omitted []uint64) (*maskedMessage, int) {
	if len(omitted) == 0 {
		return mm, n
	}
	var bloom [4]uint64 // a bit per omitted hash: a value whose bit is clear is kept
	for _, h := range omitted {
		bloom[h>>62] |= 1 << (h & 63)
	}
	cp := p.newForm()
	*cp = maskedMessage{results: p.scratch.copyResults(mm.results), direct: mm.direct, elided: mm.elided, all: mm.all, memory: mm.memory, base: mm, omitted: omitted}
	for k := range cp.results {
		r := &cp.results[k]
		if r.action == maskResult && len(r.values) > 0 {
			kept := carve(&p.scratch.values, len(r.values))
			hs := carve(&p.scratch.hashes, len(r.values))
			for k, h := range r.hashes {
				if bloom[h>>62]&(1<<(h&63)) == 0 || !slices.Contains(omitted, h) {
					kept, hs = append(kept, r.values[k]), append(hs, h)
				}
			}
			r.values, r.hashes, r.fold = kept, hs, foldHashes(hs)
		}
	}
	m, ok := p.prepareForm(o, i, cp)
	if !ok || m < 0 || m >= n {
		return mm, n
	}
	return cp, m
}

// degradePinned, with masking on and Actions not ActionsOff, degrades
// (every result masked, see degrade) the pinned messages carrying tool
// results, oldest first, while the kept messages, of used tokens, exceed
// the budget: a result that does not fit is of no use to the caller. The
// message holding the newest pinned result is never degraded, since the
// newest output is what the agent works on. It returns the tokens kept.
func (p *pass) degradePinned(o *resolved, used int) int {
	if o.mask == nil || o.mask.actions == ActionsOff || used <= p.target {
		return used
	}
	newest := -1
	for i := len(p.msgs) - 1; i >= 0; i-- {
		if p.scores[i].Pinned && (isResultRole(p.msgs[i].Role) || len(p.msgs[i].ToolResultIDs) > 0) {
			newest = i
			break
		}
	}
	for i := 0; i < newest && used > p.target; i++ {
		s := &p.scores[i]
		if !s.Pinned || !isResultRole(p.msgs[i].Role) && len(p.msgs[i].ToolResultIDs) == 0 {
			continue
		}
		if mm, n := p.degrade(o, i); mm != nil && n < s.Tokens {
			used -= s.Tokens - n
			p.use(i, mm, n)
		}
	}
	return used
}
