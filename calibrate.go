package chitta

import (
	"math"
	"slices"
	"sync"
)

// Robustness parameters of [CalibratedCounter].
const (
	// CalibrationWindow is the number of most recent observed ratios whose
	// median an outlier is replaced with.
	CalibrationWindow = 16
	// CalibrationOutlier is the factor by which the latest observed ratio
	// may differ from the window's median before it counts as an outlier.
	CalibrationOutlier = 2.0
)

// CalibratedCounter is a [TokenCounter] that scales a base counter's counts
// by the ratio between what a provider reported and what the base counter
// counted for the same messages. Feed it the usage of every call with
// [CalibratedCounter.Observe].
//
// Its ratio is the latest observed ratio, unless that ratio is more than
// [CalibrationOutlier] times off the median of the last
// [CalibrationWindow] ratios, in which case it is that median: one odd
// observation (a call whose reported usage includes a large tool schema the
// messages do not show) does not move it, while the slow drift of an agent
// loop's mix of prose, code and JSON is followed at once. The latest ratio
// tracks better than a median because successive calls send nearly the same
// messages; on the shared data (tiktoken/README.md) the mean error after
// three observations is 1.5–4.6% with the latest ratio and 5.5–14% with
// the median of 16.
//
// Use it around [EstimateTokens] when no exact tokenizer exists for the
// provider's model (Anthropic, Gemini, local models), or around an exact
// counter for another encoding. Wrap the base in a [CachedTokenCounter]
// (not the other way round) so that re-counting stays cheap while the ratio
// moves.
//
// The zero value is ready to use: its base is EstimateTokens and its ratio
// 1 until the first observation. A CalibratedCounter is safe for concurrent
// use if its base is; it must not be copied after first use.
type CalibratedCounter struct {
	base TokenCounter

	mu      sync.Mutex
	samples []float64 // ring of the last CalibrationWindow ratios
	next    int       // ring position of the next sample
	ratio   float64   // current ratio; 0 before any observation
	count   int       // observations accepted
}

// NewCalibratedCounter returns a counter that scales base's counts. A nil
// base means EstimateTokens.
func NewCalibratedCounter(base TokenCounter) *CalibratedCounter {
	return &CalibratedCounter{base: base}
}

func (c *CalibratedCounter) baseCounter() TokenCounter {
	if c.base == nil {
		return TokenCounterFunc(EstimateTokens)
	}
	return c.base
}

// Observe records a call's usage: msgs are the messages sent (the same
// values that were counted), reportedInputTokens the input tokens the
// provider reported for that call. An observation whose reported count is
// not positive, or whose messages the base counts as 0 tokens, is ignored.
func (c *CalibratedCounter) Observe(msgs []Message, reportedInputTokens int) {
	if reportedInputTokens <= 0 {
		return
	}
	tc := c.baseCounter()
	var est float64
	for i := range msgs {
		if n := countMessage(tc, &msgs[i]); n > 0 {
			est += float64(n)
		}
	}
	if est == 0 {
		return
	}
	r := float64(reportedInputTokens) / est
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.samples) < CalibrationWindow {
		c.samples = append(c.samples, r)
	} else {
		c.samples[c.next] = r
	}
	c.next = (c.next + 1) % CalibrationWindow
	c.count++
	c.ratio = r
	if m := median(c.samples); r > m*CalibrationOutlier || r < m/CalibrationOutlier {
		c.ratio = m
	}
}

// median returns the median of xs (the mean of the middle two for an even
// length) without reordering xs.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Ratio returns the current scale factor: 1 before the first accepted
// observation.
func (c *CalibratedCounter) Ratio() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.count == 0 {
		return 1
	}
	return c.ratio
}

// Observations returns the number of observations accepted so far.
func (c *CalibratedCounter) Observations() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.count
}

// CountTokens returns the base count of text times the current ratio,
// rounded to the nearest integer. A negative base count is returned as is
// (Compact reports it).
func (c *CalibratedCounter) CountTokens(text string) int {
	return c.scale(c.baseCounter().CountTokens(text))
}

// FramingTokens returns the base counter's framing of m times the current
// ratio when the base is a [FramingCounter], and 0 otherwise.
func (c *CalibratedCounter) FramingTokens(m *Message) int {
	fc, ok := c.baseCounter().(FramingCounter)
	if !ok {
		return 0
	}
	return c.scale(fc.FramingTokens(m))
}

func (c *CalibratedCounter) scale(n int) int {
	if n <= 0 {
		return n
	}
	r := c.Ratio()
	if r == 1 {
		return n
	}
	v := math.Round(float64(n) * r)
	if v >= math.MaxInt {
		return math.MaxInt
	}
	return int(v)
}
