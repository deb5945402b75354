package scan

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func randInt8(r *rand.Rand, n int, extreme bool) []int8 {
	v := make([]int8, n)
	for i := range v {
		if extreme {
			v[i] = []int8{-128, 127}[r.IntN(2)]
		} else {
			v[i] = int8(r.IntN(256) - 128)
		}
	}
	return v
}

func randInt16(r *rand.Rand, n, limit int, extreme bool) []int16 {
	v := make([]int16, n)
	for i := range v {
		if extreme {
			v[i] = int16([]int{-limit, limit}[r.IntN(2)])
		} else {
			v[i] = int16(r.IntN(2*limit+1) - limit)
		}
	}
	return v
}

// TestDotsInt8MatchesReference checks the accelerated integer kernels
// against RefDotsInt8 bit for bit over many shapes (dims not a multiple of
// 16 or 32, query counts not a multiple of 3, row counts not a multiple of
// 4, dims up to 4 096) and over extreme components at the query limit,
// where any wrap-around would show.
func TestDotsInt8MatchesReference(t *testing.T) {
	t.Parallel()
	t.Logf("accelerated integer kernels: %v", acceleratedInt)
	r := rand.New(rand.NewPCG(5, 6))
	for it := range 600 {
		d := 1 + r.IntN(100)
		if it%10 == 0 {
			d = 1 + r.IntN(4096)
		}
		nq, nr := 1+r.IntN(8), 1+r.IntN(10)
		extreme := it%4 == 0
		qs := randInt16(r, nq*d, QueryLimit(d), extreme)
		rows := randInt8(r, nr*d, extreme)
		got := DotsInt8(nil, qs, rows, d)
		want := make([]int32, nq*nr)
		RefDotsInt8(want, qs, rows, d)
		require.Equal(t, want, got, "d=%d nq=%d nr=%d extreme=%v", d, nq, nr, extreme)
	}
}

// TestQueryLimitNoOverflow checks that the worst case at the limit, every
// product (−128)·(−limit), stays within int32 at every d up to 65 536.
func TestQueryLimitNoOverflow(t *testing.T) {
	t.Parallel()
	for _, d := range []int{1, 16, 512, 513, 1000, 4096, 65536} {
		lim := QueryLimit(d)
		assert.LessOrEqual(t, int64(lim)*128*int64(d), int64(1<<31-1), "d=%d", d)
		assert.LessOrEqual(t, lim, 32767)
		assert.Positive(t, lim)
	}
	assert.Equal(t, 32767, QueryLimit(0))
}

func TestDotsInt8KnownValues(t *testing.T) {
	t.Parallel()
	const d = 17 // one 16-lane block and a tail
	qs := make([]int16, 2*d)
	rows := make([]int8, 5*d)
	for i := range d {
		qs[i] = 1
		qs[d+i] = int16(i)
	}
	for r := range 5 {
		for i := range d {
			rows[r*d+i] = int8(r + 1)
		}
	}
	got := DotsInt8(make([]int32, 1), qs, rows, d)
	for r := range 5 {
		assert.Equal(t, int32(17*(r+1)), got[r*2])
		assert.Equal(t, int32(136*(r+1)), got[r*2+1])
	}
}

func TestDotsInt8Degenerate(t *testing.T) {
	t.Parallel()
	q := []int16{1, 2, 3}
	v := []int8{1, 2, 3}
	tests := []struct {
		name    string
		qs      []int16
		rows    []int8
		d, want int
	}{
		{"zero d", q, v, 0, 0},
		{"negative d", q, v, -3, 0},
		{"no queries", nil, v, 3, 0},
		{"no rows", q, nil, 3, 0},
		{"short query", q[:2], v, 3, 0},
		{"ragged rows ignored", q, append(v, 9), 3, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Len(t, DotsInt8(nil, tt.qs, tt.rows, tt.d), tt.want)
		})
	}
}

// BenchmarkDotsInt8 runs the integer kernels on the shapes of
// BenchmarkDots (60 queries and 1 query against 4 096 rows of 384
// dimensions), with the float32 blocked kernel as the baseline in the same
// family.
func BenchmarkDotsInt8(b *testing.B) {
	const d, nr = 384, 4096
	for _, nq := range []int{60, 1} {
		r := rand.New(rand.NewPCG(3, 4))
		qs, rows := randInt16(r, nq*d, QueryLimit(d), false), randInt8(r, nr*d, false)
		fq, frows := randVec(r, nq*d), randVec(r, nr*d)
		dst := make([]int32, nq*nr)
		fdst := make([]float32, nq*nr)
		b.Run(fmt.Sprintf("queries=%d/kernel=int8", nq), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				DotsInt8(dst, qs, rows, d)
			}
		})
		b.Run(fmt.Sprintf("queries=%d/kernel=float32", nq), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Dots(fdst, fq, frows, d)
			}
		})
	}
}
