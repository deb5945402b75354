package chitta

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// Deferred tools (tool search). A tool declared with defer_loading is
// not in the model's tool list until a tool search loads it: with
// Anthropic's client-side tool search, the tool_result of the search
// holds {"type": "tool_reference", "tool_name": "TaskUpdate"}; with its
// server tool search (tool_search_tool_regex/bm25), the assistant's
// message holds a tool_search_tool_result whose content lists
// tool_references; with the OpenAI Responses API, a tool_search_output
// item holds the loaded tool definitions (tools[].name, in a namespace
// too). The API (and Claude Code, which sends a deferred tool's schema
// only while such a reference is in the conversation) gives the model
// the tool's schema for as long as that load stays. A kept call of such
// a tool whose loading result was dropped leaves the model calling a
// tool it no longer has the schema of. So, as a tool call keeps its
// result, a kept call of a loaded tool keeps a result that loads it: when
// none is kept, the nearest one before the call is pinned with its
// tool-call group (charged to the budget like every pin).

// references returns, per message that loads tools, the names of the
// tools it loads (see toolReferences); messages without Raw load nothing.
// It reads each message's Raw once per Compact call, for masking and
// selection both, and only one that mayLoad.
func (p *pass) references() map[int][]string {
	if !p.refsRead {
		p.refsRead = true
		for i := range p.msgs {
			m := &p.msgs[i]
			if !mayLoad(m) {
				continue
			}
			if names := toolReferences(m.Raw); len(names) > 0 {
				if p.refs == nil {
					p.refs = make(map[int][]string)
				}
				p.refs[i] = names
			}
		}
	}
	return p.refs
}

// mayLoad reports whether message m may load tools: a message with tool
// results or of the tool role whose Raw holds `_reference"` (the type of
// a tool_reference block, in a tool_result or a tool_search_tool_result,
// or in the Raw an adapter writes, see adapt/internal/adaptkit), or a
// tool message (a Responses output item, which may carry no ID) whose Raw
// holds `_search_output"`. The needles start with '_', rarer in JSON than
// '"', so the scan runs at several GB/s; only a tool message may be
// scanned twice.
func mayLoad(m *Message) bool {
	if len(m.Raw) == 0 || len(m.ToolResultIDs) == 0 && m.Role != RoleTool {
		return false
	}
	if bytes.Contains(m.Raw, []byte(`_reference"`)) {
		return true
	}
	return m.Role == RoleTool && bytes.Contains(m.Raw, []byte(`_search_output"`))
}

// toolLoads returns, per tool name, the non-pinned messages that load it
// (see references), ascending; nil when none loads a tool.
func (p *pass) toolLoads() map[string][]int {
	refs := p.references()
	if len(refs) == 0 {
		return nil
	}
	var loads map[string][]int
	for _, i := range p.free {
		for _, name := range refs[i] {
			if loads == nil {
				loads = make(map[string][]int)
			}
			if l := loads[name]; len(l) == 0 || l[len(l)-1] != i {
				loads[name] = append(l, i)
			}
		}
	}
	return loads
}

// loadsTools reports whether the tool results of message i load tools.
// Masking leaves such a message whole: a placeholder would unload the
// schemas it is kept for.
func (p *pass) loadsTools(i int) bool {
	return len(p.references()[i]) > 0
}

// toolReferences returns the names of the tools a message object loads:
// the tool_name of each tool_reference block in the content of its
// tool_result blocks (Anthropic's client-side tool search) and in the
// tool_references of its tool_search_tool_result blocks (the server tool
// search), and, for a Responses tool_search_output item, the name of
// each function and custom tool in its tools, in a namespace too (as
// adapt/openai reads them: a call names such a tool by its own name; MCP
// servers and built-in tools are left out, no function_call names them).
// A malformed block gives none (ParseMessages has rejected it in any
// case).
func toolReferences(raw json.RawMessage) []string {
	b := []byte(raw)
	var out []string
	var typ, tools jsonSpan // of a Responses item
	for it := newMembers(b, 0); it.next(); {
		switch {
		case it.is("type"):
			typ = it.val()
		case it.is("tools"):
			tools = it.val()
		case it.is("content") && b[it.start()] == '[':
			out = contentReferences(b, it.start(), out)
		}
	}
	if tools.end > 0 && b[tools.start] == '[' {
		if t, _ := stringAt(b, typ); t == "tool_search_output" {
			out = loadedTools(b, tools.start, out, true)
		}
	}
	return out
}

// contentReferences appends to out the names that the tool_result and
// tool_search_tool_result blocks of the content array at b[at] load.
func contentReferences(b []byte, at int, out []string) []string {
	for el := newElements(b, at); el.next(); {
		typ, content, end := memberPair(b, el.start(), "type", "content")
		el.setEnd(end)
		if content.end == 0 {
			continue
		}
		switch t, _ := stringAt(b, typ); {
		case t == "tool_result" && b[content.start] == '[':
			out = referenceNames(b, content.start, out)
		case t == "tool_search_tool_result":
			out = searchResultNames(b, content, out)
		}
	}
	return out
}

// serverToolSearchNames returns the names that blk, a content block of
// type typ, loads when it is a server tool search's
// tool_search_tool_result (its content's tool_references); nil for an
// error result or another block.
func serverToolSearchNames(typ string, blk json.RawMessage) []string {
	if typ != "tool_search_tool_result" {
		return nil
	}
	b := []byte(blk)
	content, _, _ := memberPair(b, skipSpace(b, 0), "content", "")
	return searchResultNames(b, content, nil)
}

// searchResultNames appends to out the names of the tool_references of
// content, a tool_search_tool_result's content (absent: none).
func searchResultNames(b []byte, content jsonSpan, out []string) []string {
	if content.end == 0 || b[content.start] != '{' {
		return out
	}
	if refs, _, _ := memberPair(b, content.start, "tool_references", ""); refs.end > 0 && b[refs.start] == '[' {
		out = referenceNames(b, refs.start, out)
	}
	return out
}

// referenceNames appends to out the tool_name of each tool_reference
// block of the array at b[at].
func referenceNames(b []byte, at int, out []string) []string {
	for in := newElements(b, at); in.next(); {
		typ, name, end := memberPair(b, in.start(), "type", "tool_name")
		in.setEnd(end)
		if t, _ := stringAt(b, typ); t == "tool_reference" {
			if n, _ := stringAt(b, name); n != "" {
				out = append(out, n)
			}
		}
	}
	return out
}

// loadedTools appends to out the names of the function and custom tools
// of the tools array at b[at] (a tool_search_output's), and those of its
// namespaces' tools when nested.
func loadedTools(b []byte, at int, out []string, nested bool) []string {
	for el := newElements(b, at); el.next(); {
		typ, name, end := memberPair(b, el.start(), "type", "name")
		start := el.start()
		el.setEnd(end)
		switch t, _ := stringAt(b, typ); t {
		case "function", "custom":
			if n, _ := stringAt(b, name); n != "" {
				out = append(out, n)
			}
		case "namespace":
			if ts, _, _ := memberPair(b, start, "tools", ""); nested && ts.end > 0 && b[ts.start] == '[' {
				out = loadedTools(b, ts.start, out, false)
			}
		}
	}
	return out
}

// loadersToPin returns the loading results to pin so that every kept call
// of a loaded tool (loads, from toolLoads) has one kept: for each such
// call with no kept message loading its tool, the nearest loading message
// before it (none when the call comes before every load: the tool was not
// deferred then). The calls are read from Raw (callNamesIn) only for a
// message whose Content names a loaded tool, as ParseMessages writes it.
// names caches each message's calls between the rounds of one selection. The result is ascending, without repeats.
func (p *pass) loadersToPin(loads map[string][]int, names map[int][]idName) []int {
	if len(loads) == 0 {
		return nil
	}
	first := len(p.msgs) // the first loading message
	for _, ls := range loads {
		first = min(first, ls[0])
	}
	var out []int
	for _, i := range p.free {
		m := &p.msgs[i]
		if i <= first || !p.scores[i].Kept || len(m.ToolCallIDs) == 0 || len(m.Raw) == 0 {
			continue // a call before every load needs none
		}
		calls, ok := names[i]
		if !ok {
			// ParseMessages writes every call's name into Content: a
			// message naming no loaded tool there calls none (and its
			// Raw, large tool inputs included, need not be read).
			if mentions(m.Content, loads) {
				calls, _ = callNamesIn(m.Raw, i)
			}
			names[i] = calls
		}
		for _, c := range calls {
			ls := loads[c.name]
			if len(ls) == 0 || slices.ContainsFunc(ls, func(j int) bool { return p.scores[j].Kept }) {
				continue
			}
			k, _ := slices.BinarySearch(ls, i)
			if k == 0 {
				continue // loaded only after the call
			}
			if j := ls[k-1]; !slices.Contains(out, j) {
				out = append(out, j)
			}
		}
	}
	slices.Sort(out)
	return out
}

// mentions reports whether text contains the name of a tool in loads.
func mentions(text string, loads map[string][]int) bool {
	for name := range loads {
		if strings.Contains(text, name) {
			return true
		}
	}
	return false
}
