package pgstore

import "math"

// The vector kernels the store needs, kept here rather than imported from
// the root module's internal/vecmath: pgstore is a module of its own, and
// an import of another module's internal package ties every pgstore
// release to that package as it was (a root release that changes it would
// break older pgstores). vector_test.go checks that these agree with
// vecmath bit for bit on fixed and random inputs.

// allFinite reports whether every component of v is neither NaN nor ±Inf,
// as vecmath.AllFinite does.
func allFinite(v []float32) bool {
	for _, x := range v {
		if x-x != 0 { // NaN for NaN and ±Inf, 0 for every finite x
			return false
		}
	}
	return true
}

// cosine64 returns the cosine similarity of a and b accumulated in
// float64, in [-1, 1], as vecmath.Cosine64 does: empty, mismatched or
// zero-norm input gives 0, and so does input with a NaN or infinite
// component (whose result would be NaN).
func cosine64(a, b []float32) float64 {
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
