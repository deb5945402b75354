package chitta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Role is the author of a message. The built-in roles are the constants
// below; "function" and "tool_result" are accepted as aliases of
// [RoleTool]. Any other role needs a weight in [Options.RoleWeights]. The
// zero value, the empty role, is rejected by [Compact].
type Role string

// Built-in roles.
const (
	RoleSystem    Role = "system"    // always kept; bypasses the budget
	RoleDeveloper Role = "developer" // OpenAI's newer name for system; always kept
	RoleUser      Role = "user"      // structural weight 1.0
	RoleAssistant Role = "assistant" // structural weight 0.8
	RoleTool      Role = "tool"      // structural weight 0.5
)

// Pinned reports whether messages of role r are always kept (system and
// developer).
func (r Role) Pinned() bool { return r == RoleSystem || r == RoleDeveloper }

// Message is one turn of a conversation.
//
// Content is what chitta scores, embeds and counts tokens of. For a message
// read by [ParseMessages] it is all the text the model will read: string
// content, text and thinking blocks, tool call names and arguments, and tool
// result content (nested blocks too).
//
// ToolCallIDs and ToolResultIDs link an assistant message that issues tool
// calls to the messages carrying their results; [Compact] keeps or drops such
// a group together. Raw, when set, is the message's original JSON object:
// [Message.MarshalJSON] returns it unchanged, so a compacted conversation
// goes back to the provider as it came. Note that encoding/json compacts
// the white space of every MarshalJSON result and, unless
// [json.Encoder.SetEscapeHTML] is false, escapes <, > and & in it; to
// send the original bytes exactly, write the survivors' Raw yourself.
//
// The zero value is a message with an empty role, which [Compact] rejects.
// A Message is a plain value; [Compact] never modifies the messages it is
// given, and survivors share Raw and the ID slices with the input.
type Message struct {
	Role    Role   // who speaks: a Role constant, or a role Options.RoleWeights weighs
	Content string // the text chitta scores, embeds and counts (see above)

	// MediaTokens are the tokens the message's non-text parts (images)
	// cost as the provider bills them, beyond Content's count; 0 means
	// none. [Compact] adds them to the message's count (budgets,
	// Stats, TurnScore.Tokens) but never passes them to the TokenCounter
	// nor embeds them; a masked message counts the media its rewritten
	// Raw still holds (none when its text was the masked result's) and
	// keeps, counted, any its Raw never showed (set by the caller).
	// [ParseMessages] sets them for images (see [AnthropicImageTokens],
	// [OpenAIImageTokens], [GeminiImageTokens] and [MaxImageTokens]); a
	// negative value is rejected by Compact.
	MediaTokens int

	// OpensWithThinking marks an assistant message whose content opens
	// with a thinking or redacted_thinking block (Anthropic's extended
	// thinking). With thinking on, Anthropic refuses a last assistant turn
	// (the assistant messages after the last prompt, with the tool
	// results between them) that does not open with such a block, and
	// unless a model thinks between tool calls only the turn's first
	// message has one: when the first kept assistant message after the
	// last prompt is not marked, [Compact] (unless
	// [Options.FreeSelection]) also keeps the nearest marked one before
	// it in the turn, with its unit. [ParseMessages] sets it from the
	// content blocks, and the adapters from the SDK's; false (the zero
	// value) means no such block.
	OpensWithThinking bool

	// ToolCallIDs are the IDs of the tool calls this message issues
	// (OpenAI tool_calls[].id, Anthropic tool_use.id).
	ToolCallIDs []string
	// ToolResultIDs are the IDs of the tool calls whose results this message
	// carries (OpenAI tool_call_id, Anthropic tool_result.tool_use_id,
	// SWE-agent tool_call_ids).
	ToolResultIDs []string
	// Raw is the original JSON object, or nil for a message built in Go
	// (an empty Raw and JSON null count as nil: encoding/json decodes a
	// null into a json.RawMessage as the bytes null).
	Raw json.RawMessage
}

// MarshalJSON returns m.Raw unchanged when it is set (an empty Raw, nil
// or not, and one holding JSON null count as unset; one holding another JSON value that is not an
// object is an error, a [*MessageError] wrapping [ErrInvalidMessages]
// naming the field Raw). Otherwise it encodes
// {"role", "content"} plus the tool linkage in OpenAI form ("tool_calls"
// with ids, "tool_call_id", or "tool_call_ids" for several results), which
// [ParseMessages] reads back to an equal Message (with Raw set), but for
// three things ParseMessages normalises: a Content of only white space
// reads back as "", an empty ID in ToolCallIDs or ToolResultIDs is
// dropped, and invalid UTF-8 in Content or an ID reads back as U+FFFD
// (encoding/json replaces it when encoding); an empty slice reads back as
// nil, and MediaTokens is not written (a message without Raw holds no
// media to send; ParseMessages reads it back as 0). A message whose Role
// is empty encodes, but does not parse.
func (m Message) MarshalJSON() ([]byte, error) {
	if raw, err := m.original(); raw != nil || err != nil {
		return raw, err
	}
	type call struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	}
	w := struct {
		Role        Role     `json:"role"`
		Content     string   `json:"content"`
		ToolCalls   []call   `json:"tool_calls,omitempty"`
		ToolCallID  string   `json:"tool_call_id,omitempty"`
		ToolCallIDs []string `json:"tool_call_ids,omitempty"`
	}{Role: m.Role, Content: m.Content}
	for _, id := range m.ToolCallIDs {
		w.ToolCalls = append(w.ToolCalls, call{ID: id, Type: "function"})
	}
	switch len(m.ToolResultIDs) {
	case 0:
	case 1:
		w.ToolCallID = m.ToolResultIDs[0]
	default:
		w.ToolCallIDs = m.ToolResultIDs
	}
	return json.Marshal(w)
}

// MarshalMessages encodes msgs as a JSON array whose elements are exactly
// what each message's MarshalJSON returns: for parsed messages, their
// original JSON objects byte for byte (white space, key order, escapes and
// number spellings included). [json.Marshal] on a []Message gives the same
// JSON values but compacts each object and escapes <, > and &. A Raw that
// is not valid JSON, or is a JSON value other than an object (or null,
// which counts as no Raw), is an error (a [*MessageError] wrapping
// [ErrInvalidMessages] naming the message), as it is for json.Marshal.
func MarshalMessages(msgs []Message) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i := range msgs {
		if i > 0 {
			b.WriteByte(',')
		}
		raw, err := msgs[i].MarshalJSON()
		if err != nil {
			var me *MessageError
			if errors.As(err, &me) {
				e := *me
				e.Index = i
				return nil, &e
			}
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		if len(msgs[i].Raw) > 0 && !json.Valid(raw) {
			return nil, &MessageError{Index: i, Field: "Raw", Msg: "not valid JSON", Err: ErrInvalidMessages}
		}
		b.Write(raw)
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

// original returns m.Raw when it holds a message's JSON, nil when the
// message has none (Raw nil, empty or JSON null: encoding/json decodes a
// null into a json.RawMessage as the bytes null), and an error wrapping
// ErrInvalidMessages when Raw is a JSON value other than an object or
// null (invalid JSON is left to the caller: json.Marshal and
// MarshalMessages report it).
func (m *Message) original() ([]byte, error) {
	raw := m.Raw
	if len(raw) == 0 {
		return nil, nil // nil, or empty but not nil (json.RawMessage{})
	}
	if raw[0] == '{' {
		return raw, nil
	}
	switch t := bytes.TrimSpace(raw); {
	case len(t) == 0 || t[0] == '{':
		return raw, nil
	case string(t) == "null":
		return nil, nil
	case json.Valid(t):
		return nil, &MessageError{Index: -1, Field: "Raw", Msg: "not a JSON object", Err: ErrInvalidMessages}
	}
	return raw, nil
}

// hasRaw reports whether raw holds a message's JSON as original reads it:
// not empty nor JSON null. A Raw that starts with '{' (the usual case)
// costs a length and a byte check.
func hasRaw(raw json.RawMessage) bool {
	return len(raw) > 0 && (raw[0] == '{' || string(bytes.TrimSpace(raw)) != "null")
}

// UnmarshalJSON reads one message object of any shape [ParseMessages]
// reads, as ParseMessages does for each element of an array, but alone:
// linkage that spans messages needs ParseMessages. json.Unmarshal into a
// []Message reads each element alone too, so a legacy function_call and
// the "function" message answering it, a Responses reasoning item and the
// item after it, and genai function calls without IDs and their responses
// are not linked: the call is left without a result (an ID holding "@-1",
// the same in every message read alone), which [Validate] reports, and
// [Compact] may keep the call apart from the message that answers it. Decode a
// conversation with ParseMessages.
func (m *Message) UnmarshalJSON(data []byte) error {
	var p parser
	msg, err := p.parse(-1, data)
	if err != nil {
		return err
	}
	*m = msg
	return nil
}

// ParseMessages reads a JSON array of chat messages in OpenAI format
// (string or part-array content, an assistant's refusal, tool_calls of functions or custom tools /
// tool_call_id, legacy function_call; reasoning_content before the content
// and, after it, eino's multi_content, user_input_multi_content and
// assistant_output_multi_content parts), Anthropic format (text, thinking, tool_use and tool_result
// blocks, an MCP connector's mcp_tool_use block read as a tool_use; a
// search_result block reads as its title, source and text blocks,
// a web_search_tool_result as the title and URL of each web_search_result
// or as its error_code, a server tool search's tool_search_tool_result as
// the names of the tools it loads, another server tool's *_tool_result
// block as its JSON) or SWE-agent format (tool_call_ids), mixed freely. It also reads
// OpenAI Responses input items (function_call / function_call_output and
// the other *_call / *_call_output pairs linked by call_id, a call read as
// its name or type and arguments, an apply_patch_call's operation as its
// type, path and diff, a code_interpreter_call's outputs as their logs,
// a file_search_call's results as their file names and texts, an
// mcp_call with its output or error, grouped, when it carries an
// approval_request_id, with the mcp_approval_request of that ID and the
// mcp_approval_response answering it; a tool_search_output as the names of
// the function and custom tools it loads, then the JSON of each tool
// definition, paired, when neither has a call_id (a search the server
// ran), with the tool_search_call right before it; a reasoning item grouped with the
// rest of the model's reply, the items after it up to the next input item
// (a user, system or developer message or a *_output item): a preamble
// message, a reasoning model's parallel calls, a later reasoning item; an
// item_reference (an item the API stored, given by its ID, which
// ParseMessages cannot read) grouped with the item_reference items right
// before and after it (a run: a reference to a stored call and one to
// its stored output, given in a row, stay together; each reference
// answers the one before it, which issues "item_reference@<index>"), the
// run grouped with the results after it whose call_id no item before
// them issues (they answer the stored call it refers to: they name the ID
// of the run's last reference in ToolResultIDs instead of their call_id)
// and with the calls before it that no later item answers, when no user,
// system or developer message comes between (the first run after such a
// call may give its stored output: the run's first reference names the
// call's ID in ToolResultIDs, so [Validate] counts the call answered),
// and a reference whose ID starts with "rs_" (the prefix of OpenAI's
// reasoning item IDs) grouped as a reasoning item is; a stored call and
// its stored output both given as references, with other items between
// them, are not tied (what a reference stands for cannot be read: give
// them in a row); a compaction item, a compaction_trigger and a
// configuration_update (settings for the later responses), each read as
// a system message, so always kept; an additional_tools item
// (role developer) read as the JSON of its tool definitions and an
// mcp_list_tools item as its server's label and each tool's name,
// description and input schema, what the model is sent; an unknown item type scored by its JSON, and issuing its
// call_id when it has one, as a program item does, which its
// program_output answers with its result) and the JSON of langchaingo's MessageContent (roles human, ai, system, tool,
// function, generic; parts, a CachedContent part read as the part it
// caches) and genai's Content (role model; parts, with
// functionCall and functionResponse paired by id, or by position when ids
// are absent, the model Contents right after one with calls being one turn
// of calls, as the SDK records a streamed reply, a Content a chunk); roles human and generic read as user, ai and model as
// assistant. Each returned Message keeps its original JSON object in Raw.
//
// Errors wrap [ErrInvalidMessages]; when one message is at fault the error
// is a [*MessageError] naming its index and field. Unknown block types and
// unknown fields are tolerated (a block of an unknown type is scored by its
// text, or by its JSON when it has none); text-bearing fields of the wrong type are
// not, nor are tool_result and search_result blocks nested more than 16
// deep in one another. A role is any non-empty string here; [Compact] decides whether it
// has a weight.
//
// [Message.MediaTokens] is set for images: an Anthropic image block by
// [AnthropicImageTokens] (or by its "media_tokens" member, a non-negative
// integer, when it has one: a count its writer knows), an OpenAI
// image_url or input_image part and a computer screenshot by
// [OpenAIImageTokens], a genai image part (inline data, in a function
// response too) by [GeminiImageTokens] (file data as
// [GeminiMaxImageTokens]; a content's part whose mediaResolution sets
// numTokens, or media_resolution num_tokens, to an integer above zero as
// exactly that, a level alone or any other count changing nothing, and a
// function response's part, which the SDK gives no media resolution,
// by the rule), a langchaingo or eino image part (whose
// provider is unknown) by [MaxImageTokens]. An Anthropic document block
// reads as "[document]", its title and context and the text of a text or
// content source; a PDF is not estimated.
func ParseMessages(data []byte) ([]Message, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: empty input, want a JSON array", ErrInvalidMessages)
	}
	if data[0] != '[' {
		return nil, fmt.Errorf("%w: want a JSON array of messages", ErrInvalidMessages)
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return nil, locateSyntaxError(data, err)
	}
	msgs := make([]Message, len(raws))
	var p parser
	for i, raw := range raws {
		m, err := p.parse(i, raw)
		if err != nil {
			return nil, err
		}
		msgs[i] = m
	}
	if len(p.refs) > 0 {
		tieReferences(msgs, p.refs)
	}
	return msgs, nil
}

// locateSyntaxError turns err, json.Unmarshal's error for the array data,
// into a *MessageError naming the message it occurs in, by re-reading the
// array one element at a time (only on this error path). An error outside
// every element (after the array) stays a plain one.
func locateSyntaxError(data []byte, err error) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, e := dec.Token(); e == nil { // the '['
		for i := 0; dec.More(); i++ {
			var raw json.RawMessage
			if e := dec.Decode(&raw); e != nil {
				return &MessageError{Index: i, Msg: err.Error(), Err: ErrInvalidMessages}
			}
		}
	}
	return fmt.Errorf("%w: %v", ErrInvalidMessages, err)
}

// wireMessage holds the fields chitta reads; each is kept raw so that a
// wrong type is reported against its field.
type wireMessage struct {
	Role         json.RawMessage `json:"role"`
	Content      json.RawMessage `json:"content"`
	ToolCalls    json.RawMessage `json:"tool_calls"`
	ToolCallID   json.RawMessage `json:"tool_call_id"`
	ToolCallIDs  json.RawMessage `json:"tool_call_ids"`
	FunctionCall json.RawMessage `json:"function_call"`
	Refusal      json.RawMessage `json:"refusal"` // an OpenAI assistant message's refusal

	// eino's schema.Message (message_shapes.go).
	ReasoningContent    json.RawMessage `json:"reasoning_content"`
	MultiContent        json.RawMessage `json:"multi_content"`
	UserInputContent    json.RawMessage `json:"user_input_multi_content"`
	AssistantGenContent json.RawMessage `json:"assistant_output_multi_content"`

	// Other shapes (message_shapes.go): Responses items, langchaingo and
	// genai contents.
	Type  json.RawMessage `json:"type"`
	Parts json.RawMessage `json:"parts"`
	Text  json.RawMessage `json:"text"`
}

// parser carries state across messages: the pending legacy function_call
// that the next "function" message answers, the Responses reasoning item
// that the next item belongs with (and the one whose reply, the model's
// items up to the next input item, the last item continued), and the calls of the last parts message with
// calls (genai, langchaingo) that the next responses without an ID answer
// by position.
type parser struct {
	pendingFunction  string
	pendingReasoning string
	reasoningReply   string
	pendingCalls     []string
	pendingSearch    string // the ID a tool_search_call without call_id issued, for the item after it
	lastSearch       string // pendingSearch as the previous item left it
	refs             []int  // the indices of the item_reference items
	// modelCalls: the message parsed last is a genai model Content whose
	// turn (with the model Contents right before it) made calls; continues
	// is modelCalls as the message before the current one left it. A
	// streamed reply is one model Content per chunk in the SDK's chat
	// history, its parallel calls spread over them: they are one turn.
	modelCalls, continues bool
}

// parseChat reads a message with a role in OpenAI, Anthropic or SWE-agent
// form (the other shapes are dispatched by parse, in message_shapes.go).
func (p *parser) parseChat(index int, raw json.RawMessage, w *wireMessage) (Message, error) {
	fail := func(field, format string, args ...any) (Message, error) {
		return Message{}, &MessageError{Index: index, Field: field, Msg: fmt.Sprintf(format, args...), Err: ErrInvalidMessages}
	}
	var role string
	if isNull(w.Role) {
		return fail("role", "missing")
	}
	if err := json.Unmarshal(w.Role, &role); err != nil {
		return fail("role", "want a string")
	}
	if role == "" {
		return fail("role", "empty")
	}
	m := Message{Role: Role(role), Raw: raw}
	var b strings.Builder
	if !isNull(w.ReasoningContent) {
		s, ok := optString(w.ReasoningContent)
		if !ok {
			return fail("reasoning_content", "want a string")
		}
		addText(&b, s)
	}
	if err := appendContent(&b, &m, w.Content, "content", 0); err != nil {
		return fail(err.field, "%s", err.msg)
	}
	if err := appendEinoParts(&b, &m, w); err != nil {
		return fail(err.field, "%s", err.msg)
	}
	if err := addStrings(&b, "", member{"refusal", w.Refusal}); err != nil {
		return fail(err.field, "%s", err.msg)
	}
	if !isNull(w.ToolCalls) {
		var calls []json.RawMessage
		if err := json.Unmarshal(w.ToolCalls, &calls); err != nil {
			return fail("tool_calls", "want an array")
		}
		for j, c := range calls {
			var call struct {
				ID       json.RawMessage `json:"id"`
				Function struct {
					Name      json.RawMessage `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
				Custom struct { // a custom (freeform) tool's call
					Name  json.RawMessage `json:"name"`
					Input json.RawMessage `json:"input"`
				} `json:"custom"`
			}
			field := "tool_calls[" + strconv.Itoa(j) + "]"
			if err := json.Unmarshal(c, &call); err != nil || !isObject(c) {
				return fail(field, "want an object")
			}
			id, ok := optString(call.ID)
			if !ok {
				return fail(field+".id", "want a string")
			}
			if id != "" {
				m.ToolCallIDs = append(m.ToolCallIDs, id)
			}
			fn, nameField, args := &call.Function.Name, field+".function.name", call.Function.Arguments
			if isNull(*fn) && isNull(args) && (!isNull(call.Custom.Name) || !isNull(call.Custom.Input)) {
				fn, nameField, args = &call.Custom.Name, field+".custom.name", call.Custom.Input
			}
			name, ok := optString(*fn)
			if !ok {
				return fail(nameField, "want a string")
			}
			addText(&b, name+" "+argumentsText(args))
		}
	}
	if !isNull(w.FunctionCall) {
		var fc struct {
			Name      json.RawMessage `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal(w.FunctionCall, &fc); err != nil || !isObject(w.FunctionCall) {
			return fail("function_call", "want an object")
		}
		name, ok := optString(fc.Name)
		if !ok {
			return fail("function_call.name", "want a string")
		}
		addText(&b, name+" "+argumentsText(fc.Arguments))
		p.pendingFunction = "function_call@" + strconv.Itoa(index)
		m.ToolCallIDs = append(m.ToolCallIDs, p.pendingFunction)
	}
	if !isNull(w.ToolCallID) {
		id, ok := optString(w.ToolCallID)
		if !ok {
			return fail("tool_call_id", "want a string")
		}
		if id != "" {
			m.ToolResultIDs = append(m.ToolResultIDs, id)
		}
	}
	if !isNull(w.ToolCallIDs) {
		var ids []string
		if err := json.Unmarshal(w.ToolCallIDs, &ids); err != nil {
			return fail("tool_call_ids", "want an array of strings")
		}
		for _, id := range ids {
			if id != "" {
				m.ToolResultIDs = append(m.ToolResultIDs, id)
			}
		}
	}
	if m.Role == "function" && len(m.ToolResultIDs) == 0 && p.pendingFunction != "" {
		m.ToolResultIDs = append(m.ToolResultIDs, p.pendingFunction)
		p.pendingFunction = ""
	}
	m.Content = b.String()
	return m, nil
}

type contentError struct{ field, msg string }

// maxContentDepth bounds how deeply tool_result (and search_result) blocks
// may nest inside one another. Real transcripts nest once; each level re-reads the rest of the
// message, so unbounded nesting made parsing quadratic (a 200 KB message
// took seconds).
const maxContentDepth = 16

// appendContent renders content (null, a string, or an array of blocks) into
// b and collects tool linkage from tool_use and tool_result blocks. depth is
// the number of tool_result and search_result blocks raw is nested in.
func appendContent(b *strings.Builder, m *Message, raw json.RawMessage, field string, depth int) *contentError {
	if isNull(raw) {
		return nil
	}
	if depth > maxContentDepth {
		return &contentError{field, "tool_result or search_result blocks nested more than " + strconv.Itoa(maxContentDepth) + " deep"}
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return &contentError{field, "invalid string"}
		}
		addText(b, s)
		return nil
	case '[':
	default:
		return &contentError{field, "want a string, an array of blocks, or null"}
	}
	var blocks []json.RawMessage
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return &contentError{field, "invalid array"}
	}
	for j, blk := range blocks {
		f := field + "[" + strconv.Itoa(j) + "]"
		blk = bytes.TrimSpace(blk)
		if len(blk) > 0 && blk[0] == '"' { // a bare string part
			if err := appendContent(b, m, blk, f, depth); err != nil {
				return err
			}
			continue
		}
		if !isObject(blk) {
			return &contentError{f, "want a block object"}
		}
		var block struct {
			Type      json.RawMessage `json:"type"`
			Text      json.RawMessage `json:"text"`
			Thinking  json.RawMessage `json:"thinking"`
			ID        json.RawMessage `json:"id"`
			Name      json.RawMessage `json:"name"`
			Input     json.RawMessage `json:"input"`
			ToolUseID json.RawMessage `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
			Title     json.RawMessage `json:"title"`
			Source    json.RawMessage `json:"source"`
			URL       json.RawMessage `json:"url"`
			Refusal   json.RawMessage `json:"refusal"`
			ToolName  json.RawMessage `json:"tool_name"`
			ImageURL  json.RawMessage `json:"image_url"`
			Detail    json.RawMessage `json:"detail"`
			// An image block's tokens, when its writer knows them (not
			// an Anthropic field: see ParseMessages).
			MediaTokens json.RawMessage `json:"media_tokens"`
		}
		if err := json.Unmarshal(blk, &block); err != nil {
			return &contentError{f, "invalid block"}
		}
		typ, ok := optString(block.Type)
		if !ok {
			return &contentError{f + ".type", "want a string"}
		}
		if j == 0 && depth == 0 && field == "content" && m.Role == RoleAssistant && (typ == "thinking" || typ == "redacted_thinking") {
			m.OpensWithThinking = true
		}
		switch typ {
		case "thinking":
			s, ok := optString(block.Thinking)
			if !ok {
				return &contentError{f + ".thinking", "want a string"}
			}
			addText(b, s)
		case "redacted_thinking":
			addText(b, "[redacted thinking]")
		case "tool_use", "server_tool_use", "mcp_tool_use":
			id, ok := optString(block.ID)
			if !ok {
				return &contentError{f + ".id", "want a string"}
			}
			if id != "" {
				m.ToolCallIDs = append(m.ToolCallIDs, id)
			}
			name, ok := optString(block.Name)
			if !ok {
				return &contentError{f + ".name", "want a string"}
			}
			addText(b, name+" "+argumentsText(block.Input))
		case "tool_result", "web_search_tool_result":
			id, ok := optString(block.ToolUseID)
			if !ok {
				return &contentError{f + ".tool_use_id", "want a string"}
			}
			if id != "" {
				m.ToolResultIDs = append(m.ToolResultIDs, id)
			}
			if typ == "web_search_tool_result" && isObject(block.Content) {
				// An error: {"type":"web_search_tool_result_error","error_code":…}
				var e struct {
					ErrorCode json.RawMessage `json:"error_code"`
				}
				s, ok := "", json.Unmarshal(block.Content, &e) == nil
				if ok {
					s, ok = optString(e.ErrorCode)
				}
				if !ok {
					return &contentError{f + ".content.error_code", "want a string"}
				}
				addText(b, s)
			} else if err := appendContent(b, m, block.Content, f+".content", depth+1); err != nil {
				return err
			}
		case "search_result", "web_search_result":
			// Anthropic: the title, the source (search_result) or URL
			// (web_search_result), then a search_result's text blocks.
			if err := addStrings(b, f+".", member{"title", block.Title}, member{"source", block.Source}, member{"url", block.URL}); err != nil {
				return err
			}
			if err := appendContent(b, m, block.Content, f+".content", depth+1); err != nil {
				return err
			}
		case "image":
			addText(b, "[image]")
			n, ok := anthropicImageTokens(block.Source), true
			if !isNull(block.MediaTokens) {
				// The caller's own count (the typed adapters' masking
				// writes it): a non-negative integer.
				ok = json.Unmarshal(block.MediaTokens, &n) == nil && n >= 0
			}
			if !ok {
				return &contentError{f + ".media_tokens", "want a non-negative integer"}
			}
			m.MediaTokens = addTokens(m.MediaTokens, n)
		case "image_url", "input_image":
			addText(b, "[image]")
			m.MediaTokens = addTokens(m.MediaTokens, openAIImageTokens(block.ImageURL, block.Detail))
		case "document":
			if err := appendDocument(b, m, blk, f, depth); err != nil {
				return err
			}
		case "file", "input_file":
			addText(b, "[document]")
		case "input_audio":
			addText(b, "[audio]")
		case "tool_reference":
			// Anthropic tool search: a result that loads the named tool.
			s, ok := optString(block.ToolName)
			if !ok {
				return &contentError{f + ".tool_name", "want a string"}
			}
			addText(b, s)
		case "refusal":
			s, ok := optString(block.Refusal)
			if !ok {
				return &contentError{f + ".refusal", "want a string"}
			}
			addText(b, s)
		default: // text, input_text, output_text and unknown types
			if strings.HasSuffix(typ, "_tool_result") {
				// Another Anthropic server tool's result (web_fetch,
				// code_execution, ...): its linkage and its JSON, as
				// adapt/anthropic scores it.
				id, ok := optString(block.ToolUseID)
				if !ok {
					return &contentError{f + ".tool_use_id", "want a string"}
				}
				if id != "" {
					m.ToolResultIDs = append(m.ToolResultIDs, id)
				}
				if names := serverToolSearchNames(typ, blk); len(names) > 0 {
					for _, n := range names { // the tools a server tool search loads, as adapt/anthropic reads them
						addText(b, n)
					}
				} else {
					addText(b, compactJSON(blk))
				}
			} else if !isNull(block.Text) {
				s, ok := optString(block.Text)
				if !ok {
					return &contentError{f + ".text", "want a string"}
				}
				addText(b, s)
			} else if !isTextType(typ) {
				// A block type this parser does not know, without text:
				// scored by its JSON, as the adapters score it, never
				// dropped.
				addText(b, compactJSON(blk))
			}
		}
	}
	return nil
}

// member is a named JSON member, for addStrings.
type member struct {
	name string
	raw  json.RawMessage
}

// addStrings adds each field's text to b, in order: a string, or nothing
// when absent or null; another type is an error naming prefix+name.
func addStrings(b *strings.Builder, prefix string, fields ...member) *contentError {
	for _, f := range fields {
		s, ok := optString(f.raw)
		if !ok {
			return &contentError{prefix + f.name, "want a string"}
		}
		addText(b, s)
	}
	return nil
}

// isTextType reports whether typ names a text block or part, whose text
// may be absent (an empty text).
func isTextType(typ string) bool {
	switch typ {
	case "text", "input_text", "output_text":
		return true
	}
	return false
}

func addText(b *strings.Builder, s string) {
	if strings.TrimSpace(s) == "" {
		return
	}
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	b.WriteString(s)
}

// argumentsText renders tool arguments: a JSON string (OpenAI encodes
// arguments as a string) is unquoted, anything else is compacted.
func argumentsText(raw json.RawMessage) string {
	if isNull(raw) {
		return ""
	}
	if s, ok := optString(raw); ok {
		return s
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}

func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// optString decodes a JSON string; absent or null is "" and ok.
func optString(raw json.RawMessage) (string, bool) {
	if isNull(raw) {
		return "", true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}
