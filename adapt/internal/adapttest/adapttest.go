// Package adapttest holds the checks every SDK adapter's tests share. It
// is test tooling above the library: only the adapters' _test.go files
// import it.
package adapttest

import (
	"context"
	"reflect"
	"testing"

	"github.com/chitta-go/chitta"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// CompactFunc is an adapter's Compact.
type CompactFunc[T any] func(ctx context.Context, msgs []T, opts *chitta.Options) ([]T, *chitta.Result, error)

// KeepsPairsAndValues compacts conversation() with compact at several
// ratios and checks that every returned value is the input value at its
// kept index (reflect.DeepEqual), that each group of indices (a call with
// its results) is kept or dropped as a whole, and that the input is not
// modified. conversation must build a fresh, equal conversation each call.
func KeepsPairsAndValues[T any](t *testing.T, conversation func() []T, compact CompactFunc[T], groups ...[]int) {
	t.Helper()
	in := conversation()
	for _, ratio := range []float64{0.05, 0.3, 0.6, 1} {
		out, res, err := compact(t.Context(), in, &chitta.Options{TargetRatio: ratio})
		require.NoError(t, err)
		require.Len(t, out, len(res.Kept))
		kept := map[int]bool{}
		for j, i := range res.Kept {
			kept[i] = true
			assert.True(t, reflect.DeepEqual(in[i], out[j]), "ratio %v: kept value %d is the input's", ratio, i)
		}
		for _, g := range groups {
			for _, i := range g[1:] {
				assert.Equal(t, kept[g[0]], kept[i], "ratio %v: message %d is kept with %d (one tool-call group)", ratio, i, g[0])
			}
		}
	}
	assert.True(t, reflect.DeepEqual(conversation(), in), "input not modified")
}
