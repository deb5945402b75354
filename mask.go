package chitta

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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
//	[chitta: output of read_file elided (1834 tokens); excerpt in memory 3f1c…]
//
// while the tool call that produced it stays verbatim, so the conversation
// keeps what the agent did and drops the stale output. Messages are then
// selected on their masked sizes. A nil *MaskOptions turns masking off; the
// zero value masks with the defaults below. A MaskOptions is read, never
// modified, and may be shared between goroutines.
//
// A tool result is the whole content of an OpenAI "tool" message, a legacy
// "function" message or a SWE-agent tool message, or one top-level
// tool_result block of an Anthropic message (a user message carrying
// several results has each judged and masked on its own; its text blocks
// stay verbatim). Results are counted in message order, blocks in block
// order. A result whose content itself carries tool linkage (nested
// tool_use or tool_result blocks) and Anthropic server-tool results
// (web_search_tool_result) are never rewritten.
type MaskOptions struct {
	// KeepRecent is how many of the newest tool results are never masked
	// (MaxResultTokens still applies to them). 0 means
	// DefaultMaskKeepRecent (3); negative is an error.
	KeepRecent int

	// MinTokens is the smallest result, in tokens of Options.Tokens, that
	// is masked. 0 means DefaultMaskMinTokens (100); negative is an error.
	MinTokens int

	// ExcludeTools names tools whose results are never masked nor cut
	// (exact, case-sensitive match on the tool name). nil means none.
	ExcludeTools []string

	// MaxResultTokens, when > 0, cuts any single result larger than this
	// (recent ones too) to its head and tail around a one-line marker, so
	// that the result counts at most MaxResultTokens tokens. 0 means no
	// cap; negative is an error.
	MaxResultTokens int
}

// maskConfig is MaskOptions with defaults applied.
type maskConfig struct {
	keepRecent, minTokens, maxResult int
	exclude                          map[string]bool
}

func resolveMask(m *MaskOptions) (*maskConfig, error) {
	if m == nil {
		return nil, nil
	}
	c := &maskConfig{keepRecent: m.KeepRecent, minTokens: m.MinTokens, maxResult: m.MaxResultTokens}
	switch {
	case m.KeepRecent < 0:
		return nil, fmt.Errorf("%w: Mask.KeepRecent %d, want >= 0 (0 means %d)", ErrInvalidOption, m.KeepRecent, DefaultMaskKeepRecent)
	case m.MinTokens < 0:
		return nil, fmt.Errorf("%w: Mask.MinTokens %d, want >= 0 (0 means %d)", ErrInvalidOption, m.MinTokens, DefaultMaskMinTokens)
	case m.MaxResultTokens < 0:
		return nil, fmt.Errorf("%w: Mask.MaxResultTokens %d, want >= 0 (0 means no cap)", ErrInvalidOption, m.MaxResultTokens)
	}
	if c.keepRecent == 0 {
		c.keepRecent = DefaultMaskKeepRecent
	}
	if c.minTokens == 0 {
		c.minTokens = DefaultMaskMinTokens
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
// -1) or one top-level tool_result block.
type toolResult struct {
	block  int
	name   string
	text   string
	tokens int
	action maskAction
}

// maskedMessage is the rewrite of one message.
type maskedMessage struct {
	results []toolResult
	elided  bool   // some result was replaced by a placeholder
	memory  string // the predicted memory ID named in the placeholders
	msg     Message
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
	type found struct {
		msg     int
		results []toolResult
		blocks  bool
	}
	var all []found
	total := 0
	names := map[string]string{} // tool call ID → name, nearest earlier call
	for i := range p.msgs {
		m := &p.msgs[i]
		if !p.scores[i].Pinned {
			if rs, blocks := resultsOf(m, names, p.scores[i].Tokens, o.tokens); len(rs) > 0 {
				all = append(all, found{i, rs, blocks})
				total += len(rs)
			}
		}
		if len(m.ToolCallIDs) > 0 {
			callNames(m, i, names)
		}
	}
	if total == 0 {
		return
	}
	p.masked = make([]*maskedMessage, len(p.msgs))
	seen := 0
	for _, f := range all {
		mm := &maskedMessage{}
		for _, r := range f.results {
			recent := seen >= total-c.keepRecent
			seen++
			switch {
			case c.exclude[r.name]:
				continue
			case !recent && r.tokens >= c.minTokens:
				r.action = maskResult
				mm.elided = true
			case c.maxResult > 0 && r.tokens > c.maxResult:
				r.action = cutResult
			default:
				continue
			}
			mm.results = append(mm.results, r)
		}
		if len(mm.results) == 0 {
			continue
		}
		if mm.elided {
			if kind, text, ok := p.novel(o, f.msg); ok {
				mm.memory = MemoryID(kind, text)
			}
		}
		msg, ok := rewrite(&p.msgs[f.msg], mm, c, o.tokens)
		if !ok {
			continue
		}
		n := o.tokens.CountTokens(msg.Content)
		s := &p.scores[f.msg]
		if n < 0 || n >= s.Tokens {
			continue // masking never makes a message larger
		}
		mm.msg = msg
		p.masked[f.msg] = mm
		s.Tokens, s.Masked = n, true
	}
}

// output returns message i as Compact returns it: rewritten when masked.
func (p *pass) output(i int) Message {
	if p.masked != nil && p.masked[i] != nil {
		return p.masked[i].msg
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
// the ID, and the masking figures of res.Stats are filled in.
func (p *pass) finishMask(o *resolved, res *Result) {
	if p.masked == nil {
		return
	}
	stored := map[int]string{}
	for _, d := range res.Distilled {
		stored[d.Index] = d.ID
	}
	st := &res.Stats
	for k, i := range res.Kept {
		mm := p.masked[i]
		if mm == nil {
			continue
		}
		s := &p.scores[i]
		if mm.memory != "" && stored[i] != mm.memory {
			mm.memory = ""
			if msg, ok := rewrite(&p.msgs[i], mm, o.mask, o.tokens); ok {
				if n := o.tokens.CountTokens(msg.Content); n >= 0 && n <= s.Tokens {
					st.AfterTokens -= s.Tokens - n
					s.Tokens, mm.msg = n, msg
					res.Messages[k] = msg
				}
			}
		}
		st.Masked++
		st.MaskedTokens += s.OriginalTokens - s.Tokens
	}
	if st.BeforeTokens > 0 {
		st.DroppedPct = 100 * float64(st.BeforeTokens-st.AfterTokens) / float64(st.BeforeTokens)
	}
}

// isResultRole reports whether messages of role r carry one tool result as
// their whole content.
func isResultRole(r Role) bool { return r == RoleTool || r == "function" || r == "tool_result" }

// resultsOf returns the tool results of m, and whether they are
// tool_result blocks (true) or the whole content. wholeTokens is the token
// count of m.Content. names maps call IDs to tool names.
func resultsOf(m *Message, names map[string]string, wholeTokens int, tc TokenCounter) ([]toolResult, bool) {
	if !isResultRole(m.Role) && len(m.ToolResultIDs) == 0 {
		return nil, false
	}
	if len(m.Raw) == 0 {
		if m.Role == RoleAssistant || len(m.ToolCallIDs) > 0 {
			return nil, false
		}
		return []toolResult{{block: -1, name: resultName(m, "", names), text: m.Content, tokens: wholeTokens}}, false
	}
	var w struct {
		Name    json.RawMessage `json:"name"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(m.Raw, &w) != nil {
		return nil, false
	}
	content := bytes.TrimSpace(w.Content)
	if len(content) > 0 && content[0] == '[' {
		var blocks []json.RawMessage
		if json.Unmarshal(content, &blocks) != nil {
			return nil, false
		}
		var out []toolResult
		for j, blk := range blocks {
			var b struct {
				Type      json.RawMessage `json:"type"`
				ToolUseID json.RawMessage `json:"tool_use_id"`
				Content   json.RawMessage `json:"content"`
			}
			if !isObject(blk) || json.Unmarshal(blk, &b) != nil {
				continue
			}
			if typ, _ := optString(b.Type); typ != "tool_result" {
				continue
			}
			var sb strings.Builder
			var linkage Message
			if appendContent(&sb, &linkage, b.Content, "", 1) != nil || len(linkage.ToolCallIDs)+len(linkage.ToolResultIDs) > 0 {
				continue // nested linkage: never rewritten
			}
			id, _ := optString(b.ToolUseID)
			text := sb.String()
			n := wholeTokens
			if text != m.Content {
				if n = tc.CountTokens(text); n < 0 {
					continue
				}
			}
			out = append(out, toolResult{block: j, name: names[id], text: text, tokens: n})
		}
		if len(out) > 0 {
			return out, true
		}
	}
	if !isResultRole(m.Role) || len(m.ToolCallIDs) > 0 {
		return nil, false
	}
	own, _ := optString(w.Name)
	return []toolResult{{block: -1, name: resultName(m, own, names), text: m.Content, tokens: wholeTokens}}, false
}

// resultName is the name of the tool whose result m carries: its own
// "name" field, else the name of the call its first result ID answers.
func resultName(m *Message, own string, names map[string]string) string {
	if own != "" {
		return own
	}
	for _, id := range m.ToolResultIDs {
		if n := names[id]; n != "" {
			return n
		}
	}
	return ""
}

// callNames records the names of the tool calls message m (at index i)
// issues: OpenAI tool_calls, Anthropic tool_use blocks, and a legacy
// function_call (whose linkage ID ParseMessages derives from i). A later
// call with the same ID replaces an earlier one, matching how results pair
// with the nearest earlier call.
func callNames(m *Message, i int, names map[string]string) {
	if len(m.Raw) == 0 {
		return
	}
	var w struct {
		ToolCalls []struct {
			ID       json.RawMessage `json:"id"`
			Function struct {
				Name json.RawMessage `json:"name"`
			} `json:"function"`
		} `json:"tool_calls"`
		Content      json.RawMessage `json:"content"`
		FunctionCall *struct {
			Name json.RawMessage `json:"name"`
		} `json:"function_call"`
	}
	if json.Unmarshal(m.Raw, &w) != nil {
		return
	}
	for _, tc := range w.ToolCalls {
		id, _ := optString(tc.ID)
		name, _ := optString(tc.Function.Name)
		if id != "" {
			names[id] = name
		}
	}
	if w.FunctionCall != nil {
		name, _ := optString(w.FunctionCall.Name)
		names["function_call@"+strconv.Itoa(i)] = name
	}
	content := bytes.TrimSpace(w.Content)
	if len(content) == 0 || content[0] != '[' {
		return
	}
	var blocks []struct {
		Type json.RawMessage `json:"type"`
		ID   json.RawMessage `json:"id"`
		Name json.RawMessage `json:"name"`
	}
	if json.Unmarshal(content, &blocks) != nil {
		return
	}
	for _, b := range blocks {
		typ, _ := optString(b.Type)
		id, _ := optString(b.ID)
		if (typ == "tool_use" || typ == "server_tool_use") && id != "" {
			names[id], _ = optString(b.Name)
		}
	}
}

// placeholder is the one-line text that replaces an elided result.
func placeholder(r *toolResult, memory string) string {
	s := MaskPrefix + "output of " + toolLabel(r.name) + " elided (" + strconv.Itoa(r.tokens) + " tokens)"
	if memory != "" {
		s += "; excerpt in memory " + memory
	}
	return s + "]"
}

// cutMarker is the line between the head and the tail of a cut result.
func cutMarker(r *toolResult) string {
	return MaskPrefix + "output of " + toolLabel(r.name) + " cut from " + strconv.Itoa(r.tokens) + " tokens to head and tail]"
}

// toolLabel renders a tool name on one line, at most 64 runes; "" is
// "a tool".
func toolLabel(name string) string {
	name = strings.Join(strings.FieldsFunc(name, unicode.IsSpace), " ")
	name = strings.ToValidUTF8(name, "\uFFFD")
	if name == "" {
		return "a tool"
	}
	if utf8.RuneCountInString(name) > 64 {
		r := []rune(name)
		name = string(r[:63]) + "…"
	}
	return name
}

// cut returns text cut to its head and tail around marker so that it
// counts at most max tokens, or ok false when even the marker alone does
// not fit. Head and tail keep the same number of runes, the most that fit
// (a binary search over CountTokens), and end and start at white space
// when there is any in them.
func cut(text, marker string, max int, tc TokenCounter) (string, bool) {
	runes := []rune(text)
	build := func(k int) string {
		head := strings.TrimRightFunc(string(runes[:k]), unicode.IsSpace)
		tail := strings.TrimLeftFunc(string(runes[len(runes)-k:]), unicode.IsSpace)
		return head + "\n" + marker + "\n" + tail
	}
	fits := func(s string) bool { n := tc.CountTokens(s); return n >= 0 && n <= max }
	if !fits(marker) {
		return "", false
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
		return marker, true
	}
	head, tail := runes[:lo], runes[len(runes)-lo:]
	if j := lastSpace(head); j > 0 {
		head = head[:j]
	}
	if j := firstSpace(tail); j >= 0 && j < len(tail)-1 {
		tail = tail[j+1:]
	}
	s := strings.TrimRightFunc(string(head), unicode.IsSpace) + "\n" + marker + "\n" + strings.TrimLeftFunc(string(tail), unicode.IsSpace)
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
	if r.action == maskResult {
		return placeholder(r, memory), true
	}
	return cut(r.text, cutMarker(r), c.maxResult, tc)
}

// rewrite builds the masked form of m: its Raw with each rewritten
// result's content replaced by a JSON string and every other byte kept,
// Content re-read from that JSON, and the linkage of m unchanged. A
// message built in Go (Raw nil) gets the new text as Content.
func rewrite(m *Message, mm *maskedMessage, c *maskConfig, tc TokenCounter) (Message, bool) {
	out := Message{Role: m.Role, ToolCallIDs: m.ToolCallIDs, ToolResultIDs: m.ToolResultIDs}
	if len(m.Raw) == 0 {
		r := &mm.results[0]
		text, ok := newText(r, mm.memory, c, tc)
		if !ok {
			return Message{}, false
		}
		out.Content = text
		return out, true
	}
	raw := []byte(m.Raw)
	if mm.results[0].block < 0 {
		text, ok := newText(&mm.results[0], mm.memory, c, tc)
		if !ok {
			return Message{}, false
		}
		var err error
		if raw, err = replaceKey(raw, "content", jsonString(text)); err != nil {
			return Message{}, false
		}
	} else {
		blocks := map[int][]byte{}
		for k := range mm.results {
			r := &mm.results[k]
			text, ok := newText(r, mm.memory, c, tc)
			if !ok {
				continue
			}
			blocks[r.block] = jsonString(text)
		}
		if len(blocks) == 0 {
			return Message{}, false
		}
		var err error
		raw, err = editKey(raw, "content", func(content []byte) ([]byte, error) {
			return editElements(content, func(j int, blk []byte) ([]byte, error) {
				if v, ok := blocks[j]; ok {
					return replaceKey(blk, "content", v)
				}
				return blk, nil
			})
		})
		if err != nil {
			return Message{}, false
		}
	}
	var pr parser
	parsed, err := pr.parse(-1, raw)
	if err != nil {
		return Message{}, false
	}
	out.Content, out.Raw = parsed.Content, raw
	return out, true
}

// jsonString encodes s as a JSON string without HTML escaping.
func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimRight(b.Bytes(), "\n")
}

// replaceKey returns the JSON object obj with the value of every top-level
// member named key (matched case-insensitively, as encoding/json reads
// it) replaced by val; every other byte is kept. An object without key is
// an error.
func replaceKey(obj []byte, key string, val []byte) ([]byte, error) {
	return editKey(obj, key, func([]byte) ([]byte, error) { return val, nil })
}

// editKey is replaceKey with the new value computed from the old one.
func editKey(obj []byte, key string, edit func([]byte) ([]byte, error)) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errNotObject
	}
	var out []byte
	last := 0 // obj[:last] is already in out
	found := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := t.(string)
		keyEnd := int(dec.InputOffset())
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if !strings.EqualFold(name, key) {
			continue
		}
		end := int(dec.InputOffset())
		start := keyEnd + bytes.IndexFunc(obj[keyEnd:], func(r rune) bool { return r != ':' && !unicode.IsSpace(r) })
		nv, err := edit(obj[start:end])
		if err != nil {
			return nil, err
		}
		out = append(append(out, obj[last:start]...), nv...)
		last, found = end, true
	}
	if !found {
		return nil, errNoKey
	}
	return append(out, obj[last:]...), nil
}

// editElements returns the JSON array arr with element j replaced by
// edit(j, element); every other byte is kept.
func editElements(arr []byte, edit func(int, []byte) ([]byte, error)) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(arr))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, errNotArray
	}
	var out []byte
	last := 0
	for j := 0; dec.More(); j++ {
		prev := int(dec.InputOffset())
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		end := int(dec.InputOffset())
		start := prev + bytes.IndexFunc(arr[prev:], func(r rune) bool { return r != ',' && !unicode.IsSpace(r) })
		nv, err := edit(j, arr[start:end])
		if err != nil {
			return nil, err
		}
		if bytes.Equal(nv, arr[start:end]) {
			continue
		}
		out = append(append(out, arr[last:start]...), nv...)
		last = end
	}
	return append(out, arr[last:]...), nil
}

type maskError string

func (e maskError) Error() string { return string(e) }

const (
	errNotObject maskError = "not a JSON object"
	errNotArray  maskError = "not a JSON array"
	errNoKey     maskError = "no such key"
)
