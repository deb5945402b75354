package synth_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta/internal/testkit/synth"
	"github.com/chitta-go/chitta/internal/vecmath"
)

func TestClustered(t *testing.T) {
	t.Parallel()
	spec := synth.Spec{Seed: 7, Dims: 64, Clusters: 4}
	a, drawA := synth.Clustered(spec, 200)
	b, drawB := synth.Clustered(spec, 200)
	require.Len(t, a, 200)
	assert.Equal(t, a, b, "same spec, same vectors")
	assert.Equal(t, drawA(), drawB(), "same spec, same queries")
	c, _ := synth.Clustered(synth.Spec{Seed: 8, Dims: 64, Clusters: 4}, 200)
	assert.NotEqual(t, a, c, "another seed, other vectors")

	var nearest, mean float64
	for i, v := range a {
		require.Len(t, v, 64)
		assert.InDelta(t, 1, vecmath.RefNorm(v), 1e-5)
		best := -1.0
		for j, w := range a {
			if i != j {
				s := float64(vecmath.RefCosine(v, w))
				best = math.Max(best, s)
				mean += s
			}
		}
		nearest += best
	}
	nearest /= 200
	mean /= 200 * 199
	// Clustered: a point's nearest neighbour is far closer than average.
	assert.Greater(t, nearest, 0.5)
	assert.Greater(t, nearest-mean, 0.3)
}

func TestUniform(t *testing.T) {
	t.Parallel()
	u := synth.Uniform(1, 50, 384)
	require.Len(t, u, 50)
	assert.Equal(t, u, synth.Uniform(1, 50, 384))
	for i, v := range u {
		assert.InDelta(t, 1, vecmath.RefNorm(v), 1e-5)
		if i > 0 {
			assert.Less(t, math.Abs(float64(vecmath.RefCosine(v, u[0]))), 0.3, "random 384-d vectors are nearly orthogonal")
		}
	}
	def, _ := synth.Clustered(synth.Spec{}, 10)
	assert.Len(t, def[0], 384, "default dims")
}
