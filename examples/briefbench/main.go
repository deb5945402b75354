// Command briefbench measures the PreCompact hook's preservation brief on
// real Claude Code transcripts: for each transcript (and, in long ones, at
// every 40th turn), the 60-turn window before that point is compacted as
// the hook compacts it, with an empty memory store and the default hash
// embedder, and the brief is compared with a baseline that lists the most
// recent artifacts first under the same cap and layout.
//
//	go run ./examples/briefbench -data ../shared/data/claude-transcripts \
//	    -sample examples/internal/claudecode/testdata/session.jsonl
//
// It reports, per window: the brief's size; the share of the window's
// distinct file paths, commands and error lines (as brief.Extract finds
// them in every turn of the window) that the brief carries verbatim, for
// the brief and for the baseline, at the default cap of 1 500 tokens and a
// tight cap; the time of one hook run in process (read the transcript,
// compact, build the brief, record the episode and the brief, save the
// store; process start excluded; median of -runs); and the memories a
// --distill compaction adds (first and second compaction of the same
// window over the same store), with a check that none is Claude Code
// boilerplate or assistant filler. The data is read where it lies and never
// copied.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/brief"
	"github.com/chitta-go/chitta/examples/internal/claudecode"
	"github.com/chitta-go/chitta/examples/internal/exitcode"
	"github.com/chitta-go/chitta/examples/internal/storepath"
	"github.com/chitta-go/chitta/internal/testkit/shareddata"
)

func main() {
	os.Exit(exitcode.Of("briefbench", run(context.Background(), os.Args[1:], os.Stdout), errUsage, os.Stderr))
}

// errUsage marks a flag error, which the flag package has printed with the
// usage (-h is flag.ErrHelp under it).
var errUsage = errors.New("usage")

// Parameters of the measurement (the hook's).
const (
	windowTurns = 60
	step        = 40 // a window ends every step turns, and at the end
)

type config struct {
	data, sample string
	tight, runs  int
}

func run(ctx context.Context, args []string, w io.Writer) error {
	fs := flag.NewFlagSet("briefbench", flag.ContinueOnError)
	c := config{}
	fs.StringVar(&c.data, "data", "", "directory of Claude Code transcripts (*.jsonl); default: shared/data/claude-transcripts above the working directory")
	fs.StringVar(&c.sample, "sample", "", "one more transcript, e.g. examples/internal/claudecode/testdata/session.jsonl")
	fs.IntVar(&c.tight, "tight", 300, "the tight cap, in tokens")
	fs.IntVar(&c.runs, "runs", 5, "timed runs per window (the median is reported)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if c.data == "" {
		dir, ok := shareddata.Dir("claude-transcripts")
		if !ok {
			return errors.New("no -data and no shared/data/claude-transcripts above the working directory")
		}
		c.data = dir
	}
	files, err := filepath.Glob(filepath.Join(c.data, "*.jsonl"))
	if err != nil {
		return err
	}
	if c.sample != "" {
		files = append(files, c.sample)
	}
	if len(files) == 0 {
		return fmt.Errorf("no *.jsonl in %s", c.data)
	}
	fmt.Fprintf(w, "| transcript | window end | brief tokens | paths (n) brief / recent | commands (n) brief / recent | errors (n) brief / recent | at %d tokens: paths, commands brief / recent | ms per run | distilled 1st, 2nd | boilerplate or filler |\n", c.tight)
	fmt.Fprintln(w, "|---|---:|---:|---|---|---|---|---:|---|---:|")
	var tot totals
	for _, f := range files {
		if err := measureFile(ctx, f, c, w, &tot); err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(f), err)
		}
	}
	fmt.Fprintf(w, "| **all %d windows** | | max %d | %s / %s | %s / %s | %s / %s | %s, %s / %s, %s | median %.1f, max %.1f | max %d per compaction | %d |\n",
		tot.windows, tot.maxTokens,
		tot.share(pathsK, 0, false), tot.share(pathsK, 0, true),
		tot.share(commandsK, 0, false), tot.share(commandsK, 0, true),
		tot.share(errorsK, 0, false), tot.share(errorsK, 0, true),
		tot.share(pathsK, 1, false), tot.share(commandsK, 1, false), tot.share(pathsK, 1, true), tot.share(commandsK, 1, true),
		median(tot.ms), slices.Max(tot.ms), tot.maxDistilled, tot.bad)
	return nil
}

const (
	pathsK = iota
	commandsK
	errorsK
)

// totals are micro-averaged over every window: carried items over items.
type totals struct {
	windows      int
	maxTokens    int
	n            [3]int
	carried      [2][2][3]int // [cap][baseline][kind]
	ms           []float64
	maxDistilled int
	bad          int
}

func (t *totals) share(kind, cap int, baseline bool) string {
	b := 0
	if baseline {
		b = 1
	}
	if t.n[kind] == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", float64(t.carried[cap][b][kind])/float64(t.n[kind]))
}

func measureFile(ctx context.Context, path string, c config, w io.Writer, tot *totals) error {
	tr, err := claudecode.ReadFileContext(ctx, path, nil)
	if err != nil {
		return err
	}
	if len(tr.Turns) == 0 { // a sub-agent's transcript
		if tr, err = claudecode.ReadFileContext(ctx, path, &claudecode.Options{IncludeSidechains: true}); err != nil {
			return err
		}
	}
	var ends []int
	for e := windowTurns; e < len(tr.Turns); e += step {
		ends = append(ends, e)
	}
	ends = append(ends, len(tr.Turns))
	for _, end := range ends {
		window := claudecode.Tail(tr.Turns[:end], windowTurns)
		if len(window) == 0 {
			continue
		}
		if err := measureWindow(ctx, path, tr.Turns[:end], window, end, c, w, tot); err != nil {
			return fmt.Errorf("window ending at turn %d: %w", end, err)
		}
	}
	return nil
}

func measureWindow(ctx context.Context, path string, upTo, window []claudecode.Turn, end int, c config, w io.Writer, tot *totals) error {
	truth := groundTruth(window)
	query := claudecode.LastPrompt(upTo)
	caps := []int{brief.DefaultMaxTokens, c.tight}
	var got, base [2]string
	var tokens int
	for k, cp := range caps {
		out, err := runOnce(ctx, window, query, cp, false, nil)
		if err != nil {
			return err
		}
		got[k] = out.Brief.Text
		if k == 0 {
			tokens = out.Brief.Tokens
		}
		r, err := brief.Recent(window, &brief.Options{MaxTokens: cp})
		if err != nil {
			return err
		}
		base[k] = r.Text
	}
	var cells [2][2][3]string
	for k := range caps {
		for b, text := range []string{got[k], base[k]} {
			for kind := range 3 {
				n := carried(text, truth[kind])
				tot.carried[k][b][kind] += n
				cells[k][b][kind] = share(n, len(truth[kind]))
			}
		}
	}
	for kind := range 3 {
		tot.n[kind] += len(truth[kind])
	}

	ms, err := timeHookRun(ctx, upTo, window, query, c.runs)
	if err != nil {
		return err
	}
	first, second, bad, err := distillTwice(ctx, window, query)
	if err != nil {
		return err
	}
	tot.windows++
	tot.maxTokens = max(tot.maxTokens, tokens)
	tot.ms = append(tot.ms, ms)
	tot.maxDistilled = max(tot.maxDistilled, first, second)
	tot.bad += bad
	fmt.Fprintf(w, "| %s | %d | %d | (%d) %s / %s | (%d) %s / %s | (%d) %s / %s | %s, %s / %s, %s | %.1f | %d, %d | %d |\n",
		short(filepath.Base(path)), end, tokens,
		len(truth[pathsK]), cells[0][0][pathsK], cells[0][1][pathsK],
		len(truth[commandsK]), cells[0][0][commandsK], cells[0][1][commandsK],
		len(truth[errorsK]), cells[0][0][errorsK], cells[0][1][errorsK],
		cells[1][0][pathsK], cells[1][0][commandsK], cells[1][1][pathsK], cells[1][1][commandsK],
		ms, first, second, bad)
	return nil
}

// groundTruth returns the distinct paths, commands and error lines of
// every turn of the window.
func groundTruth(window []claudecode.Turn) [3][]string {
	var out [3][]string
	seen := map[brief.Artifact]bool{}
	tools := brief.ToolNames(window)
	for i := range window {
		for _, a := range brief.Extract(&window[i], tools) {
			if seen[a] {
				continue
			}
			seen[a] = true
			switch a.Kind {
			case brief.Path:
				out[pathsK] = append(out[pathsK], a.Text)
			case brief.Command:
				out[commandsK] = append(out[commandsK], a.Text)
			case brief.Error:
				out[errorsK] = append(out[errorsK], a.Text)
			}
		}
	}
	return out
}

// carried counts the items that text holds verbatim.
func carried(text string, items []string) int {
	n := 0
	for _, it := range items {
		if strings.Contains(text, it) {
			n++
		}
	}
	return n
}

func share(n, of int) string {
	if of == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", float64(n)/float64(of))
}

// newStore returns an empty in-memory store for the default embedder.
func newStore() (*chitta.HNSWStore, chitta.Embedder, error) {
	emb := chitta.NewHashEmbedder(0)
	s, err := chitta.NewHNSWStore(emb.Dimensions(), nil)
	return s, emb, err
}

// runOnce compacts the window and builds its brief as the hook does, over
// store (a new empty one when nil).
func runOnce(ctx context.Context, window []claudecode.Turn, query string, maxTokens int, distill bool, store brief.Store) (*brief.Outcome, error) {
	emb := chitta.Embedder(chitta.NewHashEmbedder(0))
	if store == nil {
		s, e, err := newStore()
		if err != nil {
			return nil, err
		}
		store, emb = s, e
	}
	return brief.Run(ctx, window, emb, store, &brief.RunOptions{Query: query, MaxTokens: maxTokens, Distill: distill})
}

// timeHookRun times the hook's PreCompact work in process, from reading the
// transcript to saving the store: the median of runs, in milliseconds.
func timeHookRun(ctx context.Context, upTo, window []claudecode.Turn, query string, runs int) (float64, error) {
	dir, err := os.MkdirTemp("", "briefbench-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	// The window as its own transcript file, so that reading it is timed.
	path := filepath.Join(dir, "session.jsonl")
	if err := writeTranscript(path, window); err != nil {
		return 0, err
	}
	var ms []float64
	for r := range runs {
		start := time.Now()
		tr, err := claudecode.ReadFileContext(ctx, path, nil)
		if err != nil {
			return 0, err
		}
		win := claudecode.Tail(tr.Turns, windowTurns)
		emb := chitta.NewHashEmbedder(0)
		store, err := storepath.OpenShared(filepath.Join(dir, fmt.Sprintf("m%d.chitta", r)), emb.Dimensions())
		if err != nil {
			return 0, err
		}
		out, err := brief.Run(ctx, win, emb, store, &brief.RunOptions{Query: query})
		if err != nil {
			return 0, err
		}
		if _, err := chitta.RecordEpisode(ctx, store, emb, out.Compact.Stats, "s"); err != nil {
			return 0, err
		}
		if err := brief.Record(ctx, store, emb, "s", out.Brief.Text); err != nil {
			return 0, err
		}
		if err := store.Save(); err != nil {
			return 0, err
		}
		ms = append(ms, float64(time.Since(start).Microseconds())/1000)
	}
	return median(ms), nil
}

// writeTranscript writes turns as a transcript claudecode reads back.
func writeTranscript(path string, turns []claudecode.Turn) error {
	var b strings.Builder
	for i, t := range turns {
		fmt.Fprintf(&b, `{"type":%q,"uuid":"u%d","sessionId":"s","message":%s}`+"\n", t.Message.Role, i, t.Message.Raw)
	}
	return os.WriteFile(path, []byte(b.String()), 0o600)
}

// distillTwice compacts the window twice with --distill over one store and
// returns the memories each compaction added and how many of all stored
// memories are Claude Code boilerplate or assistant filler.
func distillTwice(ctx context.Context, window []claudecode.Turn, query string) (first, second, bad int, err error) {
	store, emb, err := newStore()
	if err != nil {
		return 0, 0, 0, err
	}
	var added [2]int
	for k := range added {
		out, err := brief.Run(ctx, window, emb, store, &brief.RunOptions{Query: query, Distill: true})
		if err != nil {
			return 0, 0, 0, err
		}
		added[k] = len(out.Compact.Distilled)
	}
	for m := range store.All() {
		if looksLikeBoilerplate(m.Text) {
			bad++
		}
	}
	return added[0], added[1], bad, nil
}

// looksLikeBoilerplate re-checks a distilled memory independently of the
// filters that should have kept it out.
func looksLikeBoilerplate(text string) bool {
	body := text
	if _, after, ok := strings.Cut(text, "] "); ok && strings.HasPrefix(text, chitta.DistillPrefix) {
		body = after
	}
	for _, m := range []string{"<tool_use_error>", "doesn't want to proceed", "doesn't want to take this action", "Request interrupted", "has been denied", "<command-name>", "<local-command-"} {
		if strings.Contains(body, m) {
			return true
		}
	}
	return strings.HasPrefix(text, chitta.DistillPrefix+"assistant]") && chitta.IsFiller(chitta.RoleAssistant, body)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.SortFunc(s, cmp.Compare)
	return s[len(s)/2]
}

// short abbreviates a transcript file name.
func short(name string) string {
	name = strings.TrimSuffix(name, ".jsonl")
	if len(name) > 40 {
		name = name[:18] + "…" + name[len(name)-18:]
	}
	return name
}
