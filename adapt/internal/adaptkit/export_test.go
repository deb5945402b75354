package adaptkit

// Reuse starts a conversation of n messages in b's memory from the last
// one, as a pooled Builder does in CompactBuilt.
func (b *Builder) Reuse(n int) {
	b.retire()
	b.reuse(n)
}
