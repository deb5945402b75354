package chitta

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMatrixPages grows a matrix over several pages and checks that every
// row keeps its values, that spans stop at page ends and at hi, and that
// only the last page is short.
func TestMatrixPages(t *testing.T) {
	t.Parallel()
	for _, d := range []int{3, 97, 4096, 1 << 16} {
		m := newMatrix[int8](d)
		n := 2*m.per + m.per/2 + 1
		if d == 1<<16 {
			n = 2*m.per + 1
		}
		for i := range n {
			m.grow()
			r := m.row(i)
			if len(r) != d || r[0] != 0 {
				require.Failf(t, "bad new row", "d=%d row %d: len %d, first %d", d, i, len(r), r[0])
			}
			r[0], r[d-1] = int8(i), int8(i>>8)
		}
		for i := range n {
			if r := m.row(i); r[0] != int8(i) || r[d-1] != int8(i>>8) {
				require.Failf(t, "row lost its values", "d=%d row %d", d, i)
			}
		}
		for lo := 0; lo < n; {
			rows, end := m.span(lo, n)
			require.Greater(t, end, lo)
			require.Len(t, rows, (end-lo)*d)
			assert.True(t, end == n || end%m.per == 0, "a span ends at hi or a page end")
			assert.Equal(t, int8(lo), rows[0])
			assert.Equal(t, int8(end-1), rows[(end-lo-1)*d])
			lo = end
		}
		_, end := m.span(1, 2)
		assert.Equal(t, min(2, m.per), end, "a span stops at hi")
		for _, p := range m.pages[:len(m.pages)-1] {
			assert.Len(t, p, m.per*d, "every page but the last is full")
		}
		assert.LessOrEqual(t, cap(m.pages[len(m.pages)-1]), m.per*d)
	}
}
