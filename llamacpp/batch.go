package llamacpp

import (
	"fmt"
	"math"
)

// span is a half-open range [start, end) of text indices encoded together.
type span struct{ start, end int }

// plan packs consecutive texts with the given token counts into batches of
// at most maxTokens tokens and maxSeqs texts; a text with more than
// maxTokens tokens gets a batch of its own (the caller sizes the context
// for the longest allowed text). The result covers all texts in order.
func plan(counts []int, maxTokens, maxSeqs int) []span {
	var out []span
	start, tokens := 0, 0
	for i, n := range counts {
		if i > start && (tokens+n > maxTokens || i-start >= maxSeqs) {
			out = append(out, span{start, i})
			start, tokens = i, 0
		}
		tokens += n
	}
	if start < len(counts) {
		out = append(out, span{start, len(counts)})
	}
	return out
}

// truncate cuts tokens to at most limit, keeping the final token in last
// place when keepLast is set (the SEP or EOS a tokenizer appends).
func truncate(tokens []int32, limit int, keepLast bool) []int32 {
	if len(tokens) <= limit {
		return tokens
	}
	last := tokens[len(tokens)-1]
	tokens = tokens[:limit]
	if keepLast && limit > 0 {
		tokens[limit-1] = last
	}
	return tokens
}

// finish checks that v is a finite, non-zero vector and, when normalize is
// set, scales it to unit L2 norm in place.
func finish(v []float32, normalize bool) error {
	var sum float64
	for i, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%w: component %d is %v", ErrEncode, i, x)
		}
		sum += f * f
	}
	if sum == 0 {
		return fmt.Errorf("%w: zero vector", ErrEncode)
	}
	if normalize {
		inv := 1 / math.Sqrt(sum)
		for i := range v {
			v[i] = float32(float64(v[i]) * inv)
		}
	}
	return nil
}

// withPrefix returns texts with prefix prepended to each, or texts itself
// when prefix is empty.
func withPrefix(texts []string, prefix string) []string {
	if prefix == "" {
		return texts
	}
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = prefix + t
	}
	return out
}
