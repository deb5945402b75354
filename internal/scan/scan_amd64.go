package scan

import "golang.org/x/sys/cpu"

var (
	accelerated    = cpu.X86.HasAVX2 && cpu.X86.HasFMA
	acceleratedInt = cpu.X86.HasAVX2
)

// dot3x4 sets out[r*3+q] to the dot product of the first n components (n a
// multiple of 8) of row r (r0…r3) and query q (q0…q2).
//
//go:noescape
func dot3x4(q0, q1, q2, r0, r1, r2, r3 *float32, n int, out *[12]float32)

// dot1x4 sets out[r] to the dot product of the first n components (n a
// multiple of 8) of row r (r0…r3) and q.
//
//go:noescape
func dot1x4(q, r0, r1, r2, r3 *float32, n int, out *[4]float32)

// dotq3x4 sets out[r*3+q] to the integer dot product of the first n
// components (n a multiple of 16) of int8 row r (r0…r3) and int16 query q
// (q0…q2).
//
//go:noescape
func dotq3x4(q0, q1, q2 *int16, r0, r1, r2, r3 *int8, n int, out *[12]int32)

// dotq1x4 sets out[r] to the integer dot product of the first n components
// (n a multiple of 16) of int8 row r (r0…r3) and int16 query q.
//
//go:noescape
func dotq1x4(q *int16, r0, r1, r2, r3 *int8, n int, out *[4]int32)
