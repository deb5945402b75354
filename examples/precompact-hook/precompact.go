package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/brief"
	"github.com/chitta-go/chitta/examples/internal/claudecode"
	"github.com/chitta-go/chitta/examples/internal/embedspec"
)

// preCompact compacts the transcript's last turns, records the episode and
// the brief, saves the store, and returns the brief for stdout.
//
// A store that cannot be opened (a corrupt file, no data directory, a
// PostgreSQL server down) does not cost the brief either: the brief is made
// against an empty in-memory store, nothing is distilled or recorded, the store (a
// corrupt file too) is left as it is, and the outcome is a success whose
// summary line says that the store could not be opened and why.
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
	emb, err := embedspec.Open(ctx, cfg.embedder)
	if err != nil {
		return outcome{err: err}
	}
	defer emb.Close()
	store, openErr := openStore(ctx, cfg, in, emb.Dims, true)
	if openErr != nil {
		if ctx.Err() != nil {
			// Out of time or interrupted: there is none left for a brief.
			return outcome{err: openErr}
		}
		store, err = newMemStore(emb.Dims)
		if err != nil {
			return outcome{err: errors.Join(openErr, err)}
		}
	}
	defer closeStore(store)
	return compactAndRecord(ctx, cfg, queryFor(in, tr.Turns), window, session, emb, emb.Queries, store, openErr)
}

// compactAndRecord makes the brief of window against store, then records
// the episode and the brief in store and saves it. A non-nil openErr says
// that the hook's store could not be opened and store is an empty stand-in:
// nothing is distilled (--distill has nowhere to keep it) or recorded, and
// the summary line says so and why. queries, when not nil, embeds the
// query (emb's query side: embedspec.Embedder.Queries).
//
// Once the brief is made, a store failure does not cost it: Claude Code
// uses a hook's stdout only when it exits 0, and the brief is what the
// summariser needs now, while the store's records serve later sessions.
// So a failure to record the episode or the brief, or to save, leaves the
// outcome a success (exit 0, the brief on stdout) whose summary line on
// stderr says that writing to the store failed and why. Each write is still
// tried after another fails, and the save always is, so that what can be
// kept (the memories distilled on the way, the brief) is.
func compactAndRecord(ctx context.Context, cfg *config, query string, window []claudecode.Turn, session string, emb, queries chitta.Embedder, store hookStore, openErr error) outcome {
	// Without the store, --distill has nowhere to keep what it would
	// distil: distilling into the stand-in would report memories that are
	// thrown away and, with --mask, name in the brief memory IDs that
	// recall can never find.
	distill := cfg.distill && openErr == nil
	out, err := brief.Run(ctx, window, emb, store, &brief.RunOptions{
		Query:      query,
		MaxTokens:  cfg.briefTokens,
		MaxChars:   maxOutputChars,
		Distill:    distill,
		DistillMax: cfg.distillMax,
		Mask:       maskOptions(cfg),

		RelevanceReserve: cfg.reserve,
		Lexical:          cfg.lexical,
		QueryEmbedder:    queries,
	})
	if err != nil {
		return outcome{err: err}
	}
	var ep chitta.Memory
	var storeErr error
	if openErr == nil {
		var epErr, briefErr error
		ep, epErr = chitta.RecordEpisode(ctx, store, emb, out.Compact.Stats, session) // "store episode: …"
		if out.Brief.Text != "" {
			briefErr = brief.Record(ctx, store, emb, session, out.Brief.Text)
		}
		// The save gives up at the deadline (a lock another process holds), so
		// that the brief is still printed in time.
		storeErr = errors.Join(epErr, briefErr, store.SaveContext(ctx))
	}

	st := out.Compact.Stats
	summary := fmt.Sprintf("PreCompact: kept %d of %d turns, %d→%d tokens (%.1f%% dropped, %.1f%% of dropped tokens memory-covered); brief of %d tokens (%d items)",
		st.Kept, len(window), st.BeforeTokens, st.AfterTokens, st.DroppedPct, st.CoveredDroppedPct, out.Brief.Tokens, len(out.Brief.Items))
	if cfg.mask {
		summary += fmt.Sprintf(", %d tool results masked (%d listed)", st.Masked, out.Brief.Masked)
	}
	switch {
	case cfg.distill && !distill:
		summary += ", no memories distilled (--distill: no store to keep them in)"
	case distill:
		summary += fmt.Sprintf(", %d memories distilled", st.Distilled)
		if out.Compact.DistillErr != nil {
			summary += fmt.Sprintf(" (distill error: %v)", out.Compact.DistillErr)
		}
	}
	switch {
	case openErr != nil:
		summary += fmt.Sprintf("; opening the store failed, so the brief was made without its memories and nothing was recorded (the brief is printed anyway): %v", openErr)
	case storeErr != nil:
		summary += fmt.Sprintf("; writing to store %s failed (the brief is printed anyway): %v", store.Path(), storeErr)
	default:
		summary += fmt.Sprintf("; episode %s saved to %s (%s)", ep.ID, store.Path(), counted(store.Len(), "memory", "memories")) + indexNote(store)
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
