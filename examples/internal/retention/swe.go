package retention

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chitta-go/chitta"
)

// Trajectory is one SWE-agent trajectory: the messages of its history
// (read by [chitta.ParseMessages]) and the tool calls each message issues.
type Trajectory struct {
	Name     string
	Messages []chitta.Message
	Calls    [][]Call
}

// LoadSWE reads one SWE-agent trajectory file ({history: [messages]}, tool
// results linked by tool_call_ids). Errors wrap [ErrInvalidData].
func LoadSWE(name string, r io.Reader) (Trajectory, error) {
	var f struct {
		History []json.RawMessage `json:"history"`
	}
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		return Trajectory{}, fmt.Errorf("%w: swe %s: %v", ErrInvalidData, name, err)
	}
	tr := Trajectory{Name: name}
	var err error
	if tr.Messages, tr.Calls, err = parseOpenAI(f.History); err != nil {
		return Trajectory{}, fmt.Errorf("%w: swe %s: history%w", ErrInvalidData, name, err)
	}
	return tr, nil
}

// parseOpenAI reads OpenAI-format messages with chitta.ParseMessages and
// the tool calls each one issues. Errors start with the index in
// brackets or ": ", to follow the array's name.
func parseOpenAI(raws []json.RawMessage) ([]chitta.Message, [][]Call, error) {
	all, err := json.Marshal(raws)
	if err != nil {
		return nil, nil, fmt.Errorf(": %w", err)
	}
	msgs, err := chitta.ParseMessages(all)
	if err != nil {
		return nil, nil, fmt.Errorf(": %w", err)
	}
	calls := make([][]Call, len(raws))
	for i, raw := range raws {
		if calls[i], err = openAICalls(raw); err != nil {
			return nil, nil, fmt.Errorf("[%d]: %w", i, err)
		}
	}
	return msgs, calls, nil
}

// openAICalls returns the tool calls of one OpenAI-format message, with
// arguments given as a JSON string decoded to the object they hold.
func openAICalls(raw json.RawMessage) ([]Call, error) {
	var m struct {
		ToolCalls []struct {
			Function struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	var out []Call
	for _, tc := range m.ToolCalls {
		args := tc.Function.Arguments
		var s string
		if json.Unmarshal(args, &s) == nil { // OpenAI encodes arguments as a JSON string
			args = json.RawMessage(s)
		}
		out = append(out, Call{Name: tc.Function.Name, Args: args})
	}
	return out, nil
}

// View is a file window a tool result showed: SWE-agent prints
// "[File: PATH (N lines total)]" followed by numbered lines "N:text".
type View struct {
	Path  string
	Lines map[int]string // line number → text
}

var openFile = regexp.MustCompile(`\(Open file: ([^)\s]+)\)`)

var viewHeader = regexp.MustCompile(`\[File: (\S+) \(\d+ lines total\)\]`)

// Views returns the file windows shown in text, in order.
func Views(text string) []View {
	var out []View
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for k := 0; k < len(lines); k++ {
		m := viewHeader.FindStringSubmatch(lines[k])
		if m == nil {
			continue
		}
		v := View{Path: m[1], Lines: map[int]string{}}
		for k+1 < len(lines) {
			num, rest, ok := strings.Cut(lines[k+1], ":")
			n, err := strconv.Atoi(num)
			if !ok || err != nil {
				break
			}
			v.Lines[n] = rest
			k++
		}
		out = append(out, v)
	}
	return out
}

// EditItem is one thing the context must still show for an edit: a file
// (Line 0) or one of its lines.
type EditItem struct {
	Path string
	Line int
}

// EditCut is the point just before the message issuing an edit, with the
// items viewed earlier that the edit touches.
type EditCut struct {
	Index int        // the issuing message; the prefix is Messages[:Index]
	Items []EditItem // the edited file and its touched lines, each shown by an earlier view
}

// editTools are the SWE-agent tool names that change a file.
var editTools = []string{"edit", "str_replace_editor", "insert", "create"}

// EditCuts returns a cut before every message issuing an edit call whose
// file an earlier tool result showed. The edited file is the call's "path"
// argument, or else the open file of SWE-agent's latest "(Open file: …)"
// status line, or else the file of the latest view; the touched lines are
// the lines of earlier views of it whose text (trimmed, non-empty) occurs
// in the call's "search" or "old_str" argument, or lie in its
// "start_line"–"end_line" range.
func (tr Trajectory) EditCuts() []EditCut {
	var out []EditCut
	for i, calls := range tr.Calls {
		for _, c := range calls {
			if !slices.Contains(editTools, c.Name) {
				continue
			}
			var args struct {
				Path      string `json:"path"`
				Search    string `json:"search"`
				OldStr    string `json:"old_str"`
				StartLine int    `json:"start_line"`
				EndLine   int    `json:"end_line"`
			}
			_ = json.Unmarshal(c.Args, &args) // missing or odd arguments leave zero values
			var views []View
			open := ""
			for _, m := range tr.Messages[:i] {
				if m.Role == chitta.RoleAssistant {
					continue
				}
				views = append(views, Views(m.Content)...)
				if all := openFile.FindAllStringSubmatch(m.Content, -1); len(all) > 0 && all[len(all)-1][1] != "n/a" {
					open = all[len(all)-1][1]
				}
			}
			path := args.Path
			if path == "" {
				path = open
			}
			if path == "" && len(views) > 0 {
				path = views[len(views)-1].Path
			}
			lines := map[int]bool{}
			seen := false
			for _, v := range views {
				if v.Path != path {
					continue
				}
				seen = true
				for n, text := range v.Lines {
					t := strings.TrimSpace(text)
					old := args.Search + args.OldStr
					if (t != "" && old != "" && strings.Contains(old, t)) || (args.StartLine > 0 && n >= args.StartLine && n <= max(args.EndLine, args.StartLine)) {
						lines[n] = true
					}
				}
			}
			if !seen {
				continue
			}
			cut := EditCut{Index: i, Items: []EditItem{{Path: path}}}
			for _, n := range slices.Sorted(maps.Keys(lines)) {
				cut.Items = append(cut.Items, EditItem{Path: path, Line: n})
			}
			out = append(out, cut)
			break
		}
	}
	return out
}

// itemKept reports whether a kept non-assistant message shows the item:
// a view of its file (and, for a line, that line).
func itemKept(msgs []chitta.Message, kept []bool, it EditItem) bool {
	for i, m := range msgs {
		if !kept[i] || m.Role == chitta.RoleAssistant {
			continue
		}
		for _, v := range Views(m.Content) {
			if v.Path != it.Path {
				continue
			}
			if _, ok := v.Lines[it.Line]; it.Line == 0 || ok {
				return true
			}
		}
	}
	return false
}

// SWE evaluates every edit of every trajectory: the prefix before the
// message issuing it is compacted with the last user message (the issue)
// as query and no memory store, with the system prompt outside the ratio
// (budget = floor(ratio × non-system tokens) plus the system prompt, as in
// [TauNonSystem]). Per cut it adds edit_context_recall (the edited file
// and its touched lines, as earlier views showed them, still shown by a
// kept message), pair_integrity and ms_per_compaction.
func (e *Evaluator) SWE(ctx context.Context, trs []Trajectory) error {
	if err := e.check(); err != nil {
		return err
	}
	type cutCase struct {
		task        Task
		items       []EditItem
		sys, nonsys int
	}
	var cases []cutCase
	nItems := 0
	for _, tr := range trs {
		for _, c := range tr.EditCuts() {
			prefix := tr.Messages[:c.Index]
			cc := cutCase{task: Task{Messages: prefix, Query: lastUser(prefix)}, items: c.Items}
			cc.sys, cc.nonsys = e.splitTokens(prefix)
			nItems += len(c.Items)
			cases = append(cases, cc)
		}
	}
	cold, nTexts, err := e.warmTasks(ctx, len(cases), func(k int) Task { return cases[k].task })
	if err != nil {
		return fmt.Errorf("swe: %w", err)
	}
	for _, ratio := range e.Ratios {
		for _, m := range e.Methods {
			start := time.Now()
			t := e.Results.Tally(SWE, m.Name(), ratio, 0)
			for run := range m.Runs() {
				for _, c := range cases {
					task := c.task
					task.Ratio = ratio
					task.MaxTokens = nonSystemBudget(ratio, c.sys, c.nonsys)
					out, ms, err := e.run(ctx, m, task, run)
					if err != nil {
						return fmt.Errorf("swe: %w", err)
					}
					t.Add(MsPerCompaction, ms, 1)
					addPairs(t, task.Messages, out.Kept)
					found := 0
					for _, it := range c.items {
						if itemKept(task.Messages, out.Kept, it) {
							found++
						}
					}
					t.Add(EditContextRecall, float64(found), float64(len(c.items)))
				}
			}
			e.progress("swe ratio %.2f %-14s %d cuts × %d runs  %v", ratio, m.Name(), len(cases), m.Runs(), time.Since(start).Round(time.Millisecond))
		}
	}
	e.Results.Note(SWE, fmt.Sprintf("%d trajectories, %d edits with an earlier view of the edited file, %d items (files and touched lines); the budget is floor(ratio × non-system tokens) plus the system prompt, kept on top", len(trs), len(cases), nItems))
	e.Results.Note(SWE, coldNote(cold, nTexts))
	return nil
}
