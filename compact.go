package chitta

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"
)

// Limits and defaults of [Options].
const (
	DefaultTargetRatio    = 0.4  // used when Options.TargetRatio is 0
	MinTargetRatio        = 0.05 // smallest valid Options.TargetRatio
	MaxTargetRatio        = 1.0  // largest valid Options.TargetRatio
	DefaultNovelThreshold = 0.5  // used when Options.NovelThreshold is 0
	CoverageNeighbours    = 3    // memories recalled per message for coverage from a store without CoverageRecaller
)

// Options configures [Compact]. A nil *Options, and the zero value of every
// field, means the documented default. Compact does not modify Options; the
// Embedder, QueryEmbedder, Store, Tokens and Logger it holds must be safe
// for concurrent use if the same Options is shared between goroutines.
type Options struct {
	// Query is a hint about the upcoming task. When set and an Embedder is
	// present, messages similar to it score higher. Empty means every
	// message gets the neutral semantic score 0.5.
	Query string

	// TargetRatio is the fraction of the input's tokens to keep. 0 means
	// DefaultTargetRatio (0.4); otherwise it must lie in [0.05, 1.0], or
	// Compact returns ErrInvalidTargetRatio. The budget is
	// floor(TargetRatio × before_tokens).
	TargetRatio float64

	// MaxTokens, when > 0, is an absolute token budget used instead of
	// TargetRatio. 0 means unused; negative is an error.
	MaxTokens int

	// KeepLast always keeps the last KeepLast non-system messages (and the
	// tool-call groups they belong to), even beyond the budget. 0 means none;
	// negative is an error.
	KeepLast int

	// FreeSelection, when true, restores the plain greedy rule of the
	// original design: only system and developer messages and KeepLast are
	// pinned, so the result may lose the live turn, start with an assistant
	// message or be empty. false (the default) also pins the live turn and
	// the first user turn, so that the result passes Validate whenever the
	// input does (see the package documentation), and, for a kept call of
	// a tool that a tool search loaded (in a parsed message's Raw: a
	// tool_reference block in a tool_result or a server tool search's
	// tool_search_tool_result, or a Responses tool_search_output item's
	// tools; or in a typed adapt/anthropic or adapt/openai Responses
	// value), the nearest result before the call that loads it when no
	// kept message does.
	FreeSelection bool

	// GeminiTurns, when true, applies the Gemini API's rule for function
	// calls to every message: an assistant message issuing tool calls must
	// come right after a user turn or a tool result, not after another
	// assistant message. When a kept call would follow a kept assistant
	// message because the prompt between them was dropped, that prompt is
	// pinned too, and so is the call's tool-call group (charged to the
	// budget like every pin; see Stats.OverBudget). Messages read from
	// genai Content JSON (a Raw with role "model" and parts) follow the
	// rule without it; set it for messages built in Go from genai values
	// (adapt/genai does). false (the default) applies it to genai JSON
	// only; FreeSelection turns it off.
	GeminiTurns bool

	// Embedder embeds messages and, unless QueryEmbedder is set, the
	// query. nil means recency + structural scoring only (Stats.Embedding
	// is false).
	Embedder Embedder

	// QueryEmbedder, when set, embeds Query instead of Embedder, in a call
	// of its own (one text) after the messages' call: for asymmetric
	// models (e5, bge, nomic) whose queries take another prefix than
	// documents, such as llamacpp's Embedder.Queries(). Its vector is
	// compared with the messages' (Semantic); coverage and distillation
	// compare messages with memories, documents with documents, through
	// Embedder. When it fails, or returns a vector that is not finite and
	// non-empty or whose length differs from the messages' vectors,
	// Compact logs a warning and scores as without a Query (Semantic 0.5),
	// keeping the messages' embeddings; only a done ctx is an error. It is
	// not called without a Query, without an Embedder, or when no message
	// has an embedding. nil means Embedder embeds the query with the
	// messages, in one call.
	QueryEmbedder Embedder

	// Store is the agent's memory; a message similar to a stored memory is
	// "covered" and scores lower. A message's coverage is its best cosine
	// to a memory that passes CoverageFilter: exact over every memory when
	// the store implements CoverageRecaller (HNSWStore does), otherwise
	// over the CoverageNeighbours nearest memories (one RecallBatch, or one
	// Recall per message). nil means coverage 0 for every message.
	Store MemoryStore

	// CoverageFilter selects the memories that count towards coverage. nil
	// means every kind except KindEpisode and KindBrief, which describe
	// compactions rather than facts; a non-nil filter is used as it is (so
	// &KindFilter{} counts every memory).
	CoverageFilter *KindFilter

	// CoverageCache, when set, reuses the coverage of messages whose
	// vector is unchanged while the store's generation is unchanged (see
	// [CoverageCache]), so a re-compaction queries the store only for new
	// messages. It is used only with a store that implements
	// [Generational]. nil means every call queries the store for every
	// message.
	CoverageCache *CoverageCache

	// DistillNovel, when true and both Embedder and Store are present,
	// records dropped messages that the store does not yet cover as new
	// memories (see the package documentation). It never changes which
	// messages are kept.
	DistillNovel bool

	// DistillMax caps the memories one call distils, most novel (lowest
	// coverage) first. A write the store fails does not count: the next
	// candidate is tried instead, until DistillMax writes have failed. 0
	// means no cap; negative is an error. With or without a cap,
	// distillation stops for the call after 3 store calls in a row (writes
	// or duplicate checks) have failed: Result.DistillErr says so and how
	// many candidates were not tried.
	DistillMax int

	// DistillSkip, when set, is asked about every distillation candidate
	// (the message's index in the input and the message) and vetoes it by
	// returning true: a harness's own boilerplate filter. It must not
	// modify the message. nil skips nothing beyond chitta's own filters
	// (filler, near-duplicates; see [IsFiller] and DistillDuplicate).
	DistillSkip func(index int, m Message) bool

	// NovelThreshold is the coverage at or above which a dropped message
	// counts as already known: it is not distilled and it counts towards
	// Stats.CoveredDroppedPct. 0 means DefaultNovelThreshold (0.5); valid
	// range (0, 1].
	NovelThreshold float64

	// Rescale, when true, min–max rescales the semantic and coverage terms
	// to [0, 1] over this call's non-system messages before combining them
	// (a term that is constant over the call becomes 0.5). Lexical embedders
	// such as HashEmbedder give compressed similarities (semantic mostly
	// 0–0.25), which lets recency dominate the spec's formula; RETENTION.md
	// measures 8–15 points more uncovered-evidence recall with Rescale on
	// LoCoMo. TurnScore.Semantic and Coverage still report the raw values,
	// and coverage thresholds (NovelThreshold) apply to raw coverage. false
	// means the spec's formula.
	Rescale bool

	// RelevanceReserve is the share of the free budget (what is left after
	// pinned messages) that goes first to the tool-call groups most similar
	// to the query and least held by the Store (a group's claim is its best
	// member's Semantic × (1 − Coverage); a message without text, whose
	// Semantic is the neutral 0.5, claims 0), first fit. The rest of the budget
	// then goes to the least-covered groups, newest first among equals
	// (without a Store, newest first), instead of in Score order; scores
	// are unchanged. It keeps an old exact match that recency would push
	// out, and spends no budget on what memory already holds. 0 means off
	// (the formula fills the whole budget); valid range [0, 1]. Without a
	// query and an Embedder it does nothing. RETENTION.md measures 0.5 with
	// Lexical 0.3.
	RelevanceReserve float64

	// Lexical is the weight of a lexical score learned from the
	// conversation itself inside the semantic term: Semantic becomes
	// (1 − Lexical)·cosine + Lexical·BM25, where BM25 (k1 1.2, b 0.75) is
	// computed over the HashEmbedder's word-level features (words, whole
	// identifiers, bigrams) of the query and of this call's non-system
	// messages with text (those embedded; IDF over them, so a word in
	// every turn counts little) and divided by the best message's. The
	// lexical pass of each text is cached in a [CachedEmbedder] Embedder.
	// 0 means off; valid range [0, 1]. Without a query and an Embedder it
	// does nothing.
	Lexical float64

	// RoleWeights overrides or extends the structural weights (user 1.0,
	// assistant 0.8, tool 0.5). A role absent from both is an error.
	// Weights must be finite and >= 0; system and developer cannot be given
	// a weight because they are always kept. nil means the built-in weights.
	RoleWeights map[Role]float64

	// Tokens counts tokens. nil means EstimateTokens (words × 1.3). A
	// counter that also implements FramingCounter (the tiktoken
	// sub-module's) adds each message's framing to its Content count.
	Tokens TokenCounter

	// Logger receives warnings (embedder or store failures that Compact
	// recovers from). nil discards them.
	Logger *slog.Logger

	// Mask, when set, masks stale tool output before selection (see
	// [MaskOptions]): old, large tool results are replaced by a one-line
	// placeholder, their calls stay verbatim, and messages are selected on
	// their masked sizes against the budget of the original tokens. nil
	// means no masking: every survivor is returned verbatim.
	Mask *MaskOptions
}

// Result is the outcome of [Compact]. The caller owns every slice in it;
// Messages holds the surviving input messages themselves (sharing Raw and
// the ID slices with the input). A Result is a plain value, not shared with
// any later call; for an empty input Compact returns empty slices and a
// zero [Stats].
type Result struct {
	Messages []Message   // survivors, in original order, verbatim (but for what Options.Mask rewrote)
	Kept     []int       // indices of the survivors in the input, ascending
	Scores   []TurnScore // one per input message, in input order
	Stats    Stats       // sizes and counts of this call (see Stats)

	// Distilled lists the memories recorded by Options.DistillNovel.
	Distilled []Distilled
	// DistillErr is the (joined) store error met while distilling, if any,
	// or ctx's error when ctx was done before distillation finished; it
	// wraps ErrDistillStopped too when distillation gave up on a store that
	// failed several calls in a row. Distillation failures never fail
	// Compact.
	DistillErr error
}

// TurnScore is the score breakdown of one input message. For system and
// developer messages only Index, Role, Structural (2.0), Tokens, Unit (=
// Index), Pinned and Kept are set. With [Options.Rescale], Score combines
// the rescaled semantic and coverage terms while Semantic and Coverage
// report the raw ones, so Score cannot be recomputed from the fields.
// A TurnScore is a plain value.
type TurnScore struct {
	Index      int     `json:"index"`      // the message's index in the input
	Role       Role    `json:"role"`       // the message's Role
	Score      float64 `json:"score"`      // structural × (0.3·recency + 0.4·semantic + 0.3·(1 − coverage))
	Structural float64 `json:"structural"` // role weight
	Recency    float64 `json:"recency"`    // 0.1 oldest … 1.0 newest non-system message
	Semantic   float64 `json:"semantic"`   // cosine to the query in [0, 1] (mixed with BM25 by Options.Lexical); 0.5 when unknown
	Coverage   float64 `json:"coverage"`   // best cosine to a memory passing CoverageFilter, in [0, 1] (see Options.Store)
	Tokens     int     `json:"tokens"`     // its size by Options.Tokens, as returned (masked: rewritten)
	Unit       int     `json:"unit"`       // index of the first message of its tool-call group (Index when alone)
	Pinned     bool    `json:"pinned"`     // kept regardless of budget: system, developer, KeepLast, live turn, first user turn, a Gemini function-call turn and the prompt before it (Options.GeminiTurns), a tool-search result that loads the tool a kept call calls, or tied by a tool-call ID to a system or developer message
	Kept       bool    `json:"kept"`       // it is in Result.Messages

	// Masked reports that [Options.Mask] rewrote the message (a result
	// replaced by a placeholder or cut to head and tail); Tokens is then
	// its rewritten size and OriginalTokens its size as given.
	// OriginalTokens equals Tokens for every other message.
	Masked         bool `json:"masked,omitempty"`
	OriginalTokens int  `json:"original_tokens"` // its size as given
}

// Stats summarises a compaction. Dropped counts messages; DroppedPct is a
// share of tokens. It is a plain value; the zero value is the Stats of an
// empty input.
type Stats struct {
	BeforeTokens int     `json:"before_tokens"` // tokens of the input, by Options.Tokens (masked messages at their original size)
	AfterTokens  int     `json:"after_tokens"`  // tokens of Result.Messages as returned
	Dropped      int     `json:"dropped"`       // number of dropped messages
	DroppedPct   float64 `json:"dropped_pct"`   // 100·(before−after)/before; 0 when before is 0
	Embedding    bool    `json:"embedding"`     // embeddings were computed and used

	Kept         int  `json:"kept"`          // number of kept messages
	TargetTokens int  `json:"target_tokens"` // the budget
	OverBudget   bool `json:"over_budget"`   // pinned messages alone exceed the budget (as returned: with Options.Mask, after their older results are masked)

	// CoveredDroppedPct is the share of dropped tokens whose message had
	// coverage >= NovelThreshold, in percent (0 when nothing was dropped).
	// From a [Compactor] between compactions it is the last compaction's,
	// whose dropped messages are the ones dropped.
	CoveredDroppedPct float64        `json:"covered_dropped_pct"`
	Distilled         int            `json:"distilled"`                 // memories Options.DistillNovel recorded (len(Result.Distilled))
	DistilledKinds    map[string]int `json:"distilled_kinds,omitempty"` // those memories by Kind; nil when none

	// The fields below are set by [Compactor] and are zero from Compact.
	// The prompt-cache figures follow the billing model described at
	// [Pricing].

	// Compacted reports that this call compacted; false means the result
	// is the previous call's survivors followed by the new messages.
	Compacted bool `json:"compacted,omitempty"`
	// StablePrefix is the number of leading result messages identical to
	// the previous call's result; CachedTokens is their tokens, the
	// prompt-cache hit.
	StablePrefix int `json:"stable_prefix,omitempty"`
	CachedTokens int `json:"cached_tokens,omitempty"` // tokens of the StablePrefix messages
	// BilledInput is the estimated billed input of sending the result, in
	// uncached input tokens (CacheRead × CachedTokens + CacheWrite × the
	// rest, over Input); BilledFull is the same for sending the whole
	// conversation, and BilledRatio = BilledInput / BilledFull (0 when
	// BilledFull is 0).
	BilledInput float64 `json:"billed_input,omitempty"`
	BilledFull  float64 `json:"billed_full,omitempty"`  // BilledInput for the whole conversation
	BilledRatio float64 `json:"billed_ratio,omitempty"` // BilledInput / BilledFull; 0 when BilledFull is 0

	// Masked counts the returned messages that [Options.Mask] rewrote, and
	// MaskedTokens the tokens that saved them (original minus returned).
	// BeforeTokens counts the original sizes, AfterTokens the returned ones.
	// From a [Compactor] they too describe what is returned: between
	// compactions, the masked survivors of the last compaction (the new
	// messages are returned as they are).
	Masked       int `json:"masked,omitempty"`
	MaskedTokens int `json:"masked_tokens,omitempty"` // original minus returned tokens of the Masked messages
}

// Compact selects the messages of msgs worth keeping under a token budget
// and returns them verbatim in their original order, with the score of every
// message and summary stats.
//
// Every non-system message is scored
//
//	structural × (0.3·recency + 0.4·semantic + 0.3·(1 − coverage))
//
// and messages are taken by descending score (ties: later first), first fit,
// until the budget is filled ([Options.RelevanceReserve] changes that order). System and developer messages are always kept
// and charged first. A message that issues tool calls and the messages
// carrying their results are kept or dropped together. See the package
// documentation for the full rules. With [Options.Mask], old tool results
// are masked first and the messages carrying them are returned rewritten
// (new Raw and Content, same linkage).
//
// Compact returns an error for invalid options (wrapping
// ErrInvalidTargetRatio or ErrInvalidOption), for a message with an unknown
// role (a *MessageError wrapping ErrUnknownRole), for a TokenCounter that
// returns a negative count or counts whose total overflows int (wrapping
// ErrInvalidTokenCount), and ctx.Err() when ctx is done. Embedder and
// store failures are logged and degrade the scoring instead. Empty input
// gives an empty Result and no error.
func Compact(ctx context.Context, msgs []Message, opts *Options) (*Result, error) {
	return compact(ctx, msgs, opts, nil)
}

// compact is Compact, told the IDs of memories known to be in the store
// (stored, read only; nil for none): a Compactor's earlier compactions
// distilled them, and a placeholder names such a memory (see
// pass.storedMemory) although its message, now covered by it, is no
// distillation candidate any more.
func compact(ctx context.Context, msgs []Message, opts *Options, stored map[string]bool) (*Result, error) {
	o, err := resolve(opts)
	if err != nil {
		return nil, err
	}
	o.stored = stored
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(msgs) == 0 {
		return &Result{Messages: []Message{}, Kept: []int{}, Scores: []TurnScore{}}, nil
	}
	if r, ok := o.tokens.(reserver); ok {
		r.reserve(len(msgs)) // a cached counter keeps every count this call needs
	}
	p, err := o.prepare(msgs)
	if err != nil {
		return nil, err
	}
	if err := p.score(ctx, o); err != nil {
		return nil, err
	}
	p.mask(o)
	p.selectUnits(o)

	kept := 0
	for i := range p.scores {
		if p.scores[i].Kept {
			kept++
		}
	}
	// Sized once: a compaction's allocation is mostly its own result.
	res := &Result{Messages: make([]Message, 0, kept), Kept: make([]int, 0, kept), Scores: p.scores}
	st := &res.Stats
	st.Embedding = p.embedded
	st.TargetTokens = p.target
	st.OverBudget = p.pinnedTokens > p.target
	var droppedTokens, coveredDropped int
	for i := range msgs {
		s := &p.scores[i]
		st.BeforeTokens += s.OriginalTokens
		if s.Kept {
			st.AfterTokens += s.Tokens
			res.Messages = append(res.Messages, p.output(o, i))
			res.Kept = append(res.Kept, i)
			continue
		}
		st.Dropped++
		droppedTokens += s.OriginalTokens
		if s.Coverage >= o.novelThreshold {
			coveredDropped += s.OriginalTokens
		}
	}
	st.Kept = len(res.Kept)
	if st.BeforeTokens > 0 {
		st.DroppedPct = 100 * float64(st.BeforeTokens-st.AfterTokens) / float64(st.BeforeTokens)
	}
	if droppedTokens > 0 {
		st.CoveredDroppedPct = 100 * float64(coveredDropped) / float64(droppedTokens)
	}

	if o.DistillNovel && p.embedded && o.Store != nil {
		res.Distilled, res.DistillErr = distill(ctx, o, msgs, p)
		st.Distilled = len(res.Distilled)
		for _, d := range res.Distilled {
			if st.DistilledKinds == nil {
				st.DistilledKinds = map[string]int{}
			}
			st.DistilledKinds[d.Kind]++
		}
	}
	p.finishMask(o, res)
	return res, nil
}

// resolved is Options with defaults applied.
type resolved struct {
	Options
	ratio          float64
	novelThreshold float64
	log            *slog.Logger
	tokens         TokenCounter
	coverage       KindFilter
	mask           *maskConfig
	stored         map[string]bool // memories known stored (see compact)
}

// defaultCoverageFilter is the coverage filter when Options.CoverageFilter
// is nil.
var defaultCoverageFilter = KindFilter{Exclude: []string{KindEpisode, KindBrief}}

var defaultWeights = map[Role]float64{
	RoleUser:      1.0,
	RoleAssistant: 0.8,
	RoleTool:      0.5,
	"function":    0.5,
	"tool_result": 0.5,
}

// pinnedWeight is the structural weight reported for system and developer
// messages.
const pinnedWeight = 2.0

func resolve(opts *Options) (*resolved, error) {
	o := &resolved{}
	if opts != nil {
		o.Options = *opts
	}
	r := o.TargetRatio
	switch {
	case r == 0:
		o.ratio = DefaultTargetRatio
	case math.IsNaN(r) || r < MinTargetRatio || r > MaxTargetRatio:
		return nil, fmt.Errorf("%w: TargetRatio %v, want 0 (default %v) or %v–%v", ErrInvalidTargetRatio, r, DefaultTargetRatio, MinTargetRatio, MaxTargetRatio)
	default:
		o.ratio = r
	}
	if o.MaxTokens < 0 {
		return nil, fmt.Errorf("%w: MaxTokens %d, want >= 0", ErrInvalidOption, o.MaxTokens)
	}
	if o.KeepLast < 0 {
		return nil, fmt.Errorf("%w: KeepLast %d, want >= 0", ErrInvalidOption, o.KeepLast)
	}
	if o.DistillMax < 0 {
		return nil, fmt.Errorf("%w: DistillMax %d, want >= 0 (0 means no cap)", ErrInvalidOption, o.DistillMax)
	}
	if err := checkShare("RelevanceReserve", o.RelevanceReserve); err != nil {
		return nil, err
	}
	if err := checkShare("Lexical", o.Lexical); err != nil {
		return nil, err
	}
	t := o.NovelThreshold
	switch {
	case t == 0:
		o.novelThreshold = DefaultNovelThreshold
	case math.IsNaN(t) || t < 0 || t > 1:
		return nil, fmt.Errorf("%w: NovelThreshold %v, want 0 (default %v) or (0, 1]", ErrInvalidOption, t, DefaultNovelThreshold)
	default:
		o.novelThreshold = t
	}
	for role, w := range o.RoleWeights {
		if role.Pinned() {
			return nil, fmt.Errorf("%w: RoleWeights[%q]: %s messages are always kept and take no weight", ErrInvalidOption, role, role)
		}
		if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			return nil, fmt.Errorf("%w: RoleWeights[%q] %v, want a finite weight >= 0", ErrInvalidOption, role, w)
		}
	}
	mask, err := resolveMask(o.Mask, o.Tokens)
	if err != nil {
		return nil, err
	}
	o.mask = mask
	o.log = o.Logger
	if o.log == nil {
		o.log = slog.New(slog.DiscardHandler)
	}
	o.coverage = defaultCoverageFilter
	if o.CoverageFilter != nil {
		o.coverage = *o.CoverageFilter
	}
	o.tokens = o.Tokens
	if o.tokens == nil {
		o.tokens = TokenCounterFunc(EstimateTokens)
	}
	return o, nil
}

// weight returns the structural weight of a non-pinned message.
func (o *resolved) weight(m *Message) (float64, bool) {
	role := m.Role
	// An Anthropic-style user message carrying tool results is a tool
	// result: weight it like one so that both formats score alike.
	if role == RoleUser && len(m.ToolResultIDs) > 0 {
		role = RoleTool
	}
	if w, ok := o.RoleWeights[role]; ok {
		return w, true
	}
	if role == "function" || role == "tool_result" {
		if w, ok := o.RoleWeights[RoleTool]; ok {
			return w, true
		}
	}
	w, ok := defaultWeights[role]
	return w, ok
}

// pass holds the working state of one Compact call.
type pass struct {
	msgs           []Message
	scores         []TurnScore
	free           []int // indices of non-pinned messages, ascending
	vecs           [][]float32
	ents           []*cacheEntry // per message: its CachedEmbedder entry when Options.Lexical is on, else nil
	embedded       bool
	queried        bool // Semantic holds the query cosine
	target         int
	pinnedTokens   int
	masked         []*maskedMessage // per message, nil unless Options.Mask rewrote it
	forms          []maskForm       // per message, with Options.Mask (mask_select.go)
	switched       []int            // messages whose form changed since the last resetForms
	scratch        *maskScratch     // per message, what masking read from it (mask_cache.go)
	minPlaceholder int              // tokens of the shortest placeholder, once counted
	words          [][]uint64       // per message, the hashes of the words a placeholder could list, once read (mask_select.go)
	callers        map[string][]int // per call ID, the messages issuing it, once callOf needs it (mask.go)
	refs           map[int][]string // per message that loads tools, their names, once references has run (deferred.go)
	refsRead       bool
}

// measure returns the tokens and the structural weight of message i (0 for
// system and developer messages), checking that the count is valid and
// that adding it to before does not overflow.
func (o *resolved) measure(i int, m *Message, before int) (int, float64, error) {
	if m.MediaTokens < 0 {
		return 0, 0, &MessageError{Index: i, Field: "MediaTokens", Msg: fmt.Sprintf("%d, want >= 0", m.MediaTokens), Err: ErrInvalidTokenCount}
	}
	n := countMessage(o.tokens, m)
	if n < 0 {
		return 0, 0, &MessageError{Index: i, Field: "Content", Msg: fmt.Sprintf("token counter returned %d", n), Err: ErrInvalidTokenCount}
	}
	if n > math.MaxInt-before {
		return 0, 0, &MessageError{Index: i, Field: "Content", Msg: fmt.Sprintf("token counter returned %d, the total overflows int", n), Err: ErrInvalidTokenCount}
	}
	if m.Role.Pinned() {
		return n, 0, nil
	}
	w, ok := o.weight(m)
	if !ok {
		return 0, 0, &MessageError{Index: i, Field: "role", Msg: fmt.Sprintf("%q has no structural weight (set Options.RoleWeights)", m.Role), Err: ErrUnknownRole}
	}
	return n, w, nil
}

func (o *resolved) prepare(msgs []Message) (*pass, error) {
	p := &pass{msgs: msgs, scores: make([]TurnScore, len(msgs)), free: make([]int, 0, len(msgs))}
	before := 0
	for i := range msgs {
		m := &msgs[i]
		s := &p.scores[i]
		s.Index, s.Role, s.Unit = i, m.Role, i
		n, w, err := o.measure(i, m, before)
		if err != nil {
			return nil, err
		}
		s.Tokens, s.OriginalTokens = n, n
		before += n
		if m.Role.Pinned() {
			s.Structural, s.Pinned = pinnedWeight, true
			continue
		}
		s.Structural = w
		p.free = append(p.free, i)
	}
	if o.MaxTokens > 0 {
		p.target = o.MaxTokens
	} else {
		// floor(ratio × before), read as the decimal the caller wrote:
		// 0.29 × 100 is 28.999999999999996 in float64, which must give 29.
		// The relative nudge (1e-12) is far above float64 rounding error
		// and far below any ratio a caller means.
		// Capped at before, which also keeps the conversion in range.
		if t := math.Floor(o.ratio * float64(before) * (1 + 1e-12)); t < float64(before) {
			p.target = int(t)
		} else {
			p.target = before
		}
	}
	return p, nil
}

// selectUnits groups tool calls with their results, pins the units that
// must stay (KeepLast and, unless FreeSelection, the live turn, the first
// user turn and the prompt a Gemini function-call turn needs, see
// promptToPin, the thinking block the live turn opens with, see
// thinkingToPin, and a tool-search result a kept call's tool needs, see
// loadersToPin) and fills the rest of the budget greedily.
func (p *pass) selectUnits(o *resolved) {
	units := p.groupUnits()
	pinned := make(map[int]bool) // first member of a unit → pinned
	for j := max(0, len(p.free)-o.KeepLast); j < len(p.free); j++ {
		pinned[p.scores[p.free[j]].Unit] = true
	}
	if !o.FreeSelection {
		for _, i := range p.liveTurn() {
			pinned[p.scores[i].Unit] = true
		}
		for _, i := range p.pinnedPartners() {
			pinned[p.scores[i].Unit] = true
		}
	}
	cands := make([]unit, 0, len(units))
	for _, members := range units {
		u := unit{members: members, score: math.Inf(-1)}
		for _, i := range members {
			s := &p.scores[i]
			u.score = max(u.score, s.Score)
			u.cost += s.Tokens
			u.last = max(u.last, i)
		}
		cands = append(cands, u)
	}
	if !p.reserving(o) { // with the reserve, novelFirst orders every unit
		slices.SortFunc(cands, func(a, b unit) int {
			if c := cmp.Compare(b.score, a.score); c != 0 {
				return c
			}
			return cmp.Compare(b.last, a.last)
		})
	}
	p.novelFirst(o, cands)
	var loads map[string][]int // tools loaded by tool search (deferred.go), once needed
	var names map[int][]idName // the calls of the messages loadersToPin has read
	for {
		p.fill(o, cands, pinned)
		if o.FreeSelection {
			return
		}
		// Each round pins a prompt or a loading result not pinned
		// before, so this ends.
		q, call := p.promptToPin(o.GeminiTurns)
		if q >= 0 && !pinned[p.scores[q].Unit] {
			pinned[p.scores[q].Unit] = true
			if call >= 0 { // the call turn that needs it stays too
				pinned[p.scores[call].Unit] = true
			}
			continue
		}
		if t := p.thinkingToPin(); t >= 0 && !pinned[p.scores[t].Unit] {
			pinned[p.scores[t].Unit] = true
			continue
		}
		if loads == nil {
			if loads = p.toolLoads(); loads == nil {
				return
			}
			names = make(map[int][]idName)
		}
		more := false
		for _, j := range p.loadersToPin(loads, names) {
			if u := p.scores[j].Unit; !pinned[u] {
				pinned[u], more = true, true
			}
		}
		if !more {
			return
		}
	}
}

// unit is a tool-call group (or a lone message) as selectUnits weighs it.
type unit struct {
	members []int
	score   float64 // best member's
	cost    int     // tokens of all members
	last    int     // last member
}

// fill keeps the pinned units and then the others in the order of cands,
// first fit. It sets Kept and Pinned of every message and p.pinnedTokens.
// With Options.Mask, the tool-call groups come first (keepActions) and
// each round starts from the masked forms (resetForms).
func (p *pass) fill(o *resolved, cands []unit, pinned map[int]bool) {
	p.resetForms()
	used := 0
	for i := range p.scores {
		s := &p.scores[i]
		s.Pinned = p.msgs[i].Role.Pinned()
		s.Kept = s.Pinned
		if s.Kept {
			used += s.Tokens
		}
	}
	for _, u := range cands {
		if pinned[u.members[0]] {
			for _, i := range u.members {
				p.scores[i].Kept, p.scores[i].Pinned = true, true
			}
			used += u.cost
		}
	}
	used = p.degradePinned(o, used)
	p.pinnedTokens = used
	used += p.keepActions(o, cands, p.target-used)
	used += p.reserve(o, cands, p.target-used)
	for _, u := range cands {
		if p.scores[u.members[0]].Kept || used+u.cost > p.target { // pinned, or taken by the reserve
			continue
		}
		used += u.cost
		for _, i := range u.members {
			p.scores[i].Kept = true
		}
	}
	p.restoreMasked(o, p.target-used)
}

// groupUnits returns the tool-call groups of the non-pinned messages, each
// ascending, in order of their first member; scores[i].Unit is set to that
// first member. Union-find over message indices, roots always the smallest.
func (p *pass) groupUnits() [][]int {
	parent := make([]int, len(p.msgs))
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	ids := 0
	for _, i := range p.free {
		parent[i] = i
		ids += len(p.msgs[i].ToolCallIDs)
	}
	callers := make(map[string][]int, ids) // message indices issuing each ID, ascending
	for _, i := range p.free {
		for _, id := range p.msgs[i].ToolCallIDs {
			callers[id] = append(callers[id], i)
		}
	}
	if len(callers) > 0 {
		for _, i := range p.free {
			for _, id := range p.msgs[i].ToolResultIDs {
				c, ok := answeredCall(callers[id], i)
				if !ok {
					continue
				}
				ra, rb := find(c), find(i)
				if ra > rb {
					ra, rb = rb, ra
				}
				parent[rb] = ra
			}
		}
	}
	// Every group is a window of one array: sizes first (size[r] for each
	// root r), then each group's members in ascending order.
	size := make([]int, len(p.msgs))
	groups := 0
	for _, i := range p.free {
		r := find(i)
		p.scores[i].Unit = r
		if r == i {
			groups++
		}
		size[r]++
	}
	members := make([]int, len(p.free))
	out := make([][]int, 0, groups)
	at := 0
	for _, i := range p.free {
		if r := p.scores[i].Unit; r == i {
			n := size[r]
			out = append(out, members[at:at:at+n])
			size[r] = len(out) - 1 // from here on: the group's index in out
			at += n
		}
		k := size[p.scores[i].Unit]
		out[k] = append(out[k], i)
	}
	return out
}

// answeredCall picks the call a result at index i answers among the
// messages issuing its ID (ascending): the nearest one before i, because
// real trajectories reuse IDs (tau-bench does), or the first one when none
// precedes it.
func answeredCall(calls []int, i int) (int, bool) {
	if c, ok := earlierCall(calls, i); ok {
		return c, true
	}
	if len(calls) == 0 {
		return 0, false
	}
	return calls[0], true
}
