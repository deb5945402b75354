// Package brief builds the preservation brief that the Claude Code
// PreCompact hook prints for Claude Code's summariser: the artifacts of a
// conversation window (file paths, commands that ran, error lines,
// identifiers and numbers with units, URLs, the user's constraints) that
// only the conversation holds, ranked by chitta's score and cut to a token
// cap, plus excerpts of the kept turns memory does not cover and one line
// naming what memory already holds.
package brief

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/chitta-go/chitta/examples/internal/claudecode"
)

// Kind is the kind of an [Artifact].
type Kind int

// Artifact kinds, in the order the brief lists them.
const (
	Constraint Kind = iota // a user sentence with always, never, don't, must, prefer or instead
	Error                  // the first line of a tool error, or an error line of a tool's output
	Command                // the first line of a shell command that ran
	Path                   // a file path named in a tool call, a command or prose
	Identifier             // a code span, an identifier or a number with its unit
	URL                    // an http(s) URL from prose or a tool call
	numKinds
)

var kindNames = [numKinds]string{"constraint", "error", "command", "path", "identifier", "url"}

// String returns the kind's name.
func (k Kind) String() string {
	if k < 0 || k >= numKinds {
		return "unknown"
	}
	return kindNames[k]
}

// Artifact is one item found in a turn, verbatim (a command or an error
// reduced to its first line and at most MaxItemRunes runes).
type Artifact struct {
	Kind Kind
	Text string
}

// MaxItemRunes bounds the text of one artifact: longer first lines are cut
// (and then no longer verbatim).
const MaxItemRunes = 200

// maxScan bounds the bytes of one text block, command or tool result that
// Extract searches, so that a huge block costs no more than a big one.
const maxScan = 64 << 10

var (
	urlRE = regexp.MustCompile(`https?://[^\s<>"'` + "`" + `)\]}]+`)
	// A path: two or more segments joined by slashes (optionally rooted at
	// /, ~/, ./ or ../), or one file name with a common source extension.
	pathRE     = regexp.MustCompile(`(?:~|\.{1,2})?/?(?:[\w@+-][\w@.+-]*/)+[\w@+-][\w@.+-]*|\b[\w-]+\.(?:go|mod|sum|py|ipynb|js|mjs|cjs|ts|tsx|jsx|rs|java|kt|c|h|cc|cpp|hpp|cs|rb|php|swift|md|rst|txt|json|jsonl|yaml|yml|toml|ini|cfg|conf|xml|html|css|scss|sh|bash|zsh|sql|proto|lock|env|dockerfile|tf|lua|vue|svelte)\b`)
	codeSpanRE = regexp.MustCompile("`([^`\n]{2,80})`")
	// A number with a unit, as written ("40 ms", "1.5GB", "98.2%", "3×").
	numberRE = regexp.MustCompile(`(?i)\b\d+(?:[.,]\d+|[ \x{a0}\x{202f}]\d{3}\b)*(?:\s?(?:ms|µs|us|ns|s|sec|secs|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|b|kb|mb|gb|tb|kib|mib|gib|bytes|x|tokens?|rps|qps|fps|hz|khz|mhz|ghz|px|lines?|files?|tests?|errors?|turns?|messages?|memories|words|chars|characters|rows|items|commits?|ms/op|ns/op|b/op|allocs/op|dims|dimensions)\b|%|×)`)
	// identRE: snake_case, camelCase/PascalCase with an inner capital,
	// or a qualified name (pkg.Func).
	identRE      = regexp.MustCompile(`\b(?:[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+|[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|[A-Za-z][A-Za-z0-9]*\.[A-Z][A-Za-z0-9]*)\b`)
	errorLineRE  = regexp.MustCompile(`(?i)\b(error|errors|failed|failure|fail|fatal|panic|exception|traceback|denied|refused|not found|undefined|cannot|can't)\b`)
	constraintRE = regexp.MustCompile(`(?i)\b(always|never|don't|don’t|do not|must|prefer|instead)\b`)
	bashInputRE  = regexp.MustCompile(`(?s)<bash-input>(.*?)</bash-input>`)
	sentenceRE   = regexp.MustCompile(`[^.!?\n]+[.!?]?`)
)

// block is the part of a content block Extract reads.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	ToolUseID string          `json:"tool_use_id"`
}

// shellTools are the tools whose results are command output.
var shellTools = map[string]bool{"Bash": true, "BashOutput": true, "PowerShell": true}

// ToolNames maps the tool_use IDs of turns to their tools' names, for
// [Extract].
func ToolNames(turns []claudecode.Turn) map[string]string {
	m := make(map[string]string)
	for i := range turns {
		for _, u := range turns[i].ToolUses {
			m[u.ID] = u.Name
		}
	}
	return m
}

// Extract returns the artifacts of turn t, in order of appearance,
// de-duplicated within the turn. Paths come from tool-call inputs
// (file_path, path, notebook_path), commands and prose; commands from Bash
// tool calls and <bash-input> markup; errors from tool results (the first
// line of a result marked is_error, else up to three lines that read as
// errors in the output of a shell tool, named through tools, a map from
// tool_use ID to tool name such as [ToolNames] returns); identifiers, numbers with units and URLs from
// prose and tool-call inputs; constraints from the user's real prompts.
// Tool-result bodies are not searched for paths, identifiers or URLs: they
// are file contents and listings, not what the conversation decided.
func Extract(t *claudecode.Turn, tools map[string]string) []Artifact {
	var out []Artifact
	seen := make(map[Artifact]bool)
	add := func(k Kind, s string) {
		s = strings.TrimSpace(s)
		if s == "" {
			return
		}
		a := Artifact{k, cut(s)}
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	var m struct {
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(t.Message.Raw, &m)
	var blocks []block
	var str string
	if json.Unmarshal(m.Content, &str) == nil {
		blocks = []block{{Type: "text", Text: str}}
	} else {
		_ = json.Unmarshal(m.Content, &blocks)
	}
	if t.Prompt != "" {
		for _, s := range sentenceRE.FindAllString(head(t.Prompt), -1) {
			if constraintRE.MatchString(s) && utf8.RuneCountInString(strings.TrimSpace(s)) >= 8 {
				add(Constraint, s)
			}
		}
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			if t.Meta || t.CompactSummary {
				continue
			}
			txt := head(b.Text)
			for _, c := range bashInputRE.FindAllStringSubmatch(txt, -1) {
				addCommand(add, c[1])
			}
			prose(add, txt)
		case "tool_use", "server_tool_use":
			var in map[string]any
			_ = json.Unmarshal(b.Input, &in)
			for _, key := range []string{"file_path", "path", "notebook_path"} {
				if p, ok := in[key].(string); ok {
					add(Path, p)
				}
			}
			if c, ok := in["command"].(string); ok && (b.Name == "Bash" || b.Name == "BashOutput" || b.Name == "PowerShell") {
				addCommand(add, c)
			}
			if u, ok := in["url"].(string); ok {
				add(URL, u)
			}
			for _, key := range []string{"description", "prompt", "query", "pattern"} {
				if s, ok := in[key].(string); ok {
					for _, u := range urlRE.FindAllString(head(s), -1) {
						add(URL, trimURL(u))
					}
				}
			}
		case "tool_result":
			text := head(resultText(b.Content))
			if b.IsError {
				add(Error, firstLine(text))
				continue
			}
			if !shellTools[tools[b.ToolUseID]] {
				continue
			}
			n := 0
			for _, line := range strings.Split(text, "\n") {
				if n == 3 {
					break
				}
				if errorLineRE.MatchString(line) && len(strings.TrimSpace(line)) >= 8 {
					add(Error, line)
					n++
				}
			}
		}
	}
	return out
}

// addCommand records the first line of a command and the paths in it.
func addCommand(add func(Kind, string), cmd string) {
	line := firstLine(head(cmd))
	add(Command, line)
	rest := urlRE.ReplaceAllString(line, " ")
	for _, p := range pathRE.FindAllString(rest, -1) {
		if isPath(p) {
			add(Path, p)
		}
	}
}

// prose records the paths, URLs, code spans, identifiers and numbers with
// units of a user or assistant text.
func prose(add func(Kind, string), text string) {
	for _, u := range urlRE.FindAllString(text, -1) {
		add(URL, trimURL(u))
	}
	rest := urlRE.ReplaceAllString(text, " ")
	for _, p := range pathRE.FindAllString(rest, -1) {
		if isPath(p) {
			add(Path, p)
		}
	}
	for _, c := range codeSpanRE.FindAllStringSubmatch(rest, -1) {
		if !isFile(c[1]) {
			add(Identifier, c[1])
		}
	}
	for _, n := range numberRE.FindAllString(rest, -1) {
		add(Identifier, n)
	}
	for _, id := range identRE.FindAllString(rest, -1) {
		if len(id) >= 4 && !isFile(id) {
			add(Identifier, id)
		}
	}
}

// isPath rejects slash-joined words that are not paths ("and/or", "1/2",
// "ms/op"): a path has a letter, and a leading / ~ ., or an extension, or
// at least two slashes.
func isPath(p string) bool {
	if !strings.ContainsAny(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		return false
	}
	if !strings.Contains(p, "/") {
		return strings.Contains(p, ".")
	}
	base := p[strings.LastIndexByte(p, '/')+1:]
	return strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || strings.HasPrefix(p, ".") ||
		strings.Count(p, "/") >= 2 || strings.Contains(base, ".")
}

// isFile reports whether s is, as a whole, a path (which is listed as a
// path, not as an identifier).
func isFile(s string) bool { return pathRE.FindString(s) == s && isPath(s) }

// resultText renders a tool_result's content: a string or text blocks.
func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []block
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// head returns the first maxScan bytes of s, cut at a rune boundary.
func head(s string) string {
	if len(s) <= maxScan {
		return s
	}
	i := maxScan
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

func firstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if strings.TrimSpace(line) != "" {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// trimURL drops sentence punctuation that the URL pattern took along.
func trimURL(u string) string { return strings.TrimRight(u, ".,;:!?") }

// cut returns s at most MaxItemRunes runes long.
func cut(s string) string {
	if utf8.RuneCountInString(s) <= MaxItemRunes {
		return s
	}
	n := 0
	for i := range s {
		if n == MaxItemRunes {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
