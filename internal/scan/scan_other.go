//go:build !amd64

package scan

const accelerated = false

func dot3x4(q0, q1, q2, r0, r1, r2, r3 *float32, n int, out *[12]float32) {
	panic("scan: no accelerated kernel on this architecture")
}
