package chitta

import (
	"bytes"
	"slices"
	"strings"
)

// The rules that keep Compact's result a conversation providers accept
// (see Validate): the live turn, the first user turn, for Gemini the
// prompt before a function-call turn and, with Anthropic's extended
// thinking, the thinking block the live turn opens with.

// liveTurn returns the messages of the live turn, ascending: the last
// prompt (a user message without tool results), and every message from
// the last input message on — the last user message or tool result, or
// the last non-system message when there is neither. In a chat the two
// coincide: the last user message and the replies after it. In a tool
// loop the prompt that started the loop stays, and so does the latest step
// (its results, with their call through the unit, and what follows);
// the steps in between compete for the budget like any other message.
// The latest step's calls still waiting for a result are kept too (from
// the run of assistant messages that the last result's unit starts in):
// OpenAI Responses items are one per call, so a conversation compacted
// between the results of parallel calls has calls whose results are still
// to come, and dropping one would leave its result, once appended (by a
// Compactor between compactions), answering no call. So are the earlier
// Anthropic server tool calls still waiting (see pendingServerCalls).
func (p *pass) liveTurn() []int {
	last, prompt := -1, -1
	for j := len(p.free) - 1; j >= 0 && (last < 0 || prompt < 0); j-- {
		m := &p.msgs[p.free[j]]
		if last < 0 && isInput(m) {
			last = p.free[j]
		}
		if prompt < 0 && isPrompt(m) {
			prompt = p.free[j]
		}
	}
	if last < 0 && len(p.free) > 0 {
		last = p.free[len(p.free)-1]
	}
	step := last // the latest step's first message
	if last >= 0 && len(p.msgs[last].ToolResultIDs) > 0 {
		step = p.scores[last].Unit
		// and the model's output right before it (parallel calls
		// answered out of order: the last result's call is not the
		// first; items without a call, such as a web_search_call, may
		// come between them)
		k, _ := slices.BinarySearch(p.free, step)
		for ; k > 0 && p.msgs[p.free[k-1]].Role == RoleAssistant; k-- {
			step = p.free[k-1]
		}
	}
	waiting := p.waitingCalls(step, last)
	for _, i := range p.pendingServerCalls(step) {
		if waiting == nil {
			waiting = make(map[int]bool)
		}
		waiting[i] = true
	}
	var out []int
	for _, i := range p.free {
		if i == prompt || (last >= 0 && i >= last) || waiting[i] {
			out = append(out, i)
		}
	}
	return out
}

// pendingServerCalls returns the messages before to that issue an
// Anthropic server tool call beside a client call which no later message
// answers yet (see Validate): a later response carries its result, after
// the client results of one step or of several (programmatic tool
// calling: the code a code_execution server tool runs calls client tools,
// one response at a time), and it would answer no call once the call was
// dropped. A Compactor appends it between compactions.
func (p *pass) pendingServerCalls(to int) []int {
	var cands []int
	for _, i := range p.free {
		if i >= to {
			break
		}
		if m := &p.msgs[i]; m.Role == RoleAssistant && len(m.ToolCallIDs) > 1 && mayCallServer(m) {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	at, blocks := -1, (*callBlocks)(nil) // the call blocks of message at
	return p.unanswered(cands[0], cands, func(i int, id string) bool {
		if i != at {
			at, blocks = i, readCallBlocks(p.msgs[i].Raw)
		}
		return serverCallBeside(&p.msgs[i], blocks, id)
	})
}

// mayCallServer reports whether the assistant message m may hold an
// Anthropic server tool's call: its Raw names a server_tool_use block, or
// it has no Raw and a call ID of the server tool's form.
func mayCallServer(m *Message) bool {
	if hasRaw(m.Raw) {
		return bytes.Contains(m.Raw, []byte(`"server_tool_use"`))
	}
	return slices.ContainsFunc(m.ToolCallIDs, func(id string) bool { return strings.HasPrefix(id, serverToolPrefix) })
}

// waitingCalls returns the messages from from to to (exclusive) that
// issue a call no later message answers, or nil when there are none.
func (p *pass) waitingCalls(from, to int) map[int]bool {
	var calls []int
	for _, i := range p.free {
		if i >= from && i < to && len(p.msgs[i].ToolCallIDs) > 0 {
			calls = append(calls, i)
		}
	}
	if len(calls) == 0 {
		return nil
	}
	var out map[int]bool
	for _, i := range p.unanswered(from, calls, nil) {
		if out == nil {
			out = make(map[int]bool)
		}
		out[i] = true
	}
	return out
}

// unanswered returns those of calls (ascending message indices, none
// before from) that issue a call (one for which want holds, when want is
// not nil) that no result from from on answers.
func (p *pass) unanswered(from int, calls []int, want func(i int, id string) bool) []int {
	type call struct {
		index int
		id    string
	}
	answered := make(map[call]bool)
	for _, j := range p.free {
		if j < from {
			continue
		}
		for _, id := range p.msgs[j].ToolResultIDs {
			if c := p.callOf(id, j); c >= from {
				answered[call{c, id}] = true
			}
		}
	}
	var out []int
	for _, i := range calls {
		for _, id := range p.msgs[i].ToolCallIDs {
			if !answered[call{i, id}] && (want == nil || want(i, id)) {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// thinkingToPin returns the message to pin so that the kept messages of
// the live turn open with a thinking block, or -1 when none is needed (or
// none would help): when the first kept assistant message after the last
// prompt is not marked OpensWithThinking, the nearest marked assistant
// message before it in the turn (with extended thinking on, Anthropic
// refuses a last assistant turn that does not open with one, and only the
// turn's first message has one unless the model thinks between calls).
func (p *pass) thinkingToPin() int {
	from := 0 // the live turn's first message in p.free
	for j := len(p.free) - 1; j >= 0; j-- {
		if isPrompt(&p.msgs[p.free[j]]) {
			from = j + 1
			break
		}
	}
	marked := -1
	for _, i := range p.free[from:] {
		m := &p.msgs[i]
		if m.Role != RoleAssistant {
			continue
		}
		if p.scores[i].Kept {
			if m.OpensWithThinking {
				return -1
			}
			return marked
		}
		if m.OpensWithThinking {
			marked = i
		}
	}
	return -1
}

// promptToPin returns the prompt to pin, or -1 when none is needed (or
// none would help), and, when the prompt is for a function-call turn, that
// turn (else -1), whose unit is pinned with it.
//
// First, the kept messages must start with a user turn: when the first
// kept non-system message is not a prompt, the prompt is the nearest one
// before it. When the input has none before it (a custom role first), it
// is the nearest prompt before the first kept assistant message that no
// kept prompt precedes, as Validate requires.
//
// Then, with gemini (Options.GeminiTurns) or in genai Content JSON, a
// kept function-call turn must follow a user turn or a function response,
// not a model turn, as Validate requires of genai JSON: when the kept
// message before it is an assistant message and a prompt lies between
// them, the prompt is the nearest one before the call.
func (p *pass) promptToPin(gemini bool) (int, int) {
	if q := p.firstPrompt(); q >= 0 {
		return q, -1
	}
	prev := -1 // the last kept message before i
	for _, i := range p.free {
		if !p.scores[i].Kept {
			continue
		}
		if m := &p.msgs[i]; prev >= 0 && p.msgs[prev].Role == RoleAssistant && m.Role == RoleAssistant && len(m.ToolCallIDs) > 0 && (gemini || isGeminiCall(m)) {
			if q := p.promptBefore(i); q > prev {
				return q, i
			}
		}
		prev = i
	}
	return -1, -1
}

// firstPrompt returns the prompt to pin so that the kept messages start
// with a user turn, or -1 (see promptToPin).
func (p *pass) firstPrompt() int {
	first := -1
	for _, i := range p.free {
		if p.scores[i].Kept {
			first = i
			break
		}
	}
	if first < 0 || isPrompt(&p.msgs[first]) {
		return -1
	}
	if q := p.promptBefore(first); q >= 0 {
		return q
	}
	for _, i := range p.free {
		if !p.scores[i].Kept {
			continue
		}
		if isPrompt(&p.msgs[i]) {
			return -1
		}
		if p.msgs[i].Role == RoleAssistant {
			return p.promptBefore(i)
		}
	}
	return -1
}

// promptBefore returns the nearest prompt before message i, or -1.
func (p *pass) promptBefore(i int) int {
	for j := i - 1; j >= 0; j-- {
		if !p.msgs[j].Role.Pinned() && isPrompt(&p.msgs[j]) {
			return j
		}
	}
	return -1
}

// isInput reports whether m is input to the model rather than its output:
// a user message (with or without tool results) or a tool result.
func isInput(m *Message) bool {
	return m.Role == RoleUser || isToolRole(m.Role) || len(m.ToolResultIDs) > 0
}

// pinnedPartners returns the non-pinned messages that a tool-call ID links
// to a system or developer message, which is always kept: the call a
// pinned message's result answers, the results of a pinned message's
// call (paired as Validate pairs them). Dropping one would leave the
// pinned message's half unmatched. Such links are rare (a Responses
// reasoning item followed by a developer message or a compaction item,
// which ParseMessages links to it); without any, this reads no map.
func (p *pass) pinnedPartners() []int {
	linked := false
	for i := range p.msgs {
		m := &p.msgs[i]
		if m.Role.Pinned() && (len(m.ToolCallIDs) > 0 || len(m.ToolResultIDs) > 0) {
			linked = true
			break
		}
	}
	if !linked {
		return nil
	}
	callers := callersOf(p.msgs)
	var out []int
	for i := range p.msgs {
		for _, id := range p.msgs[i].ToolResultIDs {
			c, ok := earlierCall(callers[id], i)
			if !ok {
				continue
			}
			switch pc, pi := p.msgs[c].Role.Pinned(), p.msgs[i].Role.Pinned(); {
			case pc && !pi:
				out = append(out, i)
			case pi && !pc:
				out = append(out, c)
			}
		}
	}
	return out
}
