//go:build !unix

package claudecode

// openNonBlock is 0 where there are no FIFOs to block on.
const openNonBlock = 0
