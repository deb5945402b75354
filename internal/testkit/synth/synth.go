// Package synth generates deterministic synthetic embeddings for tests and
// benchmarks: uniformly random unit vectors and clustered unit vectors that
// resemble sentence embeddings (many near-duplicates around topic centres).
package synth

import (
	"math"
	"math/rand/v2"
)

// Spec describes a clustered data set. The zero value of each field means
// the documented default.
type Spec struct {
	// Seed makes the output deterministic; equal Specs give equal vectors.
	Seed uint64
	// Dims is the vector length. 0 means 384.
	Dims int
	// Clusters is the number of cluster centres. 0 means max(1, n/100)
	// for n vectors.
	Clusters int
	// Spread is the standard deviation of the per-component noise added to
	// a centre, relative to the centre's unit length spread over Dims
	// components (noise vector norm ≈ Spread). 0 means 0.6, which gives a
	// typical cosine of about 0.75 between a point and its centre.
	Spread float64
}

func (s Spec) withDefaults(n int) Spec {
	if s.Dims <= 0 {
		s.Dims = 384
	}
	if s.Clusters <= 0 {
		s.Clusters = max(1, n/100)
	}
	if s.Spread <= 0 {
		s.Spread = 0.6
	}
	return s
}

// Clustered returns n unit vectors of s.Dims components drawn around
// s.Clusters random centres, and a function that draws further points
// (queries) from the same distribution with its own deterministic stream.
// The returned slices are freshly allocated and owned by the caller.
func Clustered(s Spec, n int) (vecs [][]float32, draw func() []float32) {
	s = s.withDefaults(n)
	rng := rand.New(rand.NewPCG(s.Seed, 0x9e3779b97f4a7c15))
	centres := make([][]float32, s.Clusters)
	for i := range centres {
		centres[i] = Random(rng, s.Dims)
	}
	sigma := s.Spread / math.Sqrt(float64(s.Dims))
	point := func(r *rand.Rand) []float32 {
		c := centres[r.IntN(len(centres))]
		v := make([]float32, s.Dims)
		for j := range v {
			v[j] = c[j] + float32(r.NormFloat64()*sigma)
		}
		normalise(v)
		return v
	}
	vecs = make([][]float32, n)
	for i := range vecs {
		vecs[i] = point(rng)
	}
	qrng := rand.New(rand.NewPCG(s.Seed, 0xda942042e4dd58b5))
	return vecs, func() []float32 { return point(qrng) }
}

// Random returns a uniformly random unit vector of dims components.
func Random(rng *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	for {
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		if normalise(v) {
			return v
		}
	}
}

// Uniform returns n uniformly random unit vectors of dims components from a
// deterministic stream seeded by seed.
func Uniform(seed uint64, n, dims int) [][]float32 {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([][]float32, n)
	for i := range out {
		out[i] = Random(rng, dims)
	}
	return out
}

func normalise(v []float32) bool {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return false
	}
	inv := float32(1 / math.Sqrt(s))
	for j := range v {
		v[j] *= inv
	}
	return true
}
