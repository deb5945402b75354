package chitta

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
)

// Default prices of [Pricing], Anthropic's ratios: a cache write costs
// 1.25× an input token and a cache read 0.1×.
const (
	DefaultInputPrice      = 1.0
	DefaultCacheWritePrice = 1.25
	DefaultCacheReadPrice  = 0.1
)

// Pricing is a provider's price of input tokens, per token in any unit;
// the zero value of each field means Anthropic's default, so a price
// cannot be set to 0 (a free cache read is at best a tiny price). A price
// that is negative, NaN or above [MaxPrice] (infinite included) is an
// error from [NewCompactor].
//
// The billing model behind [Stats.BilledInput]: the caller asks the
// provider to cache the whole prompt on every call (Anthropic: a cache
// breakpoint on the last message; OpenAI caches automatically: set
// CacheWrite to Input), and the cache is still warm at the next call. The
// tokens of the longest run of leading messages identical to the previous
// call's prompt are a cache hit, billed at CacheRead; the rest of the
// prompt is written to the cache, billed at CacheWrite. Figures are in
// uncached input tokens (divided by Input). The model ignores output
// tokens, cache expiry, minimum cacheable lengths, the provider's exact
// tokenizer and per-message framing.
type Pricing struct {
	Input      float64 // an uncached input token; 0 means DefaultInputPrice (1.0)
	CacheWrite float64 // a token written to the cache; 0 means DefaultCacheWritePrice (1.25)
	CacheRead  float64 // a token read from the cache; 0 means DefaultCacheReadPrice (0.1)
}

// MaxPrice is the largest price a [Pricing] field may hold: prices are
// relative (the default Input is 1), and above it the billing estimates
// of a long session could overflow to +Inf or NaN, which json.Marshal
// refuses.
const MaxPrice = 1e12

// Policy tells a [Compactor] when and how far to compact. MaxTokens is
// required (the zero Policy is an error from [NewCompactor]); the zero value
// of every other field means its documented default. [NewCompactor] copies
// it.
type Policy struct {
	// MaxTokens is the context size that triggers a compaction; it must
	// be >= 2.
	MaxTokens int

	// TargetTokens is the size a compaction cuts down to (Compact's
	// Options.MaxTokens). 0 means MaxTokens/2; otherwise it must lie in
	// [1, MaxTokens).
	TargetTokens int

	// Pricing prices the prompt cache for the Stats estimates and the
	// Horizon gate. The zero value means Anthropic's ratios.
	Pricing Pricing

	// Horizon, when > 0, gates compaction on cost: over MaxTokens, the
	// Compactor compacts only when the cache reads saved over the next
	// Horizon calls (the context being TargetTokens instead of its current
	// size) pay for writing the compacted prompt to the cache; otherwise
	// it keeps appending. 0 means no gate: compact whenever the context
	// exceeds MaxTokens. Must be >= 0.
	Horizon int

	// HardLimit is how far past MaxTokens the context may grow while the
	// Horizon gate skips compactions: beyond MaxTokens + HardLimit the
	// Compactor compacts regardless. 0 means MaxTokens/4. Unused without a
	// Horizon. Must be >= 0.
	HardLimit int
}

// Compactor compacts the conversation of an agent loop that calls it
// before every model call, keeping the prompt's prefix stable so that the
// provider's prompt cache stays warm: compact rarely, in large steps, and
// append in between.
//
// Each call is given the whole conversation so far (not the previous
// result). When it extends the conversation of the previous call (the same
// leading messages, compared field by field) and the previous survivors
// plus the new messages fit in [Policy.MaxTokens], the result is exactly
// the previous survivors followed by the new messages: nothing is scored
// or embedded, nor masked ([Options.Mask] applies at compactions only,
// so a new tool result over [MaskOptions.MaxResultTokens] is returned
// whole until the next compaction), [Stats.Compacted] is false and
// [Result.Scores] is nil.
// Otherwise it compacts: the result equals [Compact] of the conversation
// with the Compactor's Options and MaxTokens = [Policy.TargetTokens]
// ([Stats.Compacted] true), but that with [Options.Mask] and
// [Options.DistillNovel] a placeholder keeps naming the memory an earlier
// compaction distilled from its message (Compact alone names it only in
// the call that stores it: the message, covered by it since, is no
// candidate any more), so that placeholders, and the prompt's prefix,
// stay as they were. A conversation that does not extend the
// previous one (edited or truncated history) starts afresh, as if it were
// the first call. With [Policy.Horizon] a compaction may be skipped when it
// does not pay for itself.
//
// A Compactor follows one conversation; use one per conversation. It is
// safe for concurrent use: calls are serialized, and a call waiting for
// another returns ctx.Err() when ctx is done. It shares one embedding cache
// and one token-count cache across calls (see [NewCompactor]). It keeps a
// copy of the previous conversation and result (the Message values, whose
// strings, ID slices and Raw it shares with the caller, who must not
// modify them in place). The zero value is not usable: Compact returns an
// error wrapping [ErrInvalidOption]; use NewCompactor.
//
// Ownership: to keep a call between compactions cheap (no copy of the
// context), the Messages and Kept of a non-compacting Result share their
// backing arrays with the Compactor's later results. They are capped, so
// appending to them copies; assigning to their elements changes what later
// non-compacting results hold, so copy them first ([slices.Clone]) if you
// must edit them in place. A compacting Result is the caller's alone.
type Compactor struct {
	opts   Options   // MaxTokens = target; cached Embedder and Tokens
	o      *resolved // opts resolved, for counting and weighing new messages
	policy Policy    // with defaults applied
	sem    chan struct{}

	// The previous call, guarded by sem.
	input   []Message // its conversation (the Compactor's own copy)
	tokens  []int     // tokens of each input message
	total   int       // sum of tokens
	kept    []int     // indices in input of its result
	result  []Message // its result (own copy)
	keptTok int       // tokens of its result
	// masked and maskedTok are the Stats.Masked and MaskedTokens of its
	// result: those of the last compaction, whose survivors it holds.
	masked, maskedTok int
	// covered is the last compaction's Stats.CoveredDroppedPct: the calls
	// until the next one drop the messages it dropped.
	covered float64
	// saved holds, for the leading messages of result (the last
	// compaction's survivors), the tokens masking saved on each (0 for a
	// message returned as given); nil when none was masked.
	saved []int

	// stored holds the IDs of the memories its compactions distilled
	// (Result.Distilled), which the placeholders of later compactions
	// name (see compact); guarded by sem, kept by Reset as the store
	// keeps them.
	stored map[string]bool
}

// NewCompactor returns a Compactor compacting with opts (nil means the
// defaults) under policy p. opts is copied; its TargetRatio and MaxTokens
// are replaced by p.TargetTokens. An Embedder that is not a
// [*CachedEmbedder] is wrapped in one (capacity [DefaultCacheCapacity]), so
// is a QueryEmbedder (capacity 1: the Compactor's Query is fixed, so only
// the first compaction embeds it), and the token counter (EstimateTokens when nil) in a
// [*CachedTokenCounter], so that each compaction embeds and counts only
// the messages added since the last one; a [*CalibratedCounter] is not
// wrapped, since its counts change as it observes (wrap its base instead).
// Between compactions, a message's count is the one taken when a call first
// saw it, or by the last compaction, which counts every message again
// (giving a CalibratedCounter's current counts), for as long as later
// calls extend that conversation. With a Store and no
// CoverageCache it creates a [CoverageCache], so that a compaction against
// an unchanged store queries it only for new messages. With Mask and no
// Mask.Cache it uses a copy of Mask with a new [MaskCache], so that
// masking scans only new messages.
//
// It returns an error wrapping [ErrInvalidOption] for a Policy out of
// range, and any error [Compact] would return for opts.
func NewCompactor(opts *Options, p Policy) (*Compactor, error) {
	if err := p.resolve(); err != nil {
		return nil, err
	}
	c := &Compactor{policy: p, sem: make(chan struct{}, 1)}
	if opts != nil {
		// Replaced below, but out of range they are a caller's mistake,
		// which Compact would report.
		if _, err := resolve(&Options{TargetRatio: opts.TargetRatio, MaxTokens: opts.MaxTokens}); err != nil {
			return nil, err
		}
		c.opts = *opts
	}
	c.opts.TargetRatio, c.opts.MaxTokens = 0, p.TargetTokens
	c.opts.Embedder = cached(c.opts.Embedder, 0)
	c.opts.QueryEmbedder = cached(c.opts.QueryEmbedder, 1)
	switch c.opts.Tokens.(type) {
	case *CachedTokenCounter, *CalibratedCounter: // a calibrated count changes with each observation
	default:
		c.opts.Tokens = NewCachedTokenCounter(c.opts.Tokens, 0)
	}
	if c.opts.Store != nil && c.opts.CoverageCache == nil {
		c.opts.CoverageCache = NewCoverageCache()
	}
	if m := c.opts.Mask; m != nil && m.Cache == nil {
		mc := *m // the caller's MaskOptions is not modified
		mc.Cache = NewMaskCache()
		c.opts.Mask = &mc
	}
	o, err := resolve(&c.opts)
	if err != nil {
		return nil, err
	}
	c.o = o
	return c, nil
}

// cached returns e in a new CachedEmbedder of the given capacity, or e
// itself when it is nil or a *CachedEmbedder already.
func cached(e Embedder, capacity int) Embedder {
	if _, ok := e.(*CachedEmbedder); ok || e == nil {
		return e
	}
	return NewCachedEmbedder(e, capacity)
}

// resolve checks p and applies its defaults.
func (p *Policy) resolve() error {
	if p.MaxTokens < 2 {
		return fmt.Errorf("%w: Policy.MaxTokens %d, want >= 2", ErrInvalidOption, p.MaxTokens)
	}
	switch {
	case p.TargetTokens == 0:
		p.TargetTokens = p.MaxTokens / 2
	case p.TargetTokens < 1 || p.TargetTokens >= p.MaxTokens:
		return fmt.Errorf("%w: Policy.TargetTokens %d, want 0 (MaxTokens/2) or 1–%d", ErrInvalidOption, p.TargetTokens, p.MaxTokens-1)
	}
	if p.Horizon < 0 {
		return fmt.Errorf("%w: Policy.Horizon %d, want >= 0", ErrInvalidOption, p.Horizon)
	}
	switch {
	case p.HardLimit < 0:
		return fmt.Errorf("%w: Policy.HardLimit %d, want >= 0", ErrInvalidOption, p.HardLimit)
	case p.HardLimit == 0:
		p.HardLimit = p.MaxTokens / 4
	}
	for _, f := range []struct {
		name string
		v    *float64
		def  float64
	}{
		{"Input", &p.Pricing.Input, DefaultInputPrice},
		{"CacheWrite", &p.Pricing.CacheWrite, DefaultCacheWritePrice},
		{"CacheRead", &p.Pricing.CacheRead, DefaultCacheReadPrice},
	} {
		switch v := *f.v; {
		case math.IsNaN(v) || v < 0 || v > MaxPrice:
			return fmt.Errorf("%w: Policy.Pricing.%s %v, want a finite price in [0, %g]", ErrInvalidOption, f.name, v, float64(MaxPrice))
		case v == 0:
			*f.v = f.def
		}
	}
	return nil
}

// Compact returns the conversation msgs as the next model call should
// send it: the previous result followed by the new messages, or a fresh
// compaction (see [Compactor]). The caller owns the returned Result, but
// for the backing arrays of a non-compacting Result's Messages and Kept,
// which later results share (see Ownership at [Compactor]); Messages holds
// msgs' own messages (or, between compactions, equal ones from earlier
// calls, masked as the last compaction returned them). A non-compacting
// Result reports [Policy.MaxTokens] as Stats.TargetTokens, and OverBudget
// false. Errors are those of [Compact], or ctx.Err(); after an error the
// Compactor's state is as before the call.
func (c *Compactor) Compact(ctx context.Context, msgs []Message) (*Result, error) {
	if c == nil || c.sem == nil {
		return nil, fmt.Errorf("%w: Compactor not created by NewCompactor", ErrInvalidOption)
	}
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-c.sem }()
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	prev := c.result
	// Sending the whole conversation would hit the cache on the part of it
	// the previous call sent too.
	k := commonPrefix(msgs, c.input)
	extends := k == len(c.input)
	fullHit := c.total
	if !extends {
		fullHit = 0
		for _, n := range c.tokens[:k] {
			fullHit += n
		}
	}
	n0, total, keptTok := 0, 0, 0
	if extends {
		n0, total, keptTok = len(c.input), c.total, c.keptTok
	}
	added := make([]int, len(msgs)-n0)
	addedTok := 0
	for j := range added {
		n, _, err := c.o.measure(n0+j, &msgs[n0+j], total+addedTok)
		if err != nil {
			return nil, err
		}
		added[j] = n
		addedTok += n
	}
	tokenAt := func(i int) int {
		if i < n0 {
			return c.tokens[i]
		}
		return added[i-n0]
	}
	if !c.shouldCompact(msgs, tokenAt, keptTok+addedTok, addedTok) {
		if !extends {
			c.reset()
		}
		res := c.appendNew(msgs, added, addedTok)
		stable := len(prev) // the previous result, whole
		if !extends {
			stable = commonPrefix(res.Messages, prev)
		}
		c.account(res, stable, fullHit)
		return res, nil
	}
	res, err := compact(ctx, msgs, &c.opts, c.stored)
	if err != nil {
		return nil, err
	}
	for _, d := range res.Distilled {
		if c.stored == nil {
			c.stored = make(map[string]bool)
		}
		c.stored[d.ID] = true
	}
	if !extends {
		c.reset()
	}
	c.input = append(c.input, msgs[n0:]...)
	// Compact counted every message again, which a CalibratedCounter
	// (not cached) may now count otherwise: the Compactor takes those
	// counts, so that the cache figures below and of the calls until the
	// next compaction agree with this result's.
	c.tokens, c.total, fullHit = c.tokens[:0], res.Stats.BeforeTokens, 0
	for i := range res.Scores {
		c.tokens = append(c.tokens, res.Scores[i].OriginalTokens)
		if i < k {
			fullHit += res.Scores[i].OriginalTokens
		}
	}
	c.kept = slices.Clone(res.Kept)
	c.result = slices.Clone(res.Messages)
	c.keptTok = res.Stats.AfterTokens
	c.masked, c.maskedTok, c.saved = res.Stats.Masked, res.Stats.MaskedTokens, nil
	c.covered = res.Stats.CoveredDroppedPct
	if res.Stats.Masked > 0 {
		c.saved = make([]int, len(res.Kept))
		for j, i := range res.Kept {
			c.saved[j] = res.Scores[i].OriginalTokens - res.Scores[i].Tokens
		}
	}
	res.Stats.Compacted = true
	c.account(res, commonPrefix(res.Messages, prev), fullHit)
	return res, nil
}

// Reset forgets the previous call, so that the next call starts afresh, as
// the first call of a new Compactor does (its caches are kept, and so are
// the IDs of the memories it distilled, which the store keeps): call it
// when the last result was not sent, so that the next call neither builds
// on it nor counts it as a prompt-cache hit. It waits for a call in
// progress. On a nil or zero Compactor it does nothing.
func (c *Compactor) Reset() {
	if c == nil || c.sem == nil {
		return
	}
	c.sem <- struct{}{}
	defer func() { <-c.sem }()
	c.reset()
}

// reset forgets the previous call.
func (c *Compactor) reset() {
	c.input, c.tokens, c.total, c.kept, c.result, c.keptTok = nil, nil, 0, nil, nil, 0
	c.masked, c.maskedTok, c.saved, c.covered = 0, 0, nil, 0
}

// shouldCompact decides whether the previous survivors plus the new
// messages (size tokens, added of them new) must be compacted.
func (c *Compactor) shouldCompact(msgs []Message, tokenAt func(int) int, size, added int) bool {
	p := &c.policy
	if size <= p.MaxTokens {
		return false
	}
	if p.Horizon == 0 || size-p.MaxTokens > p.HardLimit { // (MaxTokens + HardLimit may overflow)
		return true
	}
	// Estimate both choices over this call and the next Horizon ones
	// (growth is the same either way): appending reads the survivors from
	// the cache and writes the new messages; compacting keeps only the
	// leading system messages in the cache and writes the rest of a
	// TargetTokens prompt.
	stable := 0
	for i := 0; i < len(msgs) && msgs[i].Role.Pinned(); i++ {
		stable += tokenAt(i)
	}
	pr, h := &p.Pricing, float64(p.Horizon)
	target := max(p.TargetTokens, stable)
	skip := pr.CacheRead*float64(size-added) + pr.CacheWrite*float64(added) + h*pr.CacheRead*float64(size)
	compact := pr.CacheRead*float64(stable) + pr.CacheWrite*float64(target-stable) + h*pr.CacheRead*float64(target)
	return compact < skip
}

// appendNew records the new messages of msgs (tokens added, addedTok in
// all) as kept and returns the previous survivors followed by them.
func (c *Compactor) appendNew(msgs []Message, added []int, addedTok int) *Result {
	n0 := len(c.input)
	c.input = append(c.input, msgs[n0:]...)
	c.tokens = append(c.tokens, added...)
	c.total += addedTok
	for j := range added {
		c.kept = append(c.kept, n0+j)
	}
	c.result = append(c.result, msgs[n0:]...)
	c.keptTok += addedTok
	// Shared, capped: the caller's appends reallocate, and the Compactor
	// only ever appends past what it returned (see the Compactor doc).
	res := &Result{Messages: slices.Clip(c.result), Kept: slices.Clip(c.kept)}
	if res.Messages == nil {
		res.Messages, res.Kept = []Message{}, []int{}
	}
	st := &res.Stats
	st.BeforeTokens, st.AfterTokens = c.total, c.keptTok
	st.Kept, st.Dropped = len(c.kept), len(msgs)-len(c.kept)
	st.TargetTokens = c.policy.MaxTokens
	st.Masked, st.MaskedTokens = c.masked, c.maskedTok // new messages are never masked
	st.CoveredDroppedPct = c.covered                   // nor dropped
	if st.BeforeTokens > 0 {
		st.DroppedPct = 100 * float64(st.BeforeTokens-st.AfterTokens) / float64(st.BeforeTokens)
	}
	return res
}

// account fills the cache figures of res, whose first stable messages
// are those the previous call sent (the hit counts them as returned:
// masked survivors at their masked size); fullHit is the cache hit of
// sending the whole conversation.
func (c *Compactor) account(res *Result, stable, fullHit int) {
	st := &res.Stats
	st.StablePrefix = stable
	hit := 0
	for j, i := range res.Kept[:stable] {
		hit += c.tokens[i]
		if j < len(c.saved) {
			hit -= c.saved[j]
		}
	}
	st.CachedTokens = hit
	pr := &c.policy.Pricing
	billed := func(hit, total int) float64 {
		return (pr.CacheRead*float64(hit) + pr.CacheWrite*float64(total-hit)) / pr.Input
	}
	st.BilledInput = billed(hit, st.AfterTokens)
	st.BilledFull = billed(fullHit, st.BeforeTokens)
	if st.BilledFull > 0 {
		st.BilledRatio = st.BilledInput / st.BilledFull
	}
}

// commonPrefix returns the number of leading messages a and b share.
func commonPrefix(a, b []Message) int {
	n := min(len(a), len(b))
	for i := range n {
		if !sameMessage(&a[i], &b[i]) {
			return i
		}
	}
	return n
}

// sameMessage reports whether a and b are the same message, field by
// field (identical strings and slices compare in constant time).
func sameMessage(a, b *Message) bool {
	return a.Role == b.Role && a.Content == b.Content && a.MediaTokens == b.MediaTokens &&
		slices.Equal(a.ToolCallIDs, b.ToolCallIDs) && slices.Equal(a.ToolResultIDs, b.ToolResultIDs) &&
		bytes.Equal(a.Raw, b.Raw) && a.OpensWithThinking == b.OpensWithThinking
}
