// Package anthropic compacts anthropic-sdk-go v2 conversations
// ([]anthropic.MessageParam) with chitta, returning the caller's own
// values. Text for scoring comes from text, thinking, tool_use and
// server_tool_use (name and input) and tool_result blocks, search_result
// blocks (title, source and text, in a message or in a tool_result) and
// web_search_tool_result blocks (each result's title and URL, or the error
// code) and tool_reference blocks (the name of the tool a tool search
// loads) and a server tool search's tool_search_tool_result (the names
// of the tools it loads), as chitta.ParseMessages reads them; an image
// counts as "[image]" plus what Anthropic bills for it in
// chitta.Message.MediaTokens (chitta.AnthropicImageTokens of a base64
// source's size, chitta.AnthropicMaxImageTokens for a URL or file), a
// document as "[document]", its title and context and the text of a text
// or content source (a PDF is not estimated); any other block (other server tool results,
// block types newer than this adapter) is scored by its JSON. A tool_use block and the tool_result blocks answering
// it (by ID), and a server_tool_use block and its result, are kept or
// dropped together.
//
// # Tool search
//
// [Compact] and [Compactor] apply chitta's tool-search rule (see
// chitta.Options.FreeSelection) to the typed values: a kept tool_use of a
// tool that a tool_reference block (a ToolResultBlockParam content of
// the OfToolReference variant, as a custom ToolSearch tool returns it, or
// one of the ToolReferences of a server tool search's
// tool_search_tool_result, in the assistant's message) loaded keeps a
// result loading it, the nearest before the call pinned
// with its tool_use when no kept message loads the tool, as
// chitta.Compact does for the same conversation as JSON. The messages
// concerned get a few bytes of synthetic Raw naming the tools, which
// the rule reads (adapt/internal/adaptkit's Builder.ToolSearch); Compact's
// Result.Messages have Raw nil, a Compactor's keep it; with
// chitta.Options.Mask set, mask mode's synthetic Raw (see Masking) holds
// the tool_reference blocks (Builder.AddReference). [Messages] returns
// Raw nil, so chitta.Compact on its messages does not apply the rule.
//
// A user or assistant message with no content blocks is an error wrapping
// [ErrNoContent] and chitta.ErrInvalidMessages: the SDK's MessageParam
// reads JSON holding a block type it does not know (the MCP connector's
// mcp_tool_use and mcp_tool_result) as a message without any, and
// compacting it would pass on that loss unnoticed. The one exception is
// what the Messages API itself accepts: a final assistant message whose
// Content is empty but not nil (`"content": []`, an empty prefill). A nil
// Content is refused even there, since it is what the SDK makes of the
// unknown blocks, and the SDK sends it without the required content
// field.
//
// For an agent loop that compacts before every model call, [NewCompactor]
// returns a Compactor: [chitta.Compactor] over the same values, which
// returns the previous call's values plus the new ones between
// compactions, so that the prompt's prefix, and the provider's prompt
// cache, stay warm.
//
// # Masking
//
// With [chitta.Options.Mask] set, [Compact] masks tool_result blocks as
// chitta masks Anthropic messages: each block on its own (text blocks
// beside it kept), named after its tool_use (ExcludeTools matches that
// name). A kept message with a masked or cut result is a new
// MessageParam: a new content slice in which each rewritten block is a
// new ToolResultBlockParam (same tool_use_id, is_error, cache_control)
// whose content is one text block, chitta's placeholder, such as
//
//	[chitta: read_file output elided (391 tokens)]
//
// or its head and tail around a cut marker; images and documents of a
// rewritten result are dropped with the rest of its output (a cut keeps
// "[image]" where the head or tail showed one); every other block is
// the caller's. The caller's values are never modified, and every
// value chitta did not mask is returned as it is. [Messages] of the
// returned values gives the texts chitta counted, so they count
// Stats.AfterTokens under the options' counter exactly. Result.Messages hold
// the masked texts as Content, with Raw nil (the synthetic Raw chitta
// masked, see adapt/internal/adaptkit, is not returned).
package anthropic

import (
	"context"
	"fmt"
	"slices"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/internal/adaptkit"
)

// Messages converts msgs to chitta messages, index for index, with Content
// and tool linkage set and Raw nil. A message that is none of user,
// assistant or system is an error naming its index, and so is a user or
// assistant message with no content blocks (see [ErrNoContent]) and a
// content block, or a tool_result's content block, with no variant set
// (the zero union, which the SDK sends as null); [Compact] and the
// Compactor return the same errors.
func Messages(msgs []anthropic.MessageParam) ([]chitta.Message, error) {
	return adaptkit.Messages(msgs, build)
}

// noContent returns the error for message i, of role, with no content
// blocks.
func noContent(i int, role string) error {
	return fmt.Errorf("%w: %w: message %d: %s message with no content blocks (a MessageParam read from JSON whose content holds a block type anthropic-sdk-go's MessageParam does not know, such as mcp_tool_use or mcp_tool_result, loses the whole content: read it as BetaMessageParam, or compact the JSON with chitta.ParseMessages)",
		chitta.ErrInvalidMessages, ErrNoContent, i, role)
}

func build(b *adaptkit.Builder, msgs []anthropic.MessageParam) error {
	// The tools loaded so far: a load precedes the calls it serves (chitta's
	// rule pins the nearest loading result before a call), so one pass finds
	// them as it goes, with each message's blocks read once.
	var loaded map[string]bool
	searching := b.ToolSearching()
	for i := range msgs {
		m := &msgs[i]
		if searching {
			var c []anthropic.ContentBlockParamUnion
			switch {
			case m.OfUser != nil:
				c = m.OfUser.Content
			case m.OfAssistant != nil:
				c = m.OfAssistant.Content
			}
			for j := range c { // only result blocks can load tools
				if c[j].OfToolResult != nil || c[j].OfToolSearchToolResult != nil {
					loaded = appendReferences(loaded, c[j:j+1])
				}
			}
			if loaded != nil {
				toolSearch(b, m, loaded)
			}
		}
		switch {
		case m.OfUser != nil && len(m.OfUser.Content) == 0:
			return noContent(i, "user")
		case m.OfAssistant != nil && m.OfAssistant.Content == nil,
			m.OfAssistant != nil && len(m.OfAssistant.Content) == 0 && i < len(msgs)-1:
			return noContent(i, "assistant")
		case m.OfUser != nil:
			if text, ok := onlyText(m.OfUser.Content); ok {
				b.Message(chitta.RoleUser, text)
				continue
			}
			if id, text, ok := onlyTextResult(m.OfUser.Content); ok {
				b.ResultMessage(chitta.RoleUser, id, text)
				continue
			}
			b.SetRole(chitta.RoleUser)
			if err := addBlocks(b, m.OfUser.Content); err != nil {
				return fmt.Errorf("%w: message %d: %w", chitta.ErrInvalidMessages, i, err)
			}
		case m.OfAssistant != nil:
			if text, ok := onlyText(m.OfAssistant.Content); ok {
				b.Message(chitta.RoleAssistant, text)
				continue
			}
			if c := m.OfAssistant.Content; len(c) == 1 && c[0].OfToolUse != nil {
				b.CallMessage(chitta.RoleAssistant, c[0].OfToolUse.ID, c[0].OfToolUse.Name, c[0].OfToolUse.Input)
				continue
			}
			b.SetRole(chitta.RoleAssistant)
			if c := m.OfAssistant.Content; len(c) > 0 && (c[0].OfThinking != nil || c[0].OfRedactedThinking != nil) {
				b.OpensWithThinking()
			}
			if err := addBlocks(b, m.OfAssistant.Content); err != nil {
				return fmt.Errorf("%w: message %d: %w", chitta.ErrInvalidMessages, i, err)
			}
		case m.OfSystem != nil:
			b.SetRole(chitta.RoleSystem)
			for _, t := range m.OfSystem.Content {
				b.Add(t.Text)
			}
		default:
			return fmt.Errorf("%w: message %d: no user, assistant or system variant set", chitta.ErrInvalidMessages, i)
		}
		b.End()
	}
	return nil
}

// appendReferences adds to loaded (made when nil and a name is found) the
// tool names of the tool_reference blocks in the tool_result and
// tool_search_tool_result blocks of blocks. It repeats references' loop
// into the map instead of calling references: build runs it on every
// result block of every call, and the call and the slice cost the
// adapter ~8.5 k instructions an op on the synthetic 1 000-message
// benchmark (+9.8% → +10.1% of chitta.Compact; BENCHMARKS.md, session 12).
func appendReferences(loaded map[string]bool, blocks []anthropic.ContentBlockParamUnion) map[string]bool {
	for i := range blocks {
		blk := &blocks[i]
		switch {
		case blk.OfToolResult != nil:
			c := blk.OfToolResult.Content
			for j := range c {
				if ref := c[j].OfToolReference; ref != nil && ref.ToolName != "" {
					if loaded == nil {
						loaded = make(map[string]bool)
					}
					loaded[ref.ToolName] = true
				}
			}
		case blk.OfToolSearchToolResult != nil:
			for _, n := range serverReferences(blk.OfToolSearchToolResult) {
				if loaded == nil {
					loaded = make(map[string]bool)
				}
				loaded[n] = true
			}
		}
	}
	return loaded
}

// references returns the tool names of the tool_reference blocks in the
// tool_result and tool_search_tool_result blocks of blocks, nil when
// there are none.
func references(blocks []anthropic.ContentBlockParamUnion) []string {
	var out []string
	for i := range blocks {
		blk := &blocks[i]
		switch {
		case blk.OfToolResult != nil:
			c := blk.OfToolResult.Content
			for j := range c {
				if ref := c[j].OfToolReference; ref != nil && ref.ToolName != "" {
					out = append(out, ref.ToolName)
				}
			}
		case blk.OfToolSearchToolResult != nil:
			out = append(out, serverReferences(blk.OfToolSearchToolResult)...)
		}
	}
	return out
}

// serverReferences returns the tool names of the tool_reference blocks of
// a server tool search's result (nil r, or an error result, has none).
func serverReferences(r *anthropic.ToolSearchToolResultBlockParam) []string {
	if r == nil || r.Content.OfRequestToolSearchToolSearchResultBlock == nil {
		return nil
	}
	var out []string
	for _, ref := range r.Content.OfRequestToolSearchToolSearchResultBlock.ToolReferences {
		if ref.ToolName != "" {
			out = append(out, ref.ToolName)
		}
	}
	return out
}

// toolSearch declares to b, for chitta's tool-search rule, the tools
// that m's tool results load and m's calls of a tool in loaded (see
// adaptkit's Builder.ToolSearch).
func toolSearch(b *adaptkit.Builder, m *anthropic.MessageParam, loaded map[string]bool) {
	switch {
	case m.OfUser != nil:
		b.ToolSearch(references(m.OfUser.Content), nil)
	case m.OfAssistant != nil:
		var calls []adaptkit.Call
		for _, blk := range m.OfAssistant.Content {
			if u := blk.OfToolUse; u != nil && loaded[u.Name] {
				calls = append(calls, adaptkit.Call{ID: u.ID, Name: u.Name})
			}
		}
		b.ToolSearch(references(m.OfAssistant.Content), calls) // a server tool search loads in the assistant's message
	}
}

// onlyText returns the text of blocks that are one text block.
func onlyText(blocks []anthropic.ContentBlockParamUnion) (string, bool) {
	if len(blocks) == 1 && blocks[0].OfText != nil {
		return blocks[0].OfText.Text, true
	}
	return "", false
}

// onlyTextResult returns the tool_use ID and the text of blocks that are
// one tool_result block of one text block.
func onlyTextResult(blocks []anthropic.ContentBlockParamUnion) (id, text string, ok bool) {
	if len(blocks) != 1 || blocks[0].OfToolResult == nil {
		return "", "", false
	}
	r := blocks[0].OfToolResult
	if len(r.Content) != 1 || r.Content[0].OfText == nil {
		return "", "", false
	}
	return r.ToolUseID, r.Content[0].OfText.Text, true
}

// addImage adds an image block: the piece "[image]" and what Anthropic
// bills for it (chitta.AnthropicImageTokens of a base64 source's size;
// chitta.AnthropicMaxImageTokens for a URL or file source), as
// chitta.ParseMessages counts it.
func addImage(b *adaptkit.Builder, img *anthropic.ImageBlockParam) {
	if s := img.Source.OfBase64; s != nil {
		b.Image(chitta.AnthropicBase64ImageTokens(s.Data))
	} else {
		b.Image(chitta.AnthropicMaxImageTokens)
	}
}

// addDocument adds a document block as chitta.ParseMessages reads it:
// "[document]", its title and context, and the text of a text or content
// source (a content source's images as addImage adds them); a PDF adds
// nothing more (its pages are not estimated).
func addDocument(b *adaptkit.Builder, d *anthropic.DocumentBlockParam) {
	b.Add("[document]")
	b.Add(d.Title.Value)
	b.Add(d.Context.Value)
	switch s := &d.Source; {
	case s.OfText != nil:
		b.Add(s.OfText.Data)
	case s.OfContent != nil:
		b.Add(s.OfContent.Content.OfString.Value)
		for _, c := range s.OfContent.Content.OfContentBlockSourceContent {
			switch {
			case c.OfText != nil:
				b.Add(c.OfText.Text)
			case c.OfImage != nil:
				addImage(b, c.OfImage)
			}
		}
	}
}

// addBlocks adds blocks, a message's content, as build reads them. A block
// (or a tool_result's content block) with no variant set and no override,
// the zero union, is an error naming it: the SDK sends it as null, which
// the API (and chitta.ParseMessages) refuses.
func addBlocks(b *adaptkit.Builder, blocks []anthropic.ContentBlockParamUnion) error {
	for i := range blocks {
		blk := &blocks[i]
		switch {
		case blk.OfText != nil:
			b.Add(blk.OfText.Text)
		case blk.OfThinking != nil:
			b.Add(blk.OfThinking.Thinking)
		case blk.OfRedactedThinking != nil:
			b.Add("[redacted thinking]")
		case blk.OfToolUse != nil:
			b.CallID(blk.OfToolUse.ID)
			b.AddCallJSON(blk.OfToolUse.Name, blk.OfToolUse.Input)
		case blk.OfToolResult != nil:
			b.ResultID(blk.OfToolResult.ToolUseID)
			b.OpenResult(blk.OfToolResult.ToolUseID)
			for j, c := range blk.OfToolResult.Content {
				switch {
				case c.OfText != nil:
					b.Add(c.OfText.Text)
				case c.OfImage != nil:
					addImage(b, c.OfImage)
				case c.OfDocument != nil:
					addDocument(b, c.OfDocument)
				case c.OfSearchResult != nil:
					addSearchResult(b, c.OfSearchResult)
				case c.OfToolReference != nil:
					b.AddReference(c.OfToolReference.ToolName) // tool search: the tool it loads
				case param.IsOmitted(c):
					return fmt.Errorf("content[%d].content[%d]: no block variant set", i, j)
				default:
					b.AddJSON(c)
				}
			}
			b.CloseResult()
		case blk.OfServerToolUse != nil:
			b.ServerCallID(blk.OfServerToolUse.ID)
			b.AddCallJSON(string(blk.OfServerToolUse.Name), blk.OfServerToolUse.Input)
		case blk.OfImage != nil:
			addImage(b, blk.OfImage)
		case blk.OfDocument != nil:
			addDocument(b, blk.OfDocument)
		case blk.OfSearchResult != nil:
			addSearchResult(b, blk.OfSearchResult)
		case len(serverReferences(blk.OfToolSearchToolResult)) > 0:
			// A server tool search's result: the tools it loads, as a
			// tool_result of tool_reference blocks reads (a result that
			// loads tools, which chitta never masks).
			r := blk.OfToolSearchToolResult
			b.ResultID(r.ToolUseID)
			b.OpenResult(r.ToolUseID)
			for _, n := range serverReferences(r) {
				b.AddReference(n)
			}
			b.CloseResult()
		case blk.OfWebSearchToolResult != nil:
			r := blk.OfWebSearchToolResult
			b.ResultID(r.ToolUseID)
			if e := r.Content.OfRequestWebSearchToolResultError; e != nil {
				b.Add(string(e.ErrorCode))
			}
			for _, w := range r.Content.OfWebSearchToolResultBlockItem {
				b.Add(w.Title)
				b.Add(w.URL)
			}
		case param.IsOmitted(*blk):
			return fmt.Errorf("content[%d]: no block variant set", i)
		default:
			// Server tool results (web search, web fetch, code execution,
			// ...) answer a server_tool_use by ID; any other block type is
			// scored by its JSON.
			if id := blk.GetToolUseID(); id != nil {
				b.ResultID(*id)
			}
			b.AddJSON(*blk)
		}
	}
	return nil
}

// addSearchResult adds a search_result block's title, source and text
// blocks, in that order.
func addSearchResult(b *adaptkit.Builder, s *anthropic.SearchResultBlockParam) {
	b.Add(s.Title)
	b.Add(s.Source)
	for _, t := range s.Content {
		b.Add(t.Text)
	}
}

// Compact compacts msgs with [chitta.Compact] and returns the surviving
// values of msgs themselves (msgs[i] for each i in Result.Kept, not copies
// made through JSON), in order, with the Result. msgs is not modified.
// With opts.Mask set, a value with a masked or cut tool result is a new
// value instead (see Masking in the package doc).
func Compact(ctx context.Context, msgs []anthropic.MessageParam, opts *chitta.Options) ([]anthropic.MessageParam, *chitta.Result, error) {
	return adaptkit.CompactBuilt(ctx, msgs, opts, build, rewrite)
}

// rewrite returns a copy of m in which the k-th tool_result block (in
// block order, as build declares them; a tool_search_tool_result that
// loads tools counts too, and is never rewritten) has its content
// replaced by one text block texts[k], for each texts[k] != "" (see
// adaptkit.RewriteFunc).
// The message, its content slice and each replaced block are new; every
// other block, and every other field of a replaced block (tool_use_id,
// is_error, cache_control), is the caller's.
func rewrite(m anthropic.MessageParam, texts []string) (anthropic.MessageParam, bool) {
	var blocks *[]anthropic.ContentBlockParamUnion
	switch {
	case m.OfUser != nil:
		u := *m.OfUser
		m.OfUser, blocks = &u, &u.Content
	case m.OfAssistant != nil:
		a := *m.OfAssistant
		m.OfAssistant, blocks = &a, &a.Content
	default:
		return m, false
	}
	c := slices.Clone(*blocks)
	k := 0
	for i := range c {
		if len(serverReferences(c[i].OfToolSearchToolResult)) > 0 { // a result build declares, never masked
			if k >= len(texts) || texts[k] != "" {
				return m, false
			}
			k++
			continue
		}
		r := c[i].OfToolResult
		if r == nil {
			continue
		}
		if k >= len(texts) {
			return m, false
		}
		if texts[k] != "" {
			nr := *r
			nr.Content = []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: texts[k]}}}
			c[i].OfToolResult = &nr
		}
		k++
	}
	*blocks = c
	return m, k == len(texts)
}
