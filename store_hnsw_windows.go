//go:build windows

package chitta

// github.com/coder/hnsw does not build on Windows (its encode.go calls
// renameio.TempFile, which github.com/google/renameio leaves out there),
// so this build has no graphs: HNSWOptions.Crossover > 0 is refused (see
// HNSWOptions.resolve) and every Recall is an exact scan, as with the
// default options everywhere.

// graphs stands for a store's graphs; none is ever made.
type graphs struct{}

// built reports whether the graphs exist: never.
func (*graphs) built() bool { return false }

// graphsAvailable reports whether this build has the graphs.
const graphsAvailable = false

func (s *HNSWStore) graphAdd(int32)    {}
func (s *HNSWStore) buildGraphs()      {}
func (s *HNSWStore) graphDelete(int32) {}

func (s *HNSWStore) graphSearch([]float32, int) ([]int32, error) { return nil, nil }
