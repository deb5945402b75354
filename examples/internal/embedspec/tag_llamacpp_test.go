//go:build cgo && llamacpp

package embedspec

const llamaBuilt = true
