package chitta

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The Content of a rewritten message, without encoding/json.
//
// A masked message that holds more than its one result (an Anthropic user
// message with several tool_result blocks, text beside a tool_result) gets
// its new Content by reading its rewritten Raw back, which masking does
// for every form it counts. chatContent reads it with the package's own
// scanner instead of the parser: it checks the Raw as strictly as
// encoding/json does, then renders the content blocks as appendContent
// does. It handles the chat shape whose Content is its content alone; on
// anything else (tool_calls, function_call, tool_call_ids, eino's
// reasoning and parts, another shape,
// a key that is not plain ASCII, input the parser rejects) it reports
// false and the caller parses. resultsOf reads the text of each
// tool_result block the same way (resultText), once per message.

// chatContent returns parse(-1, raw).Content, for a chat message whose
// Content comes from its content member alone; ok is false when it cannot
// say exactly (the parser then decides, and may fail).
func chatContent(raw []byte) (string, bool) {
	start := skipSpace(raw, 0)
	if start == len(raw) || raw[start] != '{' || !validJSON(raw, start) {
		return "", false
	}
	var role, content, ids jsonSpan
	it := newMembers(raw, start)
	for it.next() {
		key := it.key
		if !plainKey(key) {
			return "", false
		}
		switch {
		case plainKeyIs(key, "role"):
			role = it.val()
		case plainKeyIs(key, "content"):
			content = it.val()
		case plainKeyIs(key, "tool_call_id"):
			ids = it.val()
		case plainKeyIs(key, "tool_calls"), plainKeyIs(key, "function_call"), plainKeyIs(key, "tool_call_ids"),
			plainKeyIs(key, "reasoning_content"), plainKeyIs(key, "multi_content"),
			plainKeyIs(key, "user_input_multi_content"), plainKeyIs(key, "assistant_output_multi_content"):
			if v := it.val(); !isNullAt(raw, v) {
				return "", false // text or linkage this reader does not render
			}
		}
	}
	switch {
	case !it.ok(), role.end == 0, content.end == 0, isNullAt(raw, content):
		return "", false // another shape, or no content: the parser decides
	case raw[role.start] != '"' || role.end-role.start == 2:
		return "", false // a role that is not a non-empty string: an error
	case ids.end > 0 && raw[ids.start] != '"' && !isNullAt(raw, ids):
		return "", false
	}
	var b strings.Builder
	var linked bool
	if !renderContent(&b, &linked, raw, content, 0) {
		return "", false
	}
	return b.String(), true
}

// resultText returns what appendContent(…, depth 1) renders of the
// content value at v of a tool_result block of raw, and whether that
// content carries tool linkage of its own (a nested tool_use or
// tool_result block with an ID); ok is false where appendContent fails.
// It reads v itself when v is valid JSON of the shapes chatContent reads,
// and asks appendContent otherwise.
func resultText(raw []byte, v jsonSpan) (text string, linked, ok bool) {
	if v.end-v.start >= 2 && raw[v.start] == '"' {
		// unquoteAt checks a string as validString does while it decodes.
		if s, ok := unquoteAt(raw, v); ok {
			if strings.TrimSpace(s) == "" {
				return "", false, true // addText adds nothing
			}
			return s, false, true
		}
	}
	var b strings.Builder
	if validValue(raw, v.start, 0) == v.end && renderContent(&b, &linked, raw, v, 1) {
		return b.String(), linked, true
	}
	b.Reset()
	var m Message
	if appendContent(&b, &m, raw[v.start:v.end], "", 1) != nil {
		return "", false, false
	}
	return b.String(), len(m.ToolCallIDs)+len(m.ToolResultIDs) > 0, true
}

// plainKeyIs is keyIs for a key that plainKey accepts.
func plainKeyIs(key []byte, field string) bool {
	if len(key) != len(field) {
		return false
	}
	for i := range key {
		if lowerASCII(key[i]) != field[i] {
			return false
		}
	}
	return true
}

// plainKey reports whether an object key is plain ASCII without escapes,
// which keyIs matches exactly as encoding/json does.
func plainKey(key []byte) bool {
	for _, c := range key {
		if c == '\\' || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// renderContent adds the text of the content value v (null, a string or
// an array of blocks), nested in depth tool_result blocks, to b as
// appendContent does, and sets *linked when a block carries tool linkage
// (an ID that appendContent adds to the message); false where
// appendContent fails or this reader cannot say. v is valid JSON.
func renderContent(b *strings.Builder, linked *bool, raw []byte, v jsonSpan, depth int) bool {
	if isNullAt(raw, v) {
		return true
	}
	if depth > maxContentDepth {
		return false
	}
	switch raw[v.start] {
	case '"':
		s, ok := unquoteAt(raw, v)
		if ok {
			addText(b, s)
		}
		return ok
	case '[':
	default:
		return false
	}
	el := newElements(raw, v.start)
	for el.next() {
		blk := el.val()
		switch raw[blk.start] {
		case '"':
			if !renderContent(b, linked, raw, blk, depth) {
				return false
			}
			continue
		case '{':
		default:
			return false // not a block object
		}
		if !renderBlock(b, linked, raw, blk, depth) {
			return false
		}
	}
	return el.ok()
}

// renderBlock adds the text of the block object at blk of raw to b as
// appendContent does (see renderContent).
func renderBlock(b *strings.Builder, linked *bool, raw []byte, blk jsonSpan, depth int) bool {
	var v [len(blockFields)]jsonSpan // the last value of each field
	it := newMembers(raw, blk.start)
	for it.next() {
		if !plainKey(it.key) {
			return false
		}
		for k, f := range blockFields {
			if plainKeyIs(it.key, f) {
				v[k] = it.val()
				break
			}
		}
	}
	if !it.ok() {
		return false
	}
	typ, text, thinking, id, name, input, useID, content, title, source, url, refusal, toolName, context := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13]
	t, ok := optStringAt(raw, typ)
	if !ok {
		return false
	}
	switch t {
	case "thinking":
		s, ok := optStringAt(raw, thinking)
		if !ok {
			return false
		}
		addText(b, s)
	case "redacted_thinking":
		addText(b, "[redacted thinking]")
	case "tool_use", "server_tool_use", "mcp_tool_use":
		callID, ok := optStringAt(raw, id)
		if !ok {
			return false
		}
		*linked = *linked || callID != ""
		n, ok := optStringAt(raw, name)
		if !ok {
			return false
		}
		args, ok := argumentsAt(raw, input)
		if !ok {
			return false
		}
		addText(b, n+" "+args)
	case "tool_result", "web_search_tool_result":
		resultID, ok := optStringAt(raw, useID)
		if !ok {
			return false
		}
		*linked = *linked || resultID != ""
		if content.end > 0 && !renderContent(b, linked, raw, content, depth+1) {
			return false
		}
	case "search_result", "web_search_result":
		for _, f := range [...]jsonSpan{title, source, url} {
			s, ok := optStringAt(raw, f)
			if !ok {
				return false
			}
			addText(b, s)
		}
		if content.end > 0 && !renderContent(b, linked, raw, content, depth+1) {
			return false
		}
	case "image", "image_url", "input_image":
		addText(b, "[image]")
	case "document":
		for _, f := range [...]jsonSpan{title, source, context} {
			if f.end > 0 && !isNullAt(raw, f) {
				return false // its title, context or text: left to the parser
			}
		}
		addText(b, "[document]")
	case "file", "input_file":
		addText(b, "[document]")
	case "input_audio":
		addText(b, "[audio]")
	case "tool_reference":
		s, ok := optStringAt(raw, toolName)
		if !ok {
			return false
		}
		addText(b, s)
	case "refusal":
		s, ok := optStringAt(raw, refusal)
		if !ok {
			return false
		}
		addText(b, s)
	default:
		if strings.HasSuffix(t, "_tool_result") {
			return false // another server tool's result: left to the parser
		}
		if text.end > 0 && !isNullAt(raw, text) {
			s, ok := optStringAt(raw, text)
			if !ok {
				return false
			}
			addText(b, s)
		} else if !isTextType(t) {
			addText(b, compactJSON(raw[blk.start:blk.end])) // an unknown type: its JSON
		}
	}
	return true
}

// blockFields are the members of a block that appendContent reads, in
// the order renderBlock unpacks them.
var blockFields = [...]string{"type", "text", "thinking", "id", "name", "input", "tool_use_id", "content", "title", "source", "url", "refusal", "tool_name", "context"}

// optStringAt is optString on the value at v: absent or null is "".
func optStringAt(raw []byte, v jsonSpan) (string, bool) {
	if v.end == 0 || isNullAt(raw, v) {
		return "", true
	}
	return unquoteAt(raw, v)
}

// argumentsAt is argumentsText on the value at v (absent: ""): a string
// unquoted, any other value with the white space between its tokens
// removed, as json.Compact does.
func argumentsAt(raw []byte, v jsonSpan) (string, bool) {
	if v.end == 0 || isNullAt(raw, v) {
		return "", true
	}
	if raw[v.start] == '"' {
		return unquoteAt(raw, v)
	}
	out := make([]byte, 0, v.end-v.start)
	for i := v.start; i < v.end; i++ {
		switch c := raw[i]; c {
		case ' ', '\t', '\n', '\r':
		case '"':
			e := skipString(raw, i)
			if e < 0 || e > v.end {
				return "", false
			}
			out = append(out, raw[i:e]...)
			i = e - 1
		default:
			out = append(out, c)
		}
	}
	return string(out), true
}

// unquoteAt decodes the JSON string at v (which validJSON accepted) as
// encoding/json does: escapes decoded, a \u surrogate pair combined, a
// lone surrogate and each byte of invalid UTF-8 read as U+FFFD.
func unquoteAt(raw []byte, v jsonSpan) (string, bool) {
	if v.end-v.start < 2 || raw[v.start] != '"' || raw[v.end-1] != '"' {
		return "", false
	}
	s := raw[v.start+1 : v.end-1]
	r := 0
	for r < len(s) {
		for r < len(s) && jsonPlain[s[r]] {
			r++
		}
		if r == len(s) || s[r] < utf8.RuneSelf {
			break
		}
		rr, size := utf8.DecodeRune(s[r:])
		if rr == utf8.RuneError && size == 1 {
			break
		}
		r += size
	}
	if r == len(s) {
		return string(s), true
	}
	out := make([]byte, r, len(s)+8)
	copy(out, s[:r])
	for r < len(s) {
		switch c := s[r]; {
		case c == '\\':
			if r+1 >= len(s) {
				return "", false
			}
			switch e := s[r+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				rr := hex4(s[r:])
				if rr < 0 {
					return "", false
				}
				r += 6
				if utf16.IsSurrogate(rr) {
					if dec := utf16.DecodeRune(rr, hex4(s[r:])); dec != utf8.RuneError {
						out = utf8.AppendRune(out, dec)
						r += 6
						continue
					}
					rr = utf8.RuneError
				}
				out = utf8.AppendRune(out, rr)
				continue
			default:
				return "", false
			}
			r += 2
		case c == '"' || c < ' ':
			return "", false
		case c < utf8.RuneSelf:
			out = append(out, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			out = utf8.AppendRune(out, rr)
			r += size
		}
	}
	return string(out), true
}

// hex4 returns the code point of the escape \uXXXX that s starts with, or
// -1.
func hex4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// maxValidDepth bounds the nesting validJSON follows; deeper input is
// left to encoding/json (whose own limit is 10 000).
const maxValidDepth = 256

// validJSON reports whether raw, from start, is one JSON value followed
// by white space only, as encoding/json's scanner accepts it (strings
// may hold invalid UTF-8; no control bytes, only the escapes JSON
// defines), nested at most maxValidDepth deep.
func validJSON(raw []byte, start int) bool {
	end := validValue(raw, start, 0)
	return end >= 0 && skipSpace(raw, end) == len(raw)
}

// validValue returns the index after the valid JSON value at raw[i] (after
// white space), or -1.
func validValue(raw []byte, i, depth int) int {
	i = skipSpace(raw, i)
	if i >= len(raw) {
		return -1
	}
	switch c := raw[i]; {
	case c == '"':
		return validString(raw, i)
	case c == '{' || c == '[':
		if depth >= maxValidDepth {
			return -1
		}
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		i = skipSpace(raw, i+1)
		if i < len(raw) && raw[i] == closing {
			return i + 1
		}
		for {
			if c == '{' {
				if i >= len(raw) || raw[i] != '"' {
					return -1
				}
				if i = validString(raw, i); i < 0 {
					return -1
				}
				if i = skipSpace(raw, i); i >= len(raw) || raw[i] != ':' {
					return -1
				}
				i++
			}
			if i = validValue(raw, i, depth+1); i < 0 {
				return -1
			}
			i = skipSpace(raw, i)
			switch {
			case i >= len(raw):
				return -1
			case raw[i] == closing:
				return i + 1
			case raw[i] != ',':
				return -1
			}
			i = skipSpace(raw, i+1)
		}
	case c == 't':
		return validLiteral(raw, i, "true")
	case c == 'f':
		return validLiteral(raw, i, "false")
	case c == 'n':
		return validLiteral(raw, i, "null")
	default:
		return validNumber(raw, i)
	}
}

func validLiteral(raw []byte, i int, lit string) int {
	if len(raw)-i < len(lit) || string(raw[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// validString returns the index after the string at raw[i] == '"', or -1
// on a control byte or an escape JSON does not define.
func validString(raw []byte, i int) int {
	for j := i + 1; j < len(raw); j++ {
		for j < len(raw) && stringPlain[raw[j]] {
			j++
		}
		if j == len(raw) {
			break
		}
		switch c := raw[j]; {
		case c == '"':
			return j + 1
		case c < ' ':
			return -1
		case c == '\\':
			if j+1 >= len(raw) {
				return -1
			}
			switch raw[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j++
			case 'u':
				if hex4(raw[j:]) < 0 {
					return -1
				}
				j += 5
			default:
				return -1
			}
		}
	}
	return -1
}

// stringPlain holds the bytes a JSON string may hold as they are (all
// but control bytes, '"' and '\\'; invalid UTF-8 included, as
// encoding/json's scanner accepts it).
var stringPlain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// validNumber returns the index after the number at raw[i]
// (-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?), or -1.
func validNumber(raw []byte, i int) int {
	digits := func(j int) int {
		k := j
		for k < len(raw) && '0' <= raw[k] && raw[k] <= '9' {
			k++
		}
		return k
	}
	if i < len(raw) && raw[i] == '-' {
		i++
	}
	switch {
	case i >= len(raw):
		return -1
	case raw[i] == '0':
		i++
	case '1' <= raw[i] && raw[i] <= '9':
		i = digits(i)
	default:
		return -1
	}
	if i < len(raw) && raw[i] == '.' {
		k := digits(i + 1)
		if k == i+1 {
			return -1
		}
		i = k
	}
	if i < len(raw) && (raw[i] == 'e' || raw[i] == 'E') {
		i++
		if i < len(raw) && (raw[i] == '+' || raw[i] == '-') {
			i++
		}
		k := digits(i)
		if k == i {
			return -1
		}
		i = k
	}
	return i
}
