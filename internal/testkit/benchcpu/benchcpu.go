// Package benchcpu reports a benchmark's CPU time per operation beside its
// wall-clock time. On a shared machine the wall clock also counts the time
// a benchmark waits for a core; the process's CPU time does not, so its
// ratios between two benchmarks of one run are the steadier figure. It is
// imported only by _test.go files.
package benchcpu

import "testing"

// Start starts measuring the process's CPU time (user and system, every
// thread: GC workers included); the function it returns reports it per
// operation as the metric "cpu-ns/op". Call it as
// `defer benchcpu.Start(b)()` before the b.Loop loop. Where the CPU time
// is not available (not a Unix system) nothing is reported.
func Start(b *testing.B) func() {
	start, ok := cpuTime()
	return func() {
		end, ok2 := cpuTime()
		if ok && ok2 && b.N > 0 {
			b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
		}
	}
}
