//go:build unix

package benchcpu

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCPUTimeAdvances(t *testing.T) {
	t.Parallel()
	start, ok := cpuTime()
	require.True(t, ok, "getrusage works on a Unix system")
	x := 0
	for i := range 50_000_000 { // tens of milliseconds of CPU
		x ^= i * i
	}
	end, ok := cpuTime()
	require.True(t, ok)
	assert.Greater(t, end, start, "spinning used CPU time (x=%d)", x)
}
