package scan

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/viterin/vek/vek32"
)

func randVec(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

// TestDotsMatchesReference checks the accelerated path against RefDots
// over many shapes, including every edge: dims not a multiple of 8, query
// counts not a multiple of 3, row counts not a multiple of 4.
func TestDotsMatchesReference(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for range 400 {
		d, nq, nr := 1+r.IntN(70), 1+r.IntN(8), 1+r.IntN(10)
		qs, rows := randVec(r, nq*d), randVec(r, nr*d)
		got := Dots(nil, qs, rows, d)
		want := make([]float32, nq*nr)
		RefDots(want, qs, rows, d)
		require.Len(t, got, nq*nr)
		for i := range want {
			assert.InDelta(t, want[i], got[i], 1e-4*math.Sqrt(float64(d)), "d=%d nq=%d nr=%d i=%d", d, nq, nr, i)
		}
	}
}

func TestDotsKnownValues(t *testing.T) {
	t.Parallel()
	d := 9 // one full 8-lane block and a tail
	qs := make([]float32, 2*d)
	rows := make([]float32, 5*d)
	for i := range d {
		qs[i] = 1            // query 0: all ones
		qs[d+i] = float32(i) // query 1: 0…8
	}
	for r := range 5 {
		for i := range d {
			rows[r*d+i] = float32(r + 1)
		}
	}
	got := Dots(make([]float32, 1), qs, rows, d)
	for r := range 5 {
		assert.InDelta(t, float64(9*(r+1)), got[r*2], 1e-6)
		assert.InDelta(t, float64(36*(r+1)), got[r*2+1], 1e-6)
	}
}

func TestDotsDegenerate(t *testing.T) {
	t.Parallel()
	v := []float32{1, 2, 3}
	tests := []struct {
		name     string
		qs, rows []float32
		d, want  int
	}{
		{"zero d", v, v, 0, 0},
		{"negative d", v, v, -3, 0},
		{"no queries", nil, v, 3, 0},
		{"no rows", v, nil, 3, 0},
		{"short query", v[:2], v, 3, 0},
		{"ragged rows ignored", v, append(v, 9), 3, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Len(t, Dots(nil, tt.qs, tt.rows, tt.d), tt.want)
		})
	}
}

// BenchmarkDots scores 60 queries against 4096 rows of 384 dimensions: the
// blocked kernel against a loop of vek32.Dot calls (the baseline).
func BenchmarkDots(b *testing.B) {
	const d, nq, nr = 384, 60, 4096
	r := rand.New(rand.NewPCG(3, 4))
	qs, rows := randVec(r, nq*d), randVec(r, nr*d)
	dst := make([]float32, nq*nr)
	b.Run("kernel=blocked", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Dots(dst, qs, rows, d)
		}
	})
	b.Run("kernel=vek-dot", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i := range nr {
				row := rows[i*d : (i+1)*d]
				for j := range nq {
					dst[i*nq+j] = vek32.Dot(qs[j*d:(j+1)*d], row)
				}
			}
		}
	})
}
