// Command precompact-hook is a Claude Code PreCompact hook that runs
// chitta's memory-aware compaction over the session about to be compacted
// and records what it learned in the persistent memory store that the
// chitta MCP server also uses.
//
// Claude Code runs it with the hook input on stdin:
//
//	{"session_id": "…", "transcript_path": "…/session.jsonl", "cwd": "…",
//	 "hook_event_name": "PreCompact", "trigger": "manual" | "auto",
//	 "custom_instructions": "…"}
//
// It reads the last 32 MiB of the transcript, takes the last 60
// user/assistant turns (side-chain turns only when the transcript has no
// others, as a sub-agent's own transcript has not), compacts them at a
// target ratio of 0.4 with the query set to custom_instructions (or, when
// empty, the last real user prompt), records a compaction episode with chitta.RecordEpisode (and, with
// --distill, the novel dropped turns), and saves the store atomically.
//
// It never gets in the way of Claude Code's own compaction: whatever
// happens (bad flags, malformed input, a missing transcript, a corrupt
// store, a timeout) it writes one line to stderr and exits 0. Exit code 2
// would block the compaction, so it is never used. Claude Code shows a
// hook's stderr in its debug output (claude --debug).
//
// Usage:
//
//	precompact-hook [--store PATH] [--embedder SPEC] [--distill] [--timeout 30s] < hook-input.json
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
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/claudecode"
	"github.com/chitta-go/chitta/examples/internal/embedspec"
	"github.com/chitta-go/chitta/examples/internal/storepath"
)

// Fixed parameters of the hook.
const (
	turns       = 60      // user/assistant turns compacted
	targetRatio = 0.4     // fraction of their tokens kept
	maxInput    = 1 << 20 // bytes of hook input read
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	summary, err := run(ctx, os.Args[1:], os.Stdin, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "chitta precompact: skipped:", oneLine(err.Error()))
	} else if summary != "" {
		fmt.Fprintln(os.Stderr, "chitta precompact:", oneLine(summary))
	}
	// Always 0: a PreCompact hook must never block Claude Code's compaction.
}

// oneLine joins the lines of s (errors.Join separates errors by newlines).
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ; ")), " ")
}

// hookInput is what Claude Code writes on a PreCompact hook's stdin.
type hookInput struct {
	SessionID          string `json:"session_id"`
	TranscriptPath     string `json:"transcript_path"`
	CWD                string `json:"cwd"`
	HookEventName      string `json:"hook_event_name"`
	Trigger            string `json:"trigger"`
	CustomInstructions string `json:"custom_instructions"`
}

// config is the command line.
type config struct {
	store    string
	embedder string
	distill  bool
	timeout  time.Duration
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("precompact-hook", flag.ContinueOnError)
	// Parse errors are reported on one line by main; the usage is printed
	// only for -h.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	c := &config{}
	fs.StringVar(&c.store, "store", "", storepath.FlagUsage)
	fs.StringVar(&c.embedder, "embedder", "hash", "embedder: hash, hash:DIMS, llamacpp:PATH (needs -tags llamacpp) or openai:URL#MODEL; must match the store's")
	fs.BoolVar(&c.distill, "distill", false, "also store dropped turns the memory does not cover yet (distill_novel)")
	fs.DurationVar(&c.timeout, "timeout", 30*time.Second, "give up after this long (keep it under the hook's timeout in Claude Code's settings: 600s by default, 60s in the README snippet)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stderr, "Usage: precompact-hook [flags] < hook-input.json\n\n"+
				"A Claude Code PreCompact hook: compacts the session's last %d turns with chitta and\n"+
				"records the compaction in the memory store. Always exits 0.\n\nFlags:\n", turns)
			fs.SetOutput(stderr)
			fs.PrintDefaults()
		}
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (the hook input is read from stdin)", fs.Arg(0))
	}
	if c.timeout <= 0 {
		return nil, fmt.Errorf("--timeout %v: want > 0", c.timeout)
	}
	store, err := storepath.Resolve(c.store)
	if err != nil {
		return nil, err
	}
	c.store = store
	return c, nil
}

// run does the hook's work and returns a one-line summary, or the reason it
// did nothing. It writes only flag usage to stderr.
func run(ctx context.Context, args []string, stdin io.Reader, stderr io.Writer) (string, error) {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()

	in, err := readInput(ctx, stdin)
	if err != nil {
		return "", err
	}
	path := in.TranscriptPath
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, rest)
		}
	}
	tr, err := claudecode.ReadFile(path, nil)
	if err != nil {
		return "", err
	}
	if len(tr.Turns) == 0 {
		// A sub-agent's own transcript is all side-chain entries.
		if side, err := claudecode.ReadFile(path, &claudecode.Options{IncludeSidechains: true}); err == nil && len(side.Turns) > 0 {
			tr = side
		}
	}
	window := claudecode.Tail(tr.Turns, turns)
	if len(window) == 0 {
		return "", errors.New("no user or assistant turns in the transcript")
	}
	query := queryFor(in, tr.Turns)
	session := in.SessionID
	if session == "" {
		session = tr.SessionID
	}

	emb, err := embedspec.Open(ctx, cfg.embedder)
	if err != nil {
		return "", err
	}
	defer emb.Close()
	store, err := storepath.OpenShared(cfg.store, emb.Dims)
	if err != nil {
		return "", err
	}
	res, err := chitta.Compact(ctx, claudecode.Messages(window), &chitta.Options{
		Query:        query,
		TargetRatio:  targetRatio,
		Embedder:     emb,
		Store:        store,
		DistillNovel: cfg.distill,
	})
	if err != nil {
		return "", fmt.Errorf("compact: %w", err)
	}
	ep, err := chitta.RecordEpisode(ctx, store, emb, res.Stats, session)
	if err != nil {
		return "", err
	}
	if err := store.Save(); err != nil {
		return "", err
	}

	st := res.Stats
	summary := fmt.Sprintf("kept %d of %d turns, %d→%d tokens (%.1f%% dropped, %.1f%% of dropped tokens memory-covered)",
		st.Kept, len(window), st.BeforeTokens, st.AfterTokens, st.DroppedPct, st.CoveredDroppedPct)
	if cfg.distill {
		summary += fmt.Sprintf(", %d memories distilled", st.Distilled)
		if res.DistillErr != nil {
			summary += fmt.Sprintf(" (distill error: %v)", res.DistillErr)
		}
	}
	summary += fmt.Sprintf("; episode %s saved to %s (%d memories)", ep.ID, cfg.store, store.Len())
	return summary, nil
}

// queryFor returns the compaction query: the custom instructions given to
// /compact, or else the last real user prompt of the transcript (not a tool
// result, command output or system reminder).
func queryFor(in *hookInput, turns []claudecode.Turn) string {
	if q := strings.TrimSpace(in.CustomInstructions); q != "" {
		return q
	}
	return claudecode.LastPrompt(turns)
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
	var in hookInput
	if err := json.Unmarshal(r.data, &in); err != nil {
		return nil, fmt.Errorf("malformed hook input: %w", err)
	}
	if strings.TrimSpace(in.TranscriptPath) == "" {
		return nil, errors.New("malformed hook input: transcript_path: required")
	}
	if in.HookEventName != "" && in.HookEventName != "PreCompact" {
		return nil, fmt.Errorf("malformed hook input: hook_event_name %q: want PreCompact", in.HookEventName)
	}
	return &in, nil
}
