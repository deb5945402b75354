package chitta

import "unsafe"

// matrixPageBytes is the size of a full page of a [matrix].
const matrixPageBytes = 4 << 20

// matrix is a row-major matrix of rows of d components, kept in pages of
// per rows (about 4 MiB each) rather than one slice: adding a row never
// copies more than the last page, and at most part of the last page is
// spare capacity (a single slice growing by 1.25× wastes 0–25% of
// everything, 8% of the float32 vectors at 100 000 memories). Every page
// but the last is full; the last doubles up to a full page. The zero value
// is not usable; use newMatrix.
type matrix[T float32 | int8] struct {
	pages [][]T
	d     int
	per   int // rows per full page
}

func newMatrix[T float32 | int8](d int) matrix[T] {
	var zero T
	return matrix[T]{d: d, per: max(1, matrixPageBytes/(d*int(unsafe.Sizeof(zero))))}
}

// row returns row i (aliasing the page).
func (m *matrix[T]) row(i int) []T {
	o := (i % m.per) * m.d
	return m.pages[i/m.per][o : o+m.d : o+m.d]
}

// span returns rows lo… as one contiguous slice, up to hi or the end of
// lo's page, whichever comes first, and the index after the last row.
func (m *matrix[T]) span(lo, hi int) ([]T, int) {
	end := min(hi, (lo/m.per+1)*m.per)
	o := (lo % m.per) * m.d
	return m.pages[lo/m.per][o : o+(end-lo)*m.d], end
}

// grow appends one zero row.
func (m *matrix[T]) grow() {
	last := len(m.pages) - 1
	if last < 0 || len(m.pages[last]) == m.per*m.d {
		m.pages = append(m.pages, make([]T, m.d, min(m.per, 4)*m.d))
		return
	}
	p := m.pages[last]
	if cap(p) < len(p)+m.d {
		np := make([]T, len(p), min(m.per*m.d, 2*cap(p)))
		copy(np, p)
		p = np
	}
	m.pages[last] = p[:len(p)+m.d]
}
