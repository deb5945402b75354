package chitta

import (
	"hash/maphash"
	"math"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// MaskCache remembers, across [Compact] calls, what observation masking
// ([MaskOptions]) reads from the bytes of each message: where its tool
// results sit in its JSON, their text, the identifier-like values a
// placeholder lists, the tool calls (IDs and names) a message issues, and
// the identifier-like words of the messages kept whole (so that a
// placeholder does not list a value the kept text already shows).
// In an agent loop the same messages are compacted again and again; with a
// cache only new messages are scanned. Set it as [MaskOptions.Cache]; a
// long-lived owner (an agent loop, a [Compactor]) creates one and passes
// it to every call. Results equal an uncached Compact's.
//
// Entries are keyed by the message's content, never by its address alone:
// a 64-bit [maphash] hash (per-cache random seed) of its Raw (of its
// Content when Raw is nil) with its role, its tool call and result IDs and
// the lengths of its Raw and Content, like [CachedTokenCounter]'s key (a
// wrong entry needs two messages with the same lengths, role and IDs whose
// hashes collide, ~2⁻⁶⁴ per pair). Raw is hashed on every call, since its
// bytes may change in place; a Content of 512 bytes or more of a message
// without Raw is hashed once for as long as the cache holds that string:
// Go strings never change, so the cache keeps its hash under the address
// and length of its bytes, and holding that address keeps the string
// alive, so that no other string can take it (a string made with
// [unsafe.String] over bytes written again later breaks that, as it breaks
// Go's rules). The strings so held are long Contents of messages of the
// last two calls (a loop holds them anyway), and older ones only while
// all of them number no more than twice the last call's: when the second
// call after a big one ends, however small, the big call's strings are
// released. Their total size is the callers' (the cache
// copies none of them); a cache shared by several conversations holds
// the long Contents of the last two calls over any of them. The values listed from a message's
// Content are reused only while a hash of the part of the Content they
// were read from (at most 32 KiB) is unchanged; the words of a kept
// message are keyed by a hash of those 32 KiB of its Content with their
// length. Tool names resolved through the conversation are computed by
// each call; the token count of a rewritten message whose
// rewritten results are all placeholders is kept, keyed by the message's
// key and a 64-bit hash of what its placeholders say (tool name, size,
// listed values, memory), for the token counter of the calls that stored
// it: a counter whose type == always compares (a [CachedTokenCounter], the
// default estimate), which must count a text the same way every time; a
// call with another counter drops those counts first, and a counter of
// another type (a [TokenCounterFunc], a struct holding an interface) or
// a [CalibratedCounter] has none kept (wrap it in a [CachedTokenCounter]
// to cache its counts). Under the same key, once a
// call returned such a message, the cache keeps its rewritten Raw and
// Content, and a later call returns a copy of that Raw (the caller owns
// it) instead of writing the message again.
//
// The cache keeps the entries of the messages of the last two calls and
// drops older ones once it holds more than twice the current call's
// entries (plus 1 024). An entry takes about 150 bytes plus 16 bytes per
// result position, up to 32 listed values of at most 40 bytes each, and,
// for a message holding several tool results, a copy of their text; the
// words of a message, kept on the same terms, take 8 bytes each (a
// hash), a form's count about 40 bytes, a returned form its
// rewritten Raw and Content besides, and a long Content held by its
// identity about 50 bytes (and the string itself, while the cache holds
// it). The
// zero value is ready to use; a nil *MaskCache caches nothing. A MaskCache
// is safe for concurrent use by any number of calls.
type MaskCache struct {
	once  sync.Once
	seeds [4]maphash.Seed

	mu      sync.Mutex
	entries map[cacheKey]maskSlot
	call    uint64 // calls finished so far
	touched int    // entries stamped since the last call finished

	words        map[cacheKey]wordsSlot // by the text they were read from
	touchedWords int
	// idents holds the hashes of long Contents of messages without Raw
	// by the strings' identities (contentHash).
	idents        map[strIdent]identSlot
	touchedIdents int
	forms         map[formKey]formSlot // token counts of placeholder forms (mask_forms.go), under counter
	counter       any
	touchedForms  int
	stats         MaskCacheStats
}

// MaskCacheStats counts the work of a [MaskCache]. It is a plain value, a
// snapshot returned by [MaskCache.Stats]; the zero value counts nothing.
type MaskCacheStats struct {
	Hits   uint64 // messages whose scan was reused
	Misses uint64 // messages scanned
	Forms  uint64 // rewritten forms whose token count was reused
	Built  uint64 // rewritten messages returned from a copy of an earlier call's
	Len    int    // entries cached now
}

// NewMaskCache returns an empty MaskCache (equivalent to new(MaskCache)).
func NewMaskCache() *MaskCache { return &MaskCache{} }

// Stats returns the cache's counters so far (all zero for a nil cache).
func (c *MaskCache) Stats() MaskCacheStats {
	if c == nil {
		return MaskCacheStats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Len = len(c.entries)
	return s
}

type maskSlot struct {
	e    *maskEntry
	call uint64 // the last call that used it
}

// maskEntry is what masking reads from one message's bytes. Once cached it
// is never modified (a newer one replaces it).
// (Slices first and the flags together, so that a msgInfo, which embeds
// it, takes 88 bytes, not 112: pass.load allocates one per message.)
type maskEntry struct {
	results []toolResult // tokens, names and actions unset; text "" where whole
	calls   []idName     // the message's tool calls
	values  int          // the ListValues count the results' listed values are for
	parsed  bool         // results and direct are set
	direct  bool
	named   bool // calls is set
	fcall   bool // calls has a legacy function_call (whose ID names the message's index: never cached)
}

func (c *MaskCache) init() {
	c.once.Do(func() {
		c.seeds = [4]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed(), maphash.MakeSeed(), maphash.MakeSeed()}
	})
}

// lookup returns the cache key of m and its entry (nil when none).
func (c *MaskCache) lookup(m *Message) (cacheKey, *maskEntry) {
	c.init()
	hdr := c.header(m)
	if hasRaw(m.Raw) {
		k := cacheKey{maphash.Bytes(c.seeds[0], m.Raw), hdr}
		return k, c.get(k)
	}
	if len(m.Content) < minIdent {
		k := cacheKey{maphash.String(c.seeds[0], m.Content), hdr}
		return k, c.get(k)
	}
	// A long Content met at the same address: its hash under the same
	// lock as the entry.
	id := strIdent{unsafe.StringData(m.Content), len(m.Content)}
	c.mu.Lock()
	slot, ok := c.idents[id]
	if ok {
		c.stampIdent(id, slot)
		k := cacheKey{slot.hash, hdr}
		e := c.getLocked(k)
		c.mu.Unlock()
		return k, e
	}
	c.mu.Unlock()
	h := maphash.String(c.seeds[0], m.Content)
	k := cacheKey{h, hdr}
	c.mu.Lock()
	defer c.mu.Unlock()
	storeSlot(&c.idents, id, identSlot{h, c.call}, c.call, &c.touchedIdents)
	return k, c.getLocked(k)
}

// header returns the second word of m's cache key: a hash of its role and
// IDs with the lengths of its Raw and Content (the first is the hash of
// its Raw, else of its Content).
func (c *MaskCache) header(m *Message) uint64 {
	var h maphash.Hash
	h.SetSeed(c.seeds[2])
	h.WriteString(string(m.Role))
	for _, ids := range [2][]string{m.ToolCallIDs, m.ToolResultIDs} {
		h.WriteByte(0)
		for _, id := range ids {
			h.WriteString(id)
			h.WriteByte(1)
		}
	}
	return h.Sum64() ^ uint64(len(m.Raw))<<32 ^ uint64(len(m.Content))
}

// strIdent identifies a string by the address of its bytes and its
// length. A Go string's bytes never change, and a map key holding their
// address keeps them from being freed (and the address from being given
// to another string) while the key is in the map: two strings of one
// identity met while the cache holds it are equal.
type strIdent struct {
	p *byte
	n int
}

// identSlot is the hash (seed 0) of a string the cache holds by its
// identity.
type identSlot struct {
	hash uint64
	call uint64 // the last call that used it
}

// minIdent is the shortest Content whose hash lookup remembers by the
// string's identity: for a shorter one, hashing it costs about what
// looking it up does.
const minIdent = 512

// stampIdent stores slot as the slot of id, stamped with this call (c.mu
// held): a slot stamped by another call (or new) is counted as touched.
func (c *MaskCache) stampIdent(id strIdent, slot identSlot) {
	if slot.call != c.call {
		slot.call = c.call
		c.idents[id] = slot
		c.touchedIdents++
	}
}

// valuesKey returns the hash of what listValues reads of text (0 when it
// is not JSON, so that none are listed).
func (c *MaskCache) valuesKey(text string) uint64 {
	if !jsonLike(text) {
		return 0
	}
	return maphash.String(c.seeds[1], text[:min(len(text), maxValueScan)]) | 1
}

// get returns the entry of k, or nil.
func (c *MaskCache) get(k cacheKey) *maskEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.getLocked(k)
}

// getLocked is get with c.mu held.
func (c *MaskCache) getLocked(k cacheKey) *maskEntry {
	s, ok := c.entries[k]
	if !ok {
		c.stats.Misses++
		return nil
	}
	c.stats.Hits++
	if s.call != c.call {
		s.call = c.call
		c.entries[k] = s
		c.touched++
	}
	return s.e
}

// put stores e (which the cache then owns) as the entry of k.
func (c *MaskCache) put(k cacheKey, e *maskEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	storeSlot(&c.entries, k, maskSlot{e, c.call}, c.call, &c.touched)
}

// storeSlot stores s under k in *m (made when nil), counting in touched a
// key that call had not stamped yet.
func storeSlot[K comparable, S interface{ lastCall() uint64 }](m *map[K]S, k K, s S, call uint64, touched *int) {
	if *m == nil {
		*m = make(map[K]S)
	}
	if old, ok := (*m)[k]; !ok || old.lastCall() != call {
		*touched++
	}
	(*m)[k] = s
}

func (s maskSlot) lastCall() uint64  { return s.call }
func (s identSlot) lastCall() uint64 { return s.call }

// done ends a call: entries used neither by it nor by the previous one
// are dropped once the cache holds more than twice its entries plus 1 024.
func (c *MaskCache) done() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) > 2*c.touched+1024 {
		for k, s := range c.entries {
			if s.call+1 < c.call {
				delete(c.entries, k)
			}
		}
	}
	if len(c.words) > 2*c.touchedWords+1024 {
		for k, s := range c.words {
			if s.call+1 < c.call {
				delete(c.words, k)
			}
		}
	}
	if len(c.forms) > 2*c.touchedForms+1024 {
		for k, s := range c.forms {
			if s.call+1 < c.call {
				delete(c.forms, k)
			}
		}
	}
	if len(c.idents) > 2*c.touchedIdents { // no slack: they hold the callers' strings
		for k, s := range c.idents {
			if s.call+1 < c.call {
				delete(c.idents, k)
			}
		}
	}
	c.call++
	c.touched, c.touchedWords, c.touchedForms, c.touchedIdents = 0, 0, 0, 0
}

// wordsSlot is a cached list of word hashes (see wordsOf).
type wordsSlot struct {
	words []uint64
	call  uint64 // the last call that used it
}

// wordsOf returns the valueHash of each of valueWords of the first
// maxValueScan bytes of text (a non-nil slice, which the caller must not
// modify). With a cache, the list is kept across calls, keyed by a hash of
// those bytes with their length, so that a message kept again is not
// read again.
func (c *MaskCache) wordsOf(text string) []uint64 {
	text = text[:min(len(text), maxValueScan)]
	if c == nil {
		return wordHashes(text)
	}
	c.init()
	k := cacheKey{maphash.String(c.seeds[3], text), uint64(len(text))}
	c.mu.Lock()
	s, ok := c.words[k]
	if ok && s.call != c.call {
		s.call = c.call
		c.words[k] = s
		c.touchedWords++
	}
	c.mu.Unlock()
	if ok {
		return s.words
	}
	w := wordHashes(text)
	c.mu.Lock()
	if c.words == nil {
		c.words = make(map[cacheKey]wordsSlot)
	}
	if s, ok := c.words[k]; !ok || s.call != c.call {
		c.touchedWords++
	}
	c.words[k] = wordsSlot{w, c.call}
	c.mu.Unlock()
	return w
}

// wordHashes returns the valueHash of each of valueWords(text), non-nil.
func wordHashes(text string) []uint64 {
	words := valueWords(make([]string, 0, 8), text)
	hs := make([]uint64, len(words))
	for k, w := range words {
		hs[k] = valueHash(w)
	}
	return hs
}

// msgInfo is a call's private view of what masking read from one message:
// its results with this call's token counts, names and listed values.
type msgInfo struct {
	maskEntry
	key     cacheKey
	loaded  bool // the cached entry, if any, was looked up
	counted bool // the results' tokens are set
	dirty   bool // something was scanned or listed since the entry was cached
	// names indexes calls by ID (the first of each), once callName needs it.
	names map[string]string
}

// info returns what masking reads from message i, scanning it once per
// call and, with a MaskCache, once for as long as the cache keeps it. Its
// results carry this call's token counts (negative: the result is left
// alone).
func (p *pass) info(o *resolved, i int) *msgInfo {
	inf := p.load(o, i)
	if !inf.parsed {
		inf.results, inf.direct = resultsOf(&p.msgs[i])
		inf.parsed, inf.dirty = true, true
	}
	if !inf.counted {
		m := &p.msgs[i]
		content := contentTokens(o.tokens, m, p.scores[i].OriginalTokens)
		check := o.mask.cache != nil && hasRaw(m.Raw) // the key did not read Content
		for k := range inf.results {
			r := &inf.results[k]
			if r.whole {
				r.text, r.tokens = m.Content, content
				if check && r.listed && o.mask.cache.valuesKey(r.text) != r.valuesOf {
					r.unsetValues()
				}
			} else {
				r.tokens = o.tokens.CountTokens(r.text)
			}
		}
		inf.counted = true
	}
	return inf
}

// contentTokens returns the tokens of m's Content alone under tc, given
// n, countMessage(tc, m): n less m's framing, which is cheap to count, and
// its MediaTokens,
// rather than counting the Content again (a CachedTokenCounter would hash
// it again). When n saturated, or the framing is negative (then n was
// not a sum), it counts the Content.
func contentTokens(tc TokenCounter, m *Message, n int) int {
	fc, framed := tc.(FramingCounter)
	if !framed && m.MediaTokens == 0 {
		return n
	}
	f := m.MediaTokens
	if framed {
		f = addTokens(f, max(0, fc.FramingTokens(m)))
	}
	if f <= n && n < math.MaxInt {
		return n - f
	}
	return tc.CountTokens(m.Content)
}

// callNames returns the tool calls message c issues (see callNamesIn).
func (p *pass) callNames(o *resolved, c int) []idName {
	inf := p.load(o, c)
	if !inf.named {
		inf.calls, inf.fcall = callNamesIn(p.msgs[c].Raw, c)
		inf.named, inf.dirty = true, true
	}
	return inf.calls
}

// indexCalls is how many calls a message issues before callName indexes
// them by ID (msgInfo.names) rather than scanning them for each result.
const indexCalls = 16

// callName returns the name of the first call with ID id that message c
// issues ("" when none).
func (p *pass) callName(o *resolved, c int, id string) string {
	calls := p.callNames(o, c)
	if len(calls) <= indexCalls {
		for _, call := range calls {
			if call.id == id {
				return call.name
			}
		}
		return ""
	}
	inf := &p.scratch.infos[c]
	if inf.names == nil {
		inf.names = make(map[string]string, len(calls))
		for _, call := range slices.Backward(calls) { // the first of a repeated ID wins
			inf.names[call.id] = call.name
		}
	}
	return inf.names[id]
}

// load returns the msgInfo of message i: this call's, else a private copy
// of the cached entry, else an empty one.
func (p *pass) load(o *resolved, i int) *msgInfo {
	if p.scratch == nil {
		p.scratch = newScratch(len(p.msgs))
	}
	inf := &p.scratch.infos[i]
	if inf.loaded {
		return inf
	}
	inf.loaded = true
	cache := o.mask.cache
	if cache == nil {
		return inf
	}
	var e *maskEntry
	inf.key, e = cache.lookup(&p.msgs[i])
	if e == nil {
		return inf
	}
	inf.maskEntry = *e
	inf.results = p.scratch.copyResults(e.results)
	if e.values != o.mask.values {
		for k := range inf.results {
			inf.results[k].unsetValues()
		}
	}
	return inf
}

// maskScratch is one call's working memory for masking: a msgInfo per
// message, one backing array for the copies of cached results and the
// results of rewritten forms (one allocation rather than one per
// message), and the rewritten forms themselves, in chunks. Finished calls
// return it, cleared, to scratchPool, so that an agent loop's calls reuse
// it.
type maskScratch struct {
	infos   []msgInfo
	results []toolResult
	forms   []*[formChunk]maskedMessage
	nforms  int // forms handed out (newForm)
	// Backing arrays that carve hands out: the call's per-message form
	// state (pass.masked, pass.forms), the values and hashes of the copies
	// without values already shown, and the groups of the actions step.
	masked []*maskedMessage
	states []maskForm
	values []string
	hashes []uint64
	units  []unit
	words  [][]uint64 // pass.words
}

// formChunk is how many forms a chunk of maskScratch.forms holds.
const formChunk = 32

// scratchPool holds cleared *maskScratch (every element of their slices,
// up to their capacity, is zero).
var scratchPool sync.Pool

// newScratch returns a maskScratch with n zero msgInfos.
func newScratch(n int) *maskScratch {
	s, ok := scratchPool.Get().(*maskScratch)
	if !ok {
		s = new(maskScratch)
	}
	if cap(s.infos) < n {
		s.infos = make([]msgInfo, n)
	}
	s.infos = s.infos[:n]
	return s
}

// copyResults returns a copy of rs (nil for nil) in s's backing array,
// capped so that appending to it never overwrites another copy.
func (s *maskScratch) copyResults(rs []toolResult) []toolResult {
	if rs == nil {
		return nil
	}
	start := len(s.results)
	s.results = append(s.results, rs...)
	return s.results[start:len(s.results):len(s.results)]
}

// carve returns an empty slice of capacity n from the backing array buf
// (of a maskScratch), capped so that appending to it never overwrites
// another; buf's elements it covers are zero (cleared on release, or new)
// until the caller appends.
func carve[T any](buf *[]T, n int) []T {
	start := len(*buf)
	*buf = slices.Grow(*buf, n)[:start+n]
	return (*buf)[start : start : start+n]
}

// makeResults returns an empty slice of capacity n in s's backing array,
// capped so that appending to it never overwrites another.
func (s *maskScratch) makeResults(n int) []toolResult { return carve(&s.results, n) }

// scratchOf returns p's scratch, made if need be.
func (p *pass) scratchOf() *maskScratch {
	if p.scratch == nil {
		p.scratch = newScratch(len(p.msgs))
	}
	return p.scratch
}

// newForm returns a zero maskedMessage of this call (valid until the
// call's scratch is released).
func (p *pass) newForm() *maskedMessage {
	s := p.scratchOf()
	c, k := s.nforms/formChunk, s.nforms%formChunk
	if c == len(s.forms) {
		s.forms = append(s.forms, new([formChunk]maskedMessage))
	}
	s.nforms++
	return &s.forms[c][k]
}

// releaseScratch clears p.scratch and returns it to scratchPool once the
// call no longer reads it (nor any of its forms).
func (p *pass) releaseScratch() {
	s := p.scratch
	if s == nil {
		return
	}
	p.scratch = nil
	clear(s.infos)
	clear(s.results)
	clear(s.masked)
	clear(s.states)
	clear(s.values)
	clear(s.hashes)
	clear(s.units)
	clear(s.words)
	for c := range s.forms { // the forms handed out only
		if c*formChunk >= s.nforms {
			break
		}
		clear(s.forms[c][:min(formChunk, s.nforms-c*formChunk)])
	}
	s.infos, s.results, s.nforms = s.infos[:0], s.results[:0], 0
	s.masked, s.states, s.values, s.hashes, s.units, s.words = s.masked[:0], s.states[:0], s.values[:0], s.hashes[:0], s.units[:0], s.words[:0]
	scratchPool.Put(s)
}

// flushMask stores what this call scanned in the MaskCache and ends the
// call there.
func (p *pass) flushMask(o *resolved) {
	cache := o.mask.cache
	if cache == nil {
		return
	}
	var infos []msgInfo
	if p.scratch != nil {
		infos = p.scratch.infos
	}
	for k := range infos {
		inf := &infos[k]
		if !inf.dirty {
			continue
		}
		e := &maskEntry{parsed: inf.parsed, direct: inf.direct, values: o.mask.values}
		if inf.parsed {
			e.results = make([]toolResult, len(inf.results))
			for k, r := range inf.results {
				if r.whole {
					r.text = ""
				}
				r.tokens, r.name, r.named, r.nameHash, r.action = 0, "", false, 0, keepResult
				if r.listed && r.whole {
					r.values = cloneStrings(r.values) // not to keep the caller's Content
				} else if r.listed {
					r.values = slices.Clone(r.values) // not to keep the call's scratch (toolResult.list)
				}
				r.hashes = slices.Clone(r.hashes)
				e.results[k] = r
			}
		}
		if inf.named && !inf.fcall {
			e.named, e.calls = true, inf.calls
		}
		cache.put(inf.key, e)
	}
	cache.done()
}

// cloneStrings returns copies of ss that share no memory with them.
func cloneStrings(ss []string) []string {
	if len(ss) == 0 {
		return ss
	}
	n := 0
	for _, s := range ss {
		n += len(s)
	}
	var b strings.Builder
	b.Grow(n)
	for _, s := range ss {
		b.WriteString(s)
	}
	all := b.String()
	out := make([]string, len(ss))
	at := 0
	for k, s := range ss {
		out[k] = all[at : at+len(s)]
		at += len(s)
	}
	return out
}
