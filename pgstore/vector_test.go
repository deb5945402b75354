package pgstore

import (
	"go/parser"
	"go/token"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	// Only this test file (and other _test.go files) may import the root
	// module's internal packages: a dependency's test files are never
	// compiled into a user's build, so the user's pgstore and chitta
	// versions stay free to differ. The package code keeps private copies
	// (vector.go), and this test pins them to the root's behaviour.
	"github.com/chitta-go/chitta/internal/vecmath"
)

// TestNoRootInternalImports checks that the package code (not its tests)
// imports no internal package of the root module: pgstore is its own
// module, so such an import ties a pgstore release to the root's internal
// API (a root release that changes it breaks every older pgstore).
func TestNoRootInternalImports(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		require.NoError(t, err)
		f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			require.NoError(t, err)
			if rest, ok := strings.CutPrefix(path, "github.com/chitta-go/chitta/"); ok {
				assert.NotContains(t, "/"+rest+"/", "/internal/", "%s imports %s", name, path)
			}
		}
		checked++
	}
	require.NotZero(t, checked, "no package files found")
}

// vectorCases are fixed inputs at the edges of the kernels: empty and
// mismatched lengths, zero, NaN and infinite components, the float32
// extremes and subnormals, and signed zeros.
func vectorCases() [][2][]float32 {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	negZero := float32(math.Copysign(0, -1))
	return [][2][]float32{
		{nil, nil},
		{{}, {}},
		{{1}, {1, 2}},
		{{0, 0, 0}, {1, 2, 3}},
		{{1, 2, 3}, {0, 0, 0}},
		{{negZero, negZero}, {1, 1}},
		{{1, 0}, {0, 1}},
		{{1, 2, 3}, {1, 2, 3}},
		{{1, 2, 3}, {-1, -2, -3}},
		{{1, 2, 3}, {2, 4, 6}},
		{{1, 5}, {1, 5}},   // 1.0000000000000002 before the clamp
		{{1, 5}, {-1, -5}}, // -1.0000000000000002 before the clamp
		{{1, nan, 3}, {1, 2, 3}},
		{{1, 2, 3}, {inf, 2, 3}},
		{{-inf, 2}, {1, 2}},
		{{math.MaxFloat32, math.MaxFloat32}, {math.MaxFloat32, -math.MaxFloat32}},
		{{math.MaxFloat32, 1}, {math.MaxFloat32, 1}},
		{{math.SmallestNonzeroFloat32, 0}, {math.SmallestNonzeroFloat32, math.SmallestNonzeroFloat32}},
		{{1e-30, 2e-30, 3e-30}, {3e30, 2e30, 1e30}},
	}
}

// randomPair returns two vectors of length n (b of length m when m != n is
// asked for) with components spread over many magnitudes, and now and then
// a NaN, infinite, zero or extreme component.
func randomPair(rng *rand.Rand, n, m int) (a, b []float32) {
	specials := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)), math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32}
	fill := func(n int) []float32 {
		v := make([]float32, n)
		scale := math.Pow(10, float64(rng.IntN(61)-30))
		for i := range v {
			v[i] = float32(rng.NormFloat64() * scale)
		}
		if n > 0 && rng.IntN(4) == 0 {
			v[rng.IntN(n)] = specials[rng.IntN(len(specials))]
		}
		return v
	}
	return fill(n), fill(m)
}

func TestAllFiniteMatchesRoot(t *testing.T) {
	t.Parallel()
	for _, c := range vectorCases() {
		for _, v := range c {
			assert.Equal(t, vecmath.AllFinite(v), allFinite(v), "%v", v)
		}
	}
	rng := rand.New(rand.NewPCG(17, 1))
	for n := range 70 {
		for range 30 {
			v, _ := randomPair(rng, n, 0)
			assert.Equal(t, vecmath.AllFinite(v), allFinite(v), "%v", v)
		}
	}
}

func TestCosine64MatchesRoot(t *testing.T) {
	t.Parallel()
	check := func(a, b []float32) {
		t.Helper()
		want, got := vecmath.Cosine64(a, b), cosine64(a, b)
		assert.Equal(t, math.Float64bits(want), math.Float64bits(got), "cosine64(%v, %v) = %v, root %v", a, b, got, want)
	}
	for _, c := range vectorCases() {
		check(c[0], c[1])
		check(c[1], c[0])
	}
	rng := rand.New(rand.NewPCG(17, 2))
	for n := range 70 {
		for range 30 {
			m := n
			if rng.IntN(10) == 0 {
				m = rng.IntN(70)
			}
			a, b := randomPair(rng, n, m)
			check(a, b)
			// The same direction, or the opposite one, near ±1 where
			// rounding may leave [-1, 1] before the clamp.
			same, opposite := make([]float32, n), make([]float32, n)
			for i, x := range a {
				same[i], opposite[i] = 3*x, -x
			}
			check(a, same)
			check(a, opposite)
		}
	}
}
