//go:build !windows

package chitta_test

import (
	"testing"

	"github.com/chitta-go/chitta"
)

// graphOptions returns o: this build has the coder/hnsw graphs (see
// store_graph_windows_test.go for the build that does not).
func graphOptions(_ testing.TB, o *chitta.HNSWOptions) *chitta.HNSWOptions { return o }

// graphsBuilt reports whether HNSWOptions.Crossover > 0 is accepted.
const graphsBuilt = true
