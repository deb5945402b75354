// Package claudecode reads Claude Code session transcripts (the JSONL files
// Claude Code writes under ~/.claude/projects/<dir>/<session>.jsonl) into
// chitta messages.
//
// Each line of a transcript is one JSON entry. Parse keeps the user and
// assistant entries, merges the streamed assistant entries that share a
// message.id into one turn (content blocks concatenated in file order),
// skips isMeta entries, side-chains (unless asked for) and bookkeeping
// entries (summary, system, queue-operation, file-history-snapshot,
// attachment, permission-mode, last-prompt and any unknown type), and
// tolerates malformed lines such as a partial last line written while
// Claude Code was still appending.
//
// Every turn carries a [chitta.Message] whose Raw is an Anthropic Messages
// API object built from the entry ({"role": …, "content": …} with the
// transcript's own content blocks), so tool_use / tool_result linkage is kept
// and a compacted conversation can be sent back to the API.
package claudecode

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/chitta-go/chitta"
)

// DefaultMaxBytes is the tail of a transcript file that [ReadFile] reads when
// Options.MaxBytes is 0: 32 MiB.
const DefaultMaxBytes = 32 << 20

// DefaultMaxLineBytes is the longest transcript line [Parse] reads when
// Options.MaxLineBytes is 0: 8 MiB. Longer lines are skipped and counted
// as malformed, without being held in memory.
const DefaultMaxLineBytes = 8 << 20

// ErrInvalidOptions reports an [Options] field outside its allowed range.
var ErrInvalidOptions = errors.New("claudecode: invalid options")

// ErrNotRegular reports a transcript path that names a directory, FIFO,
// device, socket or anything else that is not a regular file.
var ErrNotRegular = errors.New("claudecode: transcript is not a regular file")

// Options configures [Parse] and [ReadFile]. A nil *Options, and the zero
// value of every field, means the documented default.
type Options struct {
	// IncludeSidechains keeps entries marked isSidechain (sub-agent
	// conversations). false skips them, which is what the main session's
	// context holds. A sub-agent transcript file (all side-chain) needs
	// true.
	IncludeSidechains bool

	// IncludeMeta keeps entries marked isMeta (messages Claude Code adds
	// for the model, such as local-command caveats), with Turn.Meta set.
	// false skips them.
	IncludeMeta bool

	// MaxBytes bounds how much of a file [ReadFile] reads: only its last
	// MaxBytes bytes, starting at the first complete line, and never more
	// than MaxBytes bytes whatever the file's reported size. 0 means
	// DefaultMaxBytes (32 MiB); negative is an error. Parse reads its whole
	// reader.
	MaxBytes int64

	// MaxLineBytes bounds one line: a longer line is skipped and counted in
	// Transcript.Malformed. 0 means DefaultMaxLineBytes (8 MiB); negative
	// is an error.
	MaxLineBytes int
}

// Transcript is a parsed transcript. The caller owns it and every slice in
// it.
type Transcript struct {
	// Turns are the user and assistant turns in file order; a merged
	// streamed assistant turn sits where its first entry was. Turns whose
	// content renders empty are left out, except tool-result turns, which
	// keep their pair and get the text "[empty tool result]".
	Turns []Turn

	// SessionID is the sessionId of the first entry that has one.
	SessionID string

	// Skipped counts well-formed entries left out: bookkeeping and unknown
	// types, isMeta and side-chain entries, and duplicated uuids.
	Skipped int

	// Malformed counts lines that are not a JSON object or whose message
	// cannot be read, including a partial last line.
	Malformed int

	// Truncated reports that [ReadFile] read only the tail of a file larger
	// than Options.MaxBytes.
	Truncated bool
}

// Turn is one user or assistant turn with its transcript metadata.
type Turn struct {
	// Message is the turn as chitta sees it. Raw is an Anthropic-format
	// object {"role", "content"} holding the entry's content (for a merged
	// assistant turn, all its blocks in order).
	Message chitta.Message

	UUID       string    // uuid of the (first) entry
	ParentUUID string    // parentUuid of the (first) entry
	MessageID  string    // message.id (assistant turns); "" for user turns
	Timestamp  time.Time // timestamp of the (first) entry; zero if absent
	Line       int       // 1-based line of the (first) entry in what was read
	Sidechain  bool      // the entry is marked isSidechain
	Meta       bool      // the entry is marked isMeta (only with Options.IncludeMeta)

	// CompactSummary reports a user entry that Claude Code wrote as the
	// summary of an earlier compaction (isCompactSummary).
	CompactSummary bool

	// Prompt is the text of a real user prompt: a user turn that is not a
	// tool result, not meta, not a compaction summary and not command or
	// caveat markup, with <system-reminder> sections removed. "" otherwise.
	Prompt string

	// ToolUses are the tool_use blocks of an assistant turn, in order.
	ToolUses []ToolUse
	// ToolResults are the tool_result blocks of a user turn, in order.
	ToolResults []ToolResult
}

// ToolUse is one tool call issued by an assistant turn.
type ToolUse struct {
	ID    string          // the block's id, which a later tool_result names
	Name  string          // the tool's name
	Input json.RawMessage // the call's input object as written
}

// ToolResult is one tool result carried by a user turn. Loads names the
// tools the result loads: one per tool_reference block in its content, as
// Claude Code's ToolSearch returns for each deferred tool it loads (Claude
// Code sends a deferred tool's schema only while such a reference to it is
// in the conversation, so a later call of the tool depends on this result).
type ToolResult struct {
	ToolUseID string   // the id of the tool_use it answers
	IsError   bool     // the block's is_error
	Loads     []string // tool names of its tool_reference blocks, in order; nil when none
}

// IsPrompt reports whether t is a real user prompt (see [Turn.Prompt]).
func (t *Turn) IsPrompt() bool { return t.Prompt != "" }

// Messages returns the chitta messages of turns, in order. The slice is
// new; the messages share Raw and ID slices with turns.
func Messages(turns []Turn) []chitta.Message {
	out := make([]chitta.Message, len(turns))
	for i := range turns {
		out[i] = turns[i].Message
	}
	return out
}

// LastPrompt returns the last real user prompt of turns (see [Turn.Prompt]),
// or "" when there is none.
func LastPrompt(turns []Turn) string {
	for i := len(turns) - 1; i >= 0; i-- {
		if turns[i].Prompt != "" {
			return turns[i].Prompt
		}
	}
	return ""
}

// Tail returns the last n turns (all of them when n <= 0 or n >= len), then
// drops from that window every turn carrying a tool result whose tool_use
// lies before the window, so that no result is orphaned. The returned slice
// aliases turns.
func Tail(turns []Turn, n int) []Turn {
	if n > 0 && n < len(turns) {
		turns = turns[len(turns)-n:]
	}
	calls := make(map[string]bool)
	orphan := false
	for i := range turns {
		for _, id := range turns[i].Message.ToolCallIDs {
			calls[id] = true
		}
		for _, id := range turns[i].Message.ToolResultIDs {
			if !calls[id] {
				orphan = true
			}
		}
	}
	if !orphan {
		return turns
	}
	out := make([]Turn, 0, len(turns))
	clear(calls)
	for _, t := range turns {
		for _, id := range t.Message.ToolCallIDs {
			calls[id] = true
		}
		keep := true
		for _, id := range t.Message.ToolResultIDs {
			if !calls[id] {
				keep = false
			}
		}
		if keep {
			out = append(out, t)
		}
	}
	return out
}

// ReadFile is [ReadFileContext] without a deadline.
func ReadFile(path string, opts *Options) (*Transcript, error) {
	return ReadFileContext(context.Background(), path, opts)
}

// ReadFileContext parses the transcript at path, reading at most its last
// Options.MaxBytes bytes (32 MiB by default): when the file is larger, it
// seeks to the tail, drops the first partial line and sets
// Transcript.Truncated. Only a regular file is read: a directory, FIFO,
// device or socket is an error wrapping [ErrNotRegular], found without
// blocking (a FIFO is opened non-blocking and never read). Reading stops
// with ctx.Err() when ctx is done. Other errors are an open or read
// failure or invalid options.
func ReadFileContext(ctx context.Context, path string, opts *Options) (*Transcript, error) {
	limit, err := maxBytes(opts)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Checked before opening too: opening some devices has side effects.
	if info, err := os.Stat(path); err == nil && !info.Mode().IsRegular() {
		return nil, notRegular(path, info)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, fmt.Errorf("open transcript: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat transcript: %w", err)
	}
	if !info.Mode().IsRegular() { // replaced between Stat and open
		return nil, notRegular(path, info)
	}
	var r io.Reader = ctxReader{ctx, f}
	truncated := false
	if size := info.Size(); size > limit {
		truncated = true
		// Read one byte before the tail: if it is a newline the tail starts
		// on a line boundary, otherwise its first line is partial.
		start := size - limit - 1
		if _, err := f.Seek(start, io.SeekStart); err != nil {
			return nil, fmt.Errorf("seek transcript tail: %w", err)
		}
		br := bufio.NewReaderSize(io.LimitReader(r, limit+1), 64<<10)
		if err := skipLine(br); err != nil {
			if errors.Is(err, io.EOF) { // no complete line in the tail
				return &Transcript{Turns: []Turn{}, Truncated: true}, nil
			}
			return nil, fmt.Errorf("read transcript tail: %w", err)
		}
		r = br
	} else {
		// The file may grow while it is read: never read more than limit.
		r = io.LimitReader(r, limit)
	}
	t, err := Parse(r, opts)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, fmt.Errorf("read transcript: %w", ctxErr)
		}
		return nil, err
	}
	t.Truncated = truncated
	return t, nil
}

func notRegular(path string, info os.FileInfo) error {
	what := "special file"
	switch m := info.Mode(); {
	case m.IsDir():
		what = "directory"
	case m&os.ModeNamedPipe != 0:
		what = "FIFO"
	case m&os.ModeDevice != 0:
		what = "device"
	case m&os.ModeSocket != 0:
		what = "socket"
	}
	return fmt.Errorf("%w: %s is a %s", ErrNotRegular, path, what)
}

// ctxReader fails its reads once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// skipLine discards input up to and including the next newline.
func skipLine(br *bufio.Reader) error {
	for {
		_, err := br.ReadSlice('\n')
		if err == nil {
			return nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

// readLine returns the next line of br (with its newline, if any) when it
// is at most max bytes long; a longer line is consumed and reported by
// long = true with no data, so it is never held whole in memory.
func readLine(br *bufio.Reader, max int) (data []byte, long bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !long {
			if len(data)+len(chunk) > max {
				long, data = true, nil
			} else {
				data = append(data, chunk...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return data, long, err
		}
	}
}

func maxBytes(opts *Options) (int64, error) {
	if opts == nil || opts.MaxBytes == 0 {
		return DefaultMaxBytes, nil
	}
	if opts.MaxBytes < 0 {
		return 0, fmt.Errorf("%w: MaxBytes %d, want >= 0 (0 means %d)", ErrInvalidOptions, opts.MaxBytes, DefaultMaxBytes)
	}
	return opts.MaxBytes, nil
}

func maxLineBytes(opts *Options) (int, error) {
	if opts == nil || opts.MaxLineBytes == 0 {
		return DefaultMaxLineBytes, nil
	}
	if opts.MaxLineBytes < 0 {
		return 0, fmt.Errorf("%w: MaxLineBytes %d, want >= 0 (0 means %d)", ErrInvalidOptions, opts.MaxLineBytes, DefaultMaxLineBytes)
	}
	return opts.MaxLineBytes, nil
}

// entry is the part of a transcript line that Parse reads.
type entry struct {
	Type             string `json:"type"`
	UUID             string `json:"uuid"`
	ParentUUID       string `json:"parentUuid"`
	SessionID        string `json:"sessionId"`
	Timestamp        string `json:"timestamp"`
	IsSidechain      bool   `json:"isSidechain"`
	IsMeta           bool   `json:"isMeta"`
	IsCompactSummary bool   `json:"isCompactSummary"`
	Message          *struct {
		ID      string          `json:"id"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// pending is a turn whose content may still grow (streamed assistant
// entries).
type pending struct {
	turn   Turn
	role   chitta.Role
	str    json.RawMessage   // string content, when not blocks
	blocks []json.RawMessage // block content
}

// Parse reads a transcript from r (see the package documentation for the
// rules). Lines longer than Options.MaxLineBytes are skipped. It returns an error only when r fails
// or opts is invalid; malformed lines are counted in Transcript.Malformed.
func Parse(r io.Reader, opts *Options) (*Transcript, error) {
	if _, err := maxBytes(opts); err != nil {
		return nil, err
	}
	maxLine, err := maxLineBytes(opts)
	if err != nil {
		return nil, err
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	t := &Transcript{}
	var turns []*pending
	byMessageID := make(map[string]*pending)
	seen := make(map[string]bool)
	br := bufio.NewReaderSize(r, 64<<10)
	for line := 1; ; line++ {
		data, long, err := readLine(br, maxLine)
		if long {
			t.Malformed++
		}
		if len(bytes.TrimSpace(data)) > 0 {
			p, merged, ok := t.read(data, line, &o, seen, byMessageID)
			if ok && !merged {
				turns = append(turns, p)
				if p.turn.MessageID != "" {
					byMessageID[p.turn.MessageID] = p
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("read transcript line %d: %w", line, err)
		}
	}
	t.Turns = make([]Turn, 0, len(turns))
	for _, p := range turns {
		turn, ok := p.finish()
		if !ok {
			t.Malformed++
			continue
		}
		if strings.TrimSpace(turn.Message.Content) == "" {
			m := &turn.Message
			if len(m.ToolCallIDs) == 0 && len(m.ToolResultIDs) == 0 {
				continue
			}
			// Keep a turn that carries tool linkage, so that no call loses
			// its result, and give it text to score.
			m.Content = "[empty tool result]"
		}
		t.Turns = append(t.Turns, turn)
	}
	return t, nil
}

// read decodes one line. It returns the new pending turn, or merged = true
// when the line's blocks were appended to an earlier turn, or ok = false
// when the line was skipped or malformed (and counted).
func (t *Transcript) read(data []byte, line int, o *Options, seen map[string]bool, byMessageID map[string]*pending) (p *pending, merged, ok bool) {
	var e entry
	if err := json.Unmarshal(data, &e); err != nil {
		t.Malformed++
		return nil, false, false
	}
	if t.SessionID == "" && e.SessionID != "" {
		t.SessionID = e.SessionID
	}
	var role chitta.Role
	switch e.Type {
	case "user":
		role = chitta.RoleUser
	case "assistant":
		role = chitta.RoleAssistant
	default: // bookkeeping and unknown types
		t.Skipped++
		return nil, false, false
	}
	if (e.IsMeta && !o.IncludeMeta) || (e.IsSidechain && !o.IncludeSidechains) || (e.UUID != "" && seen[e.UUID]) {
		t.Skipped++
		return nil, false, false
	}
	if e.Message == nil {
		t.Malformed++
		return nil, false, false
	}
	if e.UUID != "" {
		seen[e.UUID] = true
	}
	content := bytes.TrimSpace(e.Message.Content)
	var blocks []json.RawMessage
	var str json.RawMessage
	switch {
	case len(content) == 0 || string(content) == "null":
	case content[0] == '"':
		str = content
	case content[0] == '[':
		if err := json.Unmarshal(content, &blocks); err != nil {
			t.Malformed++
			return nil, false, false
		}
	default:
		t.Malformed++
		return nil, false, false
	}
	if role == chitta.RoleAssistant && e.Message.ID != "" {
		if prev := byMessageID[e.Message.ID]; prev != nil && prev.str == nil && str == nil {
			prev.blocks = append(prev.blocks, blocks...)
			return nil, true, true
		}
	}
	p = &pending{role: role, str: str, blocks: blocks}
	p.turn = Turn{
		UUID:           e.UUID,
		ParentUUID:     e.ParentUUID,
		Line:           line,
		Sidechain:      e.IsSidechain,
		Meta:           e.IsMeta,
		CompactSummary: e.IsCompactSummary,
	}
	if role == chitta.RoleAssistant {
		p.turn.MessageID = e.Message.ID
	}
	if ts, err := time.Parse(time.RFC3339Nano, e.Timestamp); err == nil {
		p.turn.Timestamp = ts
	}
	return p, false, true
}

// finish builds the turn's Anthropic-format Raw and chitta message.
func (p *pending) finish() (Turn, bool) {
	turn := p.turn
	w := struct {
		Role    chitta.Role `json:"role"`
		Content any         `json:"content"`
	}{Role: p.role}
	switch {
	case p.str != nil:
		w.Content = p.str
	case p.blocks != nil:
		w.Content = p.blocks
	default:
		w.Content = []json.RawMessage{}
	}
	// Not json.Marshal: it would escape &, < and > in the transcript's own
	// blocks (a tool input "a && b" would read "a \u0026\u0026 b").
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		return Turn{}, false
	}
	raw := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if err := turn.Message.UnmarshalJSON(raw); err != nil {
		return Turn{}, false
	}
	var text []string
	for _, blk := range p.blocks {
		var b struct {
			Type      string          `json:"type"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
			ToolUseID string          `json:"tool_use_id"`
			IsError   bool            `json:"is_error"`
			Text      string          `json:"text"`
			Content   json.RawMessage `json:"content"`
		}
		if json.Unmarshal(blk, &b) != nil {
			continue
		}
		switch b.Type {
		case "tool_use", "server_tool_use":
			turn.ToolUses = append(turn.ToolUses, ToolUse{ID: b.ID, Name: b.Name, Input: b.Input})
		case "tool_result":
			turn.ToolResults = append(turn.ToolResults, ToolResult{ToolUseID: b.ToolUseID, IsError: b.IsError, Loads: toolReferences(b.Content)})
		case "text":
			text = append(text, b.Text)
		}
	}
	if p.str != nil {
		var s string
		if json.Unmarshal(p.str, &s) == nil {
			text = append(text, s)
		}
	}
	if p.role == chitta.RoleUser && !turn.Meta && !turn.CompactSummary && len(turn.ToolResults) == 0 {
		turn.Prompt = promptText(strings.Join(text, "\n"))
	}
	return turn, true
}

// toolReferences returns the tool names of the tool_reference blocks of a
// tool_result's content (nil for string content or when there are none).
func toolReferences(content json.RawMessage) []string {
	var blocks []struct {
		Type     string `json:"type"`
		ToolName string `json:"tool_name"`
	}
	if json.Unmarshal(content, &blocks) != nil {
		return nil
	}
	var out []string
	for _, b := range blocks {
		if b.Type == "tool_reference" && b.ToolName != "" {
			out = append(out, b.ToolName)
		}
	}
	return out
}

// Markup that Claude Code writes as user entries but the user did not type.
var notPrompt = []string{
	"<command-name>", "<command-message>", "<command-args>",
	"<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>",
	"Caveat: The messages below were generated by the user while running local commands",
	"[Request interrupted by user",
	"<bash-input>", "<bash-stdout>", "<bash-stderr>",
	"<user-prompt-submit-hook>",
	"This session is being continued from a previous conversation",
}

// promptText removes <system-reminder> sections from s and returns what is
// left, or "" when nothing is left or s is command or caveat markup.
func promptText(s string) string {
	for {
		i := strings.Index(s, "<system-reminder>")
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], "</system-reminder>")
		if j < 0 {
			s = s[:i]
			break
		}
		s = s[:i] + s[i+j+len("</system-reminder>"):]
	}
	s = strings.TrimSpace(s)
	for _, m := range notPrompt {
		if strings.HasPrefix(s, m) {
			return ""
		}
	}
	return s
}
