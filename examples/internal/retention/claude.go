package retention

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/claudecode"
)

// Session is one Claude Code session as a conversation: its messages (tool
// calls linked to their results), which of them are real user prompts (not
// tool results, not command or reminder markup), the tool_use blocks each
// message issues and the tools each message's results load (the
// tool_reference blocks of Claude Code's tool-search results). Prompts and
// ToolUses have one entry per message; Loads is nil or has one too.
type Session struct {
	ID       string
	Messages []chitta.Message
	Prompts  []bool
	ToolUses [][]ToolUse
	Loads    [][]string
}

// ToolUse is one tool_use block: the tool's name and its input object.
type ToolUse struct {
	Name  string
	Input json.RawMessage
}

// ClaudeCut is a point at which a session is compacted: the prefix is
// Messages[:Index], the query is the latest real user prompt (the prompt
// at Index itself for a prompt cut), and Needed lists the prefix messages
// that mention a term a tool_use uses in the next Window messages, or that
// load a tool one of them calls (Claude Code sends a deferred tool's schema
// only while the tool-search result that loaded it is in the conversation).
// Terms lists the terms and tool names that made a message needed.
type ClaudeCut struct {
	Index  int
	Query  string
	Needed []int
	Terms  []string
}

// CutOptions sets where sessions are cut. The zero value cuts at every
// 10th real user prompt and every 10th message, with a 20-message window.
type CutOptions struct {
	PromptEvery int // cut before every PromptEvery-th real user prompt; 0 means 10
	TurnEvery   int // also cut after every TurnEvery messages; 0 means 10, negative disables
	Window      int // messages after the cut whose tool_use inputs define "needed"; 0 means 20
	MinPrefix   int // smallest prefix worth compacting, in messages; 0 means 10
}

// Cuts returns the session's cuts in order; Prompts, ToolUses and Loads
// must have one entry per message (shorter ones are read as false and
// empty). A message cut that would
// separate a tool call from its result moves forward to the next message
// boundary that does not; cuts whose window uses no term the prefix
// mentions are skipped (they measure nothing).
func (s Session) Cuts(o *CutOptions) []ClaudeCut {
	var opt CutOptions
	if o != nil {
		opt = *o
	}
	promptEvery := cmpDefault(opt.PromptEvery, 10)
	turnEvery := cmpDefault(opt.TurnEvery, 10)
	window := cmpDefault(opt.Window, 20)
	minPrefix := cmpDefault(opt.MinPrefix, 10)
	at := map[int]bool{}
	prompts := 0
	for i, p := range s.Prompts {
		if p && i < len(s.Messages) {
			prompts++
			if prompts%promptEvery == 0 {
				at[i] = true
			}
		}
	}
	if turnEvery > 0 {
		for k := turnEvery; k < len(s.Messages); k += turnEvery {
			if j := s.boundary(k); j < len(s.Messages) {
				at[j] = true
			}
		}
	}
	var cuts []ClaudeCut
	for _, k := range slices.Sorted(maps.Keys(at)) {
		if k < minPrefix {
			continue
		}
		c := ClaudeCut{Index: k, Query: s.query(k)}
		var terms, called []string
		for j := k; j < min(k+window, len(s.Messages), len(s.ToolUses)); j++ {
			for _, tu := range s.ToolUses[j] {
				for _, t := range ToolTerms(tu) {
					if !slices.Contains(terms, t) {
						terms = append(terms, t)
					}
				}
				if !slices.Contains(called, tu.Name) {
					called = append(called, tu.Name)
				}
			}
		}
		for i := range k {
			m := s.Messages[i]
			if m.Role.Pinned() {
				continue
			}
			if t, ok := s.neededBy(i, terms, called); ok {
				c.Needed = append(c.Needed, i)
				if !slices.Contains(c.Terms, t) {
					c.Terms = append(c.Terms, t)
				}
			}
		}
		if len(c.Needed) > 0 {
			cuts = append(cuts, c)
		}
	}
	return cuts
}

// neededBy returns the first of terms message i mentions, or else the
// first tool of called that it loads, and whether there is one.
func (s Session) neededBy(i int, terms, called []string) (string, bool) {
	for _, t := range terms {
		if strings.Contains(s.Messages[i].Content, t) {
			return t, true
		}
	}
	if i < len(s.Loads) {
		for _, t := range s.Loads[i] {
			if slices.Contains(called, t) {
				return t, true
			}
		}
	}
	return "", false
}

func cmpDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// boundary returns the first index j ≥ k such that no tool call issued in
// Messages[:j] has its result at or after j.
func (s Session) boundary(k int) int {
	resultAt := map[string]int{}
	for j, m := range s.Messages {
		for _, id := range m.ToolResultIDs {
			resultAt[id] = max(resultAt[id], j)
		}
	}
	for j := k; j < len(s.Messages); j++ {
		ok := true
		for i := range j {
			for _, id := range s.Messages[i].ToolCallIDs {
				if r, has := resultAt[id]; has && r >= j {
					ok = false
				}
			}
		}
		if ok {
			return j
		}
	}
	return len(s.Messages)
}

// query returns the latest real user prompt at or before index k.
func (s Session) query(k int) string {
	for i := min(k, len(s.Messages)-1, len(s.Prompts)-1); i >= 0; i-- {
		if s.Prompts[i] {
			return s.Messages[i].Content
		}
	}
	return ""
}

var (
	identRe = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*(?:[.:][A-Za-z_][A-Za-z0-9_]*)*`)
	pathRe  = regexp.MustCompile(`[~.]?[A-Za-z0-9_.@+-]*(?:/[A-Za-z0-9_.@+-]+)+/?|[A-Za-z0-9_@+-]+\.[A-Za-z][A-Za-z0-9]{0,5}\b`)
)

// trivialCommands are shell commands too common to tie a turn to a later
// tool call by themselves.
var trivialCommands = []string{
	"cd", "ls", "cat", "echo", "head", "tail", "grep", "rg", "sed", "awk", "find", "rm", "mkdir", "cp", "mv",
	"pwd", "true", "false", "test", "sort", "uniq", "wc", "xargs", "tee", "touch", "chmod", "sleep", "export",
	"set", "env", "which", "for", "do", "done", "if", "then", "fi", "while", "tr", "cut", "diff", "printf",
}

// ToolTerms returns the file paths, commands and identifiers a tool_use
// input uses: every path-like token (with its base name), for a "command"
// field the first one or two words of each shell segment (unless trivial),
// and every identifier with an underscore, a dot, a digit or an inner
// capital (camelCase) of at least 4 characters. Plain words are left out:
// they would tie every turn to every call.
func ToolTerms(tu ToolUse) []string {
	var v any
	if json.Unmarshal(tu.Input, &v) != nil {
		return nil
	}
	var out []string
	add := func(t string) {
		t = strings.Trim(t, `"'.,:;()[]{}<>`+"`")
		if len([]rune(t)) >= 4 && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch x := v.(type) {
		case string:
			if key == "command" {
				for _, c := range commandTerms(x) {
					add(c)
				}
			}
			for _, p := range pathRe.FindAllString(x, -1) {
				add(p)
				if base := path.Base(strings.TrimSuffix(p, "/")); base != p && strings.Contains(base, ".") {
					add(base)
				}
			}
			for _, id := range identRe.FindAllString(x, -1) {
				if distinctive(id) {
					add(id)
				}
			}
		case []any:
			for _, e := range x {
				walk(key, e)
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(k, x[k])
			}
		}
	}
	walk("", v)
	return out
}

// commandTerms returns "cmd sub" (or "cmd") for each segment of a shell
// command line.
func commandTerms(line string) []string {
	var out []string
	for seg := range strings.FieldsFuncSeq(line, func(r rune) bool { return strings.ContainsRune("\n;|&()", r) }) {
		words := strings.Fields(seg)
		for len(words) > 0 && strings.Contains(words[0], "=") { // VAR=value prefixes
			words = words[1:]
		}
		if len(words) == 0 || slices.Contains(trivialCommands, words[0]) {
			continue
		}
		if len(words) > 1 && !strings.HasPrefix(words[1], "-") && identRe.MatchString(words[1]) {
			out = append(out, words[0]+" "+words[1])
			continue
		}
		out = append(out, words[0])
	}
	return out
}

// distinctive reports whether an identifier is specific enough to count
// as a mention: it has an underscore, a dot or colon, a digit, or a capital
// after its first letter.
func distinctive(id string) bool {
	if len(id) < 4 {
		return false
	}
	if strings.ContainsAny(id, "_.:0123456789") {
		return true
	}
	for _, r := range id[1:] {
		if r >= 'A' && r <= 'Z' {
			return true
		}
	}
	return false
}

// Claude evaluates every cut of every session. Per cut it adds
// needed_recall (needed prefix messages kept), pair_integrity and
// ms_per_compaction. A chitta method that uses memory compacts against a
// store private to its session and ratio that starts empty and, when
// RecordEpisode is set, receives a compaction episode after each cut; a
// method without memory (chitta-nomem) is the empty-store row.
func (e *Evaluator) Claude(ctx context.Context, sessions []Session, o *CutOptions) error {
	if err := e.check(); err != nil {
		return err
	}
	var nCuts, nNeeded, nPrefix int
	type sessionCuts struct {
		s    Session
		cuts []ClaudeCut
	}
	var all []sessionCuts
	for _, s := range sessions {
		if len(s.Prompts) != len(s.Messages) || len(s.ToolUses) != len(s.Messages) || s.Loads != nil && len(s.Loads) != len(s.Messages) {
			return fmt.Errorf("%w: claude session %s: %d messages, %d prompt flags, %d tool-use lists, %d load lists (want 0 or one per message)", ErrInvalidData, s.ID, len(s.Messages), len(s.Prompts), len(s.ToolUses), len(s.Loads))
		}
		cuts := s.Cuts(o)
		for _, c := range cuts {
			nNeeded += len(c.Needed)
			nPrefix += c.Index
		}
		nCuts += len(cuts)
		all = append(all, sessionCuts{s, cuts})
	}
	var texts []string
	for _, sc := range all {
		var queries []string
		for _, c := range sc.cuts {
			queries = append(queries, c.Query)
		}
		texts = append(texts, distinct(sc.s.Messages, queries)...)
	}
	texts = distinct(nil, texts)
	cold, err := e.warm(ctx, texts)
	if err != nil {
		return fmt.Errorf("claude: %w", err)
	}
	for _, ratio := range e.Ratios {
		for _, m := range e.Methods {
			start := time.Now()
			t := e.Results.Tally(Claude, m.Name(), ratio, 0)
			c, isChitta := m.(Chitta)
			memory := isChitta && !c.NoMemory
			for run := range m.Runs() {
				for _, sc := range all {
					var store chitta.MemoryStore
					if memory {
						var err error
						if store, err = e.memoryStore(ctx, sc.s.ID, nil); err != nil {
							return fmt.Errorf("claude %s: %w", sc.s.ID, err)
						}
					}
					for _, cut := range sc.cuts {
						task := Task{Messages: sc.s.Messages[:cut.Index], Query: cut.Query, Ratio: ratio, Store: store}
						out, ms, err := e.run(ctx, m, task, run)
						if err != nil {
							return fmt.Errorf("claude %s: %w", sc.s.ID, err)
						}
						t.Add(MsPerCompaction, ms, 1)
						addPairs(t, task.Messages, out.Kept)
						kept := 0
						for _, i := range cut.Needed {
							if out.Kept[i] {
								kept++
							}
						}
						t.Add(NeededRecall, float64(kept), float64(len(cut.Needed)))
						if memory && e.RecordEpisode != nil && out.Result != nil {
							if err := e.RecordEpisode(ctx, store, e.Env.Embedder, out.Result.Stats, sc.s.ID); err != nil {
								return fmt.Errorf("claude %s: record episode: %w", sc.s.ID, err)
							}
						}
					}
				}
			}
			e.progress("claude ratio %.2f %-14s %d cuts × %d runs  %v", ratio, m.Name(), nCuts, m.Runs(), time.Since(start).Round(time.Millisecond))
		}
	}
	if e.RecordEpisode != nil {
		e.Results.Note(Claude, "memory: each chitta method that uses memory compacts against a store of its own per session and ratio, which receives a compaction episode after every cut; chitta-nomem is the empty-store row")
	}
	e.Results.Note(Claude, fmt.Sprintf("%d sessions, %d cuts, %d needed turns out of %d prefix turns (%.1f%%)", len(sessions), nCuts, nNeeded, nPrefix, 100*float64(nNeeded)/float64(max(nPrefix, 1))))
	e.Results.Note(Claude, coldNote(cold, len(texts)))
	return e.claudeCeilings(ctx, sessions, o, nNeeded)
}

// claudeCeilings notes, per ratio, the share of needed turns that
// NeededCeiling keeps with chitta's pins and without them.
func (e *Evaluator) claudeCeilings(ctx context.Context, sessions []Session, o *CutOptions, nNeeded int) error {
	var ratios, pinned, free []string
	for _, ratio := range e.Ratios {
		var p, f int
		for _, s := range sessions {
			for _, cut := range s.Cuts(o) {
				task := Task{Messages: s.Messages[:cut.Index], Query: cut.Query, Ratio: ratio}
				for _, pins := range []bool{true, false} {
					n, err := NeededCeiling(ctx, e.Env, task, cut.Needed, pins)
					if err != nil {
						return fmt.Errorf("claude %s: ceiling: %w", s.ID, err)
					}
					if pins {
						p += n
					} else {
						f += n
					}
				}
			}
		}
		share := func(n int) string { return fmt.Sprintf("%.3f", float64(n)/float64(max(nNeeded, 1))) }
		ratios, pinned, free = append(ratios, fmt.Sprint(ratio)), append(pinned, share(p)), append(free, share(f))
	}
	e.Results.Note(Claude, fmt.Sprintf("label ceiling at %s (NeededCeiling: the most needed turns whole tool-call groups within the budget can hold, chosen knowing the labels): %s with the live turn, the first user turn and the tool-search results their calls need pinned as chitta pins them, %s without pins",
		strings.Join(ratios, " / "), strings.Join(pinned, " / "), strings.Join(free, " / ")))
	return nil
}

// SessionFromTranscript converts a parsed Claude Code transcript.
func SessionFromTranscript(id string, tr *claudecode.Transcript) Session {
	s := Session{ID: id}
	for _, t := range tr.Turns {
		s.Messages = append(s.Messages, t.Message)
		s.Prompts = append(s.Prompts, t.IsPrompt())
		var uses []ToolUse
		for _, u := range t.ToolUses {
			uses = append(uses, ToolUse{Name: u.Name, Input: u.Input})
		}
		s.ToolUses = append(s.ToolUses, uses)
		var loads []string
		for _, r := range t.ToolResults {
			loads = append(loads, r.Loads...)
		}
		s.Loads = append(s.Loads, loads)
	}
	return s
}

// LoadClaudeDir reads every *.jsonl transcript of dir, in name order, one
// session per file named after the file. A file with no main-chain turn (a
// sub-agent transcript, all side-chain) is read with its side-chain
// entries.
func LoadClaudeDir(dir string) ([]Session, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("claude: %w", err)
	}
	slices.Sort(names)
	var out []Session
	for _, name := range names {
		tr, err := claudecode.ReadFile(name, nil)
		if err != nil {
			return nil, fmt.Errorf("claude %s: %w", filepath.Base(name), err)
		}
		if len(tr.Turns) == 0 {
			if tr, err = claudecode.ReadFile(name, &claudecode.Options{IncludeSidechains: true}); err != nil {
				return nil, fmt.Errorf("claude %s: %w", filepath.Base(name), err)
			}
		}
		out = append(out, SessionFromTranscript(strings.TrimSuffix(filepath.Base(name), ".jsonl"), tr))
	}
	return out, nil
}
