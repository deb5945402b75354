//go:build !amd64

package scan

const (
	accelerated    = false
	acceleratedInt = false
)

func dot3x4(q0, q1, q2, r0, r1, r2, r3 *float32, n int, out *[12]float32) {
	panic("scan: no accelerated kernel on this architecture")
}

func dot1x4(q, r0, r1, r2, r3 *float32, n int, out *[4]float32) {
	panic("scan: no accelerated kernel on this architecture")
}

func dotq3x4(q0, q1, q2 *int16, r0, r1, r2, r3 *int8, n int, out *[12]int32) {
	panic("scan: no accelerated kernel on this architecture")
}

func dotq1x4(q *int16, r0, r1, r2, r3 *int8, n int, out *[4]int32) {
	panic("scan: no accelerated kernel on this architecture")
}
