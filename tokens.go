package chitta

import (
	"hash/maphash"
	"math"
	"sync"
	"unicode"
	"unicode/utf8"
)

// TokenCounter counts the tokens of a message's [Message.Content]. Plug in
// an exact tokenizer through [Options.Tokens]; the default is
// [EstimateTokens]. Implementations must be safe for concurrent use and must
// not return a negative count.
type TokenCounter interface {
	CountTokens(text string) int
}

// TokenCounterFunc adapts a function to [TokenCounter]. It is as safe for
// concurrent use as the function is. A nil TokenCounterFunc counts as
// [EstimateTokens], as a nil [Options.Tokens] does.
type TokenCounterFunc func(text string) int

// CountTokens returns f(text), or EstimateTokens(text) when f is nil.
func (f TokenCounterFunc) CountTokens(text string) int {
	if f == nil {
		return EstimateTokens(text)
	}
	return f(text)
}

// EstimateTokens returns floor(words × 1.3), where a word is a maximal run of
// non-whitespace (Unicode white space). It is the spec's estimate, cheap and
// deterministic; invalid UTF-8 bytes count as word characters.
func EstimateTokens(text string) int {
	return CountWords(text) * 13 / 10
}

// CountWords returns the number of maximal runs of non-whitespace in text.
func CountWords(text string) int {
	// Branch-free over ASCII: a word starts where a non-space follows a
	// space (or the start of text).
	words := 0
	prev := uint8(1) // 1 when the previous rune was white space
	for i := 0; i < len(text); {
		c := text[i]
		var space uint8
		if c < utf8.RuneSelf {
			space = asciiSpace[c]
			i++
		} else {
			r, n := utf8.DecodeRuneInString(text[i:])
			if r != utf8.RuneError && unicode.IsSpace(r) {
				space = 1
			}
			i += n
		}
		words += int(prev &^ space)
		prev = space
	}
	return words
}

var asciiSpace = [utf8.RuneSelf]uint8{'\t': 1, '\n': 1, '\v': 1, '\f': 1, '\r': 1, ' ': 1}

// CachedTokenCounter is a [TokenCounter] that remembers the count of every
// text it has counted, so that re-compacting a conversation that grew by a
// few turns counts only the new turns. Use it as [Options.Tokens] in an
// agent loop, especially around an exact tokenizer, which is far slower
// than [EstimateTokens].
//
// Counts are keyed by a [maphash] hash of the text (random per-instance
// seed) and its length; texts are not kept. The cache holds two
// generations of at most capacity entries each: when the current one is
// full it becomes the old one and the previous old one is dropped, and a
// hit in the old generation moves the entry forward. So the counts of the
// last capacity distinct texts are always kept. [Compact] grows the
// capacity to the number of messages it is given (also when the
// CachedTokenCounter is the base of the [CalibratedCounter] set as
// [Options.Tokens]), so re-compacting a conversation longer than the
// initial capacity still finds every count; the capacity never shrinks
// (memory: about 40 bytes per entry, at most two generations).
//
// The zero value is ready to use: it wraps EstimateTokens with
// DefaultCacheCapacity. A nil *CachedTokenCounter counts with
// EstimateTokens and caches nothing. A CachedTokenCounter is safe for concurrent use if
// the wrapped counter is; the lock is not held while the wrapped counter
// runs. Negative counts are passed through and not cached.
type CachedTokenCounter struct {
	tc       TokenCounter
	capacity int

	once     sync.Once
	seed     maphash.Seed
	mu       sync.Mutex
	cur, old map[cacheKey]int
}

// NewCachedTokenCounter returns a cache of the counts of tc, keeping at
// least capacity texts. A nil tc means EstimateTokens; capacity <= 0 means
// DefaultCacheCapacity.
func NewCachedTokenCounter(tc TokenCounter, capacity int) *CachedTokenCounter {
	return &CachedTokenCounter{tc: tc, capacity: capacity}
}

// CountTokens returns the wrapped counter's count of text, computing it only
// the first time text is seen (while it stays cached).
func (c *CachedTokenCounter) CountTokens(text string) int {
	if c == nil {
		return EstimateTokens(text)
	}
	c.init()
	// One 64-bit hash plus the length: a wrong count needs a collision of
	// both, ~2⁻⁶⁴ per pair of texts — cheaper than CachedEmbedder's 128-bit
	// key, and a count is worth less than a vector.
	k := cacheKey{maphash.String(c.seed, text), uint64(len(text))}
	c.mu.Lock()
	n, ok := c.cur[k]
	if !ok {
		if n, ok = c.old[k]; ok {
			c.put(k, n)
		}
	}
	c.mu.Unlock()
	if ok {
		return n
	}
	if c.tc == nil {
		n = EstimateTokens(text)
	} else {
		n = c.tc.CountTokens(text)
	}
	if n >= 0 {
		c.mu.Lock()
		c.put(k, n)
		c.mu.Unlock()
	}
	return n
}

func (c *CachedTokenCounter) init() {
	c.once.Do(func() {
		c.seed = maphash.MakeSeed()
		if c.capacity <= 0 {
			c.capacity = DefaultCacheCapacity
		}
		c.cur = make(map[cacheKey]int)
	})
}

// reserve grows the capacity to at least n texts: the working set of a
// Compact call over n messages.
func (c *CachedTokenCounter) reserve(n int) {
	if c == nil {
		return
	}
	c.init()
	c.mu.Lock()
	c.capacity = max(c.capacity, n)
	c.mu.Unlock()
}

// reserver is implemented by token counters that size themselves to a
// call's working set (CachedTokenCounter).
type reserver interface{ reserve(n int) }

// put stores a count in the current generation, rotating generations when
// it is full. c.mu must be held.
func (c *CachedTokenCounter) put(k cacheKey, n int) {
	if len(c.cur) >= c.capacity {
		c.old, c.cur = c.cur, make(map[cacheKey]int, c.capacity)
	}
	c.cur[k] = n
}

// FramingCounter is a [TokenCounter] that also knows the tokens a provider
// bills around each message besides its [Message.Content]: the role, the
// start/end markers of the chat template, the wrappers of tool calls and
// tool results. When [Options.Tokens] implements it, [Compact] counts a
// message as CountTokens(m.Content) + FramingTokens(m). The tiktoken
// sub-module's Counter implements it; [CachedTokenCounter] and
// [CalibratedCounter] pass it through from the counter they wrap.
//
// FramingTokens must be safe for concurrent use, must not modify m, and
// must not return a negative count. Compact never passes a nil m; the
// implementations in this module and the tiktoken sub-module count it as 0.
type FramingCounter interface {
	TokenCounter
	FramingTokens(m *Message) int
}

// countMessage returns the tokens of m under tc: its Content, plus its
// framing when tc is a FramingCounter, plus its MediaTokens. A negative
// part makes the result negative; the sum saturates at math.MaxInt.
func countMessage(tc TokenCounter, m *Message) int {
	n := tc.CountTokens(m.Content)
	if n < 0 {
		return n
	}
	if fc, ok := tc.(FramingCounter); ok {
		f := fc.FramingTokens(m)
		if f < 0 {
			return f
		}
		n = addTokens(n, f)
	}
	if m.MediaTokens < 0 {
		return m.MediaTokens
	}
	return addTokens(n, m.MediaTokens)
}

// addTokens returns a + b for counts a, b >= 0, saturating at math.MaxInt.
func addTokens(a, b int) int {
	if b > math.MaxInt-a {
		return math.MaxInt
	}
	return a + b
}

// FramingTokens returns the wrapped counter's framing of m when it is a
// [FramingCounter], and 0 otherwise (framing is cheap to count and is not
// cached). With a nil receiver or a nil m it returns 0.
func (c *CachedTokenCounter) FramingTokens(m *Message) int {
	if c == nil || m == nil {
		return 0
	}
	if fc, ok := c.tc.(FramingCounter); ok {
		return fc.FramingTokens(m)
	}
	return 0
}
