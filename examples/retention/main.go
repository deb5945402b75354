// Command retention measures what compaction keeps of real conversations,
// against baselines at the same token budget.
//
// Usage:
//
//	go run ./examples/retention -locomo FILE -tau DIR -claude DIR -swe DIR \
//		-ratios 0.1,0.2,0.3,0.4,0.5 -out DIR
//
// Any subset of -locomo, -tau, -claude and -swe may be given. -locomo runs
// the question protocol (dataset locomo) and the blind protocol
// (locomo-blind); -tau runs the protocol's mode (tau) and the mode with
// the system prompt outside the ratio (tau-nonsystem). Progress goes to
// stderr; DIR receives report.md (tables), report.json (every figure as
// {"rows":[{"dataset","method","ratio","metric","value"},…]}) and
// retention.svg (recall against ratio, one line per method). Every figure
// except ms_per_compaction is deterministic for a fixed -seed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/exitcode"
	"github.com/chitta-go/chitta/examples/internal/retention"
)

func main() {
	err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr)
	if err != nil && strings.HasPrefix(err.Error(), "retention: ") {
		err = errors.New(strings.TrimPrefix(err.Error(), "retention: "))
	}
	os.Exit(exitcode.Of("retention", err, errUsage, os.Stderr))
}

var errUsage = errors.New("usage")

// config is the parsed command line.
type config struct {
	locomo, tau, claude string
	swe                 string
	ratios              []float64
	out                 string
	seed                uint64
	embedder            string
	cache               int
	variants            bool
	args                []string
	mask                bool   // the observation-masking evaluation (mask.go)
	maskSWE             string // its SWE-agent trajectories
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	c := &config{args: args}
	fs := flag.NewFlagSet("retention", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.locomo, "locomo", "", "LoCoMo JSON `file` (a list of conversations)")
	fs.StringVar(&c.tau, "tau", "", "`dir`ectory of tau-bench result files (*.json)")
	fs.StringVar(&c.claude, "claude", "", "`dir`ectory of Claude Code transcripts (*.jsonl)")
	fs.StringVar(&c.swe, "swe", "", "`dir`ectory of SWE-agent trajectories (*.traj.json)")
	ratios := fs.String("ratios", "0.1,0.2,0.3,0.4,0.5", "comma-separated target `ratios`, each in [0.05, 1]")
	fs.StringVar(&c.out, "out", "retention-out", "output `dir`ectory (created)")
	fs.Uint64Var(&c.seed, "seed", 1, "`seed` of the random baseline (runs use seed streams 0–4)")
	fs.StringVar(&c.embedder, "embedder", "hash", "embedder: hash, hash:DIMS, llamacpp[+PRESET]:PATH (build tag llamacpp) or openai[+PRESET]:URL#MODEL (key from $OPENAI_API_KEY); a PRESET's document prefix goes before every text, queries too: the evaluation embeds queries as documents")
	fs.IntVar(&c.cache, "cache", 1<<16, "embedding cache capacity (texts)")
	fs.BoolVar(&c.variants, "variants", true, "also report the chitta variants (extra rows)")
	fs.BoolVar(&c.mask, "mask", false, "run the observation-masking evaluation instead (chitta with and without chitta.Options.Mask on -tau, -claude and -mask-swe; see mask.go)")
	fs.StringVar(&c.maskSWE, "mask-swe", "", "`dir`ectory of SWE-agent trajectories (*.traj.json) for -mask")
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err) // the flag package printed it; -h is flag.ErrHelp
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if c.locomo == "" && c.tau == "" && c.claude == "" && c.swe == "" && c.maskSWE == "" {
		return nil, fmt.Errorf("give at least one of -locomo, -tau, -claude, -swe")
	}
	for _, f := range strings.Split(*ratios, ",") {
		r, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || r < chitta.MinTargetRatio || r > chitta.MaxTargetRatio {
			return nil, fmt.Errorf("-ratios: %q: want numbers in [%v, %v]", f, chitta.MinTargetRatio, chitta.MaxTargetRatio)
		}
		if !slices.Contains(c.ratios, r) {
			c.ratios = append(c.ratios, r)
		}
	}
	slices.Sort(c.ratios)
	if c.cache < 1 {
		return nil, fmt.Errorf("-cache %d: want >= 1", c.cache)
	}
	return c, nil
}

// methods returns the compared methods for a dataset: the four of the
// issue, the preset, recency-live for tau and claude, then the variants
// (chitta-plan only for the agent datasets, whose assistant turns state
// the agent's plan), and one line describing each.
func methods(c *config, dataset string) ([]retention.Method, []string) {
	ms := []retention.Method{
		retention.Chitta{},
		retention.Chitta{Label: "chitta-free", FreeSelection: true},
		retention.Chitta{Label: "chitta-nomem", NoMemory: true},
		retention.Recency{},
		retention.Random{Seed: c.seed},
		retention.Chitta{Label: "chitta-reserve", RelevanceReserve: 0.5, Lexical: 0.3},
	}
	desc := []string{
		"`chitta`: chitta.Compact, default options (the live turn and the first user turn pinned), with the memory store",
		"`chitta-free`: chitta.Compact with Options.FreeSelection (the original greedy rule: only system messages pinned), with the memory store",
		"`chitta-nomem`: chitta.Compact without a memory store (stateless relevance)",
		"`recency`: newest tool-call groups first, first fit (truncation)",
		"`random`: tool-call groups in seeded random order, first fit; mean of 5 seeds",
		"`chitta-reserve`: chitta.Compact with the relevance-reserve preset, Options.RelevanceReserve 0.5 and Options.Lexical 0.3 (half the free budget to the groups most similar to the query and least held by memory, the rest least covered first, newest first among equals), with the memory store",
	}
	if dataset == retention.Tau || dataset == retention.Claude {
		ms = append(ms, retention.RecencyLive{})
		desc = append(desc, "`recency-live` (extra baseline, tau and claude only): `recency` that keeps what chitta's default pins at any budget (system messages and the live turn: the last user prompt and the latest step with its results, and the tool-search results that loaded the tools it calls; the pins of a one-token compaction, as the label ceiling's), charged to the budget first, then the newest tool-call groups that fit, first fit; truncation as an agent can use it, which cannot drop the live turn")
	}
	if !c.variants {
		return ms, desc
	}
	flat := map[chitta.Role]float64{chitta.RoleUser: 1, chitta.RoleAssistant: 1, chitta.RoleTool: 1}
	ms = append(ms,
		retention.Chitta{Label: "chitta-norm", Rescale: true},
		retention.Chitta{Label: "chitta-flat", RoleWeights: flat},
		retention.Chitta{Label: "chitta-norm-flat", Rescale: true, RoleWeights: flat},
	)
	desc = append(desc,
		"`chitta-norm` (variant): chitta.Options.Rescale, the semantic and coverage terms min–max rescaled over the conversation (same groups, budget and first-fit rule)",
		"`chitta-flat` (variant): chitta.Compact with Options.RoleWeights user = assistant = tool = 1.0, with the memory store",
		"`chitta-norm-flat` (variant): both of the above",
	)
	if dataset != retention.LoCoMo {
		ms = append(ms,
			retention.Chitta{Label: "chitta-plan", PlanQuery: true},
			retention.Chitta{Label: "chitta-reserve-free", RelevanceReserve: 0.5, Lexical: 0.3, FreeSelection: true},
		)
		desc = append(desc,
			"`chitta-plan` (variant, tau and claude only): chitta with the query extended by the last assistant message that issues no tool call (the agent's latest stated plan)",
			"`chitta-reserve-free` (variant, tau and claude only): the preset with Options.FreeSelection, to show what the live-turn and first-user-turn pins cost it",
		)
	}
	return ms, desc
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if errors.Is(err, errUsage) {
		return err
	}
	if err != nil {
		return fmt.Errorf("%w (see -help)", err)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()

	spec, emb, err := newEmbedder(ctx, c)
	if err != nil {
		return err
	}
	defer spec.Close()
	embDesc := spec.Name + " embedder, cached"
	if c.mask {
		return runMask(ctx, c, emb, embDesc, stdout, stderr)
	}
	ms, desc := methods(c, retention.Claude)
	ev := &retention.Evaluator{
		Env:     retention.Env{Embedder: emb},
		Methods: ms,
		Ratios:  c.ratios,
		NewStore: func(dims int) (chitta.MemoryStore, error) {
			return chitta.NewHNSWStore(dims, nil)
		},
		RecordEpisode: func(ctx context.Context, s chitta.MemoryStore, e chitta.Embedder, st chitta.Stats, session string) error {
			_, err := chitta.RecordEpisode(ctx, s, e, st, session)
			return err
		},
		Progress: stderr,
	}
	start := time.Now()
	if c.locomo != "" {
		f, err := os.Open(c.locomo)
		if err != nil {
			return err
		}
		convs, err := retention.LoadLoCoMo(f)
		f.Close()
		if err != nil {
			return err
		}
		ev.Methods, _ = methods(c, retention.LoCoMo)
		if err := ev.LoCoMo(ctx, convs); err != nil {
			return err
		}
		if err := ev.LoCoMoBlind(ctx, convs); err != nil {
			return err
		}
	}
	if c.tau != "" {
		runs, err := loadTau(c.tau)
		if err != nil {
			return err
		}
		ev.Methods, _ = methods(c, retention.Tau)
		if err := ev.Tau(ctx, runs); err != nil {
			return err
		}
	}
	if c.claude != "" {
		sessions, err := retention.LoadClaudeDir(c.claude)
		if err != nil {
			return err
		}
		ev.Methods, _ = methods(c, retention.Claude)
		if err := ev.Claude(ctx, sessions, nil); err != nil {
			return err
		}
	}
	if c.swe != "" {
		trs, err := loadTrajectories(c.swe)
		if err != nil {
			return err
		}
		ev.Methods, _ = methods(c, retention.SWE)
		if err := ev.SWE(ctx, trs); err != nil {
			return err
		}
	}
	rows := ev.Results.Rows()
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	header := []string{
		"Command: `go run ./examples/retention " + strings.Join(c.args, " ") + "`",
		"",
		fmt.Sprintf("Embedder: %s. Tokens: chitta.EstimateTokens (words × 1.3). Seed: %d. %s, %s/%s, %d CPUs, %s; run time %v.",
			embDesc, c.seed, runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), time.Now().UTC().Format("2006-01-02"), time.Since(start).Round(time.Second)),
		"",
		"Methods (all at the same budget, floor(ratio × tokens), system messages kept and charged first, tool calls kept or dropped with their results):",
		"",
	}
	for _, d := range desc {
		header = append(header, "- "+d)
	}
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{"report.json", func(w io.Writer) error { return retention.WriteJSON(w, rows) }},
		{"report.md", func(w io.Writer) error {
			return retention.WriteMarkdown(w, rows, &retention.MarkdownOptions{Header: header, Notes: ev.Results.Notes})
		}},
		{"retention.svg", func(w io.Writer) error { return retention.WriteSVG(w, rows) }},
	}
	for _, f := range files {
		path := filepath.Join(c.out, f.name)
		if err := writeFile(path, f.write); err != nil {
			return err
		}
		fmt.Fprintln(stdout, path)
	}
	return nil
}

// loadTau reads every *.json file of dir, in name order.
func loadTau(dir string) ([]retention.Run, error) {
	return loadDir(dir, "*.json", retention.LoadTau)
}

// loadTrajectories reads every *.traj.json file of dir, in name order; a directory
// without one is an error.
func loadTrajectories(dir string) ([]retention.Trajectory, error) {
	trs, err := loadDir(dir, "*.traj.json", retention.LoadSWE)
	if err == nil && len(trs) == 0 {
		return nil, fmt.Errorf("-swe %s: no *.traj.json file", dir)
	}
	return trs, err
}

// loadDir reads every file of dir matching pattern with load, in name
// order.
func loadDir[T any](dir, pattern string, load func(string, io.Reader) (T, error)) ([]T, error) {
	names, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var out []T
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		v, err := load(filepath.Base(name), f)
		f.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
