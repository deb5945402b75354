package adaptkit

// Reuse starts a conversation of n messages in b's memory from the last
// one, as a pooled Builder does in CompactBuilt.
func (b *Builder) Reuse(n int) {
	b.retire()
	b.reuse(n)
}

// Unplain is unplain, for its property test.
var Unplain = unplain

// Plain reports whether plain[c], the byte-at-a-time test Unplain matches.
func Plain(c byte) bool { return plain[c] }

// Encoder is the scratch memory a Builder encodes JSON with.
type Encoder = encoder

// For sets the tool and lane (0 other, 1 call, 2 result) of the values
// e encodes next, which pick the key set tried first.
func (e *Encoder) For(tool string, lane int) { e.tool, e.lane = tool, uint8(lane) }

// Append appends JSON(v) to dst with e's scratch memory and key sets.
func (e *Encoder) Append(dst []byte, v any) []byte { return appendJSON(dst, v, e) }

// StartMask begins a conversation of n messages in new memory in mask
// mode, as CompactBuilt does with Options.Mask set.
func (b *Builder) StartMask(n int) {
	b.Start(n)
	b.mk = new(maskBuild)
	b.mk.raw = make([]byte, 0, 64)
}

// ResultContents and DecodeContents read the tool_result contents of a
// synthetic Raw, by scanning and by encoding/json.
var ResultContents, DecodeContents = resultContents, decodeContents
