package adaptkit

import (
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/chitta-go/chitta"
)

// Builder builds a conversation's chitta messages, one message at a time,
// with a few allocations for the whole conversation rather than several
// per message: a message whose text is a single piece gets that string
// itself; the texts that must be composed (several pieces, a tool call's
// name and arguments) are written into one buffer that becomes one string
// at [Builder.Finish]; tool IDs are kept in two shared slices, each message
// getting a capped sub-slice.
//
// Use: [Builder.Start] (or let [Messages] or [CompactBuilt] start it);
// then for each message, in order, [Builder.SetRole], the Add methods and
// CallID/ResultID, then [Builder.End] (or [Builder.Message] for a message
// of one text piece, [Builder.ResultMessage] for a tool's text output,
// [Builder.CallMessage] and [Builder.CallTextMessage] for one tool call);
// after the last, [Builder.Finish]. The text a message gets is exactly
// what [Text] builds from the same pieces. The messages of one
// conversation share memory (their texts, their ID slices), so one kept
// message keeps the conversation's composed texts alive; a pooled Builder
// also lets a message keep the composed text its slot held from the
// previous conversation when it is equal, and finds the texts of the
// messages that CallMessage and CallTextMessage build from the same
// strings as in one of the last two conversations, wherever they moved,
// without composing them (see memo). The zero value is ready for
// Start; a Builder is not safe for concurrent use.
type Builder struct {
	out      []chitta.Message
	next     int    // the message End fills
	buf      []byte // composed texts of the messages so far
	text     place  // where the current message's text is
	roleSet  bool   // SetRole was called for the current message
	pending  []span // messages whose text lives in buf, filled by Finish
	composed int    // where in buf the current message's composed text starts

	calls, results idList  // tool IDs of every message
	enc            encoder // appendJSON's scratch
	memo           memo    // texts of the last conversations (pooled builders)

	lastCalls, lastResults int // IDs of the previous conversation (pooled builders)

	mk *maskBuild // mask mode: the synthetic Raw (see mask.go); nil otherwise

	search   bool  // ToolSearch writes Raw (pooled builders outside mask mode, see toolsearch.go)
	searched []int // the messages ToolSearch gave a Raw
}

// place is where the current message's text is while it is built. The
// message under construction is out[next] itself, written field by field
// as the pieces come (a role, a single piece), each write skipped when the
// field already holds that value: a pooled Builder converting the same
// conversation again (the usual case, an agent compacting its history
// every turn) then writes almost no pointers, and pointer writes are what
// the garbage collector's write barrier makes expensive while it marks.
// Per-message state is kept in non-pointer fields for the same reason.
type place uint8

const (
	textNone place = iota // no non-blank piece yet
	textSlot              // one piece, as it is, in out[next].Content
	textBuf               // composed in buf, set by Finish
)

// span is the text of message i, buf[end of the previous span:end], and
// its place in the memo plus one (0: none).
type span struct {
	i, end int
	e      int32
}

// Start begins a conversation of n messages, in new memory.
func (b *Builder) Start(n int) {
	b.enc.reset()
	*b = Builder{out: make([]chitta.Message, n), enc: b.enc}
}

// SetRole sets the role of the current message.
func (b *Builder) SetRole(r chitta.Role) {
	if m := &b.out[b.next]; !same(string(m.Role), string(r)) {
		m.Role = r
	}
	b.roleSet = true
}

// OpensWithThinking marks the current message as opening with a thinking
// block (see [chitta.Message.OpensWithThinking]).
func (b *Builder) OpensWithThinking() { b.out[b.next].OpensWithThinking = true }

// Role returns the role of the current message, as SetRole left it.
func (b *Builder) Role() chitta.Role { return b.out[b.next].Role }

// Message builds a whole message of role r whose text is the one piece s
// and that has no tool IDs, as SetRole(r), Add(s) and End would, in one
// call (half of a conversation's messages are such). It must come between
// messages: at the start or after End.
func (b *Builder) Message(r chitta.Role, s string) {
	if !startsWord(s) {
		b.oddMessage(r, "", s, false)
		return
	}
	m := b.slot(r, s)
	if m.ToolCallIDs != nil {
		m.ToolCallIDs = nil
	}
	if m.ToolResultIDs != nil {
		m.ToolResultIDs = nil
	}
	b.next++
}

// ResultMessage builds a whole message of role r that carries the result
// of tool call id as the one piece of text s, as SetRole(r), ResultID(id),
// Add(s) and End would, in one call (a tool's output, a quarter to a half
// of an agent's messages). It must come between messages.
func (b *Builder) ResultMessage(r chitta.Role, id, s string) {
	if !startsWord(s) {
		b.oddMessage(r, id, s, true)
		return
	}
	if b.mk != nil { // first: only b is needed after the append below
		b.mk.wholeResult(b.next, r, id)
	}
	m := b.slot(r, s)
	if m.ToolCallIDs != nil {
		m.ToolCallIDs = nil
	}
	m.ToolResultIDs = b.results.one(id)
	b.next++
}

// oddMessage builds Message(r, s), or ResultMessage(r, id, s) if result,
// for an s that does not start with a word (blank, or starting with a
// space or a non-ASCII byte) the general way: apart, so that the usual
// case calls nothing that its arguments must be kept across.
func (b *Builder) oddMessage(r chitta.Role, id, s string, result bool) {
	b.SetRole(r)
	if result {
		b.ResultID(id)
		b.OpenResult(id)
		b.Add(s)
		b.CloseResult()
	} else {
		b.Add(s)
	}
	b.End()
}

// CallMessage builds a whole message of role r that is the one tool call
// id, scored as name + " " + JSON(args), as SetRole(r), CallID(id),
// AddCallJSON(name, args) and End would, in one call (a model turn that
// only calls a tool). It must come between messages.
func (b *Builder) CallMessage(r chitta.Role, id, name string, args any) {
	var m *chitta.Message
	if t, ok := b.memo.guessCall(name, args); ok {
		m = b.slot(r, t)
	} else if m = b.roled(r); !b.callText(m, name, args) {
		b.buf = b.appendNamedJSON(b.buf, name, args, laneCall)
		b.settle(m, startsWord(name))
	}
	m.ToolCallIDs = b.calls.one(id)
	if m.ToolResultIDs != nil {
		m.ToolResultIDs = nil
	}
	if b.mk != nil {
		b.mk.callOnly(b.next, r, id, name)
	}
	b.next++
}

// CallTextMessage builds a whole message of role r that is the one tool
// call id whose arguments are the text args, scored as name + " " + args,
// as SetRole(r), CallID(id), AddCall(name, args) and End would, in one
// call (a model turn that only calls a tool, in the SDKs that carry
// arguments as a JSON string). A pooled Builder finds the text by the
// identity of name and args (see memo) instead of composing it. It must
// come between messages.
func (b *Builder) CallTextMessage(r chitta.Role, id, name, args string) {
	if !startsWord(name) || b.mk != nil {
		b.SetRole(r)
		b.CallID(id)
		b.AddCall(name, args)
		b.End()
		return
	}
	var m *chitta.Message
	if t, ok := b.memo.guessText(name, args); ok {
		m = b.slot(r, t)
	} else {
		m = b.roled(r)
		b.textCall(m, name, args)
	}
	m.ToolCallIDs = b.calls.one(id)
	if m.ToolResultIDs != nil {
		m.ToolResultIDs = nil
	}
	b.next++
}

// textCall gives m the text name + " " + args (name starts with a word),
// found in the memo, or composed (and remembered in a pooled Builder).
func (b *Builder) textCall(m *chitta.Message, name, args string) {
	var h uint64
	if b.memo.gen != 0 {
		t, hh, ok := b.memo.recall(memoText, name, "", args)
		if ok {
			b.recalled(m, t)
			return
		}
		h = hh
	}
	b.buf = append(append(append(b.buf, name...), ' '), args...)
	if b.memo.gen != 0 {
		b.remember(m, h, memoText, name, "", args)
	} else {
		b.settle(m, true)
	}
}

// callText gives m the text of a call to name with the arguments args,
// a map, found in the memo (or composed and remembered there), and
// reports whether it did; it does not for other arguments, arguments the
// memo cannot remember (see snapshot), a Builder without memo or a name
// that is not a word. The usual arguments, one key with a string value,
// are remembered by that string; others by all their values (argsText).
func (b *Builder) callText(m *chitta.Message, name string, args any) bool {
	am, ok := args.(map[string]any)
	if !ok || b.memo.gen == 0 || !startsWord(name) {
		return false
	}
	set, s, ok := b.oneArg(name, am)
	if !ok {
		return b.argsText(m, name, am)
	}
	t, h, ok := b.memo.recall(memoCall, name, set.keys[0], s)
	if ok {
		b.recalled(m, t)
		return true
	}
	buf := append(b.buf, name...)
	buf = append(buf, ' ')
	buf = appendString(append(buf, set.heads[0]...), s)
	b.buf = append(buf, '}')
	b.remember(m, h, memoCall, name, set.keys[0], s)
	return true
}

// oneArg returns the key set and the string value of args if they are
// the usual arguments of a call to name: one key, that of the set the
// encoder remembers for name's one-key arguments, holding a string.
func (b *Builder) oneArg(name string, args map[string]any) (*keySet, string, bool) {
	if len(args) != 1 {
		return nil, "", false
	}
	set := &b.enc.sets[slotOf(name, laneCall, 1, 0)]
	if len(set.keys) != 1 {
		return nil, "", false
	}
	s, ok := args[set.keys[0]].(string)
	return set, s, ok
}

// slot returns the current slot with its role set to r and its text to
// s, not blank. It calls nothing, so that it is inlined (a whole message
// costs one call).
func (b *Builder) slot(r chitta.Role, s string) *chitta.Message {
	m := &b.out[b.next]
	if !same(m.Content, s) {
		// another text than the slot's held, most likely another
		// message's (a conversation whose messages moved): its role is
		// written without a comparison, which would seldom save the write
		m.Content, m.Role = s, r
	} else if !same(string(m.Role), string(r)) {
		m.Role = r
	}
	return m
}

// roled returns the current slot with its role set to r.
func (b *Builder) roled(r chitta.Role) *chitta.Message {
	m := &b.out[b.next]
	if !same(string(m.Role), string(r)) {
		m.Role = r
	}
	return m
}

// settle makes the piece written into buf since the last message (from
// b.composed on) the text of m, the current slot, as End makes a composed
// text a message's text, or gives m no text if the piece is blank (which
// a piece starting with a word, known to the caller, is not). It reports
// whether the text is pending: set by Finish.
func (b *Builder) settle(m *chitta.Message, word bool) bool {
	switch piece := b.buf[b.composed:]; {
	case !word && blank(piece):
		b.buf = b.buf[:b.composed]
		if m.Content != "" {
			m.Content = ""
		}
	case string(piece) == m.Content:
		b.buf = b.buf[:b.composed] // kept, see End
	default:
		b.pending = append(b.pending, span{i: b.next, end: len(b.buf)})
		b.composed = len(b.buf)
		return true
	}
	return false
}

// remember settles the piece written for a key (not blank) as m's text,
// remembers that text for the key (see memo) and returns its place there.
func (b *Builder) remember(m *chitta.Message, h uint64, kind uint8, name, a, c string) int {
	if b.settle(m, true) {
		e := b.memo.hold(h, kind, name, a, c, b.next)
		b.pending[len(b.pending)-1].e = e
		return int(e) - 1
	}
	return b.memo.put(h, kind, name, a, c, m.Content)
}

// recalled gives m the remembered text t.
func (b *Builder) recalled(m *chitta.Message, t string) {
	if !same(m.Content, t) {
		m.Content = t
	}
}

// idList is the tool IDs of one kind (calls or results) of every message
// of a conversation, from start on those of the current message.
type idList struct {
	all   []string
	start int
}

// take returns the current message's IDs (nil if none), capped, and moves
// on to the next message's.
func (l *idList) take() []string {
	n := len(l.all)
	if n == l.start {
		return nil
	}
	ids := l.all[l.start:n:n]
	l.start = n
	return ids
}

// one appends id as the current message's one ID and returns it as take
// does. The current message has no IDs yet (its callers build whole
// messages, between messages).
func (l *idList) one(id string) []string {
	l.all = append(l.all, id)
	n := len(l.all)
	l.start = n
	return l.all[n-1 : n : n]
}

// Add appends s as a piece of the current message's text unless it is
// blank, like [Text.Add]. The usual case, a message's first piece starting
// with a word, is decided without calling blank.
func (b *Builder) Add(s string) {
	if b.mk != nil {
		b.mk.text(s)
	}
	if b.text == textNone && startsWord(s) {
		b.first(s)
		return
	}
	b.add(s)
}

// Image appends the piece "[image]" for an image that the provider bills
// n tokens for, and adds n (when positive) to the current message's
// [chitta.Message.MediaTokens]. In mask mode the synthetic Raw writes it
// as {"type":"image","media_tokens":N}, which chitta reads back as the
// same piece and count, so that a masked message counts the images its
// rewritten Raw still holds (one in a masked result is gone with it).
func (b *Builder) Image(n int) {
	k := 0
	if b.mk != nil {
		k = len(b.mk.pieces)
	}
	b.Add("[image]")
	if b.mk != nil && len(b.mk.pieces) > k {
		b.mk.pieces[k].kind, b.mk.pieces[k].media = pieceImage, max(0, n)
	}
	if m := &b.out[b.next]; n > 0 {
		m.MediaTokens += n
	}
}

// AddReference appends name, the tool that a tool_reference block (an
// Anthropic tool search's result) loads, as a piece, like Add; in mask
// mode the synthetic Raw writes it as that block inside its tool result
// ({"type":"tool_reference","tool_name":N}), which chitta reads back as
// the same piece and its tool-search rule reads as a load (outside mask
// mode, see [Builder.ToolSearch]).
func (b *Builder) AddReference(name string) {
	n := 0
	if b.mk != nil {
		n = len(b.mk.pieces)
	}
	b.Add(name)
	if b.mk != nil && len(b.mk.pieces) > n {
		b.mk.pieces[n].kind = pieceRef
	}
}

// first makes s, not blank, the current message's only piece so far.
func (b *Builder) first(s string) {
	if m := &b.out[b.next]; !same(m.Content, s) {
		m.Content = s
	}
	b.text = textSlot
}

func (b *Builder) add(s string) {
	if !startsWord(s) && blank(s) {
		return
	}
	if b.text == textNone {
		b.first(s)
		return
	}
	mark := b.open()
	b.buf = append(b.buf, s...)
	b.close(mark)
}

// AddCall appends the piece name + " " + args (a tool call as it is
// scored), like Add(name + " " + args) without building that string.
func (b *Builder) AddCall(name, args string) {
	b.addPair(name, args)
	if b.mk != nil {
		b.mk.call(b, piece{a: name, b: args})
	}
}

// addPair appends the piece name + " " + s and returns where it starts in
// buf.
func (b *Builder) addPair(name, s string) int {
	mark := b.open()
	at := len(b.buf)
	b.buf = append(b.buf, name...)
	b.buf = append(b.buf, ' ')
	b.buf = append(b.buf, s...)
	b.close(mark)
	return at
}

// AddCallJSON appends the piece name + " " + JSON(args), like
// Add(name + " " + JSON(args)), encoding args straight into the buffer.
func (b *Builder) AddCallJSON(name string, args any) {
	at := b.addNamedJSON(name, args, laneCall)
	if b.mk != nil {
		b.mk.callJSON(b, name, at)
	}
}

// AddResultJSON is [Builder.AddCallJSON] for a tool's response: the same
// text, with the key sets of responses remembered apart from those of
// calls (see encoder).
func (b *Builder) AddResultJSON(name string, response any) {
	at := b.addNamedJSON(name, response, laneResult)
	if b.mk != nil {
		b.mk.bufText(b, at)
	}
}

// addNamedJSON appends the piece name + " " + JSON(v) and returns where it
// starts in buf.
func (b *Builder) addNamedJSON(name string, v any, lane uint8) int {
	mark := b.open()
	at := len(b.buf)
	b.buf = b.appendNamedJSON(b.buf, name, v, lane)
	b.close(mark)
	return at
}

// appendNamedJSON appends name + " " + JSON(v) to buf, v coming from lane.
func (b *Builder) appendNamedJSON(buf []byte, name string, v any, lane uint8) []byte {
	buf = append(buf, name...)
	buf = append(buf, ' ')
	b.enc.tool, b.enc.lane = name, lane
	if m, ok := v.(map[string]any); ok { // the usual arguments: straight to appendMap
		start := len(buf)
		if buf, ok = appendMap(buf, m, &b.enc, 0); !ok {
			buf = appendJSON(buf[:start], v, &b.enc)
		}
		return buf
	}
	return appendJSON(buf, v, &b.enc)
}

// AddJSON appends the piece JSON(v), like Add(JSON(v)).
func (b *Builder) AddJSON(v any) {
	if s, ok := v.(string); ok {
		b.Add(s)
		return
	}
	mark := b.open()
	at := len(b.buf)
	b.enc.tool, b.enc.lane = "", laneOther
	b.buf = appendJSON(b.buf, v, &b.enc)
	b.close(mark)
	if b.mk != nil {
		b.mk.bufText(b, at)
	}
}

// Empty reports whether the current message has no text yet.
func (b *Builder) Empty() bool { return b.text == textNone }

// CallID appends id to the current message's ToolCallIDs. With masking,
// the call piece added next (AddCall, AddCallJSON) is the call of id: call
// CallID right before it.
func (b *Builder) CallID(id string) { b.calls.all = append(b.calls.all, id) }

// ServerCallID is CallID for the call of a tool the provider runs itself
// (Anthropic's server_tool_use), whose result a later response may carry:
// with masking, its block in the synthetic Raw says so.
func (b *Builder) ServerCallID(id string) {
	b.CallID(id)
	if b.mk != nil {
		b.mk.server = append(b.mk.server, id)
	}
}

// ResultID appends id to the current message's ToolResultIDs.
func (b *Builder) ResultID(id string) { b.results.all = append(b.results.all, id) }

// open starts a piece written into buf: the current message's text moves
// into buf if it is not there yet, and a newline separates the piece from
// the one before. It returns where the piece's separator (if any) starts.
func (b *Builder) open() int {
	if b.text == textSlot {
		b.buf = append(b.buf, b.out[b.next].Content...)
		b.text = textBuf
	}
	mark := len(b.buf)
	if b.text != textNone {
		b.buf = append(b.buf, '\n')
	}
	return mark
}

// close ends the piece opened at mark, dropping it (and its separator) if
// it is blank.
func (b *Builder) close(mark int) {
	piece := b.buf[mark:]
	if b.text != textNone {
		piece = piece[1:]
	}
	if !startsWord(piece) && blank(piece) {
		b.buf = b.buf[:mark]
		return
	}
	b.text = textBuf
}

// End gives the current message (the one after the last End, the first
// after Start) the text and tool IDs added since, and moves to the next.
// A message's Content is set at [Builder.Finish] when its text had to be
// composed; ToolCallIDs and ToolResultIDs stay nil when none were added.
func (b *Builder) End() {
	// Every field but Raw (never set) ends up written, so that a pooled
	// Builder's messages need no clearing between conversations; a field
	// that already holds its value is left alone (see place).
	m := &b.out[b.next]
	if b.mk != nil {
		r := m.Role
		if !b.roleSet {
			r = ""
		}
		b.mk.end(b, b.next, r)
	}
	if !b.roleSet && m.Role != "" {
		m.Role = ""
	}
	switch b.text {
	case textNone:
		if m.Content != "" {
			m.Content = ""
		}
	case textBuf:
		// A composed text equal to the one the slot already holds is kept
		// and dropped from buf: a pooled Builder converting the same
		// conversation again (an agent compacting its whole history every
		// turn) then allocates, and writes, no text. A kept text is shared
		// with the previous conversation's message, which is safe: strings
		// are never written.
		if string(b.buf[b.composed:]) == m.Content {
			b.buf = b.buf[:b.composed]
		} else {
			b.pending = append(b.pending, span{i: b.next, end: len(b.buf)})
			b.composed = len(b.buf)
		}
	}
	if ids := b.calls.take(); ids != nil || m.ToolCallIDs != nil {
		m.ToolCallIDs = ids
	}
	if ids := b.results.take(); ids != nil || m.ToolResultIDs != nil {
		m.ToolResultIDs = ids
	}
	b.next++
	b.text, b.roleSet = textNone, false
}

// Finish sets the Content of the messages whose text was composed (and
// differs from what their slots held, see End) from one string holding
// all of them, and returns the messages.
func (b *Builder) Finish() []chitta.Message {
	all := string(b.buf)
	start := 0
	for _, p := range b.pending {
		text := all[start:p.end]
		b.out[p.i].Content = text
		if p.e > 0 {
			b.memo.fill(p.e, p.i, text)
		}
		start = p.end
	}
	if b.mk != nil {
		b.mk.finishRaw(b.out)
	}
	return b.out
}

// same reports whether a and b are the same string in memory (the same
// length at the same address): a field that already holds the string it
// is about to be given is left alone (see place) without comparing bytes;
// equal strings elsewhere in memory compare unequal and are written.
func same(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}

// startsWord reports whether s starts with a printable ASCII byte other
// than a space, which makes it not blank: the usual first byte of a text,
// tested inline before the call to blank.
func startsWord[S string | []byte](s S) bool {
	return len(s) > 0 && s[0] > ' ' && s[0] < utf8.RuneSelf
}

// blank reports whether s is empty or white space only, as
// strings.TrimSpace(s) == "" does, stopping at the first ASCII character
// that is not a space (the usual first byte of a text).
func blank[S string | []byte](s S) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return strings.TrimSpace(string(s[i:])) == ""
		}
		if c != ' ' && (c < '\t' || c > '\r') {
			return false
		}
	}
	return true
}
