package scan

import "golang.org/x/sys/cpu"

var accelerated = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// dot3x4 sets out[r*3+q] to the dot product of the first n components (n a
// multiple of 8) of row r (r0…r3) and query q (q0…q2).
//
//go:noescape
func dot3x4(q0, q1, q2, r0, r1, r2, r3 *float32, n int, out *[12]float32)
