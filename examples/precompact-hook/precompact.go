package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/brief"
	"github.com/chitta-go/chitta/examples/internal/claudecode"
)

// preCompact compacts the transcript's last turns, records the episode and
// the brief, saves the store, and returns the brief for stdout.
func preCompact(ctx context.Context, cfg *config, in *hookInput) outcome {
	tr, err := readTranscript(ctx, in.TranscriptPath)
	if err != nil {
		return outcome{err: err}
	}
	window := claudecode.Tail(tr.Turns, turns)
	if len(window) == 0 {
		return outcome{err: errors.New("no user or assistant turns in the transcript")}
	}
	session := in.SessionID
	if session == "" {
		session = tr.SessionID
	}
	emb, store, err := openMemory(ctx, cfg, in)
	if err != nil {
		return outcome{err: err}
	}
	defer emb.Close()
	defer closeStore(store)

	out, err := brief.Run(ctx, window, emb, store, &brief.RunOptions{
		Query:      queryFor(in, tr.Turns),
		MaxTokens:  cfg.briefTokens,
		Distill:    cfg.distill,
		DistillMax: cfg.distillMax,
		Mask:       maskOptions(cfg),

		RelevanceReserve: cfg.reserve,
		Lexical:          cfg.lexical,
	})
	if err != nil {
		return outcome{err: err}
	}
	ep, err := chitta.RecordEpisode(ctx, store, emb, out.Compact.Stats, session)
	if err != nil {
		return outcome{err: err}
	}
	if out.Brief.Text != "" {
		if err := brief.Record(ctx, store, emb, session, out.Brief.Text); err != nil {
			return outcome{err: err}
		}
	}
	if err := store.Save(); err != nil {
		return outcome{err: err}
	}

	st := out.Compact.Stats
	summary := fmt.Sprintf("PreCompact: kept %d of %d turns, %d→%d tokens (%.1f%% dropped, %.1f%% of dropped tokens memory-covered); brief of %d tokens (%d items)",
		st.Kept, len(window), st.BeforeTokens, st.AfterTokens, st.DroppedPct, st.CoveredDroppedPct, out.Brief.Tokens, len(out.Brief.Items))
	if cfg.mask {
		summary += fmt.Sprintf(", %d tool results masked (%d listed)", st.Masked, out.Brief.Masked)
	}
	if cfg.distill {
		summary += fmt.Sprintf(", %d memories distilled", st.Distilled)
		if out.Compact.DistillErr != nil {
			summary += fmt.Sprintf(" (distill error: %v)", out.Compact.DistillErr)
		}
	}
	summary += fmt.Sprintf("; episode %s saved to %s (%d memories)", ep.ID, store.Path(), store.Len())
	return outcome{stdout: out.Brief.Text, summary: summary}
}

// maskOptions returns chitta's default masking with --mask, else nil.
func maskOptions(cfg *config) *chitta.MaskOptions {
	if cfg.mask {
		return &chitta.MaskOptions{}
	}
	return nil
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
