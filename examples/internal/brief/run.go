package brief

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/claudecode"
)

// Defaults of [RunOptions].
const (
	TargetRatio       = 0.4 // share of the window's tokens Compact keeps
	DefaultDistillMax = 8   // memories distilled per run when RunOptions.DistillMax is 0
)

// Store is what [Run] needs of the memory store: chitta's MemoryStore and
// a recall restricted to some kinds (storepath.Shared and
// chitta.HNSWStore have both).
type Store interface {
	chitta.MemoryStore
	RecallMatching(ctx context.Context, vector []float32, k int, f chitta.KindFilter) ([]chitta.Hit, error)
}

// RunOptions configures [Run]. A nil *RunOptions, and the zero value of
// every field, means the documented default.
type RunOptions struct {
	Query      string // the compaction query; "" gives every turn the neutral semantic score
	MaxTokens  int    // the brief's cap; 0 means DefaultMaxTokens (1 500)
	MaxChars   int    // Options.MaxChars: the brief's cap in UTF-16 code units; 0 means none
	Distill    bool   // record the novel dropped turns as memories
	DistillMax int    // at most this many per run; 0 means DefaultDistillMax (8); negative is an error
	// Mask, when set, masks stale tool output in the compaction
	// (chitta.Options.Mask) and the brief lists the masked calls. nil
	// means no masking.
	Mask *chitta.MaskOptions

	// RelevanceReserve and Lexical are chitta.Options.RelevanceReserve and
	// Lexical (0 = off; chitta validates them).
	RelevanceReserve, Lexical float64

	// QueryEmbedder is chitta.Options.QueryEmbedder: the query side of an
	// asymmetric model for Query. nil embeds Query with emb.
	QueryEmbedder chitta.Embedder
}

// Outcome is what [Run] did.
type Outcome struct {
	Compact *chitta.Result
	Brief   *Brief
}

// Run compacts the window at [TargetRatio] against store (distilling, when
// asked, the novel dropped turns that are not Claude Code boilerplate or
// filler, at most DistillMax, most novel first) and builds its brief,
// naming the memories that cover the dropped turns. It writes to store
// only when distilling; the caller records the episode and the brief and
// saves.
func Run(ctx context.Context, window []claudecode.Turn, emb chitta.Embedder, store Store, o *RunOptions) (*Outcome, error) {
	var ro RunOptions
	if o != nil {
		ro = *o
	}
	if ro.DistillMax < 0 {
		return nil, fmt.Errorf("brief: DistillMax %d, want >= 0 (0 means %d)", ro.DistillMax, DefaultDistillMax)
	}
	if ro.DistillMax == 0 {
		ro.DistillMax = DefaultDistillMax
	}
	emb = chitta.NewCachedEmbedder(emb, 4*len(window)+8) // the held line re-embeds covered turns
	res, err := chitta.Compact(ctx, claudecode.Messages(window), &chitta.Options{
		Query:        ro.Query,
		TargetRatio:  TargetRatio,
		Embedder:     emb,
		Store:        store,
		DistillNovel: ro.Distill,
		DistillMax:   ro.DistillMax,
		DistillSkip:  func(i int, _ chitta.Message) bool { return claudecode.Boilerplate(&window[i]) },
		Mask:         ro.Mask,

		RelevanceReserve: ro.RelevanceReserve,
		Lexical:          ro.Lexical,
		QueryEmbedder:    ro.QueryEmbedder,
	})
	if err != nil {
		return nil, fmt.Errorf("compact: %w", err)
	}
	held, err := heldMemories(ctx, window, res.Scores, emb, store)
	if err != nil {
		return nil, err
	}
	b, err := Build(window, res.Scores, held, &Options{MaxTokens: ro.MaxTokens, MaxChars: ro.MaxChars, Masked: MaskedCalls(window, res)})
	if err != nil {
		return nil, err
	}
	return &Outcome{Compact: res, Brief: b}, nil
}

// heldMemories returns the texts of the memories nearest to the dropped
// turns that memory covers (best covered first, each memory once), among
// the kinds that count as coverage.
func heldMemories(ctx context.Context, window []claudecode.Turn, scores []chitta.TurnScore, emb chitta.Embedder, store Store) ([]string, error) {
	var idx []int
	for i, s := range scores {
		if !s.Kept && s.Coverage >= chitta.DefaultNovelThreshold && strings.TrimSpace(window[i].Message.Content) != "" {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil, nil
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(scores[b].Coverage, scores[a].Coverage) })
	idx = idx[:min(len(idx), 2*maxHeld)]
	texts := make([]string, len(idx))
	for k, i := range idx {
		texts[k] = window[i].Message.Content
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embed covered turns: %w", err)
	}
	facts := chitta.KindFilter{Exclude: []string{chitta.KindEpisode, chitta.KindBrief}}
	var out []string
	seen := make(map[string]bool)
	for _, v := range vecs {
		hits, err := store.RecallMatching(ctx, v, 1, facts)
		if err != nil {
			return nil, fmt.Errorf("recall covering memory: %w", err)
		}
		if len(hits) == 1 && !seen[hits[0].ID] {
			seen[hits[0].ID] = true
			out = append(out, memoryText(hits[0].Text))
		}
	}
	return out, nil
}

// memoryText drops the "[distill-on-drop:role] " prefix of a distilled
// memory.
func memoryText(s string) string {
	if rest, ok := strings.CutPrefix(s, chitta.DistillPrefix); ok {
		if _, after, ok := strings.Cut(rest, "] "); ok {
			return after
		}
	}
	return s
}

// ID is the memory ID of a session's brief: one per session, replaced by
// every compaction.
func ID(session string) string { return chitta.MemoryID(chitta.KindBrief, "session "+session) }

// Record stores text as the session's brief (kind chitta.KindBrief, ID
// [ID](session)), replacing the last one.
func Record(ctx context.Context, store chitta.MemoryStore, emb chitta.Embedder, session, text string) error {
	vecs, err := emb.Embed(ctx, []string{text})
	if err != nil {
		return fmt.Errorf("embed brief: %w", err)
	}
	if len(vecs) != 1 {
		return fmt.Errorf("embed brief: %d vectors for 1 text", len(vecs))
	}
	err = store.Add(ctx, chitta.Memory{
		ID:         ID(session),
		Text:       text,
		Kind:       chitta.KindBrief,
		Confidence: 1,
		Vector:     vecs[0],
		CreatedAt:  time.Now().UTC(),
		Source:     "pre-compact: session " + session,
	})
	if err != nil {
		return fmt.Errorf("store brief: %w", err)
	}
	return nil
}
