package retention

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/chitta-go/chitta"
)

// ErrInvalidConfig reports an unusable [Evaluator] configuration.
var ErrInvalidConfig = errors.New("retention: invalid configuration")

// Evaluator runs methods over datasets and collects the figures in
// Results. Env.Embedder, Methods, Ratios and NewStore are required. An
// Evaluator is not safe for concurrent use; run one dataset at a time.
type Evaluator struct {
	Env     Env
	Methods []Method
	Ratios  []float64
	// NewStore returns an empty memory store for vectors of dims
	// dimensions.
	NewStore func(dims int) (chitta.MemoryStore, error)
	// RecordEpisode, when set, records a compaction episode in the store
	// after each Claude Code cut compacted by a chitta method that uses
	// memory (chitta.RecordEpisode has this shape). nil records nothing.
	RecordEpisode func(ctx context.Context, store chitta.MemoryStore, emb chitta.Embedder, stats chitta.Stats, session string) error
	// Progress receives one line per dataset, ratio and method; nil
	// discards them.
	Progress io.Writer
	// Results receives the figures.
	Results Results
}

func (e *Evaluator) check() error {
	switch {
	case e.Env.Embedder == nil:
		return fmt.Errorf("%w: Env.Embedder is nil", ErrInvalidConfig)
	case len(e.Methods) == 0:
		return fmt.Errorf("%w: no methods", ErrInvalidConfig)
	case len(e.Ratios) == 0:
		return fmt.Errorf("%w: no ratios", ErrInvalidConfig)
	case e.NewStore == nil:
		return fmt.Errorf("%w: NewStore is nil", ErrInvalidConfig)
	}
	return nil
}

// tokens returns the token count of text by the shared counter.
func (e *Evaluator) tokens(text string) int {
	if e.Env.Tokens != nil {
		return e.Env.Tokens.CountTokens(text)
	}
	return chitta.EstimateTokens(text)
}

func (e *Evaluator) progress(format string, args ...any) {
	if e.Progress != nil {
		fmt.Fprintf(e.Progress, format+"\n", args...)
	}
}

// run performs one selection and times it in milliseconds.
func (e *Evaluator) run(ctx context.Context, m Method, task Task, run int) (Outcome, float64, error) {
	start := time.Now()
	out, err := m.Select(ctx, e.Env, task, run)
	if err != nil {
		return out, 0, fmt.Errorf("%s: %w", m.Name(), err)
	}
	return out, float64(time.Since(start).Microseconds()) / 1000, nil
}

// memoryStore embeds texts and returns a new store holding one memory per
// text, with IDs prefix/0, prefix/1, ….
func (e *Evaluator) memoryStore(ctx context.Context, prefix string, texts []string) (chitta.MemoryStore, error) {
	dims, err := e.dims(ctx)
	if err != nil {
		return nil, err
	}
	store, err := e.NewStore(dims)
	if err != nil {
		return nil, fmt.Errorf("new store: %w", err)
	}
	if len(texts) == 0 {
		return store, nil
	}
	vecs, err := e.Env.Embedder.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embed memories: %w", err)
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("embed memories: got %d vectors for %d texts", len(vecs), len(texts))
	}
	for i, text := range texts {
		m := chitta.Memory{
			ID: fmt.Sprintf("%s/%d", prefix, i), Text: text, Kind: chitta.KindFact,
			Confidence: 1, Vector: vecs[i], Source: prefix,
		}
		if err := store.Add(ctx, m); err != nil {
			return nil, fmt.Errorf("add memory %d: %w", i, err)
		}
	}
	return store, nil
}

// warm embeds texts once, untimed by the methods, so that a caching
// embedder answers every later compaction from its cache (the steady state
// of an agent loop that re-compacts a growing conversation), and returns
// how long the cold embedding took.
func (e *Evaluator) warm(ctx context.Context, texts []string) (time.Duration, error) {
	start := time.Now()
	if len(texts) == 0 {
		return 0, nil
	}
	if _, err := e.Env.Embedder.Embed(ctx, texts); err != nil {
		return 0, fmt.Errorf("embed: %w", err)
	}
	return time.Since(start), nil
}

// coldNote describes the cold embedding time of n texts.
func coldNote(d time.Duration, n int) string {
	return fmt.Sprintf("embedding the %d distinct turn and query texts once, cold, took %v (%.2f ms per text); ms_per_compaction is measured afterwards, with the embedding cache warm", n, d.Round(time.Millisecond), float64(d.Microseconds())/1000/float64(max(n, 1)))
}

// dims returns the embedder's dimension by embedding a probe text.
func (e *Evaluator) dims(ctx context.Context) (int, error) {
	if d, ok := e.Env.Embedder.(interface{ Dimensions() int }); ok && d.Dimensions() > 0 {
		return d.Dimensions(), nil
	}
	v, err := e.Env.Embedder.Embed(ctx, []string{"dimension probe"})
	if err != nil {
		return 0, fmt.Errorf("embed probe: %w", err)
	}
	if len(v) != 1 || len(v[0]) == 0 {
		return 0, fmt.Errorf("embed probe: embedder returned no vector")
	}
	return len(v[0]), nil
}

// LoCoMo evaluates every question of every conversation: the conversation
// is compacted with the question as query, and the conversation's
// observations are the memory store.
//
// Per question it adds: evidence_recall (evidence turns kept),
// kept_or_covered_recall (kept or cited by an observation),
// uncovered_recall (evidence turns no observation cites that are kept),
// covered_token_share (kept tokens spent on turns an observation cites),
// all_evidence_kept (1 when every evidence turn is kept) and
// ms_per_compaction. Questions of categories 1–4 count in category 0 (the
// pooled answerable rows) and in their own category; category 5 counts
// only in category 5.
func (e *Evaluator) LoCoMo(ctx context.Context, convs []Conversation) error {
	if err := e.check(); err != nil {
		return err
	}
	var questions, bad, noEv, evid, covEv, nTexts int
	var cold time.Duration
	for ci := range convs {
		c := &convs[ci]
		var qs []string
		for _, q := range c.Questions {
			qs = append(qs, q.Text)
		}
		texts := distinct(c.Messages, qs)
		d, err := e.warm(ctx, texts)
		if err != nil {
			return fmt.Errorf("locomo %s: %w", c.ID, err)
		}
		cold += d
		nTexts += len(texts)
		facts := make([]string, len(c.Observations))
		for i, o := range c.Observations {
			facts[i] = o.Text
		}
		store, err := e.memoryStore(ctx, c.ID+"/obs", facts)
		if err != nil {
			return fmt.Errorf("locomo %s: %w", c.ID, err)
		}
		covered := c.Covered()
		questions += len(c.Questions)
		bad += c.BadEvidence
		noEv += c.NoEvidence
		for _, q := range c.Questions {
			if q.Category >= 1 && q.Category <= 4 {
				evid += len(q.Evidence)
				for _, i := range q.Evidence {
					if covered[i] {
						covEv++
					}
				}
			}
		}
		for _, ratio := range e.Ratios {
			for _, m := range e.Methods {
				start := time.Now()
				for run := range m.Runs() {
					for _, q := range c.Questions {
						task := Task{Messages: c.Messages, Query: q.Text, Ratio: ratio, Store: store}
						cats := []int{q.Category}
						if q.Category >= 1 && q.Category <= 4 {
							cats = append(cats, 0)
						}
						out, ms, err := e.run(ctx, m, task, run)
						if err != nil {
							return fmt.Errorf("locomo %s: %w", c.ID, err)
						}
						for _, cat := range cats {
							t := e.Results.Tally(LoCoMo, m.Name(), ratio, cat)
							t.Add(MsPerCompaction, ms, 1)
							addEvidence(t, q.Evidence, covered, out)
						}
					}
				}
				e.progress("locomo %s ratio %.2f %-14s %d questions × %d runs  %v", c.ID, ratio, m.Name(), len(c.Questions), m.Runs(), time.Since(start).Round(time.Millisecond))
			}
		}
	}
	e.Results.Note(LoCoMo, fmt.Sprintf("%d conversations, %d questions (categories 1–5); %d evidence turns in categories 1–4, %.1f%% of them cited by an observation", len(convs), questions, evid, 100*float64(covEv)/float64(max(evid, 1))))
	e.Results.Note(LoCoMo, coldNote(cold, nTexts))
	if bad > 0 || noEv > 0 {
		e.Results.Note(LoCoMo, fmt.Sprintf("%d evidence references name no turn and were ignored; %d questions were left without evidence and skipped", bad, noEv))
	}
	return nil
}

// distinct returns the distinct non-blank contents of msgs, then extra,
// sorted.
func distinct(msgs []chitta.Message, extra []string) []string {
	var out []string
	for _, m := range msgs {
		if strings.TrimSpace(m.Content) != "" {
			out = append(out, m.Content)
		}
	}
	for _, x := range extra {
		if strings.TrimSpace(x) != "" {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// addEvidence adds one question's evidence figures to t.
func addEvidence(t *Tally, evidence []int, covered []bool, out Outcome) {
	var kept, keptOrCov, uncov, uncovKept int
	for _, i := range evidence {
		if out.Kept[i] {
			kept++
		}
		if out.Kept[i] || covered[i] {
			keptOrCov++
		}
		if !covered[i] {
			uncov++
			if out.Kept[i] {
				uncovKept++
			}
		}
	}
	n := float64(len(evidence))
	t.Add(EvidenceRecall, float64(kept), n)
	t.Add(KeptOrCoveredRecall, float64(keptOrCov), n)
	if uncov > 0 {
		t.Add(UncoveredRecall, float64(uncovKept), float64(uncov))
	}
	all := 0.0
	if kept == len(evidence) {
		all = 1
	}
	t.Add(AllEvidenceKept, all, 1)
	var keptTok, covTok int
	for i, k := range out.Kept {
		if k {
			keptTok += out.Tokens[i]
			if covered[i] {
				covTok += out.Tokens[i]
			}
		}
	}
	t.Add(CoveredTokenShare, float64(covTok), float64(keptTok))
}
