package chitta

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// This file reads the message shapes other than OpenAI chat, Anthropic and
// SWE-agent messages: OpenAI Responses input items that have no role
// (function_call, function_call_output, reasoning, compaction and the other
// *_call / *_call_output items), and the JSON of langchaingo's
// llms.MessageContent and genai's Content (a role and "parts").

// parse reads one message of any shape ParseMessages accepts.
func (p *parser) parse(index int, raw json.RawMessage) (Message, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return Message{}, &MessageError{Index: index, Msg: "want a JSON object", Err: ErrInvalidMessages}
	}
	var w wireMessage
	if err := json.Unmarshal(raw, &w); err != nil {
		return Message{}, &MessageError{Index: index, Msg: err.Error(), Err: ErrInvalidMessages}
	}
	var (
		m   Message
		err error
	)
	reasoning, run := p.pendingReasoning, p.reasoningReply
	p.reasoningReply = ""
	p.lastSearch, p.pendingSearch = p.pendingSearch, ""
	p.continues, p.modelCalls = p.modelCalls, false
	switch {
	case isNull(w.Role) && (!isNull(w.Type) || isBareReference(raw)) || string(w.Type) == `"additional_tools"`:
		m, err = p.parseItem(index, raw)
	case isNull(w.Content) && (!isNull(w.Parts) || (!isNull(w.Text) && !isNull(w.Role)) || isPartsRole(w.Role)):
		// (a Content without parts: genai omits them, langchaingo writes
		// null; its role still maps)
		m, err = p.parseParts(index, raw, &w)
	default:
		m, err = p.parseChat(index, raw, &w)
	}
	if err != nil {
		return Message{}, err
	}
	switch {
	case reasoning != "" && p.pendingReasoning == reasoning:
		// The item after a reasoning item belongs with it (a reasoning
		// item after one links itself and becomes the pending one).
		m.ToolResultIDs = append(m.ToolResultIDs, reasoning)
		p.pendingReasoning = ""
		run = reasoning
	case run == "" || m.Role != RoleAssistant:
		return m, nil
	default:
		// The model's items that follow it up to the next input item are
		// the rest of its reply — a preamble message, parallel calls, a
		// later reasoning item —, each of which the API wants behind the
		// reasoning item ("provided without its required 'reasoning'
		// item").
		m.ToolResultIDs = append(m.ToolResultIDs, run)
	}
	if m.Role == RoleAssistant {
		p.reasoningReply = run
	}
	return m, nil
}

// responsesItem holds the fields of a Responses input item chitta reads.
type responsesItem struct {
	Type              json.RawMessage `json:"type"`
	ID                json.RawMessage `json:"id"`
	CallID            json.RawMessage `json:"call_id"`
	ApprovalRequestID json.RawMessage `json:"approval_request_id"`
	Name              json.RawMessage `json:"name"`
	Arguments         json.RawMessage `json:"arguments"`
	Input             json.RawMessage `json:"input"`
	Action            json.RawMessage `json:"action"`
	Queries           json.RawMessage `json:"queries"`
	Code              json.RawMessage `json:"code"`
	Output            json.RawMessage `json:"output"`
	Outputs           json.RawMessage `json:"outputs"`   // code_interpreter_call's logs and images
	Operation         json.RawMessage `json:"operation"` // apply_patch_call's file operation
	Results           json.RawMessage `json:"results"`   // file_search_call's hits
	Result            json.RawMessage `json:"result"`    // program_output's output
	Error             json.RawMessage `json:"error"`     // mcp_call's failure
	Tools             json.RawMessage `json:"tools"`     // tool_search_output's loaded definitions; additional_tools' and mcp_list_tools' tools
	Summary           json.RawMessage `json:"summary"`
	Content           json.RawMessage `json:"content"`
	Role              json.RawMessage `json:"role"` // additional_tools' (developer)
	ServerLabel       json.RawMessage `json:"server_label"`
}

// parseItem reads a Responses input item without a role. Calls issue
// their call_id (or id), outputs carry it; a reasoning item is grouped with
// the item that follows it (and parse, with the rest of its reply); a
// compaction item, a compaction_trigger (the request to compact, the
// last item) and a configuration_update (settings for the later
// responses) are read as system messages, so that Compact always keeps
// them; an additional_tools item (which has a role, developer) and an
// mcp_list_tools item read as the tool definitions they carry, which the
// model is sent; an unknown type is an assistant message scored by its
// JSON.
func (p *parser) parseItem(index int, raw json.RawMessage) (Message, error) {
	fail := func(field, format string, args ...any) (Message, error) {
		return Message{}, &MessageError{Index: index, Field: field, Msg: fmt.Sprintf(format, args...), Err: ErrInvalidMessages}
	}
	var it responsesItem
	if err := json.Unmarshal(raw, &it); err != nil {
		return fail("", "%v", err)
	}
	typ, ok := optString(it.Type)
	if isNull(it.Type) && isBareReference(raw) {
		typ = "item_reference" // the Responses API makes its type optional
	}
	if !ok || typ == "" {
		return fail("type", "want a non-empty string")
	}
	str := func(field string, v json.RawMessage) (string, *MessageError) {
		s, ok := optString(v)
		if !ok {
			return "", &MessageError{Index: index, Field: field, Msg: "want a string (item type " + strconv.Quote(typ) + ")", Err: ErrInvalidMessages}
		}
		return s, nil
	}
	callID, merr := str("call_id", it.CallID)
	if merr != nil {
		return Message{}, merr
	}
	id, merr := str("id", it.ID)
	if merr != nil {
		return Message{}, merr
	}
	name, merr := str("name", it.Name)
	if merr != nil {
		return Message{}, merr
	}
	m := Message{Role: RoleAssistant, Raw: raw}
	var b strings.Builder
	switch {
	case typ == "message":
		return fail("role", "missing (item type \"message\")")
	case typ == "reasoning":
		for _, field := range []struct {
			name string
			raw  json.RawMessage
		}{{"summary", it.Summary}, {"content", it.Content}} {
			if err := appendContent(&b, &m, field.raw, field.name, 0); err != nil {
				return fail(err.field, "%s", err.msg)
			}
		}
		if b.Len() == 0 {
			b.WriteString("[reasoning]")
		}
		p.openReasoning(&m, index)
		m.Content = b.String()
		return m, nil
	case typ == "compaction" || typ == "compaction_summary":
		m.Role = RoleSystem
		addText(&b, "[compaction]")
	case typ == "compaction_trigger":
		// It asks the API to compact what precedes it: dropping it
		// would lose the request, and it bills next to nothing.
		m.Role = RoleSystem
		addText(&b, "[compaction_trigger]")
	case typ == "configuration_update":
		// Its settings (reasoning, text format) hold for every later
		// response until another update replaces them: dropping it would
		// change them silently.
		m.Role = RoleSystem
		addText(&b, "[configuration_update]")
	case typ == "additional_tools":
		role, merr := str("role", it.Role)
		if merr != nil {
			return Message{}, merr
		}
		m.Role = RoleDeveloper // the only role the API accepts
		if role != "" {
			m.Role = Role(role)
		}
		if err := appendToolDefinitions(&b, it.Tools, typ); err != nil {
			return fail(err.field, "%s", err.msg)
		}
	case typ == "mcp_list_tools":
		if err := appendMCPTools(&b, &it); err != nil {
			return fail(err.field, "%s", err.msg)
		}
	case typ == "item_reference":
		addText(&b, "[item_reference "+id+"]")
		p.refs = append(p.refs, index)
		if strings.HasPrefix(id, storedReasoningPrefix) {
			// A stored reasoning item: grouped, as an inline one, with
			// the item after it and the rest of the model's reply.
			p.openReasoning(&m, index)
		}
	case typ == "mcp_approval_request":
		if id != "" {
			m.ToolCallIDs = append(m.ToolCallIDs, id)
		}
		addText(&b, name+" "+argumentsText(it.Arguments))
	case typ == "mcp_approval_response":
		reqID, merr := str("approval_request_id", it.ApprovalRequestID)
		if merr != nil {
			return Message{}, merr
		}
		m.Role = RoleTool
		if reqID != "" {
			m.ToolResultIDs = append(m.ToolResultIDs, reqID)
		}
		addText(&b, compactJSON(raw))
	case typ == "tool_search_output":
		// The tools a tool search loaded: their names (the loads of the
		// tool-search rule, deferred.go), then their definitions, which the
		// model is sent, as adapt/openai reads the item.
		m.Role = RoleTool
		if callID == "" {
			// A search the server ran may come without call_id: it
			// answers the tool_search_call right before it, if that has
			// none either (see toolSearchID), else it carries its id.
			callID = p.lastSearch
		}
		if callID == "" {
			callID = id
		}
		if callID != "" {
			m.ToolResultIDs = append(m.ToolResultIDs, callID)
		}
		var defs strings.Builder
		if err := appendToolDefinitions(&defs, it.Tools, typ); err != nil {
			return fail(err.field, "%s", err.msg)
		}
		if defs.Len() > 0 {
			for _, n := range toolReferences(raw) {
				addText(&b, n)
			}
			addText(&b, defs.String())
		}
	case strings.HasSuffix(typ, "_output"):
		m.Role = RoleTool
		if callID == "" {
			callID = id
		}
		if callID != "" {
			m.ToolResultIDs = append(m.ToolResultIDs, callID)
		}
		output := it.Output
		if isNull(output) {
			output = it.Result // a program_output's
		}
		if err := appendOutput(&b, &m, output); err != nil {
			return fail(err.field, "%s", err.msg)
		}
	case strings.HasSuffix(typ, "_call"):
		if callID == "" && typ == "tool_search_call" && index >= 0 {
			callID = toolSearchID(index)
			p.pendingSearch = callID
		}
		if callID != "" {
			m.ToolCallIDs = append(m.ToolCallIDs, callID)
		}
		if typ == "mcp_call" {
			// A call the user approved: it belongs with the approval
			// request and response, which the API wants with it.
			reqID, merr := str("approval_request_id", it.ApprovalRequestID)
			if merr != nil {
				return Message{}, merr
			}
			if reqID != "" {
				m.ToolResultIDs = append(m.ToolResultIDs, reqID)
			}
		}
		args := it.Arguments
		for _, alt := range []json.RawMessage{it.Input, it.Action, it.Queries, it.Code} {
			if isNull(args) {
				args = alt
			}
		}
		label := name
		if label == "" {
			label = typ
		}
		addText(&b, label+" "+argumentsText(args))
		if s, ok := optString(it.Output); ok { // mcp_call carries its output
			addText(&b, s)
		}
		if err := appendCallPayload(&b, &it); err != nil {
			return fail(err.field, "%s", err.msg)
		}
	default:
		if callID != "" {
			// An item that issues a call without the _call suffix (a
			// program, which its program_output answers).
			m.ToolCallIDs = append(m.ToolCallIDs, callID)
		}
		addText(&b, compactJSON(raw))
	}
	m.Content = b.String()
	return m, nil
}

// storedReasoningPrefix starts the IDs OpenAI gives reasoning items
// ("rs_…"; function calls' are "fc_…", messages' "msg_…"): an
// item_reference with such an ID stands for a stored reasoning item.
const storedReasoningPrefix = "rs_"

// openReasoning makes m, the reasoning item (or reference to a stored
// one) at index, issue "reasoning@<index>", which the item after it
// carries (see parse); a reasoning item right after another is grouped
// with it.
func (p *parser) openReasoning(m *Message, index int) {
	key := "reasoning@" + strconv.Itoa(index)
	if p.pendingReasoning != "" { // consecutive reasoning items: one group
		m.ToolResultIDs = append(m.ToolResultIDs, p.pendingReasoning)
	}
	m.ToolCallIDs = append(m.ToolCallIDs, key)
	p.pendingReasoning = key
}

// appendCallPayload renders what a *_call item holds beside its
// arguments: an apply_patch_call's operation (its type, the file's path
// and the whole diff, unescaped, as the model wrote them), a
// code_interpreter_call's outputs (their logs, an image as "[image]"), a
// file_search_call's results (each one's file name and text) and an
// mcp_call's error (its JSON).
func appendCallPayload(b *strings.Builder, it *responsesItem) *contentError {
	if !isNull(it.Error) {
		addText(b, argumentsText(it.Error))
	}
	if !isNull(it.Results) {
		var hits []json.RawMessage
		if json.Unmarshal(it.Results, &hits) != nil {
			return &contentError{"results", "want an array"}
		}
		for j, h := range hits {
			var hit struct{ Filename, Text json.RawMessage }
			if !isObject(h) || json.Unmarshal(h, &hit) != nil {
				return &contentError{"results[" + strconv.Itoa(j) + "]", "want an object"}
			}
			if err := addStrings(b, "results["+strconv.Itoa(j)+"].", member{"filename", hit.Filename}, member{"text", hit.Text}); err != nil {
				return err
			}
		}
	}
	if isObject(it.Operation) {
		var op struct {
			Type, Path, Diff json.RawMessage
		}
		if json.Unmarshal(it.Operation, &op) != nil {
			return &contentError{"operation", "want an object"}
		}
		if err := addStrings(b, "operation.", member{"type", op.Type}, member{"path", op.Path}, member{"diff", op.Diff}); err != nil {
			return err
		}
	} else if !isNull(it.Operation) {
		addText(b, compactJSON(it.Operation))
	}
	if isNull(it.Outputs) {
		return nil
	}
	var outs []json.RawMessage
	if json.Unmarshal(it.Outputs, &outs) != nil {
		addText(b, compactJSON(it.Outputs))
		return nil
	}
	for j, o := range outs {
		var out struct {
			Type, Logs json.RawMessage
		}
		if !isObject(o) || json.Unmarshal(o, &out) != nil {
			addText(b, compactJSON(o))
			continue
		}
		switch t, _ := optString(out.Type); {
		case t == "image":
			addText(b, "[image]")
		case !isNull(out.Logs):
			s, ok := optString(out.Logs)
			if !ok {
				return &contentError{"outputs[" + strconv.Itoa(j) + "].logs", "want a string"}
			}
			addText(b, s)
		default:
			addText(b, compactJSON(o))
		}
	}
	return nil
}

// toolSearchID is the ID that ParseMessages gives the tool_search_call
// without call_id at index (a search the server ran), which the
// tool_search_output right after it, if it has no call_id either,
// carries: the two are kept or dropped together.
func toolSearchID(index int) string { return toolSearchPrefix + strconv.Itoa(index) }

// toolSearchPrefix starts the IDs toolSearchID gives.
const toolSearchPrefix = "tool_search@"

// isBareReference reports whether raw is a Responses item reference
// without its optional type: an object whose only member is a string "id".
func isBareReference(raw json.RawMessage) bool {
	var o map[string]json.RawMessage
	if json.Unmarshal(raw, &o) != nil || len(o) != 1 {
		return false
	}
	id, ok := optString(o["id"])
	return ok && id != ""
}

// appendOutput renders a *_call_output item's output: a string, an array
// of content parts, or an object (a computer screenshot, or JSON).
func appendOutput(b *strings.Builder, m *Message, raw json.RawMessage) *contentError {
	if isObject(raw) {
		var o struct {
			Type     json.RawMessage `json:"type"`
			ImageURL json.RawMessage `json:"image_url"`
			Detail   json.RawMessage `json:"detail"`
		}
		if json.Unmarshal(raw, &o) == nil {
			if t, _ := optString(o.Type); t == "computer_screenshot" || t == "input_image" {
				addText(b, "[image]")
				m.MediaTokens = addTokens(m.MediaTokens, openAIImageTokens(o.ImageURL, o.Detail))
				return nil
			}
		}
		addText(b, compactJSON(raw))
		return nil
	}
	return appendContent(b, m, raw, "output", 0)
}

// appendToolDefinitions renders the tool definitions an item of type typ
// holds under "tools" (function, custom, namespace, MCP and built-in tools,
// as the request's tools are written): the JSON of each, compacted, since
// the model is sent their names, descriptions and schemas.
func appendToolDefinitions(b *strings.Builder, raw json.RawMessage, typ string) *contentError {
	var tools []json.RawMessage
	if !isNull(raw) && json.Unmarshal(raw, &tools) != nil {
		return &contentError{"tools", "want an array of tool definitions (item type " + strconv.Quote(typ) + ")"}
	}
	for _, t := range tools {
		addText(b, compactJSON(t))
	}
	return nil
}

// appendMCPTools renders an mcp_list_tools item: its server's label, then
// each tool's name, description and input schema (compacted), and the
// error of a listing that failed.
func appendMCPTools(b *strings.Builder, it *responsesItem) *contentError {
	if err := addStrings(b, "", member{"server_label", it.ServerLabel}); err != nil {
		return err
	}
	var tools []json.RawMessage
	if !isNull(it.Tools) && json.Unmarshal(it.Tools, &tools) != nil {
		return &contentError{"tools", "want an array of tools (item type \"mcp_list_tools\")"}
	}
	for j, t := range tools {
		var tool struct {
			Name        json.RawMessage `json:"name"`
			Description json.RawMessage `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		}
		field := "tools[" + strconv.Itoa(j) + "]"
		if !isObject(t) || json.Unmarshal(t, &tool) != nil {
			return &contentError{field, "want an object"}
		}
		if err := addStrings(b, field+".", member{"name", tool.Name}, member{"description", tool.Description}); err != nil {
			return err
		}
		if !isNull(tool.InputSchema) {
			addText(b, compactJSON(tool.InputSchema))
		}
	}
	addText(b, argumentsText(it.Error))
	return nil
}

// compactJSON returns raw without insignificant white space.
func compactJSON(raw json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}

// partsRoles maps the roles of langchaingo (human, ai, generic) and genai
// (model) to chitta's.
var partsRoles = map[string]Role{
	"human":   RoleUser,
	"generic": RoleUser,
	"ai":      RoleAssistant,
	"model":   RoleAssistant,
}

// isPartsRole reports whether raw is the JSON string of a role that only
// the parts shapes use (partsRoles).
func isPartsRole(raw json.RawMessage) bool {
	role, ok := optString(raw)
	_, parts := partsRoles[role]
	return ok && parts
}

// parseParts reads a langchaingo MessageContent ({"role", "parts"}, or
// {"role", "text"} for a single text part) or a genai Content ({"role",
// "parts"}; a missing role is "user"). Tool calls and responses pair by
// ID; a response without an ID (a genai function response, a langchaingo
// tool_response) answers the first call of the last message with calls
// (for genai, of the last turn: that message and the model Contents right
// after it) that no response has answered yet, by position, a call without an ID
// (genai's, and langchaingo's googleai and vertex providers') getting one
// of its place.
func (p *parser) parseParts(index int, raw json.RawMessage, w *wireMessage) (Message, error) {
	fail := func(field, format string, args ...any) (Message, error) {
		return Message{}, &MessageError{Index: index, Field: field, Msg: fmt.Sprintf(format, args...), Err: ErrInvalidMessages}
	}
	role, ok := optString(w.Role)
	if !ok {
		return fail("role", "want a string")
	}
	if role == "" {
		role = string(RoleUser)
	}
	m := Message{Role: Role(role), Raw: raw}
	if r, ok := partsRoles[role]; ok {
		m.Role = r
	}
	var b strings.Builder
	if !isNull(w.Text) {
		s, ok := optString(w.Text)
		if !ok {
			return fail("text", "want a string")
		}
		addText(&b, s)
	}
	var parts []json.RawMessage
	if !isNull(w.Parts) {
		if err := json.Unmarshal(w.Parts, &parts); err != nil {
			return fail("parts", "want an array")
		}
	}
	// A model Content right after a model Content that made calls
	// continues its turn of calls (a streamed reply, one Content a chunk):
	// its calls join those awaiting a response.
	newCalls := p.continues && role == "model"
	for j, part := range parts {
		f := "parts[" + strconv.Itoa(j) + "]"
		if isNull(part) {
			continue // a nil *genai.Part or nil llms.ContentPart: nothing, as the adapters read it
		}
		if !isObject(part) {
			return fail(f, "want an object")
		}
		var pt partFields
		for depth := 0; ; depth++ {
			pt = partFields{}
			if err := json.Unmarshal(part, &pt); err != nil {
				return fail(f, "invalid part")
			}
			if isNull(pt.ContentPart) {
				break
			}
			// langchaingo's CachedContent ({"ContentPart": part,
			// "cache_control": …}) reads as the part it caches.
			if !isObject(pt.ContentPart) {
				return fail(f+".ContentPart", "want an object")
			}
			if depth == maxContentDepth {
				return fail(f+".ContentPart", "CachedContent nested more than %d deep", maxContentDepth)
			}
			part, f = pt.ContentPart, f+".ContentPart"
		}
		typ, ok := optString(pt.Type)
		if !ok {
			return fail(f+".type", "want a string")
		}
		switch {
		case typ == "tool_call" || !isNull(pt.ToolCall):
			var tc struct {
				ID       json.RawMessage `json:"id"`
				Function json.RawMessage `json:"function"`
			}
			var fn struct {
				Name      json.RawMessage `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			}
			if !isObject(pt.ToolCall) || json.Unmarshal(pt.ToolCall, &tc) != nil || !isNull(tc.Function) && json.Unmarshal(tc.Function, &fn) != nil {
				return fail(f+".tool_call", "want an object")
			}
			id, ok1 := optString(tc.ID)
			name, ok2 := optString(fn.Name)
			if !ok1 || !ok2 {
				return fail(f+".tool_call", "want string id and function.name")
			}
			if id == "" && !isNull(tc.Function) {
				// langchaingo's googleai and vertex calls carry no ID: the
				// responses without one that follow answer them by position
				id = "tool_call@" + strconv.Itoa(index) + "." + strconv.Itoa(j)
			}
			if id != "" {
				if !newCalls { // a new turn of calls: unanswered older ones expire
					p.pendingCalls = p.pendingCalls[:0]
					newCalls = true
				}
				p.pendingCalls = append(p.pendingCalls, id)
				m.ToolCallIDs = append(m.ToolCallIDs, id)
			}
			addText(&b, name+" "+argumentsText(fn.Arguments))
		case typ == "tool_response" || !isNull(pt.ToolResponse):
			var tr struct {
				ToolCallID json.RawMessage `json:"tool_call_id"`
				Content    json.RawMessage `json:"content"`
			}
			if !isObject(pt.ToolResponse) || json.Unmarshal(pt.ToolResponse, &tr) != nil {
				return fail(f+".tool_response", "want an object")
			}
			id, ok := optString(tr.ToolCallID)
			if !ok {
				return fail(f+".tool_response.tool_call_id", "want a string")
			}
			p.answer(&id)
			if id != "" {
				m.ToolResultIDs = append(m.ToolResultIDs, id)
			}
			addText(&b, argumentsText(tr.Content))
		case !isNull(pt.FunctionCall):
			var fc struct {
				ID   json.RawMessage `json:"id"`
				Name json.RawMessage `json:"name"`
				Args json.RawMessage `json:"args"`
			}
			if !isObject(pt.FunctionCall) || json.Unmarshal(pt.FunctionCall, &fc) != nil {
				return fail(f+".functionCall", "want an object")
			}
			id, ok1 := optString(fc.ID)
			name, ok2 := optString(fc.Name)
			if !ok1 || !ok2 {
				return fail(f+".functionCall", "want string id and name")
			}
			if !newCalls { // a new turn of calls: unanswered older ones expire
				p.pendingCalls = p.pendingCalls[:0]
				newCalls = true
			}
			if id == "" {
				id = "functionCall@" + strconv.Itoa(index) + "." + strconv.Itoa(j)
			}
			p.pendingCalls = append(p.pendingCalls, id)
			m.ToolCallIDs = append(m.ToolCallIDs, id)
			addText(&b, name+" "+argumentsText(fc.Args))
		case !isNull(pt.FunctionResponse):
			var fr struct {
				ID       json.RawMessage `json:"id"`
				Name     json.RawMessage `json:"name"`
				Response json.RawMessage `json:"response"`
				Parts    json.RawMessage `json:"parts"`
			}
			if !isObject(pt.FunctionResponse) || json.Unmarshal(pt.FunctionResponse, &fr) != nil {
				return fail(f+".functionResponse", "want an object")
			}
			id, ok1 := optString(fr.ID)
			_, ok2 := optString(fr.Name)
			if !ok1 || !ok2 {
				return fail(f+".functionResponse", "want string id and name")
			}
			p.answer(&id)
			if id != "" {
				m.ToolResultIDs = append(m.ToolResultIDs, id)
			}
			addText(&b, responseText(fr.Response))
			if err := appendResponseParts(&b, &m, fr.Parts, f+".functionResponse.parts"); err != nil {
				return fail(err.field, "%s", err.msg)
			}
		case typ == "image_url":
			// langchaingo's, whose provider is unknown
			addText(&b, "[image]")
			var img struct {
				ImageURL struct {
					URL json.RawMessage `json:"url"`
				} `json:"image_url"`
			}
			_ = json.Unmarshal(part, &img) // an unreadable URL: the largest maximum
			url, _ := optString(img.ImageURL.URL)
			w, h, _ := DataURLImageSize(url)
			m.MediaTokens = addTokens(m.MediaTokens, MaxImageTokens(w, h))
		case typ == "binary":
			addText(&b, mediaText(part))
			if mediaText(part) == "[image]" {
				var bin struct {
					Binary struct {
						Data json.RawMessage `json:"data"`
					} `json:"binary"`
				}
				_ = json.Unmarshal(part, &bin)
				data, _ := optString(bin.Binary.Data)
				w, h, _ := Base64ImageSize(data)
				m.MediaTokens = addTokens(m.MediaTokens, MaxImageTokens(w, h))
			}
		case !isNull(pt.InlineData) || !isNull(pt.FileData) || !isNull(pt.InlineDataSnake) || !isNull(pt.FileDataSnake):
			addText(&b, mediaText(part))
			if mediaText(part) == "[image]" {
				n, ok := geminiNumTokens(pt.MediaResolution, pt.MediaResolutionSnake)
				if !ok {
					n = geminiDataTokens(pt.InlineData, pt.InlineDataSnake)
				}
				m.MediaTokens = addTokens(m.MediaTokens, n)
			}
		case !isNull(pt.ExecutableCode) || !isNull(pt.CodeExecutionResult):
			addText(&b, compactJSON(part))
		case !isNull(pt.Text):
			s, ok := optString(pt.Text)
			if !ok {
				return fail(f+".text", "want a string")
			}
			addText(&b, s)
		case !isNull(pt.ThoughtSignature) && typ == "":
			// a bare thought signature carries nothing to read
		default:
			addText(&b, compactJSON(part))
		}
	}
	p.modelCalls = role == "model" && newCalls
	m.Content = b.String()
	return m, nil
}

// geminiDataTokens estimates a genai image part by the Gemini rule: inline
// data (inlineData, or inline_data as the REST API also writes it) is read
// for its size; file data (a URI), or data chitta cannot read, counts as
// GeminiMaxImageTokens.
func geminiDataTokens(inline ...json.RawMessage) int {
	for _, raw := range inline {
		var blob struct {
			Data json.RawMessage `json:"data"`
		}
		if !isObject(raw) || json.Unmarshal(raw, &blob) != nil {
			continue
		}
		data, _ := optString(blob.Data)
		w, h, _ := Base64ImageSize(data)
		return GeminiImageTokens(w, h)
	}
	return GeminiMaxImageTokens
}

// geminiNumTokens returns the token count a genai part's media resolution
// sets: numTokens of mediaResolution (num_tokens, media_resolution, as the
// REST API also writes them) when it is an int32 above zero. Its level
// alone says nothing (what a level costs depends on the model), and a
// count that is not positive or not an int32 is ignored: ok is false, and
// the part counts by the Gemini rule (geminiDataTokens).
func geminiNumTokens(resolution ...json.RawMessage) (n int, ok bool) {
	for _, raw := range resolution {
		var r struct {
			NumTokens      json.RawMessage `json:"numTokens"`
			NumTokensSnake json.RawMessage `json:"num_tokens"`
		}
		if !isObject(raw) || json.Unmarshal(raw, &r) != nil {
			continue
		}
		for _, v := range [...]json.RawMessage{r.NumTokens, r.NumTokensSnake} {
			var k int32
			if !isNull(v) && json.Unmarshal(v, &k) == nil && k > 0 {
				return int(k), true
			}
		}
	}
	return 0, false
}

// appendResponseParts renders the parts of a genai function response
// (multimodal output) as adapt/genai scores them: inline and file data as
// mediaText (an image adding its Gemini estimate to m's MediaTokens), a
// part with neither as its JSON, null as nothing.
func appendResponseParts(b *strings.Builder, m *Message, raw json.RawMessage, field string) *contentError {
	if isNull(raw) {
		return nil
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return &contentError{field, "want an array"}
	}
	for k, part := range parts {
		if isNull(part) {
			continue
		}
		var pt struct {
			InlineData json.RawMessage `json:"inlineData"`
			FileData   json.RawMessage `json:"fileData"`
		}
		if !isObject(part) || json.Unmarshal(part, &pt) != nil {
			return &contentError{field + "[" + strconv.Itoa(k) + "]", "want an object"}
		}
		if !isNull(pt.InlineData) || !isNull(pt.FileData) {
			addText(b, mediaText(part))
			if mediaText(part) == "[image]" {
				m.MediaTokens = addTokens(m.MediaTokens, geminiDataTokens(pt.InlineData))
			}
		} else {
			addText(b, compactJSON(part))
		}
	}
	return nil
}

// mediaText is "[image]" for a part whose MIME type is an image and
// "[document]" otherwise.
func mediaText(part json.RawMessage) string {
	if bytes.Contains(part, []byte(`"image/`)) {
		return "[image]"
	}
	return "[document]"
}

// answer pairs a tool response (a genai function response, a langchaingo
// tool_response) whose call ID is *id with its call: one without an ID
// answers the first call awaiting a response (*id becomes that call's
// ID), by position; one with an ID answers its call, if it awaits one.
func (p *parser) answer(id *string) {
	if *id == "" && len(p.pendingCalls) > 0 {
		*id, p.pendingCalls = p.pendingCalls[0], p.pendingCalls[1:]
	} else if i := indexOf(p.pendingCalls, *id); i >= 0 {
		p.pendingCalls = append(p.pendingCalls[:i:i], p.pendingCalls[i+1:]...)
	}
}

func indexOf(ids []string, id string) int {
	for i, s := range ids {
		if s == id {
			return i
		}
	}
	return -1
}

// responseText is the text of a genai function response: s when it is only
// {"output": s} or {"error": s} with s a string (the Gemini API takes s as
// the function's output or error), else its compact JSON, as the genai
// adapter scores it.
func responseText(raw json.RawMessage) string {
	var obj map[string]json.RawMessage
	if isObject(raw) && json.Unmarshal(raw, &obj) == nil && len(obj) == 1 {
		for k, v := range obj {
			if s, ok := optString(v); ok && !isNull(v) && (k == "output" || k == "error") {
				return s
			}
		}
	}
	return argumentsText(raw)
}

// partFields are the members of a part that parseParts reads.
type partFields struct {
	// langchaingo
	Type         json.RawMessage `json:"type"`
	Text         json.RawMessage `json:"text"`
	ToolCall     json.RawMessage `json:"tool_call"`
	ToolResponse json.RawMessage `json:"tool_response"`
	ContentPart  json.RawMessage `json:"ContentPart"` // a CachedContent
	// genai
	FunctionCall     json.RawMessage `json:"functionCall"`
	FunctionResponse json.RawMessage `json:"functionResponse"`
	InlineData       json.RawMessage `json:"inlineData"`
	FileData         json.RawMessage `json:"fileData"`
	InlineDataSnake  json.RawMessage `json:"inline_data"` // the REST API's other spelling
	FileDataSnake    json.RawMessage `json:"file_data"`
	// MediaResolution (media_resolution) may set an image's token count
	// (see geminiNumTokens).
	MediaResolution      json.RawMessage `json:"mediaResolution"`
	MediaResolutionSnake json.RawMessage `json:"media_resolution"`
	ExecutableCode       json.RawMessage `json:"executableCode"`
	CodeExecutionResult  json.RawMessage `json:"codeExecutionResult"`
	ThoughtSignature     json.RawMessage `json:"thoughtSignature"`
}

// einoImageTokens estimates an eino image part, whose provider is unknown,
// by MaxImageTokens: of its base64data, or of a data URL, when either is
// readable; any other image counts as the largest maximum.
func einoImageTokens(imageURL, image json.RawMessage) int {
	var img struct {
		URL        json.RawMessage `json:"url"`
		Base64Data json.RawMessage `json:"base64data"`
	}
	if isObject(image) {
		_ = json.Unmarshal(image, &img)
	} else if isObject(imageURL) {
		_ = json.Unmarshal(imageURL, &img)
	}
	w, h, ok := 0, 0, false
	if data, _ := optString(img.Base64Data); data != "" {
		w, h, ok = Base64ImageSize(data)
	}
	if url, _ := optString(img.URL); !ok && url != "" {
		w, h, _ = DataURLImageSize(url)
	}
	return MaxImageTokens(w, h)
}

// appendEinoParts renders the parts of an eino schema.Message's
// multi_content, user_input_multi_content and
// assistant_output_multi_content, in that order, as adapt/eino scores
// them: text as itself, images as "[image]", files as "[document]", audio
// and video as "[media]", a part of another type as its type and JSON
// (compacted).
func appendEinoParts(b *strings.Builder, m *Message, w *wireMessage) *contentError {
	for _, list := range [...]struct {
		field string
		raw   json.RawMessage
	}{{"multi_content", w.MultiContent}, {"user_input_multi_content", w.UserInputContent}, {"assistant_output_multi_content", w.AssistantGenContent}} {
		if isNull(list.raw) {
			continue
		}
		var parts []json.RawMessage
		if err := json.Unmarshal(list.raw, &parts); err != nil {
			return &contentError{list.field, "want an array"}
		}
		for j, part := range parts {
			f := list.field + "[" + strconv.Itoa(j) + "]"
			if isNull(part) {
				continue // nothing to read, as in the parts of genai and langchaingo
			}
			var pt struct {
				Type     json.RawMessage `json:"type"`
				Text     json.RawMessage `json:"text"`
				ImageURL json.RawMessage `json:"image_url"` // multi_content's
				Image    json.RawMessage `json:"image"`     // the others'
			}
			if !isObject(part) || json.Unmarshal(part, &pt) != nil {
				return &contentError{f, "want an object"}
			}
			typ, ok := optString(pt.Type)
			if !ok {
				return &contentError{f + ".type", "want a string"}
			}
			text, ok := optString(pt.Text)
			if !ok {
				return &contentError{f + ".text", "want a string"}
			}
			switch typ {
			case "text":
				addText(b, text)
			case "image_url":
				addText(b, "[image]")
				m.MediaTokens = addTokens(m.MediaTokens, einoImageTokens(pt.ImageURL, pt.Image))
			case "file_url":
				addText(b, "[document]")
			case "audio_url", "video_url":
				addText(b, "[media]")
			default:
				addText(b, typ+" "+argumentsText(part)) // all it holds, its Extra too
			}
		}
	}
	return nil
}

// referencePrefix starts the IDs ParseMessages gives item_reference
// items it ties (see tieReferences).
const referencePrefix = "item_reference@"

// tieReferences links the item_reference items of msgs (at the indices
// refs, in order), which stand for items the API stored that ParseMessages
// cannot read, to what they may complete. A run of references (items
// one after another) is one group: each answers the one before it, which
// issues "item_reference@<index>" (a reference to a stored call and one to
// its stored output, given in a row, are kept together). Then:
//
//   - a result whose call_id no message before it issues answers a call
//     the API stored, which a reference may give: it answers, instead, the
//     last reference of the last run before it, which then issues its ID
//     too;
//   - a call that no later message answers may have its output stored: the
//     first reference of the first run after it carries the call's ID in
//     ToolResultIDs (answers it), unless a message other than an assistant
//     or tool message (a user, system or developer message) comes between
//     them.
//
// Compact then keeps or drops the references with the calls and results
// they complete: the API refuses an output whose call is not in the
// input, and a function_call in it without its output.
func tieReferences(msgs []Message, refs []int) {
	var runs [][]int
	for k, j := range refs {
		if k > 0 && refs[k-1] == j-1 {
			runs[len(runs)-1] = append(runs[len(runs)-1], j)
		} else {
			runs = append(runs, []int{j})
		}
	}
	key := func(j int) string { return referencePrefix + strconv.Itoa(j) }
	// Results whose call no message before them issues.
	used := make([]bool, len(runs))
	issued := make(map[string]bool)
	last := -1 // the run last started at or before i
	for i := range msgs {
		m := &msgs[i]
		if last+1 < len(runs) && runs[last+1][0] == i {
			last++
		}
		if run := runs[max(last, 0)]; last >= 0 && i > run[len(run)-1] {
			tied := false
			ids := m.ToolResultIDs[:0:0]
			for _, id := range m.ToolResultIDs {
				switch {
				case issued[id]:
					ids = append(ids, id)
				case !tied:
					ids = append(ids, key(run[len(run)-1]))
					tied, used[last] = true, true
				}
			}
			if tied {
				m.ToolResultIDs = ids
			}
		}
		for _, id := range m.ToolCallIDs {
			issued[id] = true
		}
	}
	for r, run := range runs {
		for k, j := range run {
			m := &msgs[j]
			if k > 0 {
				m.ToolResultIDs = append(m.ToolResultIDs, key(run[k-1]))
			}
			if k < len(run)-1 || used[r] {
				m.ToolCallIDs = append(m.ToolCallIDs, key(j))
			}
		}
	}
	// Calls no later message answers (a result answers the nearest
	// earlier call of its ID).
	type call struct {
		index int
		id    string
	}
	answered := make(map[call]bool)
	latest := make(map[string]int)
	for i := range msgs {
		for _, id := range msgs[i].ToolCallIDs {
			latest[id] = i
		}
		for _, id := range msgs[i].ToolResultIDs {
			if c, ok := latest[id]; ok {
				answered[call{c, id}] = true
			}
		}
	}
	var waiting []string // the unanswered calls since the last input message
	next := 0            // the first run not yet reached
	for i := range msgs {
		m := &msgs[i]
		switch {
		case next < len(runs) && runs[next][0] == i:
			m.ToolResultIDs = append(m.ToolResultIDs, waiting...)
			waiting = nil
			next++
			continue
		case m.Role != RoleAssistant && !isToolRole(m.Role):
			waiting = nil
		}
		for _, id := range m.ToolCallIDs {
			if id != "" && !answered[call{i, id}] && !derivedCallID(id) {
				waiting = append(waiting, id)
			}
		}
	}
}

// derivedCallID reports whether id is one ParseMessages makes up to
// group items (a reasoning item's, a reference's, a server tool search's),
// which no stored output answers.
func derivedCallID(id string) bool {
	return strings.HasPrefix(id, "reasoning@") || strings.HasPrefix(id, referencePrefix) || strings.HasPrefix(id, toolSearchPrefix)
}
