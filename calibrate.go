package chitta

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"sync"
)

// Parameters of [CalibratedCounter].
const (
	// CalibrationWindow is the number of most recent observations the
	// estimate of new messages is fitted to.
	CalibrationWindow = 16
	// CalibrationOutlier is the factor by which an observation's new
	// messages may cost more or less than estimated before the observation
	// counts as an outlier, which the estimate does not learn from (once
	// three observations have been learnt from).
	CalibrationOutlier = 2.0
	// CalibrationMemory is the number of counts a [CalibratedCounter]
	// remembers in each of its two generations: one for each observed
	// message and one for each observed message text, so the last
	// CalibrationMemory/2 distinct messages observed or counted are always
	// remembered.
	CalibrationMemory = 8192
)

// CalibratedCounter is a [TokenCounter] that learns from the input tokens a
// provider reports for each call ([CalibratedCounter.Observe]) what the
// messages of a conversation cost.
//
// Successive calls of an agent loop resend the messages of the previous
// call plus a few new ones. Observe attributes a call's reported count,
// minus the remembered counts of its messages already observed, to its new
// messages (split in proportion to their estimates), and remembers the
// count of each message, keyed by a 64-bit hash of its role, content and
// tool-call IDs, and of each message text. A message already observed is
// then counted as the provider billed it ([CalibratedCounter.CountTokens]
// of its content plus [CalibratedCounter.FramingTokens] sum to its
// attributed count); only messages never observed are estimated. This is
// Claude Code's "last reported usage plus an estimate of the new
// messages", per message, so that it survives compaction.
//
// New messages are estimated by a linear model of seven features of a
// message: its base count (content and framing); the numbers of ASCII
// punctuation and symbol bytes, of ASCII digits and of the pieces a
// byte-pair encoder's pre-tokenizer splits its content into (weighted by
// how often such pieces take more than one token); its numbers of tool
// calls and of tool results; and 1. Prose, code, paths, indentation and
// JSON cost a provider very different numbers of tokens per word, but
// about one per piece; tool calls and results carry wrappers a plain
// message does not. The model is fitted, by least squares with a ridge
// penalty, to the new messages of the last [CalibrationWindow]
// observations, each observation's error weighted relative to its size; an
// observation whose new messages cost more than [CalibrationOutlier] times
// more or less than estimated is not learnt from. The penalty pulls the fit
// towards a prior shape scaled to the observations: for the default base
// (EstimateTokens, directly or in a [CachedTokenCounter] around nil) one
// token per piece, eight per tool call, six per tool result and four per
// message, which is roughly how byte-pair encoders and chat templates
// split text; for any other base the base count alone.
//
// A constant number of tokens the provider adds to every call (a hidden
// system prompt, tool schemas) cancels out of every difference after the
// first observation: it is counted once, spread over the messages of the
// first observed call of a conversation, so that the counts of a call's
// messages still sum to what the provider reports. (A later message
// identical to one of those, same role, content and IDs, is counted
// alike.) The estimate learns from such a first call only while it costs
// no more than 10% above what the later calls' fit predicts for it. When an observation cannot be explained by the
// remembered counts (all its messages are known, or its reported count is
// no more than what its known messages account for: the hidden tokens
// changed, or a message was evicted) every message of it is rescaled so
// that their counts sum to the reported count, and the model is not
// refitted. Messages removed between calls (compaction) are simply not
// sent again; a summary that replaces them is a new message like any
// other.
//
// Memory is bounded: counts live in two generations of at most
// [CalibrationMemory] entries each; when the current one is full it becomes
// the old one and the previous old one is dropped, and a count found in the
// old generation moves forward. A forgotten message is estimated again.
// It keeps hashes and counts, never message texts.
//
// Use it around [EstimateTokens] when no exact tokenizer exists for the
// provider's model (Anthropic, Gemini, local models), or around an exact
// counter for another encoding. Wrap the base in a [CachedTokenCounter]
// (not the other way round) so that estimating stays cheap.
//
// The zero value is ready to use: its base is EstimateTokens, and it counts
// as its base until the first observation. A nil *CalibratedCounter counts
// with EstimateTokens and learns nothing (Observe does nothing, Ratio is 1,
// Observations 0), as a nil [CachedTokenCounter] does. A
// CalibratedCounter is safe for concurrent use if its base is; concurrent
// observations of overlapping calls may each take a message both send for
// new, in which case the one applied last sets its count. It must not be
// copied after first use.
// A panic of the base counter reaches the caller (of Observe, CountTokens,
// FramingTokens or [Compact]) as a panic of any callback does; no lock is
// held while the base runs, so the counter stays usable.
type CalibratedCounter struct {
	base TokenCounter

	once     sync.Once
	msgSeed  maphash.Seed // hashes of messages
	textSeed maphash.Seed // hashes of message texts

	mu       sync.Mutex
	cur, old map[uint64]int // remembered counts by message or text hash
	recent   []newContent   // ring of the last CalibrationWindow observations' new messages
	next     int            // ring position of the next entry of recent
	theta    features       // coefficients of the model; zero before the first fit
	ratio    float64        // attributed over base count in recent; 0 before the first fit
	count    int            // observations accepted
}

// newContent is what one observation taught about its new messages: the
// tokens attributed to them and the sum of their features. An observation
// without remembered messages (the first call of a conversation) also
// carries whatever the provider adds to every call.
type newContent struct {
	attributed float64
	features   features
	first      bool
}

// NewCalibratedCounter returns a counter that learns from base's counts. A
// nil base means EstimateTokens.
func NewCalibratedCounter(base TokenCounter) *CalibratedCounter {
	return &CalibratedCounter{base: base}
}

func (c *CalibratedCounter) init() {
	c.once.Do(func() {
		c.msgSeed, c.textSeed = maphash.MakeSeed(), maphash.MakeSeed()
		c.cur = make(map[uint64]int)
	})
}

func (c *CalibratedCounter) baseCounter() TokenCounter {
	if c.base == nil {
		return TokenCounterFunc(EstimateTokens)
	}
	return c.base
}

// reserve passes Compact's working set on to the base when the base sizes
// itself to it (a [CachedTokenCounter]), so that a cached base keeps every
// count of a conversation longer than its capacity, as it does when it is
// [Options.Tokens] itself. The counter's own memory is fixed
// ([CalibrationMemory]).
func (c *CalibratedCounter) reserve(n int) {
	if c == nil {
		return
	}
	if r, ok := c.base.(reserver); ok {
		r.reserve(n)
	}
}

// messageKey hashes what the provider bills of m: role, content and the
// tool-call linkage, each string length-prefixed so that no two messages
// hash the same input.
func (c *CalibratedCounter) messageKey(m *Message) uint64 {
	var h maphash.Hash
	h.SetSeed(c.msgSeed)
	var n [8]byte
	length := func(k int) {
		binary.LittleEndian.PutUint64(n[:], uint64(k))
		h.Write(n[:])
	}
	write := func(s string) {
		length(len(s))
		h.WriteString(s)
	}
	write(string(m.Role))
	write(m.Content)
	for _, ids := range [][]string{m.ToolCallIDs, m.ToolResultIDs} {
		length(len(ids))
		for _, id := range ids {
			write(id)
		}
	}
	return h.Sum64()
}

func (c *CalibratedCounter) textKey(text string) uint64 {
	return maphash.String(c.textSeed, text)
}

// lookup returns a remembered count, moving it to the current generation.
// c.mu must be held.
func (c *CalibratedCounter) lookup(k uint64) (int, bool) {
	if n, ok := c.cur[k]; ok {
		return n, true
	}
	n, ok := c.old[k]
	if ok {
		c.put(k, n)
	}
	return n, ok
}

// put remembers a count, rotating generations when the current one is
// full. c.mu must be held.
func (c *CalibratedCounter) put(k uint64, n int) {
	if _, ok := c.cur[k]; !ok && len(c.cur) >= CalibrationMemory {
		c.old, c.cur = c.cur, make(map[uint64]int, CalibrationMemory)
	}
	c.cur[k] = n
}

// Observe records a call's usage: msgs are the messages sent (the same
// values that were counted), reportedInputTokens the input tokens the
// provider reported for that call, all of them: with Anthropic's prompt
// caching, input_tokens plus cache_creation_input_tokens plus
// cache_read_input_tokens (input_tokens alone leaves out the cached
// prefix). An observation whose reported count is
// not positive or above 2^30 (no model's input comes near it; remembered,
// such a count would overflow the totals of later compactions), or that
// has neither a remembered message nor a message the base counts as more
// than 0 tokens, is ignored; so is one whose reported
// count is below an eighth of what its messages cost at least (for each,
// its base count of content and framing, or what it was billed before
// when that is less), since no tokenizer bills that little for text (a
// word is at least about one token): such a report is not the call's
// input (input_tokens without the cached prefix, or the output's count),
// and learning from it would leave its messages counted at a fraction of
// their cost for as long as they are remembered. (A report under an
// eighth of the remembered counts alone is taken when the base counts
// allow it: the tokens the provider adds to every call, remembered with
// the first messages, may have fallen.) A message remembered at 0
// tokens (a report too small to give every message of its call a token)
// counts as not remembered: the next observation of it attributes it
// anew. Identical messages in one call share one count. The
// [Message.MediaTokens] of msgs (each copy) are subtracted from
// reportedInputTokens first, since Compact adds them to this counter's
// text-only counts; an observation they leave no positive count is
// ignored. msgs is not retained.
func (c *CalibratedCounter) Observe(msgs []Message, reportedInputTokens int) {
	const maxReport = 1 << 30 // no model reads a billion tokens in one call
	if c == nil || reportedInputTokens <= 0 || reportedInputTokens > maxReport || len(msgs) == 0 {
		return
	}
	// The counter models text: the media tokens Compact adds to each
	// message are taken out of the report first (a report they exceed
	// is not one the text can be learnt from).
	for i := range msgs {
		reportedInputTokens -= max(0, msgs[i].MediaTokens)
		if reportedInputTokens <= 0 {
			return
		}
	}
	c.init()
	items := make([]observed, 0, len(msgs))
	seen := make(map[uint64]int, len(msgs)) // key → index in items
	for i := range msgs {
		k := c.messageKey(&msgs[i])
		if j, ok := seen[k]; ok {
			items[j].copies++
			continue
		}
		seen[k] = len(items)
		items = append(items, observed{msg: &msgs[i], key: k, text: c.textKey(msgs[i].Content), copies: 1, known: -1})
	}
	c.mu.Lock()
	for j := range items {
		// A count of 0 (a report too small to give each message a
		// token) is no knowledge: rescaling cannot move it. Nor is a
		// non-empty text remembered at 0: rescaling would leave it there,
		// so the message is attributed anew, its text with it.
		n, ok := c.lookup(items[j].key)
		if !ok || n <= 0 {
			continue
		}
		if items[j].msg.Content != "" {
			if t, ok := c.lookup(items[j].text); ok && t <= 0 {
				continue
			}
		}
		items[j].known = n
	}
	c.mu.Unlock()

	// Features of the new messages, counted outside the lock (the base may
	// be slow).
	tc := c.baseCounter()
	fc, _ := tc.(FramingCounter)
	var knownSum float64
	var sum features
	fresh := false
	for j := range items {
		it := &items[j]
		if it.known >= 0 {
			knownSum += float64(it.copies) * float64(it.known) // in float: copies × a huge count overflows int
			continue
		}
		fresh = true
		if fc != nil {
			it.framing = float64(max(0, fc.FramingTokens(it.msg)))
		}
		it.features = textFeatures(float64(max(0, tc.CountTokens(it.msg.Content))), it.msg.Content)
		it.features = it.features.add(messageFeatures(it.msg))
		it.features[fBase] += it.framing
		for range it.copies {
			sum = sum.add(it.features)
		}
	}
	if knownSum == 0 && sum[0] == 0 {
		return
	}
	reported := float64(reportedInputTokens)
	if limit := reported * calibrationImplausible; limit < knownSum+sum[0] && limit < knownFloor(items, tc, fc)+sum[0] {
		return
	}
	delta := reported - knownSum

	c.mu.Lock()
	defer c.mu.Unlock()
	c.count++
	if !fresh || delta <= 0 || sum[0] == 0 {
		c.rescale(items, reported)
		return
	}
	if est := c.estimate(sum); c.fitted() < 3 || (delta < est*CalibrationOutlier && delta > est/CalibrationOutlier) {
		c.learn(newContent{delta, sum, knownSum == 0})
	}
	var estSum float64
	for j := range items {
		if it := &items[j]; it.known < 0 {
			it.estimate = c.estimate(it.features)
			estSum += float64(it.copies) * it.estimate
		}
	}
	if estSum == 0 { // a model that prices everything at 0: split by base
		for j := range items {
			items[j].estimate = items[j].features[0]
		}
		estSum = sum[0]
	}
	var share apportion
	for j := range items {
		if it := &items[j]; it.known < 0 {
			c.remember(it, share.next(delta*float64(it.copies)*it.estimate/estSum))
		}
	}
}

// knownFloor returns the least the remembered messages of items can cost:
// each at its remembered count or at its base count (content and
// framing), whichever is less. A remembered count carries its share of
// the tokens the provider added to the call that first sent the message
// (tool schemas), which may be gone since; the base count is the text's.
// It is counted only for a report that looks implausible against the
// remembered counts (the base may be slow).
func knownFloor(items []observed, tc TokenCounter, fc FramingCounter) float64 {
	var floor float64
	for j := range items {
		it := &items[j]
		if it.known < 0 {
			continue
		}
		base := float64(max(0, tc.CountTokens(it.msg.Content)))
		if fc != nil {
			base += float64(max(0, fc.FramingTokens(it.msg)))
		}
		floor += float64(it.copies) * min(float64(it.known), base)
	}
	return floor
}

// observed is one distinct message of an observation.
type observed struct {
	msg      *Message
	key      uint64
	text     uint64   // textKey of its content, hashed outside the lock
	copies   int      // occurrences in the call
	known    int      // remembered count, or -1
	features features // of a new message
	framing  float64  // base count of a new message's framing
	estimate float64  // of a new message
}

// apportion rounds the parts of a whole so that the rounded parts sum to
// the rounded whole: each part is the rounded running sum minus the
// rounded running sum before it.
type apportion struct{ sum, done float64 }

func (a *apportion) next(part float64) int {
	a.sum += part
	r := math.Round(a.sum)
	n := roundCount(r - a.done)
	a.done = r
	return n
}

// rescale remembers every message of an observation that the remembered
// counts cannot explain at its current count (or estimate) times reported
// over the sum of those. c.mu must be held.
func (c *CalibratedCounter) rescale(items []observed, reported float64) {
	var sum float64
	for j := range items {
		it := &items[j]
		if it.known >= 0 {
			it.estimate = float64(it.known)
		} else {
			it.estimate = c.estimate(it.features)
		}
		sum += float64(it.copies) * it.estimate
	}
	if sum == 0 {
		return
	}
	var share apportion
	for j := range items {
		it := &items[j]
		n := share.next(float64(it.copies) * it.estimate * reported / sum)
		if it.known < 0 {
			c.remember(it, n)
			continue
		}
		// Scale the content's count with the message's.
		tk := it.text
		if t, ok := c.lookup(tk); ok && it.known > 0 {
			c.put(tk, min(t, roundCount(float64(t)*float64(n)/float64(it.copies)/float64(it.known))))
		}
		c.put(it.key, roundCount(float64(n)/float64(it.copies)))
	}
}

// remember stores the count attributed to the copies of a new message, and,
// unless its text is already known at no more than that count, the
// content's share of that count (by the estimates of content and framing)
// under its text: a text count above the message's would count it above
// what it was billed (FramingTokens cannot go below 0), while lowering it
// leaves the messages already remembered with that text exact. A text
// remembered at 0 counts as not known. c.mu must be held.
func (c *CalibratedCounter) remember(it *observed, attributed int) {
	n := roundCount(float64(attributed) / float64(it.copies))
	c.put(it.key, n)
	tk := it.text
	// A text remembered at 0 (a report too small to give it a token) is no
	// knowledge either: the new count replaces it.
	if t, ok := c.lookup(tk); ok && t > 0 && t <= n {
		return
	}
	share := 1.0
	if all := c.estimate(it.features); all > 0 {
		content := it.features
		content[fBase] -= it.framing
		content[fCalls], content[fResults], content[fOne] = 0, 0, 0
		share = c.estimate(content) / all
	}
	c.put(tk, min(n, roundCount(float64(n)*share)))
}

// features are what a message's cost is estimated from: its base count;
// the numbers of ASCII punctuation and symbol bytes, of ASCII digits and of
// pre-tokenizer pieces (weighted, see [pieces]) of its content; its numbers
// of tool calls and of tool results; and 1.
type features [nFeatures]float64

const nFeatures = 7

// Indices of features.
const (
	fBase    = iota // base count of content and framing
	fSymbol         // ASCII punctuation and symbol bytes
	fDigit          // ASCII digits
	fPiece          // pre-tokenizer pieces, weighted
	fCalls          // tool calls the message issues
	fResults        // tool results the message carries
	fOne            // 1 per message
)

func (f features) add(g features) features {
	for i := range f {
		f[i] += g[i]
	}
	return f
}

func (f features) dot(g features) float64 {
	var s float64
	for i := range f {
		s += f[i] * g[i]
	}
	return s
}

// textFeatures returns the features of a text whose base count is base.
func textFeatures(base float64, text string) features {
	est, sym, dig := pieces(text)
	return features{fBase: base, fSymbol: float64(sym), fDigit: float64(dig), fPiece: est}
}

// messageFeatures returns the framing features of m: its tool calls and
// results and 1.
func messageFeatures(m *Message) features {
	return features{fCalls: float64(len(m.ToolCallIDs)), fResults: float64(len(m.ToolResultIDs)), fOne: 1}
}

// Weights of [pieces] beyond one per piece, in tenths of a token: an
// all-capitals word costs this per capital beyond two, a word of five or
// more lower-case letters after a symbol (paths, snake_case) this once, a
// piece of symbols this per byte beyond three. They are rounded from the
// mean o200k_base counts of such pieces in the shared data.
const (
	pieceCapsWeight    = 5
	pieceSymWordWeight = 7
	pieceLongSymWeight = 4
)

// Byte classes of [pieces].
const (
	kBreak   = iota // \r, \n
	kSpace          // ' '
	kTab            // \t, \v, \f
	kUpper          // A–Z
	kLower          // a–z and every non-ASCII byte
	kDigit          // 0–9
	kSymbol         // ASCII punctuation and symbols
	kControl        // other ASCII control bytes: split as symbols
	nKinds
)

var pieceKind = func() (t [256]uint8) {
	for b := range 256 {
		switch {
		case b == '\n' || b == '\r':
			t[b] = kBreak
		case b == ' ':
			t[b] = kSpace
		case b == '\t' || b == '\v' || b == '\f':
			t[b] = kTab
		case 'A' <= b && b <= 'Z':
			t[b] = kUpper
		case 'a' <= b && b <= 'z' || b >= 0x80:
			t[b] = kLower
		case '0' <= b && b <= '9':
			t[b] = kDigit
		case '!' <= b && b <= '~':
			t[b] = kSymbol
		default:
			t[b] = kControl
		}
	}
	return t
}()

// pieces estimates the tokens of text from the pieces the pre-tokenizer of
// a byte-pair encoder splits it into before encoding (the split of
// o200k_base and cl100k_base, approximated over bytes, every non-ASCII
// byte taken for a lower-case letter), and counts its ASCII symbols and
// digits. The pieces are: a word (capitals then lower-case letters, so
// camelCase is two) with at most one leading space, tab or symbol; up to
// three digits; a run of symbols with at most one leading space and its
// trailing line breaks; white space up to its last line break; a run of
// spaces but its last, which joins a word or symbols that follow. The
// encoder never merges across pieces, and most pieces of agent
// transcripts (words, JSON punctuation, indentation) are one token each,
// so each counts 1, plus the weights of pieces that are often split
// (pieceCapsWeight and the others).
func pieces(s string) (est float64, symbols, digits int) {
	n, caps, symWords, longSym := 0, 0, 0, 0
	for i := 0; i < len(s); {
		n++
		c := pieceKind[s[i]]
		j := i // where the letters of a word start
		if c != kBreak && c != kUpper && c != kLower && c != kDigit && i+1 < len(s) {
			if next := pieceKind[s[i+1]]; next == kUpper || next == kLower {
				j++ // one leading space, tab or symbol joins a word
				if c == kSymbol {
					symbols++
				}
			}
		}
		k := j
		if first := pieceKind[s[j]]; first == kUpper || first == kLower {
			for k < len(s) && pieceKind[s[k]] == kUpper {
				k++
			}
			upper := k - j
			for k < len(s) && pieceKind[s[k]] == kLower {
				k++
			}
			switch {
			case upper == k-j && upper >= 3:
				caps += upper - 2
			case upper == 0 && j > i && (c == kSymbol || c == kControl) && k-j >= 5:
				symWords++
			}
			i = k
			continue
		}
		switch {
		case c == kDigit:
			for k < len(s) && k-i < 3 && pieceKind[s[k]] == kDigit {
				k++
			}
			digits += k - i
		case c == kSymbol || c == kControl || c == kSpace && i+1 < len(s) && (pieceKind[s[i+1]] == kSymbol || pieceKind[s[i+1]] == kControl):
			if c == kSymbol {
				symbols++
			}
			for k++; k < len(s); k++ {
				if kk := pieceKind[s[k]]; kk == kSymbol {
					symbols++
				} else if kk != kControl {
					break
				}
			}
			for k < len(s) && pieceKind[s[k]] == kBreak {
				k++
			}
			longSym += max(0, k-i-3)
		default: // white space
			lastBreak := -1
			for ; k < len(s); k++ {
				if kk := pieceKind[s[k]]; kk == kBreak {
					lastBreak = k
				} else if kk != kSpace && kk != kTab {
					break
				}
			}
			if lastBreak >= 0 {
				k = lastBreak + 1
			} else if k < len(s) && k-i > 1 {
				k-- // the last space or tab joins what follows
			}
		}
		i = k
	}
	tenths := 10*n + pieceCapsWeight*caps + pieceSymWordWeight*symWords + pieceLongSymWeight*longSym
	return float64(tenths) / 10, symbols, digits
}

// calibrationRidge is the weight of the prior in the fit, in observations:
// the penalty is this times the mean diagonal entry per observation of the
// normal matrix. It was chosen on the replay of tiktoken/README.md, where
// 0.5 to 2 do about equally well.
const calibrationRidge = 1.0

// calibrationImplausible is the factor by which an observation's report
// may fall short of what its messages cost at least before it is ignored
// as not their bill (see Observe).
const calibrationImplausible = 8

// calibrationFirstSlack is how much more than the fit to later calls the
// first calls of a conversation may cost before they count as carrying
// hidden tokens and are left out of the fit.
const calibrationFirstSlack = 1.1

// Prior shapes of the model: per piece, tool call, tool result and
// message for the default base (the harmony chat format's wrappers are 8
// and 6 tokens, its message frame 4); the base count alone otherwise.
var (
	priorEstimate = features{fPiece: 1, fCalls: 8, fResults: 6, fOne: 4}
	priorBase     = features{1}
)

// prior returns the prior shape for c's base.
func (c *CalibratedCounter) prior() features {
	switch b := c.base.(type) {
	case nil:
		return priorEstimate
	case *CachedTokenCounter:
		if b == nil || b.tc == nil { // a nil one counts as EstimateTokens too
			return priorEstimate
		}
	}
	return priorBase
}

// estimate returns the modelled count of a message with features f: its
// base count before the first fit. c.mu must be held.
func (c *CalibratedCounter) estimate(f features) float64 {
	if len(c.recent) == 0 {
		return f[0]
	}
	return max(0, c.theta.dot(f))
}

// fitted returns the number of observations in the window that the fit
// learns from besides first calls. c.mu must be held.
func (c *CalibratedCounter) fitted() int {
	n := 0
	for _, e := range c.recent {
		if !e.first {
			n++
		}
	}
	return n
}

// learn adds an observation's new messages to the window and refits the
// model. c.mu must be held.
func (c *CalibratedCounter) learn(n newContent) {
	if len(c.recent) < CalibrationWindow {
		c.recent = append(c.recent, n)
	} else {
		c.recent[c.next] = n
	}
	c.next = (c.next + 1) % CalibrationWindow
	// First calls include the provider's hidden tokens: fit without them,
	// and with them only if they agree with that fit.
	theta, ratio, ok := c.fit(false)
	if !ok {
		theta, ratio, _ = c.fit(true)
	} else if c.firstAgrees(theta) {
		theta, ratio, _ = c.fit(true)
	}
	c.theta, c.ratio = theta, ratio
}

// firstAgrees reports whether the first calls in the window cost no more
// than calibrationFirstSlack times what theta estimates for them.
func (c *CalibratedCounter) firstAgrees(theta features) bool {
	var att, est float64
	for _, e := range c.recent {
		if e.first {
			att += e.attributed
			est += theta.dot(e.features)
		}
	}
	return att <= est*calibrationFirstSlack
}

// fit fits the model to the observations in the window, first calls
// included or not, by least squares with each observation's error
// weighted by 1/size (relative error, so that one large tool result does
// not decide the fit alone) and a ridge penalty towards the prior shape
// scaled to the observations. ok is false when no observation is used.
// c.mu must be held.
func (c *CalibratedCounter) fit(first bool) (theta features, ratio float64, ok bool) {
	var a [nFeatures][nFeatures]float64
	var b, sum features
	var att float64
	used := 0
	for _, e := range c.recent {
		if e.first && !first {
			continue
		}
		used++
		x := e.features
		w := 1 / max(1, x[0])
		for j := range x {
			for k := range x {
				a[j][k] += w * x[j] * x[k]
			}
			b[j] += w * x[j] * e.attributed
		}
		att += e.attributed
		sum = sum.add(x)
	}
	if sum[0] == 0 {
		return theta, 0, false
	}
	p := c.prior()
	scaled := att / p.dot(sum)
	var tr float64
	for j := range a {
		tr += a[j][j]
	}
	rho := calibrationRidge * tr / float64(used)
	for j := range a {
		a[j][j] += rho
		b[j] += rho * scaled * p[j]
	}
	return solveNonNegative(a, b), att / sum[0], true
}

// solveNonNegative solves a·θ = b for θ ≥ 0: while a coefficient comes out
// negative, the most negative one is fixed at 0 and the rest solved again.
func solveNonNegative(a [nFeatures][nFeatures]float64, b features) features {
	var free [nFeatures]bool
	for j := range free {
		free[j] = true
	}
	for {
		theta, ok := solve(a, b, free)
		if !ok {
			return features{}
		}
		worst := -1
		for j := range theta {
			if free[j] && theta[j] < 0 && (worst < 0 || theta[j] < theta[worst]) {
				worst = j
			}
		}
		if worst < 0 {
			return theta
		}
		free[worst] = false
	}
}

// solve solves a·θ = b over the free coefficients (the others are 0) by
// Gaussian elimination with partial pivoting; ok is false when the
// system is singular or no coefficient is free.
func solve(a [nFeatures][nFeatures]float64, b features, free [nFeatures]bool) (theta features, ok bool) {
	var idx []int
	for j, f := range free {
		if f {
			idx = append(idx, j)
		}
	}
	n := len(idx)
	if n == 0 {
		return theta, false
	}
	var m [nFeatures][nFeatures + 1]float64
	for r, j := range idx {
		for c, k := range idx {
			m[r][c] = a[j][k]
		}
		m[r][n] = b[j]
	}
	for col := range n {
		p := col
		for r := col + 1; r < n; r++ {
			if math.Abs(m[r][col]) > math.Abs(m[p][col]) {
				p = r
			}
		}
		if m[p][col] == 0 {
			return theta, false
		}
		m[col], m[p] = m[p], m[col]
		for r := col + 1; r < n; r++ {
			f := m[r][col] / m[col][col]
			for c := col; c <= n; c++ {
				m[r][c] -= f * m[col][c]
			}
		}
	}
	for r := n - 1; r >= 0; r-- {
		v := m[r][n]
		for c := r + 1; c < n; c++ {
			v -= m[r][c] * theta[idx[c]]
		}
		theta[idx[r]] = v / m[r][r]
	}
	return theta, true
}

func roundCount(v float64) int {
	if math.IsNaN(v) || v <= 0 {
		return 0
	}
	if v >= math.MaxInt {
		return math.MaxInt
	}
	return int(math.Round(v))
}

// Ratio returns the tokens attributed to the new messages of the last
// [CalibrationWindow] observations over their base count: how far off the
// base is for this conversation. It is 1 before the first observation
// with new messages.
func (c *CalibratedCounter) Ratio() float64 {
	if c == nil {
		return 1
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ratio == 0 {
		return 1
	}
	return c.ratio
}

// Observations returns the number of observations accepted so far.
func (c *CalibratedCounter) Observations() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.count
}

// CountTokens returns the count remembered for text when it is the content
// of an observed message, and otherwise the model's estimate of text (its
// base count before the first observation), rounded to the nearest
// integer. A negative base count is returned as is (Compact reports it).
func (c *CalibratedCounter) CountTokens(text string) int {
	if c == nil {
		return EstimateTokens(text)
	}
	c.init()
	if n, ok := c.recall(c.textKey(text)); ok {
		return n
	}
	b := c.baseCounter().CountTokens(text)
	if b <= 0 {
		return b
	}
	return c.modelled(textFeatures(float64(b), text))
}

// FramingTokens returns, for an observed message, the count remembered for
// it minus [CalibratedCounter.CountTokens] of its content (at least 0), so
// that the two sum to what the provider was observed to bill for it. For
// any other message it returns the model's estimate of m's framing: from
// the base counter's framing of m when the base is a [FramingCounter], and
// the model's tokens per message; before the first observation, the base
// counter's framing (or 0). A nil m, or a nil receiver, counts 0.
func (c *CalibratedCounter) FramingTokens(m *Message) int {
	if c == nil || m == nil {
		return 0
	}
	c.init()
	if n, ok := c.recall(c.messageKey(m)); ok {
		return max(0, n-c.CountTokens(m.Content))
	}
	f := messageFeatures(m)
	if fc, ok := c.baseCounter().(FramingCounter); ok {
		b := fc.FramingTokens(m)
		if b < 0 {
			return b
		}
		f[0] = float64(b)
	}
	return c.modelled(f)
}

// recall returns the count remembered under k.
func (c *CalibratedCounter) recall(k uint64) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lookup(k)
}

// modelled returns the model's estimate of features f, rounded.
func (c *CalibratedCounter) modelled(f features) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.recent) == 0 {
		return int(f[0]) // the base count before the first fit
	}
	return roundCount(c.estimate(f))
}
