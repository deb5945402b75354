package vecmath

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func randVec(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

// TestAgreesWithReference checks the vek kernels against the pure-Go
// references over random sizes 1–2048.
func TestAgreesWithReference(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		n := 1 + r.IntN(2048)
		a, b := randVec(r, n), randVec(r, n)
		tol := 1e-4 * float64(RefNorm(a)*RefNorm(b))
		assert.InDelta(t, RefDot(a, b), Dot(a, b), tol+1e-5, "dot n=%d", n)
		assert.InDelta(t, RefNorm(a), Norm(a), 1e-4*float64(RefNorm(a)), "norm n=%d", n)
		assert.InDelta(t, RefCosine(a, b), Cosine(a, b), 1e-4, "cosine n=%d", n)
		assert.InDelta(t, 1, Cosine(a, a), 1e-5, "self cosine n=%d", n)
	}
}

func TestGuards(t *testing.T) {
	t.Parallel()
	zero := make([]float32, 384)
	one := []float32{1, 2, 3}
	tests := []struct {
		name string
		a, b []float32
	}{
		{"both empty", nil, nil},
		{"one empty", nil, one},
		{"mismatched", one, []float32{1, 2}},
		{"zero vector", zero, zero},
		{"zero against non-zero", []float32{0, 0, 0}, one},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Zero(t, Cosine(tt.a, tt.b))
			assert.Zero(t, RefCosine(tt.a, tt.b))
			if len(tt.a) != len(tt.b) || len(tt.a) == 0 {
				assert.Zero(t, Dot(tt.a, tt.b))
				assert.Zero(t, RefDot(tt.a, tt.b))
			}
		})
	}
	assert.Zero(t, Norm(nil))
	assert.False(t, Normalize(nil))
	assert.False(t, Normalize(zero))
	nan := []float32{1, float32(math.NaN())}
	assert.False(t, Normalize(nan))
	assert.False(t, AllFinite([]float32{float32(math.Inf(-1))}))
	tiny := []float32{1e-30, 1e-30}
	require.True(t, Normalize(tiny), "float32 squares underflow; float64 rescues")
	assert.InDelta(t, math.Sqrt2/2, tiny[0], 1e-6)
	huge := []float32{3e38, -3e38}
	require.True(t, Normalize(huge))
	assert.InDelta(t, -math.Sqrt2/2, huge[1], 1e-6)
	big := []float32{3e38, 3e38}
	c := Cosine(big, big)
	assert.False(t, math.IsNaN(float64(c)))
}

func TestNormalize(t *testing.T) {
	t.Parallel()
	v := []float32{3, 4}
	require.True(t, Normalize(v))
	assert.InDelta(t, 0.6, v[0], 1e-6)
	assert.InDelta(t, 0.8, v[1], 1e-6)
	assert.InDelta(t, 1, Norm(v), 1e-6)
}

func TestDotBatch(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	q := randVec(r, 37)
	rows := randVec(r, 37*5+3) // a trailing partial row is ignored
	got := DotBatch(nil, q, rows)
	require.Len(t, got, 5)
	for i := range got {
		assert.InDelta(t, RefDot(q, rows[i*37:(i+1)*37]), got[i], 1e-3)
	}
	assert.Empty(t, DotBatch(nil, nil, rows))
	buf := make([]float32, 10)
	assert.Len(t, DotBatch(buf, q, rows), 5)
}

func FuzzCosine(f *testing.F) {
	f.Add([]byte{0, 0, 128, 63, 0, 0, 0, 0}, []byte{0, 0, 128, 63, 0, 0, 0, 0})
	f.Add([]byte{}, []byte{1})
	f.Fuzz(func(t *testing.T, x, y []byte) {
		a, b := floats(x), floats(y)
		c := Cosine(a, b)
		require.False(t, math.IsNaN(float64(c)) || math.IsInf(float64(c), 0))
		require.LessOrEqual(t, c, float32(1))
		require.GreaterOrEqual(t, c, float32(-1))
		d := Dot(a, b)
		require.False(t, math.IsNaN(float64(d)) || math.IsInf(float64(d), 0))
		if AllFinite(a) && len(a) == len(b) && len(a) > 0 {
			rc := RefCosine(a, b)
			// Within float32's comfortable range the kernels agree.
			if RefNorm(a) < 1e15 && RefNorm(b) < 1e15 && RefNorm(a) > 1e-15 && RefNorm(b) > 1e-15 && AllFinite(b) {
				require.InDelta(t, rc, c, 1e-3)
			}
		}
		n := append([]float32(nil), a...)
		if Normalize(n) {
			require.InDelta(t, 1, RefNorm(n), 1e-3)
		}
	})
}

func floats(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24)
	}
	return v
}

func BenchmarkCosine(b *testing.B) {
	for _, d := range []int{384, 1024} {
		r := rand.New(rand.NewPCG(7, uint64(d)))
		x, y := randVec(r, d), randVec(r, d)
		b.Run("d="+itoa(d)+"/impl=vek", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Cosine(x, y)
			}
		})
		b.Run("d="+itoa(d)+"/impl=ref", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				RefCosine(x, y)
			}
		})
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}
