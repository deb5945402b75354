package chitta

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Defaults of [MaskOptions].
const (
	DefaultMaskKeepRecent = 3   // used when MaskOptions.KeepRecent is 0
	DefaultMaskMinTokens  = 100 // used when MaskOptions.MinTokens is 0
)

// MaskPrefix starts every placeholder and cut marker that masking writes.
const MaskPrefix = "[chitta: "

// MaskOptions configures observation masking ([Options.Mask]): before
// selection, the content of old, large tool results is replaced by a
// one-line placeholder such as
//
//	[chitta: read_file output elided (1834 tokens); excerpt in memory 3f1c…]
//
// while the tool call that produced it stays verbatim, so the conversation
// keeps what the agent did and drops the stale output. Messages are then
// selected on their masked sizes. A nil *MaskOptions turns masking off; the
// zero value masks with the defaults below. A MaskOptions is read, never
// modified, and may be shared between goroutines.
//
// A tool result is the whole content of an OpenAI "tool" message (an eino
// tool message's parts included: masked, its parts become null and its
// content the placeholder), a legacy
// "function" message or a SWE-agent tool message, the output of an OpenAI
// Responses function_call_output or custom_tool_call_output item (a string
// or content parts; it becomes the placeholder string), or one top-level
// tool_result block of an Anthropic message (a user message carrying
// several results has each judged and masked on its own; its text blocks
// stay verbatim). Results are counted in message order, blocks in block
// order. A result whose content itself carries tool linkage (nested
// tool_use or tool_result blocks) and Anthropic server-tool results
// (web_search_tool_result) are never rewritten, nor are the parts of
// langchaingo's or genai's JSON (the adapters in adapt/ mask those).
type MaskOptions struct {
	// KeepRecent is how many of the newest tool results are never masked
	// (MaxResultTokens still applies to them). 0 means
	// DefaultMaskKeepRecent (3); negative is an error.
	KeepRecent int

	// MinTokens is the smallest result, in tokens of Options.Tokens, that
	// is masked. 0 means DefaultMaskMinTokens (100); negative is an error.
	MinTokens int

	// ExcludeTools names tools whose results are never masked nor cut
	// (exact, case-sensitive match on the tool name; a result answering
	// calls of several tools, as a SWE-agent observation may, is each
	// one's). nil means none.
	// A result that loads tools (Anthropic tool_reference blocks, as a
	// tool search returns, or a Responses tool_search_output) is never
	// masked nor cut either: a placeholder
	// in its place would take the loaded tools' schemas out of the
	// conversation.
	ExcludeTools []string

	// MaxResultTokens, when > 0, cuts any single result larger than this
	// (recent ones too) to its head and tail around a one-line marker, so
	// that the result counts at most MaxResultTokens tokens. For a JSON
	// result the marker lists the values (as ListValues defines them) that
	// the head and tail do not show, as many as fit, before the head and
	// tail take what is left. A cap below the marker's own size leaves
	// the marker alone. 0 means no cap; negative is an error.
	MaxResultTokens int

	// ListValues is how many identifier-like values of a JSON tool
	// result (an object or array) its placeholder lists, so that the ids,
	// codes, dates and numbers the agent saw survive the elision:
	//
	//	[chitta: get_reservation_details output elided (286 tokens); values: JG7FMM, omar_davis_3817, MCO, …]
	//
	// Values are listed in order of first appearance, each once: strings
	// of 2 to 40 ASCII letters, digits and _-.:/@+# holding a digit or
	// upper-case letters without lower-case ones, and numbers of two or
	// more characters (keys never), from the result's first 32 KiB. A result whose text is not JSON lists
	// none (one that only starts as JSON lists no digits from inside a
	// word, as Python's repr 'HAT028' or a log's 1200ms), and when the values would make a message no smaller, its
	// placeholders are written without them. When the tool-call groups
	// are kept first (Actions), a kept placeholder also leaves out the
	// values that the text kept before it already shows (a pinned
	// non-system message — the live turn, the first user turn —, a kept
	// call's arguments or whole result, a placeholder of a group kept
	// before it), so that each value is listed once and more calls fit. 0 means
	// DefaultMaskListValues (32); negative lists none.
	ListValues int

	// Actions is how the tool-call groups of a masked conversation are
	// selected. The zero value, ActionsOldestFirst, keeps them before the
	// dialogue: after the pinned units, every group that fits is kept, in
	// the order Actions names, first fit, each in its cheapest form — with
	// every result masked (recent and small ones too, ExcludeTools still
	// excepted) when that is smaller — so that a call is dropped only when
	// even that does not fit; then, newest first, each degraded message
	// gets its normal masked form back while that fits (so the newest
	// results are the first to be whole again), and the formula
	// fills what is left with the dialogue. Before that, when the pinned
	// messages (the live turn, KeepLast) alone exceed the budget, those
	// carrying tool results are degraded too, oldest first, while they
	// still do — all but the one holding the newest result, which stays
	// as it is: output that cannot fit is of no use to the caller.
	// ActionsOff selects every unit by score alone, as without masking,
	// and degrades nothing. Other values are an error.
	Actions MaskActions

	// Restore, when true, returns masked results whole again, newest
	// first, while the budget left after selection allows. false (the
	// default) returns every result that masking elided as its
	// placeholder, however much budget is left.
	Restore bool

	// Cache, when set, keeps what masking reads from each message's bytes
	// (where its results sit, their listed values, the calls it issues)
	// across calls, so that re-compacting a conversation that grew by a
	// few turns scans only the new messages (see [MaskCache]). nil caches
	// nothing; output is the same either way. [NewCompactor] sets one
	// when it is nil.
	Cache *MaskCache `json:"-"`
}

// MaskActions is the order in which [MaskOptions.Actions] keeps the
// tool-call groups of a masked conversation before the dialogue. The zero
// value is [ActionsOldestFirst], the default.
type MaskActions uint8

const (
	// ActionsOldestFirst keeps the oldest groups first: the newest turns
	// are what recency and the pinned live turn already favour, and the
	// first lookups of a task (the user, the repository) are what later
	// calls refer back to. The default.
	ActionsOldestFirst MaskActions = iota
	// ActionsNewestFirst keeps the newest groups first.
	ActionsNewestFirst
	// ActionsByScore keeps the groups first in the formula's order (best
	// score first; ties: the later first).
	ActionsByScore
	// ActionsOff has no action step: groups compete with the dialogue by
	// score, as without masking (the first masking release).
	ActionsOff
)

// maskConfig is MaskOptions with defaults applied.
type maskConfig struct {
	keepRecent, minTokens, maxResult int
	values                           int // values listed per placeholder; 0 lists none
	actions                          MaskActions
	restore                          bool
	exclude                          map[string]bool
	cache                            *MaskCache
	counter                          any // counterID of the call's token counter, with a cache
	// estimate is true when the call's token counter counts as
	// EstimateTokens does (nil, or a CachedTokenCounter wrapping nil):
	// a placeholder's count is then known from its parts (placeholderWords).
	estimate bool
}

func resolveMask(m *MaskOptions, tokens TokenCounter) (*maskConfig, error) {
	if m == nil {
		return nil, nil
	}
	c := &maskConfig{keepRecent: m.KeepRecent, minTokens: m.MinTokens, maxResult: m.MaxResultTokens, values: m.ListValues, actions: m.Actions, restore: m.Restore, cache: m.Cache}
	switch {
	case m.KeepRecent < 0:
		return nil, fmt.Errorf("%w: Mask.KeepRecent %d, want >= 0 (0 means %d)", ErrInvalidOption, m.KeepRecent, DefaultMaskKeepRecent)
	case m.MinTokens < 0:
		return nil, fmt.Errorf("%w: Mask.MinTokens %d, want >= 0 (0 means %d)", ErrInvalidOption, m.MinTokens, DefaultMaskMinTokens)
	case m.MaxResultTokens < 0:
		return nil, fmt.Errorf("%w: Mask.MaxResultTokens %d, want >= 0 (0 means no cap)", ErrInvalidOption, m.MaxResultTokens)
	case m.Actions > ActionsOff:
		return nil, fmt.Errorf("%w: Mask.Actions %d, want %d (oldest first) to %d (off)", ErrInvalidOption, m.Actions, ActionsOldestFirst, ActionsOff)
	}
	if c.cache != nil {
		c.counter = counterID(tokens)
	}
	switch t := tokens.(type) {
	case nil:
		c.estimate = true
	case *CachedTokenCounter:
		c.estimate = t == nil || t.tc == nil
	}
	if c.keepRecent == 0 {
		c.keepRecent = DefaultMaskKeepRecent
	}
	if c.minTokens == 0 {
		c.minTokens = DefaultMaskMinTokens
	}
	switch {
	case c.values == 0:
		c.values = DefaultMaskListValues
	case c.values < 0:
		c.values = 0
	}
	if len(m.ExcludeTools) > 0 {
		c.exclude = make(map[string]bool, len(m.ExcludeTools))
		for _, t := range m.ExcludeTools {
			c.exclude[t] = true
		}
	}
	return c, nil
}

// maskAction is what masking does to one result.
type maskAction uint8

const (
	keepResult maskAction = iota
	maskResult            // replace by a placeholder
	cutResult             // cut to head and tail
)

// toolResult is one tool result of a message: its whole content (block
// -1) or one top-level tool_result block. spans are the JSON values its
// new text replaces (every member named content, as duplicates may
// exist).
type toolResult struct {
	block int
	whole bool // text is the message's Content
	spans []jsonSpan
	// clear are the values a new text sets to null: an eino tool
	// message's parts, whose text its Content also holds.
	clear  []jsonSpan
	name   string   // resolved when needed (pass.name)
	named  bool     // name is resolved
	nameAt jsonSpan // the message's own "name" member, if any
	callID string   // a tool_result block's tool_use_id
	text   string
	tokens int
	action maskAction
	values []string // listed in the placeholder, once listed is true
	hashes []uint64 // valueHash of each of values
	fold   uint64   // foldHashes(hashes), once listed
	listed bool
	// nameHash is valueHash(name), once named.
	nameHash uint64
	// valuesOf is, with a MaskCache, MaskCache.valuesKey of the text the
	// values of a whole result of a message with Raw were listed from.
	valuesOf uint64
}

// maskedMessage is the rewrite of one message.
type maskedMessage struct {
	results []toolResult
	texts   []string // the new text of each result; "" leaves it as it is
	direct  bool     // the message's text is its one result's: Content is the new text
	elided  bool     // some result was replaced by a placeholder
	all     bool     // every result was replaced by a placeholder
	memory  string   // the predicted memory ID named in the placeholders
	msg     Message  // the rewritten message, once built
	built   bool
	// base is the form this one copies with the values in omitted left
	// out of its placeholders (see pass.listOnce); nil for the others.
	base    *maskedMessage
	omitted []uint64 // valueHash of each value left out
	// key is, when keyed, the form's key in the MaskCache (prepareForm),
	// under which build finds or stores the rewritten message.
	key   formKey
	keyed bool
}

// setValues sets the values r's placeholder lists (listed).
func (r *toolResult) setValues(vs []string) {
	r.values, r.hashes, r.listed = vs, valueHashes(vs), true
	r.fold = foldHashes(r.hashes)
}

// list sets the values r's placeholder lists to those listValues finds
// in r.text (listed), in s's backing arrays: they are the call's, and a
// MaskCache keeps copies (flushMask).
func (r *toolResult) list(s *maskScratch, max int) {
	v, h := len(s.values), len(s.hashes)
	s.values, s.hashes = appendValues(s.values, s.hashes, r.text, max)
	r.values, r.hashes, r.listed = nil, nil, true
	if n := len(s.values); n > v {
		r.values, r.hashes = s.values[v:n:n], s.hashes[h:len(s.hashes):len(s.hashes)]
	}
	r.fold = foldHashes(r.hashes)
}

// unsetValues forgets r's values (not listed).
func (r *toolResult) unsetValues() {
	r.values, r.hashes, r.listed, r.fold = nil, nil, false, 0
}

// mask rewrites, before selection, the tool results that masking elides or
// cuts, and sets Tokens (the rewritten size), OriginalTokens and Masked of
// their messages. It needs the scores (coverage) and vectors to predict
// the memory ID distillation will give each elided message.
func (p *pass) mask(o *resolved) {
	c := o.mask
	if c == nil {
		return
	}
	// Newest first, so that the KeepRecent newest results are known
	// without reading the older messages. An older message smaller than
	// MinTokens (and than MaxResultTokens) holds no result masking would
	// touch, so its JSON is not read at all.
	left := c.keepRecent
	for i := len(p.msgs) - 1; i >= 0; i-- {
		m, s := &p.msgs[i], &p.scores[i]
		if s.Pinned || !isResultRole(m.Role) && len(m.ToolResultIDs) == 0 {
			continue
		}
		small := c.maxResult == 0 || s.Tokens <= c.maxResult
		if left == 0 && s.Tokens < c.minTokens && small {
			continue
		}
		if left > 0 && small && oneResult(m) {
			left-- // recent and within the cap: nothing to do
			continue
		}
		mm, n := p.rewrite(o, i, &left, false)
		if mm == nil {
			continue
		}
		p.setMasked(i, mm, n)
	}
}

// rewrite computes the masked form of message i and its token count, or
// nil when masking leaves the message as it is. left counts the recent
// results still to pass over (decremented per result, newest first); force
// masks every result but those of ExcludeTools, recent or small (the
// degraded form of an action record, see keepActions; left is then nil).
func (p *pass) rewrite(o *resolved, i int, left *int, force bool) (*maskedMessage, int) {
	c := o.mask
	m, s := &p.msgs[i], &p.scores[i]
	inf := p.info(o, i)
	loads := p.loadsTools(i) // its results stay whole, as ExcludeTools' do
	var mm *maskedMessage
	valid := 0 // results with a valid count
	for j := len(inf.results) - 1; j >= 0; j-- {
		pr := &inf.results[j]
		if pr.tokens < 0 {
			continue // left alone
		}
		valid++
		recent := !force && *left > 0
		if recent {
			*left--
		}
		masks := force || !recent && pr.tokens >= c.minTokens
		if c.exclude != nil || masks || c.maxResult > 0 && pr.tokens > c.maxResult {
			p.name(o, i, pr)
		}
		excluded := c.exclude != nil && p.excluded(o, i, pr)
		if masks && !excluded && !loads && !pr.listed {
			pr.list(p.scratch, c.values)
			if c.cache != nil && pr.whole && hasRaw(m.Raw) {
				pr.valuesOf = c.cache.valuesKey(pr.text)
			}
			inf.dirty = true
		}
		r := *pr
		switch {
		case excluded || loads:
			continue
		case masks:
			r.action = maskResult
		case c.maxResult > 0 && r.tokens > c.maxResult:
			r.action = cutResult
		default:
			continue
		}
		if mm == nil {
			mm = p.newForm()
			mm.direct, mm.results = inf.direct, p.scratch.makeResults(j+1)
		}
		mm.results = append(mm.results, r)
	}
	if mm == nil {
		return nil, 0
	}
	slices.Reverse(mm.results) // back to block order, for the edits
	mm.elided = slices.ContainsFunc(mm.results, func(r toolResult) bool { return r.action == maskResult })
	mm.all = len(mm.results) == valid && !slices.ContainsFunc(mm.results, func(r toolResult) bool { return r.action != maskResult })
	if mm.elided {
		if kind, text, ok := p.novel(o, i); ok {
			mm.memory = MemoryID(kind, text)
		} else {
			mm.memory = p.storedMemory(o, i)
		}
	}
	n, ok := p.prepareForm(o, i, mm)
	if ok && n >= s.OriginalTokens && mm.unlist() {
		n, ok = p.prepareForm(o, i, mm) // the values made it no smaller
	}
	if !ok || n < 0 || n >= s.OriginalTokens {
		return nil, 0 // masking never makes a message larger
	}
	return mm, n
}

// scanIDs is how many call IDs callOf compares before it indexes every
// message's calls (pass.callers): the call is usually a few messages back,
// but a message with thousands of parallel calls would make a scan per
// result quadratic.
const scanIDs = 64

// callOf returns the index of the message issuing the call that a result
// at index i with ID id answers, as Compact pairs them (answeredCall): the
// nearest earlier one, else the first later one; -1 when none. A short
// backward scan, then the index of every message's calls.
func (p *pass) callOf(id string, i int) int {
	if p.callers == nil {
		seen := 0
		for k := min(i, len(p.msgs)) - 1; k >= 0; k-- {
			ids := p.msgs[k].ToolCallIDs
			if seen += len(ids); seen > scanIDs {
				break
			}
			if slices.Contains(ids, id) {
				return k
			}
		}
		p.callers = callersOf(p.msgs)
	}
	if c, ok := answeredCall(p.callers[id], i); ok {
		return c
	}
	return -1
}

// callersOf returns, for each call ID of msgs, the indices of the messages
// issuing it, ascending and each once.
func callersOf(msgs []Message) map[string][]int {
	out := map[string][]int{}
	for k := range msgs {
		for _, id := range msgs[k].ToolCallIDs {
			if c := out[id]; len(c) == 0 || c[len(c)-1] != k {
				out[id] = append(c, k)
			}
		}
	}
	return out
}

// name resolves r.name, for a result of message i: the message's own
// "name" member when it has one, else the name of the call r answers (for
// a whole-content result, the first of the message's result IDs whose
// call is found).
func (p *pass) name(o *resolved, i int, r *toolResult) {
	if r.named {
		return
	}
	r.named = true
	p.resolveName(o, i, r)
	r.nameHash = valueHash(r.name)
}

// resolveName sets r.name (see name).
func (p *pass) resolveName(o *resolved, i int, r *toolResult) {
	m := &p.msgs[i]
	if r.nameAt.end > 0 {
		r.name, _ = stringAt(m.Raw, r.nameAt)
	}
	ids := m.ToolResultIDs
	if r.block >= 0 {
		ids = []string{r.callID}
	}
	for _, id := range ids {
		if r.name != "" {
			return
		}
		if c := p.callOf(id, i); c >= 0 {
			r.name = p.callName(o, c, id)
		}
	}
}

// excluded reports whether result r of message i (named) is that of a
// tool MaskOptions.ExcludeTools names: its name's, or for a whole result
// answering several calls (a SWE-agent observation's tool_call_ids), the
// name of any call it answers.
func (p *pass) excluded(o *resolved, i int, r *toolResult) bool {
	c := o.mask
	if c.exclude[r.name] {
		return true
	}
	if !r.whole || len(p.msgs[i].ToolResultIDs) < 2 {
		return false
	}
	for _, id := range p.msgs[i].ToolResultIDs {
		if k := p.callOf(id, i); k >= 0 && c.exclude[p.callName(o, k, id)] {
			return true
		}
	}
	return false
}

// output returns message i as Compact returns it: rewritten when masked.
func (p *pass) output(o *resolved, i int) Message {
	if p.masked != nil && p.masked[i] != nil {
		return p.masked[i].build(&p.msgs[i], o.mask.cache, o.mask.counter)
	}
	return p.msgs[i]
}

// elided reports whether message i had a result replaced by a placeholder,
// so that distillation treats its content as dropped.
func (p *pass) elided(i int) bool {
	return p.masked != nil && p.masked[i] != nil && p.masked[i].elided
}

// finishMask runs after distillation: a kept message whose placeholder
// names a memory that was not stored (a store error) is rewritten without
// the ID, and the masking figures of res.Stats are filled in. A memory
// stored for another message with the same memory text (distillation
// writes it once), or known stored before the call (o.stored), is stored:
// the placeholder keeps its ID.
func (p *pass) finishMask(o *resolved, res *Result) {
	defer p.releaseScratch() // the forms too: nothing reads them once Result is built
	if o.mask != nil {
		p.flushMask(o)
	}
	if p.masked == nil {
		return
	}
	stored := map[string]bool{}
	for _, d := range res.Distilled {
		stored[d.ID] = true
	}
	st := &res.Stats
	for k, i := range res.Kept {
		mm := p.masked[i]
		if mm == nil {
			continue
		}
		s := &p.scores[i]
		if mm.memory != "" && !stored[mm.memory] && !o.stored[mm.memory] {
			without := *mm
			without.memory, without.built, without.keyed = "", false, false
			if n, ok := without.prepare(&p.msgs[i], o.mask, o.tokens); ok && n >= 0 && n <= s.Tokens {
				st.AfterTokens -= s.Tokens - n
				s.Tokens, *mm = n, without
				res.Messages[k] = mm.build(&p.msgs[i], nil, nil)
			}
		}
		st.Masked++
		st.MaskedTokens += s.OriginalTokens - s.Tokens
	}
	if st.BeforeTokens > 0 {
		st.DroppedPct = 100 * float64(st.BeforeTokens-st.AfterTokens) / float64(st.BeforeTokens)
	}
}

// oneResult reports, without reading its JSON, that m carries one tool
// result: a tool-role message with at most one result ID. (Such a message
// holding several tool_result blocks without IDs, which no provider
// writes, still counts as one recent result.)
func oneResult(m *Message) bool {
	return isResultRole(m.Role) && len(m.ToolResultIDs) <= 1
}

// isResultRole reports whether messages of role r carry one tool result as
// their whole content.
func isResultRole(r Role) bool { return r == RoleTool || r == "function" || r == "tool_result" }

// resultsOf returns the tool results of m (without token counts; the
// text of a whole-content result is m.Content, marked whole) and reports
// whether m's text is that of its one result alone (then a rewrite's
// Content is the new text, with no re-parse). Names are not resolved (see
// pass.name).
func resultsOf(m *Message) ([]toolResult, bool) {
	whole := toolResult{block: -1, whole: true}
	if !isResultRole(m.Role) && len(m.ToolResultIDs) == 0 {
		return nil, false
	}
	if !hasRaw(m.Raw) {
		if m.Role == RoleAssistant || len(m.ToolCallIDs) > 0 {
			return nil, false
		}
		return []toolResult{whole}, true
	}
	b := []byte(m.Raw)
	var contents, outputs, parts []jsonSpan
	var name, typ, role jsonSpan
	partsShape := false // a parts or text member: ParseMessages reads such a message without content from them
	otherText := false  // tool calls render into Content too
	hasRole := false    // only chat-shaped messages and output items are rewritten
	var rs []toolResult // the tool_result blocks of the last content member
	n := 0              // its number of blocks
	it := newMembers(b, 0)
	for it.next() {
		switch {
		case it.is("role"):
			role = it.val()
			hasRole = !isNullAt(b, role)
		case it.is("parts"), it.is("text"):
			partsShape = partsShape || !isNullAt(b, it.val())
		case it.is("content"):
			rs, n = nil, 0
			if b[it.start()] == '[' { // descend: the content is read once
				var end int
				rs, n, end = blockResults(b, it.start())
				it.setEnd(end)
			}
			contents = append(contents, it.val())
		case it.is("name"):
			name = it.val()
		case it.is("type"):
			typ = it.val()
		case it.is("output"):
			outputs = append(outputs, it.val())
		case it.is("tool_calls"), it.is("function_call"), it.is("reasoning_content"):
			otherText = otherText || !isNullAt(b, it.val())
		case it.is("multi_content"), it.is("user_input_multi_content"), it.is("assistant_output_multi_content"):
			if v := it.val(); !isNullAt(b, v) {
				parts = append(parts, v) // eino: text the result holds beside content
			}
		}
	}
	if it.ok() && !hasRole && len(contents) == 0 && outputItem(b, typ, outputs) && m.Role == RoleTool && len(m.ToolCallIDs) == 0 && len(m.ToolResultIDs) == 1 {
		whole.nameAt, whole.spans = name, outputs
		return []toolResult{whole}, true
	}
	if !it.ok() || !hasRole || len(contents) == 0 {
		return nil, false
	}
	if isNullAt(b, contents[len(contents)-1]) && (partsShape || isPartsRole(json.RawMessage(b[role.start:role.end]))) {
		// a langchaingo or genai shape beside a null content, whose text
		// is its parts' (see parser.parse): never rewritten
		return nil, false
	}
	if len(rs) > 0 {
		if n == 1 && !otherText && len(m.ToolResultIDs) == 1 && len(m.ToolCallIDs) == 0 {
			rs[0].whole = true
			return rs, true
		}
		out := rs[:0]
		for _, r := range rs {
			text, linked, ok := resultText(b, r.spans[len(r.spans)-1])
			if !ok || linked {
				continue // nested linkage: never rewritten
			}
			r.text = text
			out = append(out, r)
		}
		return out, false
	}
	if !isResultRole(m.Role) || len(m.ToolCallIDs) > 0 {
		return nil, false
	}
	whole.nameAt, whole.spans, whole.clear = name, contents, parts
	return []toolResult{whole}, !otherText
}

// outputItem reports whether an object without a role, of type typ with
// output members outputs, is an OpenAI Responses function_call_output or
// custom_tool_call_output item whose output (the last member, as
// encoding/json reads it) is a string or an array of content parts, which
// a string may replace. Other *_output items (a computer screenshot, an
// MCP approval) are never rewritten.
func outputItem(b []byte, typ jsonSpan, outputs []jsonSpan) bool {
	if len(outputs) == 0 || typ.end == 0 {
		return false
	}
	if t, _ := stringAt(b, typ); t != "function_call_output" && t != "custom_tool_call_output" {
		return false
	}
	c := b[outputs[len(outputs)-1].start]
	return c == '"' || c == '['
}

// blockResults returns the top-level tool_result blocks of the content
// array that starts at b[start] (with their content spans and call IDs,
// not their text), the number of elements of the array, and the index
// after it (-1 when malformed).
func blockResults(b []byte, start int) ([]toolResult, int, int) {
	var out []toolResult
	n := 0
	el := newElements(b, start)
	for el.next() {
		n++
		if b[el.start()] != '{' {
			continue
		}
		var typ, id jsonSpan
		var contents []jsonSpan
		it := newMembers(b, el.start())
		for it.next() {
			switch {
			case it.is("type"):
				typ = it.val()
			case it.is("tool_use_id"):
				id = it.val()
			case it.is("content"):
				contents = append(contents, it.val())
			}
		}
		if !it.ok() {
			return nil, 0, -1
		}
		el.setEnd(it.stop)
		if t, _ := stringAt(b, typ); typ.end == 0 || t != "tool_result" || len(contents) == 0 {
			continue
		}
		r := toolResult{block: el.j, spans: contents}
		if id.end > 0 {
			r.callID, _ = stringAt(b, id)
		}
		out = append(out, r)
	}
	if !el.ok() {
		return nil, 0, -1
	}
	return out, n, el.stop
}

// idName is one tool call of a message: its ID and its tool's name.
type idName struct{ id, name string }

// callNamesIn returns the tool calls that message raw, at index i, issues,
// in order: OpenAI tool_calls entries, Anthropic tool_use blocks (any
// content element with an "id"), a legacy function_call (whose ID
// ParseMessages derives from i, see functionCallID; fcall reports one),
// and a Responses *_call item (its call_id and name). One pass over raw.
func callNamesIn(raw json.RawMessage, i int) (calls []idName, fcall bool) {
	b := []byte(raw)
	var out []idName
	// named adds the objects of the array at b[at], each holding the ID
	// under "id" and the name under nameKey, and returns the array's end
	// (-1 when malformed).
	named := func(at int, nameKey string) int {
		el := newElements(b, at)
		for el.next() {
			idv, nv, end := memberPair(b, el.start(), "id", nameKey)
			if id, ok := stringAt(b, idv); ok && idv.end > 0 {
				if nameKey == "function" {
					var args jsonSpan
					if nv.end > 0 {
						nv, args, _ = memberPair(b, nv.start, "name", "arguments")
					}
					// A custom tool's call (no function name nor arguments,
					// as ParseMessages decides) names its tool under "custom".
					if absentAt(b, nv) && absentAt(b, args) {
						if cv, _, _ := memberPair(b, el.start(), "custom", ""); cv.end > 0 {
							nv, _, _ = memberPair(b, cv.start, "name", "")
						}
					}
				}
				name, _ := stringAt(b, nv)
				out = append(out, idName{id, name})
			}
			el.setEnd(end)
		}
		if !el.ok() {
			return -1
		}
		return el.stop
	}
	var typ, callID, name jsonSpan // of a Responses call item
	role := false
	for it := newMembers(b, 0); it.next(); {
		at := it.start()
		switch {
		case it.is("role"):
			role = !isNullAt(b, it.val())
		case it.is("type"):
			typ = it.val()
		case it.is("call_id"):
			callID = it.val()
		case it.is("name"):
			name = it.val()
		case it.is("tool_calls") && b[at] == '[':
			it.setEnd(named(at, "function"))
		case it.is("content") && b[at] == '[':
			it.setEnd(named(at, "name"))
		case it.is("function_call"):
			nv, _, _ := memberPair(b, at, "name", "")
			name, _ := stringAt(b, nv)
			fcall = true
			out = append(out, idName{functionCallID(i), name})
		}
	}
	if t, _ := stringAt(b, typ); !role && strings.HasSuffix(t, "_call") {
		if id, _ := stringAt(b, callID); id != "" {
			n, _ := stringAt(b, name)
			out = append(out, idName{id, n})
		}
	}
	return out, fcall
}

// functionCallID is the ID ParseMessages gives the legacy function_call
// of message i.
func functionCallID(i int) string { return "function_call@" + strconv.Itoa(i) }

// memberPair returns the values of members k1 and k2 (the last of each)
// of the value at b[at] when it is an object (a missing one has an empty
// span), and the index after the value (-1 when malformed).
func memberPair(b []byte, at int, k1, k2 string) (v1, v2 jsonSpan, end int) {
	if at >= len(b) || b[at] != '{' {
		return v1, v2, skipValue(b, at)
	}
	it := newMembers(b, at)
	for it.next() {
		switch {
		case it.is(k1):
			v1 = it.val()
		case k2 != "" && it.is(k2):
			v2 = it.val()
		}
	}
	if !it.ok() {
		return jsonSpan{}, jsonSpan{}, -1
	}
	return v1, v2, it.stop
}

// unlist drops the listed values of mm's placeholders, so that the next
// prepare writes them without; false when there were none.
func (mm *maskedMessage) unlist() bool {
	some := false
	for k := range mm.results {
		r := &mm.results[k]
		some = some || len(r.values) > 0
		r.setValues(nil)
	}
	mm.built, mm.keyed = false, false
	return some
}

// placeholder is the one-line text that replaces an elided result: the
// tool, the result's size, its identifier-like values (r.values, see
// MaskOptions.ListValues) and the memory holding its excerpt.
func placeholder(r *toolResult, memory string) string {
	label := toolLabel(r.name)
	n := len(MaskPrefix) + len(label) + len(memory) + 64
	for _, v := range r.values {
		n += len(v) + 2
	}
	b := make([]byte, 0, n)
	b = append(append(append(b, MaskPrefix...), label...), " output elided ("...)
	b = append(strconv.AppendInt(b, int64(r.tokens), 10), " tokens)"...)
	for k, v := range r.values {
		if k == 0 {
			b = append(b, "; values: "...)
		} else {
			b = append(b, ", "...)
		}
		b = append(b, v...)
	}
	if memory != "" {
		b = append(append(b, "; excerpt in memory "...), memory...)
	}
	b = append(b, ']')
	return unsafe.String(unsafe.SliceData(b), len(b)) // b is never written again: no copy
}

// placeholderWords returns CountWords(placeholder(r, memory)) without
// writing it: the prefix, the label's words (toolLabel leaves no white
// space at its ends), "output elided (N tokens)", "values:" and one word a
// value (values hold no white space), "excerpt in memory ID" (a MemoryID
// is hex).
func placeholderWords(r *toolResult, memory string) int {
	n := 5 + CountWords(toolLabel(r.name))
	if len(r.values) > 0 {
		n += 1 + len(r.values)
	}
	if memory != "" {
		n += 4
	}
	return n
}

// cutMarker is the line between the head and the tail of a cut result,
// listing values (those of r.values that the kept head and tail do not
// show).
func cutMarker(r *toolResult, values []string) string {
	s := MaskPrefix + toolLabel(r.name) + " output cut from " + strconv.Itoa(r.tokens) + " tokens to head and tail"
	if len(values) > 0 {
		s += "; values: " + strings.Join(values, ", ")
	}
	return s + "]"
}

// cutValues returns the values of r.values that neither head nor tail
// shows as a whole word (see showsValue).
func cutValues(r *toolResult, head, tail string) []string {
	var out []string
	for _, v := range r.values {
		if !showsValue(head, v) && !showsValue(tail, v) {
			out = append(out, v)
		}
	}
	return out
}

// showsValue reports whether v occurs in text as a whole word: not
// preceded nor followed by a byte a value may hold (see valueByte), but
// for a trailing '.' or ':' that ends a sentence.
func showsValue(text, v string) bool {
	for from := 0; ; {
		k := strings.Index(text[from:], v)
		if k < 0 {
			return false
		}
		a, b := from+k, from+k+len(v)
		if (a == 0 || !valueByte(text[a-1])) && (b == len(text) || !valueByte(text[b]) ||
			(text[b] == '.' || text[b] == ':') && (b+1 == len(text) || !valueByte(text[b+1]))) {
			return true
		}
		from = a + 1
	}
}

// toolLabel renders a tool name on one line, at most 64 runes; "" is
// "a tool".
func toolLabel(name string) string {
	if strings.ContainsFunc(name, unicode.IsSpace) || !utf8.ValidString(name) {
		name = strings.Join(strings.FieldsFunc(name, unicode.IsSpace), " ")
		name = strings.ToValidUTF8(name, "\uFFFD")
	}
	if name == "" {
		return "a tool"
	}
	if utf8.RuneCountInString(name) > 64 {
		r := []rune(name)
		name = string(r[:63]) + "…"
	}
	return name
}

// cut returns the text of result r cut to its head and tail around a
// marker (cutMarker) so that it counts at most max tokens. When even the
// marker alone does not fit, it returns the marker alone, without values,
// if that counts fewer tokens than r, and ok false otherwise. The marker lists the values of
// r.values that the head and tail do not show: as many as fit with no
// head and tail, first appearance first; head and tail then keep the same
// number of runes, the most that fit (a binary search over CountTokens),
// and end and start at white space when there is any in them.
func cut(r *toolResult, max int, tc TokenCounter) (string, bool) {
	text := r.text
	runes := []rune(text)
	fits := func(s string) bool { n := tc.CountTokens(s); return n >= 0 && n <= max }
	values := r.values
	if !fits(cutMarker(r, values)) {
		// The most values that fit with the marker alone (none if need be).
		lo, hi := 0, len(values)
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if fits(cutMarker(r, values[:mid])) {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		values = values[:lo]
		if marker := cutMarker(r, values); !fits(marker) {
			if n := tc.CountTokens(marker); n >= 0 && n < r.tokens {
				return marker, true // over max, but the least a cut can be
			}
			return "", false
		}
	}
	lr := *r
	lr.values = values
	join := func(head, tail string) string {
		return head + "\n" + cutMarker(r, cutValues(&lr, head, tail)) + "\n" + tail
	}
	build := func(k int) string {
		return join(strings.TrimRightFunc(string(runes[:k]), unicode.IsSpace), strings.TrimLeftFunc(string(runes[len(runes)-k:]), unicode.IsSpace))
	}
	lo, hi := 0, len(runes)/2 // build(lo) fits; find the largest such k
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fits(build(mid)) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo == 0 {
		return cutMarker(r, values), true
	}
	head, tail := runes[:lo], runes[len(runes)-lo:]
	if j := lastSpace(head); j > 0 {
		head = head[:j]
	}
	if j := firstSpace(tail); j >= 0 && j < len(tail)-1 {
		tail = tail[j+1:]
	}
	s := join(strings.TrimRightFunc(string(head), unicode.IsSpace), strings.TrimLeftFunc(string(tail), unicode.IsSpace))
	if !fits(s) {
		s = build(lo)
	}
	return s, true
}

func lastSpace(r []rune) int {
	for i := len(r) - 1; i >= 0; i-- {
		if unicode.IsSpace(r[i]) {
			return i
		}
	}
	return -1
}

func firstSpace(r []rune) int {
	for i, c := range r {
		if unicode.IsSpace(c) {
			return i
		}
	}
	return -1
}

// newText returns the text that replaces result r: its placeholder, or
// its head and tail; ok is false when a cut cannot shrink it.
func newText(r *toolResult, memory string, c *maskConfig, tc TokenCounter) (string, bool) {
	if !r.listed {
		r.setValues(listValues(r.text, c.values))
	}
	if r.action == maskResult {
		return placeholder(r, memory), true
	}
	return cut(r, c.maxResult, tc)
}

// prepare computes the new text of every result of mm and returns the
// token count of the rewritten message (its new Content plus framing). For a message whose text is
// its one result's, the Content is that text and the JSON is built only
// when the message is returned (build); otherwise it is built now and read
// back. With the default estimate (maskConfig.estimate), such a message
// whose result is a placeholder is counted from the placeholder's parts
// (placeholderWords) and its text, too, is written only if it is returned.
// ok is false when no result can be rewritten.
func (mm *maskedMessage) prepare(m *Message, c *maskConfig, tc TokenCounter) (int, bool) {
	if c.estimate && len(mm.results) == 1 && mm.results[0].action == maskResult && (!hasRaw(m.Raw) || mm.direct) {
		r := &mm.results[0]
		if !r.listed {
			r.setValues(listValues(r.text, c.values))
		}
		mm.texts, mm.built = nil, false // written by build
		return addTokens(placeholderWords(r, mm.memory)*13/10, directMedia(m)), true
	}
	mm.texts = make([]string, len(mm.results))
	some := false
	for k := range mm.results {
		if text, ok := newText(&mm.results[k], mm.memory, c, tc); ok {
			mm.texts[k], some = text, true
		}
	}
	if !some {
		return 0, false
	}
	if !hasRaw(m.Raw) || mm.direct && len(mm.results) == 1 {
		// Framing (role, linkage) is unchanged by masking; the result's
		// media are gone with it, those its Raw does not show are kept
		// (as build keeps them).
		counted := *m
		counted.Content, counted.MediaTokens = mm.texts[0], directMedia(m)
		return countMessage(tc, &counted), true
	}
	msg := mm.build(m, nil, nil)
	if !mm.built {
		return 0, false
	}
	return countMessage(tc, &msg), true
}

// directMedia returns the MediaTokens of a rewrite of m whose Content is
// its one result's new text, as build returns it: none without Raw,
// else those m's Raw does not show (keptMedia).
func directMedia(m *Message) int {
	if m.MediaTokens == 0 || !hasRaw(m.Raw) {
		return 0
	}
	return keptMedia(m, 0)
}

// keptMedia returns the MediaTokens of a masked form of m whose rewritten
// Raw holds media the parser counts as rewritten: m's MediaTokens less
// those its own Raw holds, which the parser counts (what the rewrite may
// have removed), plus rewritten. For a message ParseMessages read that is
// rewritten (the typed adapters' synthetic Raw shows each image's count
// too); a message whose MediaTokens its Raw does not show keeps them all,
// erring on the safe side.
func keptMedia(m *Message, rewritten int) int {
	var pr parser
	orig, err := pr.parse(-1, m.Raw)
	if err != nil {
		return m.MediaTokens
	}
	return addTokens(max(0, m.MediaTokens-orig.MediaTokens), rewritten)
}

// build returns the masked form of m: its Raw with each rewritten result's
// content replaced by a JSON string and every other byte kept, Content the
// new text (or read back from that JSON when the message holds more than
// its one result: by chatContent, else by the parser), and the linkage of
// m unchanged. A message built in Go (Raw nil) gets the new text as
// Content. On failure (a rewritten JSON that does not parse, which the
// fuzz tests have not found) it returns m unchanged with mm.built false.
func (mm *maskedMessage) build(m *Message, cache *MaskCache, counter any) Message {
	if mm.built {
		return mm.msg
	}
	if mm.keyed && hasRaw(m.Raw) && cache != nil {
		if raw, content, media, ok := cache.formBuilt(counter, mm.key); ok {
			mm.msg = Message{Role: m.Role, Content: content, MediaTokens: media, Raw: append(make(json.RawMessage, 0, len(raw)), raw...), ToolCallIDs: m.ToolCallIDs, ToolResultIDs: m.ToolResultIDs}
			mm.built = true
			return mm.msg
		}
	}
	if mm.texts == nil { // a cached form's count was reused (prepareForm)
		mm.texts = make([]string, len(mm.results))
		for k := range mm.results {
			mm.texts[k] = placeholder(&mm.results[k], mm.memory)
		}
	}
	out := Message{Role: m.Role, ToolCallIDs: m.ToolCallIDs, ToolResultIDs: m.ToolResultIDs}
	if !hasRaw(m.Raw) {
		out.Content = mm.texts[0]
		mm.msg, mm.built = out, true
		return out
	}
	if len(mm.results) == 1 && len(mm.results[0].spans) == 1 && len(mm.results[0].clear) == 0 && mm.texts[0] != "" {
		// One span (the usual case): the JSON string is written in place.
		s, text := mm.results[0].spans[0], mm.texts[0]
		raw := make([]byte, 0, len(m.Raw)-(s.end-s.start)+len(text)+len(text)/8+2)
		raw = appendJSONString(append(raw, m.Raw[:s.start]...), text)
		out.Raw = append(raw, m.Raw[s.end:]...)
	} else {
		var edits []edit
		for k := range mm.results {
			if mm.texts[k] == "" {
				continue
			}
			val := appendJSONString(nil, mm.texts[k])
			for _, s := range mm.results[k].spans {
				edits = append(edits, edit{s, val})
			}
			for _, s := range mm.results[k].clear {
				edits = append(edits, edit{s, []byte("null")})
			}
		}
		slices.SortFunc(edits, func(a, b edit) int { return cmp.Compare(a.span.start, b.span.start) })
		out.Raw = splice(m.Raw, edits)
	}
	if mm.direct && len(mm.results) == 1 {
		out.Content = mm.texts[0]
	} else if content, ok := chatContent(out.Raw); ok && m.MediaTokens == 0 {
		out.Content = content // as the parser reads it back (mask_content.go)
	} else {
		var pr parser
		parsed, err := pr.parse(-1, out.Raw)
		if err != nil {
			return *m
		}
		out.Content, out.MediaTokens = parsed.Content, parsed.MediaTokens
	}
	if m.MediaTokens > 0 {
		out.MediaTokens = keptMedia(m, out.MediaTokens)
	}
	mm.msg, mm.built = out, true
	if mm.keyed && cache != nil {
		cache.putFormBuilt(counter, mm.key, out.Raw, out.Content, out.MediaTokens)
	}
	return out
}
