package scan

// QueryLimit returns the largest magnitude a query component may have for
// [DotsInt8] to be exact in int32 at d components: with every row component
// in [-128, 127], no partial sum can then exceed 2³¹−1. It is 32 767 up to
// d = 512 and shrinks as 2³¹/(128·d) beyond (4 095 at d = 4 096); d <= 0
// gives 32 767.
func QueryLimit(d int) int {
	if d <= 0 {
		return 32767
	}
	return min(32767, (1<<31-1)/(128*d))
}

// DotsInt8 writes into dst[r*nq+j] the exact integer dot product of row r
// of rows (int8) with query j of qs (int16), where qs holds nq = len(qs)/d
// queries and rows holds nr = len(rows)/d rows, each of d components,
// row-major. It returns dst[:nr*nq], reusing dst when it is large enough.
// The products are exact when every query component lies within
// ±[QueryLimit](d); beyond that they may wrap. d <= 0, or qs or rows
// shorter than one vector, gives an empty result; components beyond a
// whole multiple of d are ignored.
//
// On amd64 with AVX2 the kernels widen 16 row components at a time to
// int16 (VPMOVSXBW) and multiply-add them with the query (VPMADDWD) into
// int32 lanes, 3 queries × 4 rows or 1 query × 4 rows per pass; elsewhere,
// and for the last d mod 16 components, pure Go.
func DotsInt8(dst []int32, qs []int16, rows []int8, d int) []int32 {
	if d <= 0 || len(qs) < d || len(rows) < d {
		return dst[:0]
	}
	nq, nr := len(qs)/d, len(rows)/d
	if cap(dst) < nq*nr {
		dst = make([]int32, nq*nr)
	}
	dst = dst[:nq*nr]
	if acceleratedInt && d >= 16 {
		dotsInt8Blocked(dst, qs[:nq*d], rows[:nr*d], d, nq, nr)
		return dst
	}
	RefDotsInt8(dst, qs[:nq*d], rows[:nr*d], d)
	return dst
}

// RefDotsInt8 is the pure-Go reference for [DotsInt8]: dst must hold nr·nq
// values.
func RefDotsInt8(dst []int32, qs []int16, rows []int8, d int) {
	nq, nr := len(qs)/d, len(rows)/d
	for r := range nr {
		row := rows[r*d : (r+1)*d]
		for j := range nq {
			q := qs[j*d : (j+1)*d]
			var s int32
			for i := range row {
				s += int32(row[i]) * int32(q[i])
			}
			dst[r*nq+j] = s
		}
	}
}

// dotsInt8Blocked mirrors dotsBlocked for the integer kernels: whole
// triples of queries through the 3×4 kernel, the rest through the 1×4 one,
// the last row repeated to fill a block of 4, the first d16 = d − d%16
// components in assembly and the rest in Go.
func dotsInt8Blocked(dst []int32, qs []int16, rows []int8, d, nq, nr int) {
	d16 := d &^ 15
	full := nq - nq%3
	var out3 [12]int32
	var out1 [4]int32
	for r0 := 0; r0 < nr; r0 += 4 {
		var rp [4]*int8
		for i := range rp {
			rp[i] = &rows[min(r0+i, nr-1)*d]
		}
		nrows := min(4, nr-r0)
		for j0 := 0; j0 < full; j0 += 3 {
			dotq3x4(&qs[j0*d], &qs[(j0+1)*d], &qs[(j0+2)*d], rp[0], rp[1], rp[2], rp[3], d16, &out3)
			for ri := range nrows {
				for qi := range 3 {
					dst[(r0+ri)*nq+j0+qi] = out3[ri*3+qi] + tailInt8(rows, qs, r0+ri, j0+qi, d, d16)
				}
			}
		}
		for j := full; j < nq; j++ {
			dotq1x4(&qs[j*d], rp[0], rp[1], rp[2], rp[3], d16, &out1)
			for ri := range nrows {
				dst[(r0+ri)*nq+j] = out1[ri] + tailInt8(rows, qs, r0+ri, j, d, d16)
			}
		}
	}
}

// tailInt8 is the dot product of components d16…d−1 of row r and query j.
func tailInt8(rows []int8, qs []int16, r, j, d, d16 int) int32 {
	var s int32
	for i := d16; i < d; i++ {
		s += int32(rows[r*d+i]) * int32(qs[j*d+i])
	}
	return s
}
