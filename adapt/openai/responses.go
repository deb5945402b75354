package openai

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/internal/adaptkit"
)

// ResponsesMessages converts Responses input items to chitta messages,
// index for index, with Content and tool linkage set and Raw nil.
//
// Messages, function calls and their outputs, reasoning and compaction
// items are read from the SDK's fields; every other item is read from its
// JSON by the same rules as [chitta.ParseMessages] (a *_call item issues
// its call_id, a *_call_output item carries it, an unknown type is scored
// by its JSON). A reasoning item issues the ID "reasoning@<index>", which
// the item after it carries, and so does every item of the model's reply
// after it up to the next input item (a preamble message, a reasoning
// model's parallel calls, a later reasoning item: the API refuses any of
// them without its reasoning item), so they are kept or dropped together; a
// compaction item has the role system, so it is always kept, and so have a
// compaction_trigger and a configuration_update (settings for the later
// responses). An item_reference (a stored item given by its ID) is
// linked as chitta.ParseMessages links it, so that the references and
// what they complete are kept or dropped together: a run of them (one
// after another) is one group, each answering the one before it, which
// issues "item_reference@<index>" (a stored call and its stored output,
// given by references in a row); the outputs after the run whose call_id
// no item before them issues (they answer the stored call it refers to)
// carry the ID of its last reference instead of their call_id; the run's
// first reference carries the call_id of each call before it that no
// later item answers, when no user, system or developer message comes
// between (the run may give its stored output), so chitta.Validate
// counts the call answered; a reference whose ID starts with "rs_" (a
// stored reasoning item, by the prefix of OpenAI's item IDs) is grouped
// as a reasoning item is. A stored call and its stored output given by
// references with other items between them are not tied. An additional_tools item reads as the JSON of its
// tool definitions, an mcp_list_tools item as its server's label and each
// tool's name, description and input schema. A
// tool_search_output item's text is the names of the function and custom
// tools it loads, then the JSON of every tool definition it holds (the
// model is sent them); a tool_search_call without call_id (a search the
// server ran) issues the ID "tool_search@<index>", which a
// tool_search_output right after it without call_id carries, so the two
// are kept or dropped together, as chitta.ParseMessages pairs them.
//
// [CompactResponses] and [NewResponsesCompactor] apply chitta's tool-search
// rule (see chitta.Options.FreeSelection) to the items: a kept
// function_call or custom_tool_call of a tool that a tool_search_output
// loaded (by name, in a namespace too) keeps a tool_search_output loading
// it, the nearest before the call pinned with its tool_search_call when
// no kept item loads the tool, as adapt/anthropic does for tool_reference
// blocks; the items concerned get a few bytes of synthetic Raw naming the
// tools, which the rule reads (see adapt/anthropic's Tool search). Loaded
// MCP servers and built-in tools are not followed. chitta.Compact on the
// items' JSON (chitta.ParseMessages) applies the same rule and reads a
// tool_search_output as the same text. An item with
// no variant set, or whose JSON cannot be read, is an error naming its
// index, and so is a content or output part with no variant set (the
// zero union, which the SDK sends as null), naming the item and the part.
func ResponsesMessages(items []responses.ResponseInputItemUnionParam) ([]chitta.Message, error) {
	return adaptkit.Messages(items, buildResponses)
}

func buildResponses(b *adaptkit.Builder, items []responses.ResponseInputItemUnionParam) error {
	reasoning := "" // the reasoning item the next item belongs with
	run := ""       // the reasoning item whose reply (the model's items up to the next input item) the last item continued
	search := ""    // the ID a tool_search_call without call_id issued, for the next item
	var loaded map[string]bool
	if b.ToolSearching() {
		loaded = loadedTools(items)
	}
	ties, err := referenceTies(items)
	if err != nil {
		return err
	}
	for i := range items {
		it := &items[i]
		lastSearch := search
		search = ""
		isReasoning := false
		if loaded != nil {
			toolSearch(b, it, loaded)
		}
		switch {
		case it.OfMessage != nil:
			if reasoning == "" && (run == "" || it.OfMessage.Role != responses.EasyInputMessageRoleAssistant) && len(it.OfMessage.Content.OfInputItemContentList) == 0 {
				b.Message(chitta.Role(it.OfMessage.Role), it.OfMessage.Content.OfString.Value) // text only
				run = ""
				continue
			}
			b.SetRole(chitta.Role(it.OfMessage.Role))
			b.Add(it.OfMessage.Content.OfString.Value)
			if j, ok := addInputContent(b, it.OfMessage.Content.OfInputItemContentList); !ok {
				return noVariant(i, "item", "content", j, "part")
			}
		case it.OfInputMessage != nil:
			b.SetRole(chitta.Role(it.OfInputMessage.Role))
			if j, ok := addInputContent(b, it.OfInputMessage.Content); !ok {
				return noVariant(i, "item", "content", j, "part")
			}
		case it.OfOutputMessage != nil:
			b.SetRole(chitta.RoleAssistant)
			for j, c := range it.OfOutputMessage.Content {
				switch {
				case c.OfOutputText != nil:
					b.Add(c.OfOutputText.Text)
				case c.OfRefusal != nil:
					b.Add(c.OfRefusal.Refusal)
				case param.IsOmitted(c):
					return noVariant(i, "item", "content", j, "part")
				default:
					b.AddJSON(c)
				}
			}
		case it.OfFunctionCall != nil:
			if fc := it.OfFunctionCall; reasoning == "" && run == "" && fc.CallID != "" {
				b.CallTextMessage(chitta.RoleAssistant, fc.CallID, fc.Name, fc.Arguments) // the usual call
				continue
			}
			b.SetRole(chitta.RoleAssistant)
			callID(b, it.OfFunctionCall.CallID)
			b.AddCall(it.OfFunctionCall.Name, it.OfFunctionCall.Arguments)
		case it.OfFunctionCallOutput != nil:
			o := it.OfFunctionCallOutput
			b.SetRole(chitta.RoleTool)
			id := ties.result(i, o.CallID.Value)
			resultID(b, id)
			b.OpenResult(id)
			b.Add(o.Output.OfString.Value)
			for j, p := range o.Output.OfResponseFunctionCallOutputItemArray {
				switch {
				case p.OfInputText != nil:
					b.Add(p.OfInputText.Text)
				case p.OfInputImage != nil:
					b.Image(chitta.OpenAIImageURLTokens(p.OfInputImage.ImageURL.Value, string(p.OfInputImage.Detail)))
				case p.OfInputFile != nil:
					b.Add("[document]")
				case param.IsOmitted(p):
					return noVariant(i, "item", "output", j, "part")
				default:
					b.AddJSON(p)
				}
			}
			b.CloseResult()
		case it.OfReasoning != nil:
			b.SetRole(chitta.RoleAssistant)
			for _, s := range it.OfReasoning.Summary {
				b.Add(s.Text)
			}
			for _, c := range it.OfReasoning.Content {
				b.Add(c.Text)
			}
			if b.Empty() {
				b.Add("[reasoning]")
			}
			isReasoning = true
		case it.OfItemReference != nil: // its JSON may have no type
			b.SetRole(chitta.RoleAssistant)
			b.Add("[item_reference " + it.OfItemReference.ID + "]")
			// A stored reasoning item, by its ID's prefix: grouped as an
			// inline one, as chitta.ParseMessages reads it.
			isReasoning = strings.HasPrefix(it.OfItemReference.ID, "rs_")
		case it.OfCompaction != nil:
			b.SetRole(chitta.RoleSystem)
			b.Add("[compaction]")
		case it.OfToolSearchOutput != nil:
			// The names of the tools it loads, as the rule reads them (a
			// result that loads tools, which chitta never masks), then
			// their definitions, which the model is sent.
			o := it.OfToolSearchOutput
			id := o.CallID.Value
			if id == "" {
				id = lastSearch // a search the server ran: the call right before it
			}
			if id == "" {
				id = o.ID.Value // as chitta.ParseMessages reads an *_output item
			}
			id = ties.result(i, id)
			b.SetRole(chitta.RoleTool)
			resultID(b, id)
			names := searchLoads(o)
			if len(names) > 0 {
				b.OpenResult(id)
				for _, n := range names {
					b.AddReference(n)
				}
			}
			for _, t := range o.Tools {
				b.AddJSON(t)
			}
			if len(names) > 0 {
				b.CloseResult()
			}
		default:
			data, err := json.Marshal(it)
			if err != nil {
				return fmt.Errorf("%w: message %d: %v", chitta.ErrInvalidMessages, i, err)
			}
			if string(data) == "null" {
				return fmt.Errorf("%w: item %d: no item variant set", chitta.ErrInvalidMessages, i)
			}
			var pm chitta.Message
			if err := pm.UnmarshalJSON(data); err != nil {
				return fmt.Errorf("item %d: %w", i, err)
			}
			b.SetRole(pm.Role)
			for _, id := range pm.ToolCallIDs {
				b.CallID(id)
			}
			if c := it.OfToolSearchCall; c != nil && c.CallID.Value == "" {
				// A search the server ran, without call_id: the
				// tool_search_output right after it answers it, as
				// chitta.ParseMessages pairs them.
				search = "tool_search@" + strconv.Itoa(i)
				b.CallID(search)
			}
			for j, id := range pm.ToolResultIDs {
				pm.ToolResultIDs[j] = ties.result(i, id)
				b.ResultID(pm.ToolResultIDs[j])
			}
			switch {
			case it.OfCustomToolCall != nil:
				b.CallName(it.OfCustomToolCall.CallID, it.OfCustomToolCall.Name)
				b.Add(pm.Content)
			case it.OfCustomToolCallOutput != nil && len(pm.ToolResultIDs) == 1:
				// Its output, a string or content parts, is what a string
				// may replace.
				b.OpenResult(pm.ToolResultIDs[0])
				if parts := it.OfCustomToolCallOutput.Output.OfOutputContentList; len(parts) > 0 {
					if j, ok := addCustomOutput(b, parts); !ok {
						return noVariant(i, "item", "output", j, "part")
					}
				} else {
					b.Add(pm.Content)
				}
				b.CloseResult()
			case it.OfComputerCallOutput != nil:
				// Its screenshot, which OpenAI bills as an image at
				// high detail (a file ID: the most it bills).
				b.Image(chitta.OpenAIImageURLTokens(it.OfComputerCallOutput.Output.ImageURL.Value, ""))
			default:
				b.Add(pm.Content)
			}
		}
		assistant := b.Role() == chitta.RoleAssistant
		switch {
		case reasoning != "":
			b.ResultID(reasoning)
			run, reasoning = reasoning, ""
		case run != "" && assistant:
			// The rest of a reasoning model's reply (a preamble
			// message, parallel calls, a later reasoning item): the API
			// wants the reasoning item before each of its items.
			b.ResultID(run)
		}
		if !assistant {
			run = ""
		}
		if isReasoning {
			reasoning = "reasoning@" + strconv.Itoa(i)
			b.CallID(reasoning)
		}
		if l, ok := ties.refs[i]; ok { // after its reasoning links, as chitta.ParseMessages ties it
			if l.id != "" {
				b.CallID(l.id)
			}
			if l.prev != "" {
				b.ResultID(l.prev)
			}
			for _, id := range l.calls {
				b.ResultID(id)
			}
		}
		b.End()
	}
	return nil
}

// refTies is how buildResponses links item_reference items to the calls
// and outputs they complete (see ResponsesMessages), as
// chitta.ParseMessages does: refs by the index of each reference tied,
// out by the index of each output answering a reference, its call_id and
// that ID's replacement. The zero value ties nothing.
type refTies struct {
	refs map[int]refLink
	out  map[int][2]string
}

// refLink is what a tied item_reference issues (id, or ""), and answers:
// prev, the reference right before it in its run (or ""), and calls, the
// calls before the run that no later item answers (their stored output),
// for the run's first reference.
type refLink struct {
	id, prev string
	calls    []string
}

// result returns the ID output item i carries for call id: the
// reference's that it answers instead, when it is tied, else id.
func (t *refTies) result(i int, id string) string {
	if r, ok := t.out[i]; ok && id == r[0] {
		return r[1]
	}
	return id
}

// refItem is what referenceTies reads of an item: the calls it issues,
// the results it carries, its role, and whether it is an item_reference.
type refItem struct {
	calls, results []string
	role           chitta.Role
	ref            bool
}

// readRefItems reads items as buildResponses does, for referenceTies:
// items other than messages, function calls and their outputs, reasoning,
// compaction and tool-search items are read from their JSON.
func readRefItems(items []responses.ResponseInputItemUnionParam) ([]refItem, error) {
	out := make([]refItem, len(items))
	search := "" // the ID a tool_search_call without call_id issued, for the next item
	for i := range items {
		it, r := &items[i], &out[i]
		lastSearch := search
		search = ""
		r.role = chitta.RoleAssistant
		switch {
		case it.OfItemReference != nil:
			r.ref = true
		case it.OfMessage != nil:
			r.role = chitta.Role(it.OfMessage.Role)
		case it.OfInputMessage != nil:
			r.role = chitta.Role(it.OfInputMessage.Role)
		case it.OfOutputMessage != nil, it.OfReasoning != nil:
		case it.OfCompaction != nil:
			r.role = chitta.RoleSystem
		case it.OfFunctionCall != nil:
			r.calls = []string{it.OfFunctionCall.CallID}
		case it.OfFunctionCallOutput != nil:
			r.role, r.results = chitta.RoleTool, []string{it.OfFunctionCallOutput.CallID.Value}
		case it.OfToolSearchOutput != nil:
			id := cmp.Or(it.OfToolSearchOutput.CallID.Value, lastSearch, it.OfToolSearchOutput.ID.Value)
			r.role, r.results = chitta.RoleTool, []string{id}
		default:
			data, err := json.Marshal(it)
			if err != nil {
				return nil, fmt.Errorf("%w: message %d: %v", chitta.ErrInvalidMessages, i, err)
			}
			var pm chitta.Message
			if pm.UnmarshalJSON(data) == nil {
				r.calls, r.results, r.role = pm.ToolCallIDs, pm.ToolResultIDs, pm.Role
			}
			if c := it.OfToolSearchCall; c != nil && c.CallID.Value == "" {
				search = "tool_search@" + strconv.Itoa(i)
				r.calls = append(r.calls, search)
			}
		}
	}
	return out, nil
}

// referenceTies finds the ties of items (none, without a map, when no
// item is an item_reference), by chitta.ParseMessages' rules. A run of
// item_reference items (one after another) is one group: each answers
// the one before it, which issues "item_reference@<index>". An output
// whose call_id no item before it issues answers the last reference of
// the last run before it, which then issues its ID too. A call that no
// later item answers is answered by the first reference of the first run
// after it, unless an item other than the model's or an output (a user,
// system or developer message) comes between them.
func referenceTies(items []responses.ResponseInputItemUnionParam) (refTies, error) {
	var t refTies
	var runs [][]int
	for i := range items {
		if items[i].OfItemReference == nil {
			continue
		}
		if n := len(runs); n > 0 && runs[n-1][len(runs[n-1])-1] == i-1 {
			runs[n-1] = append(runs[n-1], i)
		} else {
			runs = append(runs, []int{i})
		}
	}
	if len(runs) == 0 {
		return t, nil
	}
	its, err := readRefItems(items)
	if err != nil {
		return t, err
	}
	key := func(i int) string { return "item_reference@" + strconv.Itoa(i) }
	used := make([]bool, len(runs))
	issued := make(map[string]bool)
	last := -1 // the run last started at or before i
	for i, it := range its {
		if last+1 < len(runs) && runs[last+1][0] == i {
			last++
		}
		if run := runs[max(last, 0)]; last >= 0 && i > run[len(run)-1] {
			for _, id := range it.results {
				if id != "" && !issued[id] {
					if t.out == nil {
						t.out = make(map[int][2]string)
					}
					t.out[i], used[last] = [2]string{id, key(run[len(run)-1])}, true
					break
				}
			}
		}
		for _, id := range it.calls {
			issued[id] = true
		}
	}
	t.refs = make(map[int]refLink)
	for r, run := range runs {
		for k, j := range run {
			var l refLink
			if k > 0 {
				l.prev = key(run[k-1])
			}
			if k < len(run)-1 || used[r] {
				l.id = key(j)
			}
			t.refs[j] = l
		}
	}
	// Calls no later item answers (a result answers the nearest earlier
	// call of its ID).
	type call struct {
		index int
		id    string
	}
	answered := make(map[call]bool)
	latest := make(map[string]int)
	for i, it := range its {
		for _, id := range it.calls {
			latest[id] = i
		}
		for _, id := range it.results { // (one tied above answers no call)
			if c, ok := latest[id]; ok {
				answered[call{c, id}] = true
			}
		}
	}
	var waiting []string
	next := 0
	for i, it := range its {
		switch {
		case next < len(runs) && runs[next][0] == i:
			l := t.refs[i]
			l.calls, waiting = waiting, nil
			t.refs[i] = l
			next++
			continue
		case it.role != chitta.RoleAssistant && !isResult(it.role):
			waiting = nil
		}
		for _, id := range it.calls {
			if id != "" && !answered[call{i, id}] && !strings.HasPrefix(id, "tool_search@") {
				waiting = append(waiting, id)
			}
		}
	}
	return t, nil
}

// isResult reports whether r is a tool-result role, as chitta.Validate
// reads one.
func isResult(r chitta.Role) bool {
	return r == chitta.RoleTool || r == "function" || r == "tool_result"
}

// searchLoads returns the names of the tools a tool_search_output loads:
// function and custom tools, in a namespace too (by their own name, as a
// call's name gives it beside its namespace: two namespaces' tools of one
// name keep each other's loading results, never too few); other tools
// (MCP servers, built-in tools) are left out, since no function_call or
// custom_tool_call names them.
func searchLoads(o *responses.ResponseToolSearchOutputItemParam) []string {
	var out []string
	for _, t := range o.Tools {
		switch {
		case t.OfFunction != nil && t.OfFunction.Name != "":
			out = append(out, t.OfFunction.Name)
		case t.OfCustom != nil && t.OfCustom.Name != "":
			out = append(out, t.OfCustom.Name)
		case t.OfNamespace != nil:
			for _, nt := range t.OfNamespace.Tools {
				switch {
				case nt.OfFunction != nil && nt.OfFunction.Name != "":
					out = append(out, nt.OfFunction.Name)
				case nt.OfCustom != nil && nt.OfCustom.Name != "":
					out = append(out, nt.OfCustom.Name)
				}
			}
		}
	}
	return out
}

// loadedTools returns the tools that the tool_search_output items of
// items load, or nil when none loads one.
func loadedTools(items []responses.ResponseInputItemUnionParam) map[string]bool {
	var loaded map[string]bool
	for i := range items {
		if o := items[i].OfToolSearchOutput; o != nil {
			for _, n := range searchLoads(o) {
				if loaded == nil {
					loaded = make(map[string]bool)
				}
				loaded[n] = true
			}
		}
	}
	return loaded
}

// toolSearch declares to b, for chitta's tool-search rule, the tools that
// it loads (a tool_search_output) or the loaded tool it calls (a
// function_call or custom_tool_call of a tool in loaded); see adaptkit's
// Builder.ToolSearch.
func toolSearch(b *adaptkit.Builder, it *responses.ResponseInputItemUnionParam, loaded map[string]bool) {
	switch {
	case it.OfToolSearchOutput != nil:
		b.ToolSearch(searchLoads(it.OfToolSearchOutput), nil)
	case it.OfFunctionCall != nil:
		if fc := it.OfFunctionCall; loaded[fc.Name] {
			b.ToolSearch(nil, []adaptkit.Call{{ID: fc.CallID, Name: fc.Name}})
		}
	case it.OfCustomToolCall != nil:
		if cc := it.OfCustomToolCall; loaded[cc.Name] {
			b.ToolSearch(nil, []adaptkit.Call{{ID: cc.CallID, Name: cc.Name}})
		}
	}
}

// addInputContent adds parts with addInputPart. It stops at a part with
// no variant set, and returns its index and false.
func addInputContent(b *adaptkit.Builder, parts responses.ResponseInputMessageContentListParam) (int, bool) {
	for j, p := range parts {
		if !addInputPart(b, p) {
			return j, false
		}
	}
	return 0, true
}

// addInputPart adds a content part: text, an image with what OpenAI bills
// for it, a file as "[document]", another part as its JSON. It adds
// nothing and returns false for a part with no variant set (the zero
// union, which the SDK sends as null).
func addInputPart(b *adaptkit.Builder, p responses.ResponseInputContentUnionParam) bool {
	switch {
	case p.OfInputText != nil:
		b.Add(p.OfInputText.Text)
	case p.OfInputImage != nil:
		b.Image(chitta.OpenAIImageURLTokens(p.OfInputImage.ImageURL.Value, string(p.OfInputImage.Detail)))
	case p.OfInputFile != nil:
		b.Add("[document]")
	case param.IsOmitted(p):
		return false
	default:
		b.AddJSON(p)
	}
	return true
}

// addCustomOutput adds the content parts of a custom_tool_call_output,
// whose union has the fields of a message's content part, as
// addInputContent adds those.
func addCustomOutput(b *adaptkit.Builder, parts []responses.ResponseCustomToolCallOutputOutputOutputContentListItemUnionParam) (int, bool) {
	for j, p := range parts {
		if !addInputPart(b, responses.ResponseInputContentUnionParam(p)) {
			return j, false
		}
	}
	return 0, true
}

// CompactResponses compacts Responses input items with [chitta.Compact]
// and returns the surviving values of items themselves (items[i] for each
// i in Result.Kept, not copies made through JSON), in order, with the
// Result. items is not modified.
// With opts.Mask set, a value with a masked or cut tool result is a new
// value instead (see Masking in the package doc).
func CompactResponses(ctx context.Context, items []responses.ResponseInputItemUnionParam, opts *chitta.Options) ([]responses.ResponseInputItemUnionParam, *chitta.Result, error) {
	return adaptkit.CompactBuilt(ctx, items, opts, buildResponses, rewriteResponses)
}

// rewriteResponses returns a copy of a function_call_output or
// custom_tool_call_output item whose output is the string texts[0], when
// texts[0] != "" (see adaptkit.RewriteFunc). The union's item is new;
// every other field (call_id, id, name, status) is the caller's. No other
// item declares a result, so chitta masks no other.
func rewriteResponses(it responses.ResponseInputItemUnionParam, texts []string) (responses.ResponseInputItemUnionParam, bool) {
	if len(texts) != 1 {
		return it, false
	}
	text := texts[0]
	switch {
	case text == "":
	case it.OfFunctionCallOutput != nil:
		o := *it.OfFunctionCallOutput
		o.Output = responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: param.NewOpt(text)}
		it.OfFunctionCallOutput = &o
	case it.OfCustomToolCallOutput != nil:
		o := *it.OfCustomToolCallOutput
		o.Output = responses.ResponseCustomToolCallOutputOutputUnionParam{OfString: param.NewOpt(text)}
		it.OfCustomToolCallOutput = &o
	default:
		return it, false
	}
	return it, true
}
