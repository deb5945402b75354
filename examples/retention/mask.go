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

// maskRows are the configurations the -mask evaluation compares. The mask
// options are chitta's defaults (KeepRecent 3, MinTokens 100), fixed before
// any run: nothing is tuned on the shared data.
func maskRows() ([]retention.MaskRow, []string) {
	return []retention.MaskRow{
			{Name: "chitta"},
			{Name: "chitta-mask", Mask: &chitta.MaskOptions{}},
			{Name: "chitta-mask-all", Mask: &chitta.MaskOptions{MinTokens: 1}},
		}, []string{
			"`chitta`: chitta.Compact, default options, no memory store",
			"`chitta-mask`: the same with `Options.Mask = &chitta.MaskOptions{}` (the defaults: the newest 3 tool results and results under 100 tokens are never masked)",
			"`chitta-mask-all` (variant, added after the defaults' first run): `MaskOptions{MinTokens: 1}`, every tool result but the newest 3 masked (a result is left as it is when its placeholder would not be shorter)",
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
