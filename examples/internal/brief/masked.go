package brief

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/claudecode"
)

// maskedTitle heads the brief's list of masked calls.
const maskedTitle = "Tool calls whose output chitta elided (the calls are kept; recall a memory ID to bring the output's excerpt back):"

// inputWords bounds the input a masked-call line quotes.
const inputWords = 12

// placeholderRE reads what a masking placeholder says: the size and,
// when distillation stored the output's excerpt, the memory ID (past the
// values it may list).
var placeholderRE = regexp.MustCompile(`^\[chitta: .* output elided \((\d+) tokens\)(?:; values: [^\]]*?)?(?:; excerpt in memory ([0-9a-f]+))?\]$`)

// MaskedCalls returns one line per tool result that res (Compact's result
// for claudecode.Messages(turns), with Options.Mask) returned masked: the
// tool, the gist of its input (a path, command, pattern or URL, else the
// input cut to a few words), the output's original size and the memory
// holding its excerpt, newest first. Results cut to head and tail are not
// listed (their head and tail are still in the conversation).
func MaskedCalls(turns []claudecode.Turn, res *chitta.Result) []string {
	uses := map[string]claudecode.ToolUse{}
	for _, t := range turns {
		for _, u := range t.ToolUses {
			uses[u.ID] = u
		}
	}
	var out []string
	for k, i := range res.Kept {
		if i >= len(turns) || !res.Scores[i].Masked {
			continue
		}
		for _, r := range maskedBlocks(res.Messages[k].Raw) {
			u, ok := uses[r.id]
			if !ok {
				continue
			}
			line := u.Name
			if g := gist(u.Input); g != "" {
				line += " " + g
			}
			line += fmt.Sprintf(" — output elided (%s tokens)", r.tokens)
			if r.memory != "" {
				line += ", memory " + r.memory
			}
			out = append(out, line)
		}
	}
	slices.Reverse(out)
	return out
}

// maskedResult is one tool_result block that carries a placeholder.
type maskedResult struct{ id, tokens, memory string }

// maskedBlocks returns the tool_result blocks of an Anthropic message
// whose content is a masking placeholder.
func maskedBlocks(raw json.RawMessage) []maskedResult {
	var m struct {
		Content []struct {
			Type      string          `json:"type"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
		} `json:"content"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	var out []maskedResult
	for _, b := range m.Content {
		var s string
		if b.Type != "tool_result" || json.Unmarshal(b.Content, &s) != nil {
			continue
		}
		if p := placeholderRE.FindStringSubmatch(s); p != nil {
			out = append(out, maskedResult{b.ToolUseID, p[1], p[2]})
		}
	}
	return out
}

// gist is the part of a tool input worth naming: the first of a few
// well-known string fields, else the compacted input cut to inputWords.
func gist(input json.RawMessage) string {
	var fields map[string]any
	if json.Unmarshal(input, &fields) == nil {
		for _, k := range []string{"file_path", "path", "command", "pattern", "url", "query", "description"} {
			if s, ok := fields[k].(string); ok && strings.TrimSpace(s) != "" {
				return words(oneLine(s), inputWords)
			}
		}
	}
	if len(input) == 0 || string(input) == "null" || string(input) == "{}" {
		return ""
	}
	return words(oneLine(string(input)), inputWords)
}
