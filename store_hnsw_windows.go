//go:build windows

package chitta

// github.com/coder/hnsw does not build on Windows (its encode.go calls
// renameio.TempFile, which github.com/google/renameio leaves out there),
// so this build has no graphs: HNSWOptions.Crossover > 0 is refused (see
// HNSWOptions.resolve) and every Recall is an exact scan, as with the
// default options everywhere.

// graph stands for a shard's graph; none is ever made.
type graph struct{}

// graphsAvailable reports whether this build has the graphs.
const graphsAvailable = false

func (s *HNSWStore) graphAdd(int32)    {}
func (s *HNSWStore) buildGraphs()      {}
func (s *HNSWStore) graphDelete(int32) {}

func (s *HNSWStore) graphSearch([]float32, int) ([]cand, error) { return nil, nil }
