package adaptkit

// Tool search (Anthropic tool_reference blocks) outside mask mode.
//
// chitta's tool-search rule (a kept call of a tool that a tool search
// loaded keeps a tool_result that loads it) reads, from a message's Raw,
// the tools its tool results load (tool_reference blocks) and the tools
// its calls call. The Builder's messages have Raw nil outside mask mode,
// so an adapter whose SDK has tool_reference blocks declares them with
// [Builder.ToolSearch], and a Builder that CompactBuilt or Compactor
// runs outside mask mode gives the message the least Raw the rule reads:
//
//	{"content":[{"type":"tool_result","content":[{"type":"tool_reference","tool_name":N},...]},
//	            {"type":"tool_use","id":ID,"name":N},...]}
//
// (the result block without its tool_use_id: the rule needs only the
// names; the linkage is the message's ToolResultIDs). Nothing else in
// chitta reads the Raw of a message outside mask mode but the
// Compactor, which compares it with the last call's (the Raw is
// deterministic), and Message.MarshalJSON: CompactBuilt clears it in
// Result.Messages, as it clears the synthetic Raw of mask mode; a
// Compactor's Result.Messages keep it (see Compactor). In mask mode
// ToolSearch does nothing: the mask-mode Raw holds the references the
// adapter added with [Builder.AddReference] as tool_reference blocks, and
// its calls as tool_use blocks, which the rule reads. In [Messages] it
// does nothing either (Raw nil).

// Call is a tool call as [Builder.ToolSearch] declares it.
type Call struct{ ID, Name string }

// ToolSearching reports whether [Builder.ToolSearch] writes a Raw: an
// adapter may skip collecting what it declares otherwise.
func (b *Builder) ToolSearching() bool { return b.search && b.mk == nil }

// ToolSearch declares, for the current message (the one the next End,
// Message, ResultMessage, CallMessage or CallTextMessage fills), the tools
// its tool results load (loads, the tool_name of each tool_reference
// block) and the calls of loaded tools it issues (calls), and gives it
// the Raw that chitta's tool-search rule reads them from (see above).
// With neither, or when not ToolSearching, it does nothing.
func (b *Builder) ToolSearch(loads []string, calls []Call) {
	if !b.ToolSearching() || len(loads)+len(calls) == 0 || b.next >= len(b.out) {
		return
	}
	raw := make([]byte, 0, 64+32*len(loads)+48*len(calls))
	raw = append(raw, `{"content":[`...)
	if len(loads) > 0 {
		raw = append(raw, `{"type":"tool_result","content":[`...)
		for k, n := range loads {
			if k > 0 {
				raw = append(raw, ',')
			}
			raw = append(raw, `{"type":"tool_reference","tool_name":`...)
			raw = appendString(raw, n)
			raw = append(raw, '}')
		}
		raw = append(raw, "]}"...)
	}
	for k, c := range calls {
		if k > 0 || len(loads) > 0 {
			raw = append(raw, ',')
		}
		raw = append(raw, `{"type":"tool_use","id":`...)
		raw = appendString(raw, c.ID)
		raw = append(raw, `,"name":`...)
		raw = appendString(raw, c.Name)
		raw = append(raw, '}')
	}
	raw = append(raw, "]}"...)
	b.out[b.next].Raw = raw
	b.searched = append(b.searched, b.next)
}

// unsearch clears the Raw that ToolSearch gave the messages of b, whose
// slots a pooled Builder reuses (End never writes Raw).
func (b *Builder) unsearch() {
	for _, i := range b.searched {
		if i < len(b.out) {
			b.out[i].Raw = nil
		}
	}
	b.searched = b.searched[:0]
}
