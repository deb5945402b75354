package adaptkit

import (
	"math/bits"
	"unsafe"
)

// memo remembers, for a pooled Builder, the composed texts of the whole
// messages CallMessage and CallTextMessage built, by the identity of the
// strings each text was composed from: a tool's name and the one key and
// string value of its arguments, or a tool's name and its arguments'
// text. Go strings are immutable, so two strings with the same address
// and length hold the same bytes (and an entry holds its strings, so their
// memory is not reused for other bytes while it is remembered): a text
// composed from the same strings is the same text. Arguments of other
// shapes (several keys, nested maps and lists, numbers) are remembered by
// the identity of every value they hold (see check). An agent compacting
// its history every turn passes the same strings again, wherever its
// messages moved (the messages kept last time and the new ones), in the
// same order, and their texts are then found here (most by the guess, see
// guess) instead of composed, compared and cut again. Nothing mutable is
// trusted: a map or a list of arguments is read anew every time, and only
// the values it holds now are compared.
//
// Its table holds an entry in one of a set of four places that the hash
// of its key picks (a fifth entry for a set replaces the last). An entry
// lives for the conversation that last found or made it and the next one;
// at the start of each conversation (turn) the entries that die are
// cleared, so the memo holds texts of the last two conversations only
// (the table is swept only when some die: an agent whose history only
// grows never pays for it). Its memory, kept with a pooled Builder, is
// at most maxMemo entries (1.8 MB) and maxArgChecks checks of arguments
// (1.5 MB), and it holds the strings of the entries' keys (the caller's
// names, outputs, argument keys and values) as long as they are
// remembered. The zero value is off: Builders started
// in new memory (Messages) keep no memo.
type memo struct {
	table []memoEntry
	gen   uint32 // this conversation's generation; 0 before the first
	shift uint8  // 64 - log2(len(table))
	live  int    // entries of this generation
	old   int    // entries of the last generation, which die at the next turn
	n     int    // texts looked up in this conversation
	held  int    // checks of arguments the entries hold (see check)

	// The order of use (see guess), as places plus one (0: none): the
	// entry this conversation used first (head) and last (last), and the
	// guess for the next look-up (cue: at the start, the entry the last
	// conversation used first; then the one used after last).
	head, last, cue int32
}

// A text's key is what it was composed from: its kind (memoCall: a
// tool's name, the argument's key and its value; memoText: a tool's name
// and its arguments' text, a the empty string; memoArgs: a tool's name
// and the checks of its arguments' map, a and c empty) and those strings,
// compared by identity.
// Kinds of key; zero is none.
const (
	memoCall uint8 = 1 + iota
	memoText
	memoArgs
)

// memoEntry is a remembered text, alive while gen is this conversation's
// or the last one's. An entry whose text is not known yet (a text that
// Finish sets) is not ready: it records the message that owns it, so that
// Finish fills only an entry that no later text replaced.
type memoEntry struct {
	h                uint64 // the key's hash, odd; 0: an empty entry
	name, a, c, text string
	args             []check // memoArgs: the arguments' values
	gen              uint32
	owner            int32 // the message whose text Finish sets; -1: ready
	next             int32 // the entry used after this one, plus one (see guess)
	kind             uint8
}

// Bounds of the memo table's size, in entries, and the number of places
// (a power of two) where its hash lets an entry be.
const (
	ways    = 4
	minMemo = 64
	maxMemo = 1 << 14
)

// maxArgChecks bounds the checks of arguments a memo holds; arguments
// found in none of its entries are composed without being remembered
// while it holds that many.
const maxArgChecks = 1 << 15

// turn starts a conversation: the entries of the last conversation but
// one that the last did not use die, and if there are any the table is
// swept of them; or the table grows (losing its entries) to four places
// for each text the last conversation looked up (at most maxMemo): few
// enough texts per set of places that about one in a hundred is lost.
func (mm *memo) turn() {
	size := minMemo
	if 4*mm.n > size {
		size = min(1<<bits.Len(uint(4*mm.n-1)), maxMemo)
	}
	mm.n = 0
	mm.cue, mm.head, mm.last = mm.head, 0, 0
	if size > len(mm.table) {
		mm.table, mm.gen = make([]memoEntry, size), 1
		mm.shift = uint8(64 - bits.TrailingZeros(uint(size)))
		mm.live, mm.old, mm.cue, mm.held = 0, 0, 0, 0
		return
	}
	if mm.old > 0 {
		for i := range mm.table {
			if e := &mm.table[i]; e.h != 0 && e.gen < mm.gen {
				mm.held -= len(e.args)
				*e = memoEntry{}
			}
		}
	}
	mm.gen++
	mm.old, mm.live = mm.live, 0
}

// memoHash mixes the addresses and lengths of a key's strings (never
// their bytes: a key is found only by identity) and its kind; the hash is
// odd.
func memoHash(kind uint8, name, a, c string) uint64 {
	x := uint64(uintptr(unsafe.Pointer(unsafe.StringData(a))))*0x9e3779b97f4a7c15 ^ uint64(len(a))
	x ^= uint64(uintptr(unsafe.Pointer(unsafe.StringData(c))))*0xc2b2ae3d27d4eb4f ^ uint64(len(c))<<20
	x ^= uint64(uintptr(unsafe.Pointer(unsafe.StringData(name)))) ^ uint64(kind)<<56
	x = (x ^ x>>31) * 0xff51afd7ed558ccd
	return x ^ x>>29 | 1
}

// guess returns the entry most likely to be the next one looked up, and
// its place, or nil: the one used after the last one this conversation
// used, in the conversation that used it last (the first one that
// conversation used, at the start). An agent's history keeps its order
// from turn to turn (the messages kept, then the new ones), so its texts
// are looked up in the order they were last time, whatever moved, and a
// guess confirmed (see guessCall) costs no hash and no search of a set.
// A guess is only a place: whatever it holds now, an entry of another
// key, an empty one or one swept, is checked as any entry is.
func (mm *memo) guess() (*memoEntry, int32) {
	if p := mm.cue; p > 0 {
		return &mm.table[p-1], p - 1
	}
	return nil, 0
}

// guessCall returns the text of a call to name with the arguments args
// if the memo's guess (see guess) is that call's: args, a map of one key,
// holds under the guess's key the guess's string (compared by identity,
// as recall compares), or, for a guess of kind memoArgs, any map that
// holds the values the guess remembers (see match). The first is the
// usual case of CallMessage's arguments, and costs one map look-up and
// no hash of the strings; any other case goes to recall (a guess that
// failed after its look-up costs that look-up twice: a call with other
// strings, where the last conversation had another call after the same
// one).
func (mm *memo) guessCall(name string, args any) (string, bool) {
	am, ok := args.(map[string]any)
	if !ok {
		return "", false
	}
	e, p := mm.guess()
	switch {
	case e == nil:
		return "", false
	case len(am) == 1 && e.holds(memoCall, name, mm.gen):
		if s, ok := am[e.a].(string); !ok || !same(e.c, s) {
			return "", false
		}
	case !e.holds(memoArgs, name, mm.gen):
		return "", false
	default:
		if _, ok := match(e.args, 0, am); !ok {
			return "", false
		}
	}
	mm.found(e, p)
	return e.text, true
}

// guessText is guessCall for CallTextMessage: the text of a call to name
// with the arguments' text args, if the guess is that call's (no map to
// read: two identities to compare).
func (mm *memo) guessText(name, args string) (string, bool) {
	e, p := mm.guess()
	if e == nil || !e.holds(memoText, name, mm.gen) || !same(e.c, args) {
		return "", false
	}
	mm.found(e, p)
	return e.text, true
}

// holds reports whether e, a guess, can be the entry of a key of kind
// with the name name: a ready entry (its text known) of that kind and
// name, alive in the conversation of generation gen.
func (e *memoEntry) holds(kind uint8, name string, gen uint32) bool {
	return e.kind == kind && same(e.name, name) && e.owner < 0 && e.gen+1 >= gen
}

// found uses e, the guess at place p, confirmed, as recall uses what it
// finds: link(p, e.next), but for the link to e, which the last entry
// holds already (it was the cue).
func (mm *memo) found(e *memoEntry, p int32) {
	mm.n++
	mm.use(e)
	if mm.last == 0 {
		mm.head = p + 1
	}
	mm.last, mm.cue = p+1, e.next
}

// use keeps e, found, for the next conversation.
func (mm *memo) use(e *memoEntry) {
	if e.gen != mm.gen {
		e.gen = mm.gen
		mm.old--
		mm.live++
	}
}

// link records that the entry at place p is the one this conversation
// used after the last (see guess), and that cue is the guess for the
// next.
func (mm *memo) link(p, cue int32) {
	if mm.last > 0 {
		mm.table[mm.last-1].next = p + 1
	} else {
		mm.head = p + 1
	}
	mm.last, mm.cue = p+1, cue
}

// recall returns the text remembered for the key and keeps it for the
// next conversation, or returns the key's hash.
func (mm *memo) recall(kind uint8, name, a, c string) (string, uint64, bool) {
	mm.n++
	h := memoHash(kind, name, a, c)
	i := int(h>>mm.shift) &^ (ways - 1)
	set := (*[ways]memoEntry)(mm.table[i : i+ways])
	for j := range set {
		e := &set[j]
		if e.h == h && e.owner < 0 && e.gen+1 >= mm.gen && same(e.c, c) && same(e.a, a) && same(e.name, name) && e.kind == kind {
			mm.use(e)
			mm.link(int32(i+j), e.next)
			return e.text, h, true
		}
	}
	return "", h, false
}

// recallArgs is recall for a call to name with the arguments args, a
// map, whose key hashes to h (see argsHash): an entry of that name whose
// checks args matches.
func (mm *memo) recallArgs(h uint64, name string, args map[string]any) (string, bool) {
	mm.n++
	i := int(h>>mm.shift) &^ (ways - 1)
	set := (*[ways]memoEntry)(mm.table[i : i+ways])
	for j := range set {
		e := &set[j]
		if e.h != h || e.owner >= 0 || e.gen+1 < mm.gen || e.kind != memoArgs || !same(e.name, name) {
			continue
		}
		if _, ok := match(e.args, 0, args); ok {
			mm.use(e)
			mm.link(int32(i+j), e.next)
			return e.text, true
		}
	}
	return "", false
}

// place returns where the key of hash h is remembered: the first of its
// set of places that holds no live entry, else the last, whose entry it
// replaces.
func (mm *memo) place(h uint64) int {
	i := int(h>>mm.shift) &^ (ways - 1)
	for end := i + ways - 1; i < end; i++ {
		if e := &mm.table[i]; e.h == 0 || e.gen+1 < mm.gen {
			break
		}
	}
	if e := &mm.table[i]; e.h != 0 {
		mm.held -= len(e.args)
		switch e.gen {
		case mm.gen:
			mm.live--
		case mm.gen - 1:
			mm.old--
		}
	}
	mm.live++
	mm.link(int32(i), 0) // a new entry: nothing known to follow
	return i
}

// put remembers text for the key of hash h, and returns its place.
func (mm *memo) put(h uint64, kind uint8, name, a, c, text string) int {
	j := mm.place(h)
	mm.table[j] = memoEntry{h: h, name: name, a: a, c: c, text: text, gen: mm.gen, owner: -1, kind: kind}
	return j
}

// hold remembers the key of hash h for message i, whose text Finish sets
// (see fill), and returns its place plus one.
func (mm *memo) hold(h uint64, kind uint8, name, a, c string, i int) int32 {
	j := mm.place(h)
	mm.table[j] = memoEntry{h: h, name: name, a: a, c: c, gen: mm.gen, owner: int32(i), kind: kind}
	return int32(j) + 1
}

// fill sets the text of message i held at place e (plus one), unless a
// later text took that place.
func (mm *memo) fill(e int32, i int, text string) {
	if en := &mm.table[e-1]; en.owner == int32(i) {
		en.text, en.owner = text, -1
	}
}
