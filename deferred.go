package chitta

import (
	"bytes"
	"encoding/json"
	"slices"
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

// toolLoads returns, per tool name, the non-pinned messages whose Raw
// loads it (a tool_reference block in the content of a tool_result
// block), ascending; nil when no message loads a tool. Messages without
// Raw or without tool results load nothing. The Raw of every result is
// scanned for the block type once per call; the needle starts with '_',
// rarer in JSON than '"', so the scan runs at several GB/s.
func (p *pass) toolLoads() map[string][]int {
	var loads map[string][]int
	for _, i := range p.free {
		m := &p.msgs[i]
		if len(m.ToolResultIDs) == 0 || !bytes.Contains(m.Raw, []byte(`_reference"`)) {
			continue
		}
		for _, name := range toolReferences(m.Raw) {
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

// referenceBlock is the part of a content block toolReferences reads.
type referenceBlock struct {
	Type     string          `json:"type"`
	ToolName string          `json:"tool_name"`
	Content  json.RawMessage `json:"content"`
}

// toolReferences returns the tool names of the tool_reference blocks in
// the content of a message object's tool_result blocks (nil for malformed
// JSON, which ParseMessages has rejected in any case).
func toolReferences(raw json.RawMessage) []string {
	var m struct {
		Content []referenceBlock `json:"content"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	var out []string
	for _, b := range m.Content {
		if b.Type != "tool_result" {
			continue
		}
		var inner []referenceBlock
		if json.Unmarshal(b.Content, &inner) != nil {
			continue // string content
		}
		for _, r := range inner {
			if r.Type == "tool_reference" && r.ToolName != "" {
				out = append(out, r.ToolName)
			}
		}
	}
	return out
}

// loadersToPin returns the loading results to pin so that every kept call
// of a loaded tool (loads, from toolLoads) has one kept: for each such
// call with no kept message loading its tool, the nearest loading message
// before it (none when the call comes before every load: the tool was not
// deferred then). The result is ascending and may repeat nothing.
func (p *pass) loadersToPin(loads map[string][]int) []int {
	if len(loads) == 0 {
		return nil
	}
	var out []int
	for _, i := range p.free {
		m := &p.msgs[i]
		if !p.scores[i].Kept || len(m.ToolCallIDs) == 0 || len(m.Raw) == 0 {
			continue
		}
		calls, _ := callNamesIn(m.Raw, i)
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
