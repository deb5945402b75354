package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRun(t *testing.T) {
	t.Parallel()
	in := `goos: linux
pkg: github.com/chitta-go/chitta/internal/vecmath
BenchmarkCosine/d=384/impl=vek-2   4783921   48.40 ns/op   0 B/op   0 allocs/op
pkg: github.com/chitta-go/chitta
BenchmarkEstimateTokens/impl=chitta-2   100   5021962 ns/op   208.80 MB/s   0 B/op   0 allocs/op
BenchmarkCompact/msgs=60/embed=none-2   100   151859 ns/op   2531 ns/msg   32944 B/op   103 allocs/op
PASS
`
	var out strings.Builder
	require.NoError(t, run(strings.NewReader(in), &out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 5)
	assert.Equal(t, "| package | benchmark | ns/op | MB/s | B/op | allocs/op | ns/msg |", lines[0])
	assert.Equal(t, "| internal/vecmath | Cosine/d=384/impl=vek | 48.40 |  | 0 | 0 |  |", lines[2])
	assert.Equal(t, "| chitta | Compact/msgs=60/embed=none | 151859 |  | 32944 | 103 | 2531 |", lines[4])
}
