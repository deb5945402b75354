// Package scan computes the dot products of a few query vectors with every
// row of a row-major matrix: the inner loop of an exact nearest-neighbour
// scan. On amd64 with AVX2 and FMA it uses a register-blocked kernel (3
// queries × 4 rows per pass, so each loaded row and query serves several
// products); elsewhere, and for the tail of each row, pure Go.
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

// dotsBlocked runs the 3×4 kernel over the matrix. Missing queries or rows
// at the edges are filled in by repeating the last one (its products are
// computed and discarded), so the kernel needs no edge cases. The kernel
// covers the first d8 = d − d%8 components; Go adds the rest.
func dotsBlocked(dst, qs, rows []float32, d, nq, nr int) {
	d8 := d &^ 7
	var out [12]float32
	for r0 := 0; r0 < nr; r0 += 4 {
		var rp [4]*float32
		for i := range rp {
			rp[i] = &rows[min(r0+i, nr-1)*d]
		}
		for j0 := 0; j0 < nq; j0 += 3 {
			var qp [3]*float32
			for i := range qp {
				qp[i] = &qs[min(j0+i, nq-1)*d]
			}
			dot3x4(qp[0], qp[1], qp[2], rp[0], rp[1], rp[2], rp[3], d8, &out)
			for ri := range min(4, nr-r0) {
				r := r0 + ri
				for qi := range min(3, nq-j0) {
					j := j0 + qi
					s := out[ri*3+qi]
					if d8 < d {
						row, q := rows[r*d:(r+1)*d], qs[j*d:(j+1)*d]
						for i := d8; i < d; i++ {
							s += row[i] * q[i]
						}
					}
					dst[r*nq+j] = s
				}
			}
		}
	}
}
