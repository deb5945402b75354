// Package vecmath holds the float32 vector kernels chitta scores with: dot
// product, norm, cosine similarity and normalisation.
//
// Every function has a pure-Go reference (the Ref* functions) and an
// accelerated version over github.com/viterin/vek (AVX2/FMA when the CPU has
// it). The accelerated functions guard every input vek would panic on or turn
// into NaN: empty or mismatched slices and zero-norm vectors give 0, and no
// function ever returns NaN or ±Inf for finite input.
package vecmath

import (
	"math"

	"github.com/viterin/vek/vek32"
)

// Dot returns the dot product of a and b, or 0 when they are empty or of
// different lengths.
func Dot(a, b []float32) float32 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	return finite(vek32.Dot(a, b))
}

// Norm returns the Euclidean norm of a, or 0 when a is empty.
func Norm(a []float32) float32 {
	if len(a) == 0 {
		return 0
	}
	return finite(vek32.Norm(a))
}

// Cosine returns the cosine similarity of a and b in [-1, 1]. It returns 0
// when either vector is empty or has zero norm, or when their lengths differ.
func Cosine(a, b []float32) float32 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	// One fused float32 pass. A zero vector (0/0), or components so large
	// or small that float32 squares overflow or underflow, give NaN or ±Inf:
	// then recompute in float64, which handles the range (zero → 0).
	c := vek32.CosineSimilarity(a, b)
	if math.IsNaN(float64(c)) || math.IsInf(float64(c), 0) {
		return RefCosine(a, b)
	}
	return clampUnit(c)
}

// Normalize scales a in place to unit length and reports whether it could:
// an empty vector, a zero vector, or one with a NaN or infinite component is
// left unchanged and Normalize returns false.
func Normalize(a []float32) bool {
	if len(a) == 0 || !AllFinite(a) {
		return false
	}
	n := vek32.Norm(a)
	if n == 0 || math.IsInf(float64(n), 0) || math.IsNaN(float64(n)) {
		// float32 squares under- or overflowed: scale in float64.
		var s float64
		for _, x := range a {
			s += float64(x) * float64(x)
		}
		if s == 0 || math.IsInf(s, 0) {
			return false
		}
		inv := 1 / math.Sqrt(s)
		for i, x := range a {
			a[i] = float32(float64(x) * inv)
		}
		return true
	}
	vek32.MulNumber_Inplace(a, 1/n)
	return true
}

// AllFinite reports whether every component of a is neither NaN nor ±Inf.
func AllFinite(a []float32) bool {
	// x−x is 0 for every finite x and NaN for NaN and ±Inf; summing keeps
	// the loop free of branches (a NaN term makes the sum NaN).
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] - a[i]
		s1 += a[i+1] - a[i+1]
		s2 += a[i+2] - a[i+2]
		s3 += a[i+3] - a[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] - a[i]
	}
	return s0+s1+s2+s3 == 0
}

// DotBatch writes into dst[i] the dot product of q with row i of the
// row-major matrix rows (len(rows) = n·len(q)) and returns dst[:n]. It
// reuses dst when it is large enough. Rows beyond a whole multiple of
// len(q) are ignored; an empty q gives n zeros.
func DotBatch(dst []float32, q []float32, rows []float32) []float32 {
	d := len(q)
	if d == 0 {
		return dst[:0]
	}
	n := len(rows) / d
	if cap(dst) < n {
		dst = make([]float32, n)
	}
	dst = dst[:n]
	for i := range n {
		dst[i] = finite(vek32.Dot(q, rows[i*d:(i+1)*d]))
	}
	return dst
}

// RefDot is the pure-Go reference for [Dot], accumulating in float64.
func RefDot(a, b []float32) float32 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return finite(float32(s))
}

// RefNorm is the pure-Go reference for [Norm].
func RefNorm(a []float32) float32 {
	var s float64
	for _, x := range a {
		s += float64(x) * float64(x)
	}
	return finite(float32(math.Sqrt(s)))
}

// RefCosine is the pure-Go reference for [Cosine]: [Cosine64] rounded to
// float32.
func RefCosine(a, b []float32) float32 {
	return float32(Cosine64(a, b))
}

// Cosine64 returns the cosine similarity of a and b accumulated in float64,
// in [-1, 1]: exact enough to report as a similarity. Empty, mismatched or
// zero-norm input gives 0, and so does input whose squares overflow float64.
func Cosine64(a, b []float32) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	c := dot / (math.Sqrt(na) * math.Sqrt(nb))
	if math.IsNaN(c) || math.IsInf(c, 0) {
		return 0
	}
	return max(-1, min(1, c))
}

// finite maps NaN and ±Inf (overflow on extreme input) to 0.
func finite(x float32) float32 {
	if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
		return 0
	}
	return x
}

func clampUnit(x float32) float32 {
	switch {
	case math.IsNaN(float64(x)):
		return 0
	case x > 1:
		return 1
	case x < -1:
		return -1
	}
	return x
}
