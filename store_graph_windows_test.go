//go:build windows

package chitta_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// graphOptions checks that this build, which has no coder/hnsw graphs,
// refuses o when o asks for them, and returns o without them, so that a
// test of the graph path checks the exact path instead.
func graphOptions(t testing.TB, o *chitta.HNSWOptions) *chitta.HNSWOptions {
	if o == nil || o.Crossover == 0 {
		return o
	}
	_, err := chitta.NewHNSWStore(4, o)
	require.ErrorIs(t, err, chitta.ErrInvalidOption)
	exact := *o
	exact.Crossover = 0
	return &exact
}

// graphsBuilt reports whether HNSWOptions.Crossover > 0 is accepted.
const graphsBuilt = false
