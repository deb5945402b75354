package vecmath

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

// refAllFinite is the obvious definition AllFinite must agree with.
func refAllFinite(a []float32) bool {
	for _, x := range a {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}

func TestAllFiniteMatchesReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, 0, float32(math.Copysign(0, -1))}
	for n := range 70 {
		for range 20 {
			a := make([]float32, n)
			for i := range a {
				a[i] = float32(rng.NormFloat64() * 1e30)
			}
			if n > 0 && rng.IntN(2) == 0 {
				a[rng.IntN(n)] = specials[rng.IntN(len(specials))]
			}
			assert.Equal(t, refAllFinite(a), AllFinite(a), "%v", a)
		}
	}
	assert.True(t, AllFinite(nil))
	assert.True(t, AllFinite([]float32{math.MaxFloat32, math.MaxFloat32, math.MaxFloat32, math.MaxFloat32, math.MaxFloat32}), "huge finite values do not overflow the check")
}
