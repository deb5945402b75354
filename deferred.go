package chitta

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// Deferred tools (Anthropic tool search). A tool declared with
// defer_loading is not in the model's tool list until a tool search
// returns a tool_reference to it: the tool_result of the search holds
// {"type": "tool_reference", "tool_name": "TaskUpdate"}, and the API (and
// Claude Code, which sends a deferred tool's schema only while such a
// reference is in the conversation) gives the model the tool's schema for
// as long as that reference stays. A kept call of such a tool whose
// loading result was dropped leaves the model calling a tool it no longer
// has the schema of. So, as a tool call keeps its result, a kept call of a
// loaded tool keeps a result that loads it: when none is kept, the nearest
// one before the call is pinned with its tool-call group (charged to the
// budget like every pin).

// references returns, per message whose tool results load tools (a
// tool_reference block in the content of a tool_result block), the names
// of the tools it loads; messages without Raw or without tool results
// load nothing. It reads each result's Raw once per Compact call, for
// masking and selection both: the needle starts with '_', rarer in JSON
// than '"', so the scan runs at several GB/s.
func (p *pass) references() map[int][]string {
	if !p.refsRead {
		p.refsRead = true
		for i := range p.msgs {
			m := &p.msgs[i]
			if len(m.ToolResultIDs) == 0 || !bytes.Contains(m.Raw, []byte(`_reference"`)) {
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

// toolReferences returns the tool names of the tool_reference blocks in
// the content of a message object's tool_result blocks; a malformed
// block gives none (ParseMessages has rejected it in any case).
func toolReferences(raw json.RawMessage) []string {
	b := []byte(raw)
	var out []string
	for it := newMembers(b, 0); it.next(); {
		if !it.is("content") || b[it.start()] != '[' {
			continue
		}
		for el := newElements(b, it.start()); el.next(); {
			typ, content, end := memberPair(b, el.start(), "type", "content")
			el.setEnd(end)
			if t, _ := stringAt(b, typ); t != "tool_result" || content.end == 0 || b[content.start] != '[' {
				continue // not a result, or one with string content
			}
			for in := newElements(b, content.start); in.next(); {
				typ, name, end := memberPair(b, in.start(), "type", "tool_name")
				in.setEnd(end)
				if t, _ := stringAt(b, typ); t == "tool_reference" {
					if n, _ := stringAt(b, name); n != "" {
						out = append(out, n)
					}
				}
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
