package chitta

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Validate reports whether a chat provider would accept msgs as a
// conversation. It returns nil, or a [*MessageError] wrapping
// [ErrInvalidConversation] that names the first message at fault:
//
//   - a tool result without a call: a message carrying a result
//     ([Message.ToolResultIDs]) for an ID that neither an earlier message
//     nor, for an assistant message, the message itself issued
//     ([Message.ToolCallIDs]; an Anthropic server tool's server_tool_use
//     and its result share one assistant message, while a client tool_use
//     block in the message's Raw is answered by a later message), or a tool-role
//     message ("tool", "function", "tool_result") that names no call;
//   - a call without a result: an ID a message issues that no later
//     message answers (a result answers the nearest earlier call with its
//     ID, as [Compact] groups them; trajectories reuse IDs: a Responses
//     item_reference that [ParseMessages] ties to a call, as the call's
//     stored output, answers it), except an
//     Anthropic server_tool_use in a message that also calls a client
//     tool, whose result a later response carries (in a message without
//     Raw, as the typed adapters build them, a call whose ID has the
//     server tool's form "srvtoolu_" beside one of another form), and a Responses
//     tool_search_call without call_id (a search the server ran: the ID
//     [ParseMessages] gives it only keeps it with the tool_search_output
//     right after it);
//   - a call answered twice: a result, in a message other than an
//     assistant message, for a call that an earlier such result (or one
//     before it in the same message) already answered, named at the
//     second result's message (Anthropic: "each tool_use must have a
//     single result"; OpenAI Chat: "Duplicate value for 'tool_call_id'";
//     Responses: a duplicate function_call_output). A reused ID whose
//     every call has its own result is valid. Not counted: a result an
//     assistant message carries (an Anthropic server tool's beside its
//     call, a Responses mcp_call's link to the approval request that the
//     approval response answers too) and the grouping IDs ParseMessages
//     makes up (a reasoning item's, which each item of its reply carries,
//     an item_reference's);
//   - in Anthropic's format, a tool_use ID that an assistant message
//     issues twice, or that an earlier message issued ("tool_use ids must
//     be unique"): with Raw, the IDs of its tool_use, server_tool_use and
//     mcp_tool_use blocks whose input is a JSON object (the Raw the typed
//     adapters write in mask mode, for any provider, has blocks without
//     one: of those only the IDs of Anthropic's form count); without Raw
//     (as the typed adapters build messages), a guess by the ID's form:
//     the IDs starting "toolu_", "srvtoolu_" or "mcptoolu_", as Anthropic
//     makes them;
//   - a message whose Raw is set (not nil, empty or JSON null) but is not
//     a JSON object, which [MarshalMessages] cannot write;
//   - an assistant message before the first user turn. A user turn is a
//     user message that carries no tool results: an Anthropic user message
//     holding only tool_result blocks answers a call, it does not open a
//     turn. A Responses compaction item stands for the turns it
//     compacted, so the items after it may open without one (the API
//     lets a caller drop every item before the latest compaction item);
//   - in genai Content JSON (a Raw with role "model" and parts, as
//     [ParseMessages] reads it), a function-call turn right after a model
//     turn: the Gemini API wants a function call immediately after a user
//     turn or a function response (system and developer messages in
//     between do not count).
//
// System and developer messages may appear anywhere; roles outside the
// built-in ones are not checked. Validate does not check what only some
// providers require, such as results directly following their call or
// strictly alternating user and assistant messages. Empty input is valid.
//
// [Compact]'s result passes Validate whenever its input does, unless
// [Options.FreeSelection] is set.
func Validate(msgs []Message) error {
	callers := make(map[string][]int) // message indices issuing each ID, ascending
	for i := range msgs {
		for _, id := range msgs[i].ToolCallIDs {
			if n := len(callers[id]); n == 0 || callers[id][n-1] != i {
				callers[id] = append(callers[id], i)
			}
		}
	}
	// The call blocks of an assistant message's Raw, read at most once.
	blocks := make(map[int]*callBlocks)
	blocksOf := func(i int) *callBlocks {
		b, ok := blocks[i]
		if !ok {
			b = readCallBlocks(msgs[i].Raw)
			blocks[i] = b
		}
		return b
	}
	// selfAnswers is 1 when message i's result for id may answer its own
	// call (an assistant message: an Anthropic server tool's call and
	// result), else 0: a tool or user message never issues the call it
	// answers, and a client tool_use block is answered in a later message.
	selfAnswers := func(i int, id string) int {
		if msgs[i].Role != RoleAssistant {
			return 0
		}
		if _, issues := slices.BinarySearch(callers[id], i); !issues || blocksOf(i).client[id] {
			return 0
		}
		return 1
	}
	type call struct {
		index int
		id    string
	}
	answered := make(map[call]bool)
	first := make(map[call]int) // the message whose result first answers each call (see singleResult)
	type again struct {
		id       string
		call, by int // the call's message, the message that answered it first
	}
	twice := make(map[int]again) // a message's first result for a call already answered
	for i := range msgs {
		for _, id := range msgs[i].ToolResultIDs {
			c, ok := earlierCall(callers[id], i+selfAnswers(i, id))
			if !ok {
				continue
			}
			answered[call{c, id}] = true
			if !singleResult(&msgs[i], id) {
				continue
			}
			if by, done := first[call{c, id}]; !done {
				first[call{c, id}] = i
			} else if _, seen := twice[i]; !seen {
				twice[i] = again{id, c, by}
			}
		}
	}
	issued := make(map[string]int) // the message that first issued each Anthropic tool_use ID
	fail := func(i int, field, format string, args ...any) error {
		return &MessageError{Index: i, Field: field, Msg: fmt.Sprintf(format, args...), Err: ErrInvalidConversation}
	}
	userTurn, afterModel := false, false
	for i := range msgs {
		m := &msgs[i]
		if msg := rawProblem(m.Raw); msg != "" {
			return fail(i, "Raw", "%s", msg)
		}
		if isToolRole(m.Role) && len(m.ToolResultIDs) == 0 {
			return fail(i, "role", "%s message names no tool call", m.Role)
		}
		for _, id := range m.ToolResultIDs {
			if _, ok := earlierCall(callers[id], i+selfAnswers(i, id)); !ok {
				return fail(i, "ToolResultIDs", "result for %q follows no call with that ID", id)
			}
		}
		if a, ok := twice[i]; ok {
			if a.by == i {
				return fail(i, "ToolResultIDs", "two results for %q answer the call of message %d", a.id, a.call)
			}
			return fail(i, "ToolResultIDs", "result for %q answers the call of message %d, which message %d already answered", a.id, a.call, a.by)
		}
		if isPrompt(m) || isCompactionItem(m) {
			userTurn = true
		}
		if m.Role == RoleAssistant && !userTurn {
			return fail(i, "role", "assistant message before the first user turn")
		}
		if afterModel && isGeminiCall(m) {
			return fail(i, "role", "function call turn right after a model turn, not after a user turn or a function response")
		}
		if !m.Role.Pinned() {
			afterModel = m.Role == RoleAssistant
		}
		if m.Role == RoleAssistant && len(m.ToolCallIDs) > 0 {
			// Anthropic's tool_use IDs: with Raw, those of its call
			// blocks; without, the IDs of their forms.
			uses, byForm := m.ToolCallIDs, !hasRaw(m.Raw)
			if !byForm {
				uses = blocksOf(i).uses
			}
			for _, id := range uses {
				if byForm && !isAnthropicCallID(id) {
					continue
				}
				j, reused := issued[id]
				switch {
				case !reused:
					issued[id] = i
				case j == i:
					return fail(i, "ToolCallIDs", "tool_use ID %q appears twice in the message", id)
				default:
					return fail(i, "ToolCallIDs", "tool_use ID %q was already used by message %d", id, j)
				}
			}
		}
		for _, id := range m.ToolCallIDs {
			if answered[call{i, id}] {
				continue
			}
			// An Anthropic server_tool_use in a message that also calls a
			// client tool: the API runs it once the client results come
			// back, and a later response carries its result.
			if m.Role == RoleAssistant && (serverCallBeside(m, blocksOf(i), id) || isServerSearch(m, id)) {
				continue
			}
			return fail(i, "ToolCallIDs", "call %q has no result after it", id)
		}
	}
	return nil
}

// isServerSearch reports whether id, issued by the assistant message m,
// is the ID ParseMessages gives a Responses tool_search_call without
// call_id (a search the server ran, see toolSearchID): m's Raw is such a
// call, or m has no Raw (the adapters build messages without it) and id
// has that ID's form. Such an ID only keeps the call with the
// tool_search_output right after it in Compact; the API cannot link the
// two, so the call needs no result.
func isServerSearch(m *Message, id string) bool {
	if !strings.HasPrefix(id, toolSearchPrefix) {
		return false
	}
	if !hasRaw(m.Raw) {
		return true
	}
	var w struct {
		Type   string          `json:"type"`
		CallID json.RawMessage `json:"call_id"`
	}
	if json.Unmarshal(m.Raw, &w) != nil || w.Type != "tool_search_call" {
		return false
	}
	callID, ok := optString(w.CallID)
	return ok && callID == ""
}

// serverToolPrefix starts the IDs Anthropic gives a server tool's
// server_tool_use block ("srvtoolu_…"; a client tool_use's are "toolu_…").
const serverToolPrefix = "srvtoolu_"

// pendingServerCall is, for an assistant message without Raw (the
// adapters build messages without it), the rule Validate applies to a
// server_tool_use block in Raw: id is a server tool's call, by its ID's
// form, in a message that also calls a client tool (an ID of another form).
func pendingServerCall(m *Message, id string) bool {
	if !strings.HasPrefix(id, serverToolPrefix) {
		return false
	}
	for _, other := range m.ToolCallIDs {
		if !strings.HasPrefix(other, serverToolPrefix) {
			return true
		}
	}
	return false
}

// serverCallBeside reports whether id, a call of the assistant message m
// (b the call blocks of its Raw), is an Anthropic server tool's call in a
// message that also calls a client tool, whose result a later response
// carries: a server_tool_use block beside a tool_use block, or, in a
// message without Raw, by the IDs' forms (see pendingServerCall).
func serverCallBeside(m *Message, b *callBlocks, id string) bool {
	if b.server[id] && len(b.client) > 0 {
		return true
	}
	return !hasRaw(m.Raw) && pendingServerCall(m, id)
}

// isAnthropicCallID reports whether id has the form of an ID Anthropic
// gives a call block: "toolu_…" (tool_use), "srvtoolu_…"
// (server_tool_use) or "mcptoolu_…" (mcp_tool_use). It is a guess by the
// ID's form, which Validate goes by where it cannot see an Anthropic call
// block: in a message without Raw (the adapters build messages without
// it), and for a call block without an input object (see callBlocks).
func isAnthropicCallID(id string) bool {
	return strings.HasPrefix(id, "toolu_") || strings.HasPrefix(id, serverToolPrefix) || strings.HasPrefix(id, "mcptoolu_")
}

// singleResult reports whether m's result for id counts against the rule
// that a call has one result: it does unless m is an assistant message
// (an Anthropic server tool's result beside its call, a Responses
// mcp_call's link to the approval request that the approval response
// answers too, an item of a reasoning model's reply) or id is one of the
// grouping IDs ParseMessages makes up (see derivedCallID; a reasoning
// item's is answered by each item of its reply, a reference's by each
// result it ties).
func singleResult(m *Message, id string) bool {
	return m.Role != RoleAssistant && !derivedCallID(id)
}

// rawProblem says what is wrong with a Message.Raw that cannot be sent
// (MarshalMessages refuses it): set (see hasRaw) but not valid JSON, or
// valid JSON other than an object. It returns "" for a Raw that can.
func rawProblem(raw json.RawMessage) string {
	switch {
	case !hasRaw(raw):
		return ""
	case !json.Valid(raw):
		return "not valid JSON"
	case bytes.TrimLeft(raw, " \t\r\n")[0] != '{':
		return "not a JSON object"
	}
	return ""
}

// earlierCall returns the nearest index in calls (ascending) below i.
func earlierCall(calls []int, i int) (int, bool) {
	k, _ := slices.BinarySearch(calls, i) // calls[:k] < i
	if k == 0 {
		return 0, false
	}
	return calls[k-1], true
}

// callBlocks are the call blocks of an Anthropic message: the IDs of its
// tool_use blocks (client tools' calls, not server_tool_use or
// mcp_tool_use), of its server_tool_use blocks, and (uses) of the blocks
// of all three kinds that hold Anthropic's calls, in block order, repeats
// kept: those whose input is a JSON object, as the API wants, or whose ID
// has Anthropic's form (see isAnthropicCallID). The Raw the adapters
// write in mask mode for any provider's messages has tool_use blocks
// with the arguments as a string, or no input: an OpenAI call reusing
// its ID there is no Anthropic tool_use.
type callBlocks struct {
	client, server map[string]bool
	uses           []string
}

// readCallBlocks reads the call blocks of raw, an Anthropic message.
// Anything it cannot read holds none: Validate then trusts the message, as
// it does one built in Go.
func readCallBlocks(raw []byte) *callBlocks {
	b := &callBlocks{}
	var w struct {
		Content []json.RawMessage `json:"content"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &w) != nil {
		return b
	}
	for _, c := range w.Content {
		var block struct {
			Type, ID any
			Input    json.RawMessage
		}
		if json.Unmarshal(c, &block) != nil {
			continue
		}
		id, ok := block.ID.(string)
		if !ok {
			continue
		}
		switch block.Type {
		case "tool_use", "server_tool_use", "mcp_tool_use":
			if isObject(block.Input) || isAnthropicCallID(id) {
				b.uses = append(b.uses, id)
			}
		}
		switch block.Type {
		case "tool_use":
			if b.client == nil {
				b.client = make(map[string]bool)
			}
			b.client[id] = true
		case "server_tool_use":
			if b.server == nil {
				b.server = make(map[string]bool)
			}
			b.server[id] = true
		}
	}
	return b
}

// isPrompt reports whether m opens a user turn: a user message carrying no
// tool results.
func isPrompt(m *Message) bool {
	return m.Role == RoleUser && len(m.ToolResultIDs) == 0
}

// isGeminiCall reports whether m is a function-call turn in genai Content
// JSON: an assistant message issuing calls whose Raw has role "model" and
// parts (and no content, as ParseMessages tells the shapes apart).
func isGeminiCall(m *Message) bool {
	if m.Role != RoleAssistant || len(m.ToolCallIDs) == 0 || !bytes.Contains(m.Raw, []byte(`"parts"`)) {
		return false
	}
	var w struct {
		Role    string          `json:"role"`
		Parts   json.RawMessage `json:"parts"`
		Content json.RawMessage `json:"content"`
	}
	return json.Unmarshal(m.Raw, &w) == nil && w.Role == "model" && !isNull(w.Parts) && isNull(w.Content)
}

// isToolRole reports whether r is a tool-result role.
func isToolRole(r Role) bool {
	return r == RoleTool || r == "function" || r == "tool_result"
}

// isCompactionItem reports whether m is a Responses compaction item as
// ParseMessages reads it: a system message whose Raw has the type
// compaction (or compaction_summary) and no role.
func isCompactionItem(m *Message) bool {
	if m.Role != RoleSystem || !bytes.Contains(m.Raw, []byte("compaction")) {
		return false
	}
	var w struct {
		Type string          `json:"type"`
		Role json.RawMessage `json:"role"`
	}
	return json.Unmarshal(m.Raw, &w) == nil && isNull(w.Role) && (w.Type == "compaction" || w.Type == "compaction_summary")
}
