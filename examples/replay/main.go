// Command replay replays real conversations turn by turn as an agent loop
// would, calling a context strategy before every model call, and reports
// what each strategy costs in prompt-cache terms and what it keeps.
//
// Usage:
//
//	go run ./examples/replay -locomo FILE -tau DIR -swe DIR \
//		[-locomo-window 2000] [-agent-window 8000] [-target 0.5] [-horizon 0] \
//		[-locomo-probe end|session]
//
// Any subset of -locomo, -tau and -swe may be given. For each dataset it
// prints a Markdown table with one row per strategy (compact every turn,
// Compactor with water marks, recency truncation at the window, no
// compaction): model calls, compactions (calls whose context does not
// extend the previous one), the share of prompt tokens served by the
// prompt cache, the estimated billed input with Anthropic's prices (and
// relative to compacting every turn), calls over the window, and the
// retention at question time (LoCoMo: evidence turns still in the context
// after the last message, or with -locomo-probe session at the end of the
// session holding the question's last evidence; tau-bench: the gold
// action's argument values in the context of the call that issues it).
// Output is deterministic.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/exitcode"
	"github.com/chitta-go/chitta/examples/internal/retention"
)

func main() {
	os.Exit(exitcode.Of("replay", run(context.Background(), os.Args[1:], os.Stdout, os.Stderr), errUsage, os.Stderr))
}

// errUsage reports a command line the flag package refused (it has printed
// the error and the usage).
var errUsage = errors.New("usage")

type config struct {
	locomo, tau, swe          string
	locomoWindow, agentWindow int
	target                    float64
	horizon                   int
	locomoProbe               string
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.locomo, "locomo", "", "LoCoMo JSON `file`")
	fs.StringVar(&c.tau, "tau", "", "`dir`ectory of tau-bench result files (*.json)")
	fs.StringVar(&c.swe, "swe", "", "`dir`ectory of SWE-agent trajectories (*.traj.json)")
	fs.IntVar(&c.locomoWindow, "locomo-window", 2000, "context window for LoCoMo, in `tokens`")
	fs.IntVar(&c.agentWindow, "agent-window", 8000, "context window for tau-bench and SWE-agent, in `tokens`")
	fs.Float64Var(&c.target, "target", 0.5, "compaction target as a `fraction` of the window, in (0, 1)")
	fs.IntVar(&c.horizon, "horizon", 0, "Compactor Policy.Horizon in `calls` (0: no cost gate)")
	fs.StringVar(&c.locomoProbe, "locomo-probe", "end", "when LoCoMo evidence is checked: end (after the last message, the protocol) or session (at the end of the session holding the question's last evidence turn)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, errUsage
	}
	switch {
	case fs.NArg() > 0:
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case c.locomo == "" && c.tau == "" && c.swe == "":
		return nil, errors.New("give at least one of -locomo, -tau, -swe")
	case c.locomoWindow < 2 || c.agentWindow < 2:
		return nil, fmt.Errorf("-locomo-window %d, -agent-window %d: want >= 2", c.locomoWindow, c.agentWindow)
	case !(c.target > 0 && c.target < 1):
		return nil, fmt.Errorf("-target %v: want a fraction in (0, 1)", c.target)
	case c.horizon < 0:
		return nil, fmt.Errorf("-horizon %d: want >= 0", c.horizon)
	case c.locomoProbe != "end" && c.locomoProbe != "session":
		return nil, fmt.Errorf("-locomo-probe %q: want end or session", c.locomoProbe)
	}
	return c, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	// The embedded defaults, shared by every strategy and session: the
	// caches make re-compacting a grown conversation cheap.
	env := retention.Env{
		Embedder: chitta.NewCachedEmbedder(chitta.NewHashEmbedder(0), 1<<16),
		Tokens:   chitta.NewCachedTokenCounter(nil, 1<<16),
	}
	type dataset struct {
		name     string
		window   int
		sessions []retention.Replayed
		metric   string
	}
	var sets []dataset
	if c.locomo != "" {
		var convs []retention.Conversation
		err := readFile(c.locomo, func(_ string, r io.Reader) (err error) {
			convs, err = retention.LoadLoCoMo(r)
			return err
		})
		if err != nil {
			return err
		}
		metric := "evidence recall after the last message"
		if c.locomoProbe == "session" {
			metric = "evidence recall after its session"
		}
		sets = append(sets, dataset{"LoCoMo", c.locomoWindow, retention.LoCoMoReplays(convs, c.locomoProbe == "session"), metric})
	}
	if c.tau != "" {
		runs, err := loadAll(c.tau, "*.json", retention.LoadTau)
		if err != nil {
			return err
		}
		sets = append(sets, dataset{"tau-bench", c.agentWindow, retention.TauReplays(runs), "argument recall"})
	}
	if c.swe != "" {
		sessions, err := loadAll(c.swe, "*.traj.json", retention.LoadSWEAgent)
		if err != nil {
			return err
		}
		sets = append(sets, dataset{"SWE-agent", c.agentWindow, sessions, ""})
	}
	for _, d := range sets {
		cfg := retention.ReplayConfig{Env: env, Window: d.window, Target: int(c.target * float64(d.window)), Horizon: c.horizon}
		stats, err := retention.Replay(ctx, cfg, d.sessions)
		if err != nil {
			return err
		}
		writeTable(stdout, d.name, cfg, len(d.sessions), d.metric, stats)
	}
	return nil
}

// loadAll loads every file of dir matching pattern, in name order.
func loadAll[T any](dir, pattern string, load func(name string, r io.Reader) (T, error)) ([]T, error) {
	names, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: no %s files", dir, pattern)
	}
	slices.Sort(names)
	out := make([]T, 0, len(names))
	for _, name := range names {
		err := readFile(name, func(base string, r io.Reader) error {
			v, err := load(base, r)
			out = append(out, v)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readFile calls read on the open file at path, with its base name; an
// error of read is prefixed with path.
func readFile(path string, read func(name string, r io.Reader) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := read(filepath.Base(path), f); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func writeTable(w io.Writer, name string, cfg retention.ReplayConfig, sessions int, metric string, stats []retention.ReplayStats) {
	fmt.Fprintf(w, "### %s · %d sessions · window %d tokens, target %d\n\n", name, sessions, cfg.Window, cfg.Target)
	col := "retention"
	if metric != "" {
		col = metric
	}
	fmt.Fprintf(w, "| strategy | calls | compactions | prompt tokens | cache hit | billed input | × every turn | calls over window | max context | %s |\n", col)
	fmt.Fprintf(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	var base float64
	for _, s := range stats {
		if s.Strategy == retention.StrategyEveryTurn {
			base = s.Billed
		}
	}
	for _, s := range stats {
		rel := "—"
		if base > 0 {
			rel = fmt.Sprintf("%.2f", s.Billed/base)
		}
		ret := "—"
		if s.Retention.Den > 0 {
			ret = fmt.Sprintf("%.1f%% (n=%d)", 100*s.Retention.Value(0), s.Retention.N)
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d | %.1f%% | %.0f | %s | %d | %d | %s |\n",
			s.Strategy, s.Calls, s.Compactions, s.PromptTokens, 100*s.CacheShare(), s.Billed, rel, s.OverWindow, s.MaxPrompt, ret)
	}
	fmt.Fprintln(w)
}
