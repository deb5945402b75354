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
	return compactAndRecord(ctx, cfg, queryFor(in, tr.Turns), window, session, emb, store)
}

// compactAndRecord makes the brief of window against store, then records
// the episode and the brief in store and saves it.
//
// Once the brief is made, a store failure does not cost it: Claude Code
// uses a hook's stdout only when it exits 0, and the brief is what the
// summariser needs now, while the store's records serve later sessions.
// So a failure to record the episode or the brief, or to save, leaves the
// outcome a success (exit 0, the brief on stdout) whose summary line on
// stderr says that writing to the store failed and why. Each write is still
// tried after another fails, and the save always is, so that what can be
// kept (the memories distilled on the way, the brief) is.
func compactAndRecord(ctx context.Context, cfg *config, query string, window []claudecode.Turn, session string, emb chitta.Embedder, store hookStore) outcome {
	out, err := brief.Run(ctx, window, emb, store, &brief.RunOptions{
		Query:      query,
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
	ep, epErr := chitta.RecordEpisode(ctx, store, emb, out.Compact.Stats, session) // "store episode: …"
	var briefErr error
	if out.Brief.Text != "" {
		briefErr = brief.Record(ctx, store, emb, session, out.Brief.Text)
	}
	// The save gives up at the deadline (a lock another process holds), so
	// that the brief is still printed in time.
	storeErr := errors.Join(epErr, briefErr, store.SaveContext(ctx))

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
	if storeErr != nil {
		summary += fmt.Sprintf("; writing to store %s failed (the brief is printed anyway): %v", store.Path(), storeErr)
	} else {
		summary += fmt.Sprintf("; episode %s saved to %s (%d memories)", ep.ID, store.Path(), store.Len())
	}
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
