// Package scan computes the dot products of a few query vectors with every
// row of a row-major matrix: the inner loop of an exact nearest-neighbour
// scan. On amd64 with AVX2 and FMA it uses register-blocked kernels (3
// queries × 4 rows, or 1 query × 4 rows, per pass, so each loaded vector
// serves several products); elsewhere, and for the last d mod 8 components
// of each row, pure Go.
//
// Dots never panics on well-formed input and checks its arguments: it
// returns an error-free zero-length result for empty input instead of
// reading out of bounds.
package scan

// Dots writes into dst[r*nq+j] the dot product of row r of rows with query
// j of qs, where qs holds nq = len(qs)/d queries and rows holds
// nr = len(rows)/d rows, each of d components, row-major. It returns
// dst[:nr*nq], reusing dst when it is large enough. d <= 0, or qs or rows
// shorter than one vector, gives an empty result; components beyond a
// whole multiple of d are ignored.
func Dots(dst, qs, rows []float32, d int) []float32 {
	if d <= 0 || len(qs) < d || len(rows) < d {
		return dst[:0]
	}
	nq, nr := len(qs)/d, len(rows)/d
	if cap(dst) < nq*nr {
		dst = make([]float32, nq*nr)
	}
	dst = dst[:nq*nr]
	if accelerated && d >= 8 {
		dotsBlocked(dst, qs[:nq*d], rows[:nr*d], d, nq, nr)
		return dst
	}
	RefDots(dst, qs[:nq*d], rows[:nr*d], d)
	return dst
}

// RefDots is the pure-Go reference for [Dots]: dst must hold nr·nq values.
func RefDots(dst, qs, rows []float32, d int) {
	nq, nr := len(qs)/d, len(rows)/d
	for r := range nr {
		row := rows[r*d : (r+1)*d]
		for j := range nq {
			q := qs[j*d : (j+1)*d]
			var s float32
			for i := range row {
				s += row[i] * q[i]
			}
			dst[r*nq+j] = s
		}
	}
}

// dotsBlocked runs the 3×4 kernel over whole triples of queries and the
// 1×4 kernel over the one or two queries left. Missing rows at the end are
// filled in by repeating the last row (its products are computed and
// discarded), so the kernels need no edge cases. They cover the first
// d8 = d − d%8 components; Go adds the rest.
func dotsBlocked(dst, qs, rows []float32, d, nq, nr int) {
	d8 := d &^ 7
	full := nq - nq%3
	var out3 [12]float32
	var out1 [4]float32
	for r0 := 0; r0 < nr; r0 += 4 {
		var rp [4]*float32
		for i := range rp {
			rp[i] = &rows[min(r0+i, nr-1)*d]
		}
		nrows := min(4, nr-r0)
		for j0 := 0; j0 < full; j0 += 3 {
			dot3x4(&qs[j0*d], &qs[(j0+1)*d], &qs[(j0+2)*d], rp[0], rp[1], rp[2], rp[3], d8, &out3)
			for ri := range nrows {
				for qi := range 3 {
					dst[(r0+ri)*nq+j0+qi] = out3[ri*3+qi] + tail(rows, qs, r0+ri, j0+qi, d, d8)
				}
			}
		}
		for j := full; j < nq; j++ {
			dot1x4(&qs[j*d], rp[0], rp[1], rp[2], rp[3], d8, &out1)
			for ri := range nrows {
				dst[(r0+ri)*nq+j] = out1[ri] + tail(rows, qs, r0+ri, j, d, d8)
			}
		}
	}
}

// tail is the dot product of components d8…d−1 of row r and query j.
func tail(rows, qs []float32, r, j, d, d8 int) float32 {
	var s float32
	for i := d8; i < d; i++ {
		s += rows[r*d+i] * qs[j*d+i]
	}
	return s
}
