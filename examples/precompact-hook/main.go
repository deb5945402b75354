// Command precompact-hook is chitta's Claude Code hook. One binary serves
// two hook events, told apart by hook_event_name on stdin:
//
//   - PreCompact: it compacts the session's last 60 turns with chitta
//     (memory-aware: turns the memory store already covers score lower),
//     prints a preservation brief on stdout — the file paths, commands,
//     error lines, identifiers, numbers with units, URLs and user
//     constraints that only the conversation holds, ranked by chitta's
//     score, at most --brief-tokens and 10 000 characters (Claude Code cuts
//     a hook's output there) — which Claude Code appends to the
//     summariser's instructions, and records a compaction episode and the
//     brief (kind "brief", one per session) in the store; with --distill
//     also up to --distill-max novel dropped turns (no Claude Code
//     boilerplate, no filler, no near-duplicates). With --mask, the
//     compaction masks stale tool output (chitta.Options.Mask, defaults)
//     and the brief lists the masked calls with the memory holding each
//     output's excerpt (with --distill).
//   - SessionStart: when source is "compact" or "resume", it prints the
//     memories most relevant to the session's latest prompt (at most 8,
//     similarity >= 0.2, no episodes or briefs) and the items of the
//     session's last brief (not its first line, the summariser's
//     instruction), together at most --brief-tokens and 10 000 characters
//     (whole lines); Claude Code adds that stdout
//     to the new context. For "startup" and "clear" it prints nothing.
//     The brief is found by session_id: a Claude Code version that starts a
//     resumed or forked session under a new session_id (reported in
//     anthropics/claude-code#12235, #7911, #24265) gets only the memories,
//     not the brief stored under the earlier id. The hook does not guess
//     the earlier id: the hook input carries no field naming it, and the
//     transcripts of the shared data carry one sessionId each.
//
// Claude Code runs it with the hook input on stdin, for example
//
//	{"session_id": "…", "transcript_path": "…/session.jsonl", "cwd": "…",
//	 "hook_event_name": "PreCompact", "trigger": "manual" | "auto",
//	 "custom_instructions": "…"}
//
// It decodes only the fields the event uses (session_id, transcript_path,
// cwd, and custom_instructions for PreCompact or source for SessionStart;
// strings or null): trigger and any other field may hold any JSON value.
//
// Exit status: 0 on success (stdout is the output above; one summary line
// goes to stderr); 1 on any failure, with one line of at most 1 KiB on
// stderr (Claude Code shows it and goes on: a non-blocking error). Claude
// Code uses stdout
// only on exit 0, so a failure to write the store once PreCompact has made
// its brief (recording the episode or the brief, saving; a PostgreSQL
// server gone mid-run; a store lock another process holds, which the save
// waits for until --timeout at most) is not a failure of the hook: the brief is printed,
// the status is 0, and the summary line says "writing to store … failed"
// and why. Nor is a store that cannot be opened (a corrupt store file, no
// data directory, a path that can never be a store file, a store of another
// dimension, a PostgreSQL server down or not answering within half of
// --timeout): the brief does not need the store's
// memories, so PreCompact makes it against an empty in-memory store,
// prints it, records nothing (with --distill it distils nothing either,
// and says so: there is nowhere to keep it), leaves the store (a corrupt
// file too) as it is, exits 0, and its summary line says "opening the
// store failed" and why. (SessionStart, which has nothing to print
// without its store, exits 1; it gives a PostgreSQL server all the time
// until --timeout to answer.) Never 2, which would block
// the compaction: the hook runs itself as a worker process and maps any
// other exit of the worker (a Go runtime fatal error such as running out
// of memory exits 2) to 1, panics are recovered, only regular transcript files are
// read (never more than 32 MiB, lines over 8 MiB skipped), and the hook
// gives up --timeout after it started and on SIGINT, SIGTERM, SIGQUIT or
// SIGHUP (exit 1; SIGQUIT made Go dump its goroutines and exit 2). An
// openai: embedder's probe (one text embedded at start to learn the
// dimension) waits at most 20 s and never past --timeout; without an
// embedder there is no brief, so a probe that gets no answer is exit 1.
//
// The memory store defaults to one per project (the git root of the
// hook's cwd, else cwd) under the chitta data directory, the same default
// the chitta MCP server takes from its working directory. --store
// postgres://… keeps it in PostgreSQL with pgvector instead (package
// pgstore; chitta_table, chitta_namespace and chitta_index query
// parameters choose the table, namespace and index kind), so a team's hooks
// share one memory; the password is never printed. A --store that looks
// like a URL but is not a postgres:// or postgresql:// one (it holds
// "://", starts with postgres:, pg: or postgres//, or has a
// user:password@ part) is refused without being repeated, as a
// keyword/value connection string is: PreCompact makes its brief without
// the store (exit 0), SessionStart prints nothing (exit 1). A table that holds
// memories without its index is searched without it, not indexed under
// --timeout (the summary line gives the statement that builds it). The hook has its own go.mod so that the root module
// does not depend on the PostgreSQL driver.
//
// Usage:
//
//	precompact-hook [--store PATH|postgres://URL] [--embedder SPEC] [--brief-tokens 1500]
//	                [--distill] [--distill-max 8] [--mask] [--timeout 30s] < hook-input.json
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/chitta-go/chitta/examples/internal/brief"
	"github.com/chitta-go/chitta/examples/internal/clipmsg"
	"github.com/chitta-go/chitta/examples/internal/flagsafe"
	"github.com/chitta-go/chitta/examples/internal/storepath"
)

// Fixed parameters of the hook.
const (
	turns    = 60              // user/assistant turns compacted
	maxInput = 1 << 20         // bytes of hook input read
	grace    = 1 * time.Second // how long the work may take to stop after the deadline or a signal
	prefix   = "chitta hook: " // starts every stderr line

	// maxOutputChars bounds stdout, in UTF-16 code units (brief.Chars):
	// Claude Code (2.1.332) cuts a PreCompact hook's output, and a
	// SessionStart hook's, to its first 10 000, so that the end of a longer
	// brief would never reach the model.
	maxOutputChars = 10_000
)

func main() {
	if os.Getenv(workerEnv) == "" {
		if exe, err := os.Executable(); err == nil {
			os.Exit(supervise(exe, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		}
	}
	os.Exit(hookMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// outcome is what one run produced.
type outcome struct {
	stdout  string // for Claude Code: the brief, or the memories to bring back
	summary string // one line for stderr
	err     error
}

// hookMain runs the hook and returns its exit status: 0, or 1 with one
// line on stderr. It never returns 2 and never panics.
func hookMain(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintln(stderr, prefix+"failed: internal error: "+stderrLine(fmt.Sprint(r)))
			code = 1
		}
	}()
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, prefix+"failed: "+stderrLine(err.Error()))
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), stopSignals...)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()

	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- outcome{err: fmt.Errorf("internal error: %v", r)}
			}
		}()
		done <- run(ctx, cfg, stdin)
	}()
	var o outcome
	select {
	case o = <-done:
	case <-ctx.Done():
		// The work honours ctx; a read stuck in the kernel may not.
		select {
		case o = <-done:
		case <-time.After(grace):
			o = outcome{err: ctx.Err()}
		}
	}
	if o.err != nil {
		msg := o.err.Error()
		switch {
		case errors.Is(o.err, context.DeadlineExceeded) && errors.Is(ctx.Err(), context.DeadlineExceeded):
			// Only when --timeout ran out: an open that gave up at half
			// of it says so itself.
			msg = fmt.Sprintf("timed out after %v (--timeout): %s", cfg.timeout, msg)
		case errors.Is(o.err, context.Canceled):
			msg = "interrupted by a signal: " + msg
		}
		fmt.Fprintln(stderr, prefix+"failed: "+stderrLine(msg))
		return 1
	}
	if o.stdout != "" {
		if _, err := fmt.Fprintln(stdout, o.stdout); err != nil {
			fmt.Fprintln(stderr, prefix+"failed: write stdout: "+stderrLine(err.Error()))
			return 1
		}
	}
	if o.summary != "" {
		fmt.Fprintln(stderr, prefix+stderrLine(o.summary))
	}
	return 0
}

// stderrLine is s on one line, at most clipmsg.Max bytes: an error may
// quote the hook input (a path, an event name), up to 1 MiB of it.
func stderrLine(s string) string {
	return clipmsg.Cut(oneLine(s), clipmsg.Max)
}

// oneLine joins the lines of s (errors.Join separates errors by newlines).
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ; ")), " ")
}

// config is the command line.
type config struct {
	store       string // "" means the project's default store
	embedder    string
	distill     bool
	distillMax  int
	briefTokens int
	mask        bool
	timeout     time.Duration

	reserve, lexical float64 // chitta.Options.RelevanceReserve and Lexical
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("precompact-hook", flag.ContinueOnError)
	// Parse errors are reported on one line by hookMain; the usage is
	// printed only for -h.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	c := &config{}
	fs.StringVar(&c.store, "store", "", storepath.FlagUsage)
	fs.StringVar(&c.embedder, "embedder", "hash", "embedder: hash, hash:DIMS, llamacpp[+PRESET]:PATH (needs -tags llamacpp) or openai[+PRESET]:URL#MODEL (PRESET nomic, e5 or bge: query/document prefixes); must match the store's")
	fs.BoolVar(&c.distill, "distill", false, "PreCompact: also store the novel dropped turns as memories (no Claude Code boilerplate, no filler, no near-duplicates)")
	fs.IntVar(&c.distillMax, "distill-max", brief.DefaultDistillMax, "PreCompact with --distill: at most this many memories per compaction, most novel first")
	fs.IntVar(&c.briefTokens, "brief-tokens", brief.DefaultMaxTokens, "cap of what the hook prints, in words × 1.3 (it prints 10 000 characters at most, where Claude Code cuts a hook's output)")
	fs.BoolVar(&c.mask, "mask", false, "PreCompact: mask stale tool output in the compaction and list the masked calls in the brief")
	fs.Float64Var(&c.reserve, "relevance-reserve", 0, "PreCompact: share of the free budget filled first by the turns most similar to the query and least held by memory (the rest: least covered, newest first), 0 to 1 (0 = off; RETENTION.md measures 0.5 with --lexical 0.3)")
	fs.Float64Var(&c.lexical, "lexical", 0, "PreCompact: weight of the conversation's own BM25 score in the similarity, 0 to 1 (0 = off)")
	fs.DurationVar(&c.timeout, "timeout", 30*time.Second, "give up (exit 1) after this long; keep it under the hook's timeout in Claude Code's settings")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stderr, "Usage: precompact-hook [flags] < hook-input.json\n\n"+
				"chitta's Claude Code hook. PreCompact: compacts the session's last %d turns with chitta, prints a\n"+
				"preservation brief for the summariser and records the compaction in the memory store. SessionStart\n"+
				"(source compact or resume): prints the relevant memories and the session's last brief.\n"+
				"Exits 0 on success, 1 with one line on stderr on any failure, never 2.\n\nFlags:\n", turns)
			fs.SetOutput(stderr)
			fs.PrintDefaults()
			return nil, err
		}
		return nil, flagsafe.WithoutValue(fs, err)
	}
	if fs.NArg() > 0 {
		return nil, flagsafe.Unexpected(fs.NArg(), "the hook input is read from stdin")
	}
	if c.timeout <= 0 {
		return nil, fmt.Errorf("--timeout %v: want > 0", c.timeout)
	}
	if c.distillMax < 1 || c.distillMax > 100 {
		return nil, fmt.Errorf("--distill-max %d: want 1 to 100", c.distillMax)
	}
	if c.briefTokens < 100 || c.briefTokens > 100_000 {
		return nil, fmt.Errorf("--brief-tokens %d: want 100 to 100000", c.briefTokens)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"relevance-reserve", c.reserve}, {"lexical", c.lexical}} {
		if !(f.v >= 0 && f.v <= 1) {
			return nil, fmt.Errorf("--%s %v: want 0 to 1", f.name, f.v)
		}
	}
	return c, nil
}

// hookInput is what Claude Code writes on a hook's stdin: the fields this
// hook reads. Those it does not read (trigger, permission_mode, and the
// other event's fields: source for PreCompact, custom_instructions for
// SessionStart) are not decoded, so no value of theirs makes the hook fail.
type hookInput struct {
	SessionID          string // session_id
	TranscriptPath     string // transcript_path
	CWD                string // cwd
	HookEventName      string // hook_event_name: PreCompact, SessionStart, or "" (a hand-run PreCompact)
	CustomInstructions string // PreCompact: what the user typed after /compact
	Source             string // SessionStart: startup, resume, clear or compact
}

// run reads the hook input and handles its event.
func run(ctx context.Context, cfg *config, stdin io.Reader) outcome {
	in, err := readInput(ctx, stdin)
	if err != nil {
		return outcome{err: err}
	}
	switch in.HookEventName {
	case "SessionStart":
		return sessionStart(ctx, cfg, in)
	default: // PreCompact; an empty name is a hand-run PreCompact
		return preCompact(ctx, cfg, in)
	}
}

// readInput reads and checks the hook input, giving up when ctx is done so
// that a stdin that never closes cannot block the hook.
func readInput(ctx context.Context, stdin io.Reader) (*hookInput, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{err: fmt.Errorf("internal error: %v", r)}
			}
		}()
		data, err := io.ReadAll(io.LimitReader(stdin, maxInput+1))
		done <- result{data, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		return nil, fmt.Errorf("read hook input: %w", ctx.Err())
	}
	if r.err != nil {
		return nil, fmt.Errorf("read hook input: %w", r.err)
	}
	if len(r.data) > maxInput {
		return nil, fmt.Errorf("malformed hook input: larger than %d bytes", maxInput)
	}
	return parseInput(r.data)
}

// maxQuoted bounds a value of the hook input quoted in an error, in bytes.
const maxQuoted = 128

// parseInput decodes the hook input: a JSON object whose fields this hook
// reads (see [hookInput]) are strings or null. It decodes only the fields
// the event uses: a hook must not fail on a field it ignores.
func parseInput(data []byte) (*hookInput, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return nil, fmt.Errorf("malformed hook input: want a JSON object, got %s", typeErr.Value)
		}
		return nil, fmt.Errorf("malformed hook input: %w", err)
	}
	str := func(name string, dst *string) error {
		raw, ok := fields[name]
		if !ok {
			return nil
		}
		if err := json.Unmarshal(raw, dst); err != nil { // null leaves dst ""
			var typeErr *json.UnmarshalTypeError
			if errors.As(err, &typeErr) {
				return fmt.Errorf("malformed hook input: %s: want a string, got %s", name, typeErr.Value)
			}
			return fmt.Errorf("malformed hook input: %s: %w", name, err)
		}
		return nil
	}
	in := &hookInput{}
	if err := str("hook_event_name", &in.HookEventName); err != nil {
		return nil, err
	}
	type field struct {
		name string
		dst  *string
	}
	read := []field{{"session_id", &in.SessionID}, {"transcript_path", &in.TranscriptPath}, {"cwd", &in.CWD}}
	switch in.HookEventName {
	case "", "PreCompact":
		read = append(read, field{"custom_instructions", &in.CustomInstructions})
	case "SessionStart":
		read = append(read, field{"source", &in.Source})
	default:
		return nil, fmt.Errorf("malformed hook input: hook_event_name %q: want PreCompact or SessionStart",
			clipmsg.Cut(in.HookEventName, maxQuoted))
	}
	for _, f := range read {
		if err := str(f.name, f.dst); err != nil {
			return nil, err
		}
	}
	if in.HookEventName != "SessionStart" && strings.TrimSpace(in.TranscriptPath) == "" {
		return nil, errors.New("malformed hook input: transcript_path: required")
	}
	return in, nil
}
