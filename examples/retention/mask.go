package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/retention"
)

// maskRows are the configurations the -mask evaluation compares. Only
// the first two were fixed before any run of their options; the others
// were added later (see each description): nothing in them is held-apart
// evidence.
func maskRows() ([]retention.MaskRow, []string) {
	return []retention.MaskRow{
			{Name: "chitta"},
			{Name: "chitta-mask-v1", Mask: &chitta.MaskOptions{Actions: chitta.ActionsOff, ListValues: -1}},
			{Name: "chitta-mask-v1-all", Mask: &chitta.MaskOptions{MinTokens: 1, Actions: chitta.ActionsOff, ListValues: -1}},
			{Name: "chitta-mask", Mask: &chitta.MaskOptions{}},
			{Name: "chitta-mask-all", Mask: &chitta.MaskOptions{MinTokens: 1}},
			{Name: "chitta-mask-newest", Mask: &chitta.MaskOptions{Actions: chitta.ActionsNewestFirst}},
			{Name: "chitta-mask-score", Mask: &chitta.MaskOptions{Actions: chitta.ActionsByScore}},
			{Name: "chitta-mask-novalues", Mask: &chitta.MaskOptions{ListValues: -1}},
			{Name: "chitta-mask-noactions", Mask: &chitta.MaskOptions{Actions: chitta.ActionsOff}},
			{Name: "chitta-mask-restore", Mask: &chitta.MaskOptions{Restore: true}},
			{Name: "chitta-mask-cap50", Mask: &chitta.MaskOptions{MaxResultTokens: 50}},
			{Name: "chitta-mask-cap200", Mask: &chitta.MaskOptions{MaxResultTokens: 200}},
			{Name: "chitta-reserve", RelevanceReserve: 0.5, Lexical: 0.3},
			{Name: "chitta-reserve-mask", Mask: &chitta.MaskOptions{}, RelevanceReserve: 0.5, Lexical: 0.3},
		}, []string{
			"`chitta`: chitta.Compact, default options, no memory store",
			"`chitta-mask-v1`: the first masking release, `MaskOptions{Actions: ActionsOff, ListValues: -1}` (newest 3 results and results under 100 tokens never masked, plain placeholders, units selected by score)",
			"`chitta-mask-v1-all` (added after v1's first run): `MaskOptions{MinTokens: 1, Actions: ActionsOff, ListValues: -1}`",
			"`chitta-mask`: `MaskOptions{}`, today's defaults: call groups kept first, oldest first, degraded before dropped, placeholders listing up to 32 identifier-like values, each once across the kept text, and older results of a pinned turn over budget degraded (order, rules and count chosen after seeing results on these data)",
			"`chitta-mask-all` (variant): `MaskOptions{MinTokens: 1}`",
			"`chitta-mask-newest` (variant): `MaskOptions{Actions: ActionsNewestFirst}`",
			"`chitta-mask-score` (variant): `MaskOptions{Actions: ActionsByScore}`",
			"`chitta-mask-novalues` (ablation): `MaskOptions{ListValues: -1}`, actions first with plain placeholders",
			"`chitta-mask-noactions` (ablation): `MaskOptions{Actions: ActionsOff}`, values listed, units selected by score",
			"`chitta-mask-restore` (variant): `MaskOptions{Restore: true}`, masked results returned whole, newest first, while budget is left",
			"`chitta-mask-cap50`, `chitta-mask-cap200` (variants, caps chosen after seeing these data): `MaskOptions{MaxResultTokens: 50}` and `{MaxResultTokens: 200}`, every result, the newest too, cut to head and tail around a marker listing the values of the part cut out",
			"`chitta-reserve`: the relevance-reserve preset (`RelevanceReserve` 0.5, `Lexical` 0.3), no masking, no memory store",
			"`chitta-reserve-mask` (variant, added in session 4 after seeing the preset's Claude figures): the preset with `MaskOptions{}`",
		}
}

// runMask runs the observation-masking evaluation on the datasets c names
// and writes mask-report.md and mask-report.json to c.out.
func runMask(ctx context.Context, c *config, emb chitta.Embedder, embDesc string, stdout, stderr io.Writer) error {
	rows, desc := maskRows()
	ev := &retention.Evaluator{
		Env:      retention.Env{Embedder: emb},
		Methods:  []retention.Method{retention.Chitta{}}, // unused; check() wants one
		Ratios:   c.ratios,
		NewStore: func(dims int) (chitta.MemoryStore, error) { return chitta.NewHNSWStore(dims, nil) },
		Progress: stderr,
	}
	start := time.Now()
	if c.tau != "" {
		runs, err := loadTau(c.tau)
		if err != nil {
			return err
		}
		if err := ev.MaskTau(ctx, runs, rows); err != nil {
			return err
		}
	}
	if c.claude != "" {
		sessions, err := retention.LoadClaudeDir(c.claude)
		if err != nil {
			return err
		}
		if err := ev.MaskClaude(ctx, sessions, nil, rows); err != nil {
			return err
		}
	}
	if c.maskSWE != "" {
		runs, err := loadSWE(c.maskSWE)
		if err != nil {
			return err
		}
		if err := ev.MaskNextCalls(ctx, retention.MaskSWE, runs, rows); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	header := []string{
		"Command: `go run ./examples/retention " + strings.Join(c.args, " ") + "`",
		"",
		fmt.Sprintf("Embedder: %s. Tokens: chitta.EstimateTokens (words × 1.3). %s, %s/%s, %d CPUs, %s; run time %v.",
			embDesc, runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), time.Now().UTC().Format("2006-01-02"), time.Since(start).Round(time.Second)),
		"",
		"Rows (same budget, floor(ratio × original tokens); the masked row is selected on masked sizes):",
		"",
	}
	for _, d := range desc {
		header = append(header, "- "+d)
	}
	out := ev.Results.Rows()
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{"mask-report.json", func(w io.Writer) error { return retention.WriteJSON(w, out) }},
		{"mask-report.md", func(w io.Writer) error {
			return retention.WriteMarkdown(w, out, &retention.MarkdownOptions{Header: header, Notes: ev.Results.Notes})
		}},
	} {
		path := filepath.Join(c.out, f.name)
		if err := writeFile(path, f.write); err != nil {
			return err
		}
		fmt.Fprintln(stdout, path)
	}
	return nil
}

// loadSWE reads every *.traj.json file of dir, in name order.
func loadSWE(dir string) ([]retention.Run, error) {
	return loadDir(dir, "*.traj.json", retention.LoadSWEHistory)
}
