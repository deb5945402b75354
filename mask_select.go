package chitta

import (
	"cmp"
	"slices"
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
		p.masked = make([]*maskedMessage, len(p.msgs))
		p.forms = make([]maskForm, len(p.msgs))
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
	acts := make([]unit, 0, len(cands))
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
	if used <= free { // every group fits as it is: nothing to degrade
		for _, u := range acts {
			for _, i := range u.members {
				p.scores[i].Kept = true
			}
		}
		return used
	}
	used = 0
	var kept []int // members of the kept groups
	for _, u := range acts {
		cost := 0
		for _, i := range u.members {
			if mm, n := p.degrade(o, i); mm != nil {
				cost += n
			} else {
				cost += p.scores[i].Tokens
			}
		}
		if used+cost > free {
			continue
		}
		used += cost
		for _, i := range u.members {
			if mm, n := p.degrade(o, i); mm != nil {
				p.use(i, mm, n)
			}
			p.scores[i].Kept = true
			kept = append(kept, i)
		}
	}
	slices.Sort(kept)
	for _, i := range slices.Backward(kept) { // the newest results whole first
		f, s := &p.forms[i], &p.scores[i]
		if f.degraded == nil || p.masked[i] != f.degraded {
			continue
		}
		n := s.OriginalTokens
		if f.masked != nil {
			n = f.maskedTokens
		}
		if used+n-s.Tokens <= free {
			used += n - s.Tokens
			p.use(i, f.masked, n)
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
		p.minPlaceholder = max(1, o.tokens.CountTokens(MaskPrefix+"output of x elided (1 tokens)]"))
	}
	return p.minPlaceholder
}
