package chitta

import "reflect"

// formKey identifies, in a MaskCache, a rewritten form of a message whose
// every rewritten result is a placeholder: the message's cache key and a
// hash of what its placeholders say (see formHash).
type formKey struct {
	msg  cacheKey
	form uint64
}

// formSlot is the cached token count of a form and, once a call
// returned it, its rewritten Raw and Content.
type formSlot struct {
	tokens int
	call   uint64     // the last call that used it
	built  *builtForm // nil until a call returned the form (putFormBuilt)
}

// builtForm is a rewritten message as a MaskCache keeps it: its own copy
// of the Raw, the Content and the MediaTokens.
type builtForm struct {
	raw     []byte
	content string
	media   int
}

// counterID returns what identifies the token counter tc of a call among
// those whose counts a MaskCache keeps: tc itself when == on values of
// its dynamic type cannot panic (a *CachedTokenCounter; not a struct
// holding an interface, which may hold a TokenCounterFunc), the default
// estimate's marker when tc is nil, and nil (no counts cached) otherwise,
// and for a *CalibratedCounter, whose counts move with each observation.
func counterID(tc TokenCounter) any {
	if tc == nil {
		return defaultCounter{}
	}
	if _, ok := tc.(*CalibratedCounter); ok || !alwaysComparable(reflect.TypeOf(tc)) {
		return nil
	}
	return tc
}

// defaultCounter marks the default token counter (EstimateTokens).
type defaultCounter struct{}

// formTokens returns the cached token count of form k under counter id.
func (c *MaskCache) formTokens(id any, k formKey) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if id != c.counter {
		return 0, false
	}
	s, ok := c.forms[k]
	if ok {
		c.stats.Forms++
	}
	if ok && s.call != c.call {
		s.call = c.call
		c.forms[k] = s
		c.touchedForms++
	}
	return s.tokens, ok
}

// putFormTokens stores n as the token count of form k under counter id
// (the counts of another counter are dropped first).
func (c *MaskCache) putFormTokens(id any, k formKey, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if id != c.counter || c.forms == nil {
		c.counter, c.forms, c.touchedForms = id, make(map[formKey]formSlot), 0
	}
	if s, ok := c.forms[k]; !ok || s.call != c.call {
		c.touchedForms++
	}
	c.forms[k] = formSlot{tokens: n, call: c.call}
}

// formBuilt returns the rewritten Raw (the cache's own: the caller copies
// it), Content and MediaTokens stored for form k under counter id.
func (c *MaskCache) formBuilt(id any, k formKey) ([]byte, string, int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if id != c.counter {
		return nil, "", 0, false
	}
	s, ok := c.forms[k]
	if !ok || s.built == nil {
		return nil, "", 0, false
	}
	c.stats.Built++
	return s.built.raw, s.built.content, s.built.media, true
}

// putFormBuilt stores a copy of raw, content and media as the rewritten
// message of form k under counter id, whose token count is stored already.
func (c *MaskCache) putFormBuilt(id any, k formKey, raw []byte, content string, media int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if id != c.counter {
		return
	}
	s, ok := c.forms[k]
	if !ok {
		return
	}
	s.built = &builtForm{append(make([]byte, 0, len(raw)), raw...), content, media}
	c.forms[k] = s
}

// formHash returns a hash of what mm's placeholders write (every result
// of mm being masked, so named and listed): the memory, and for each
// result its block, its size, its tool's name (nameHash) and the values it
// lists (fold), each folded in by a multiply-xorshift mix (only accidental
// collisions matter, ~2⁻⁶⁴ per pair of forms).
func formHash(mm *maskedMessage) uint64 {
	h := uint64(len(mm.results))
	if mm.memory != "" {
		h ^= valueHash(mm.memory)
	}
	h = mix64(h)
	for k := range mm.results {
		r := &mm.results[k]
		nh, fold := r.nameHash, r.fold
		if !r.named { // (never, for a masked result)
			nh = valueHash(r.name)
		}
		if !r.listed {
			fold = foldHashes(r.hashes)
		}
		h = mix64(h ^ uint64(r.block))
		h = mix64(h ^ uint64(r.tokens))
		h = mix64(h ^ nh)
		h = mix64(h ^ fold)
	}
	return h
}

// foldHashes returns a hash of the sequence of value hashes hs (already
// uniform): each folded in by an xor and a multiply by an odd constant (a
// bijection, so that sequences of one length that differ in one place
// never collide), the count first, then a mix64.
func foldHashes(hs []uint64) uint64 {
	h := uint64(len(hs))
	for _, v := range hs {
		h = (h ^ v) * 0x9e3779b97f4a7c15
	}
	return mix64(h)
}

// mix64 is the finaliser of SplitMix64 (Steele, Lea and Flood, 2014), a
// bijection of 64-bit words whose every output bit depends on every input
// bit.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// prepareForm is mm.prepare for message i, with the token count of a
// form made only of placeholders cached in the MaskCache (keyed by the
// message, what its placeholders write and the token counter): a form
// met in an earlier call is neither written nor counted again, its texts
// being written only if it is returned (build).
func (p *pass) prepareForm(o *resolved, i int, mm *maskedMessage) (int, bool) {
	c := o.mask
	m := &p.msgs[i]
	mm.keyed = false
	if c.cache == nil || c.counter == nil || len(mm.results) == 0 || p.scratch == nil || !p.scratch.infos[i].loaded {
		return mm.prepare(m, c, o.tokens)
	}
	for k := range mm.results {
		if mm.results[k].action != maskResult {
			return mm.prepare(m, c, o.tokens)
		}
	}
	for k := range mm.results {
		if r := &mm.results[k]; !r.listed {
			r.list(p.scratch, c.values)
		}
	}
	form := formHash(mm)
	if m.MediaTokens != 0 { // kept by a form whose Raw does not show them (keptMedia)
		form = mix64(form ^ uint64(m.MediaTokens))
	}
	key := formKey{p.scratch.infos[i].key, form}
	if n, ok := c.cache.formTokens(c.counter, key); ok {
		mm.texts, mm.built = nil, false // written by build
		mm.key, mm.keyed = key, true
		return n, true
	}
	n, ok := mm.prepare(m, c, o.tokens)
	if ok {
		c.cache.putFormTokens(c.counter, key, n)
		mm.key, mm.keyed = key, true
	}
	return n, ok
}
