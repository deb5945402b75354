package tiktoken

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
	"github.com/tiktoken-go/tokenizer"

	"github.com/chitta-go/chitta"
)

// The encodings New accepts.
const (
	O200kBase  = "o200k_base"  // GPT-4o, GPT-4.1, GPT-5, o1, o3, o4-mini
	Cl100kBase = "cl100k_base" // GPT-4, GPT-3.5-turbo, text-embedding-3
)

// ErrUnknownEncoding reports an encoding name New does not know.
var ErrUnknownEncoding = errors.New("tiktoken: unknown encoding")

// Framing constants of the chat template, in tokens (see the package
// documentation).
const (
	messageMarkers = 3 // <|start|>, <|message|>, <|end|>
	channelMarker  = 1 // <|channel|>
)

// encoding is one loaded encoding, shared by every Counter of that name.
type encoding struct {
	name   string
	once   sync.Once
	codec  tokenizer.Codec
	err    error
	call   int // header of a tool call beyond its name and arguments
	result int // header of a tool result beyond its content

	// Built on the first multi-break run (see runs.go).
	runsOnce sync.Once
	wsRanks  map[string]uint32 // BPE ranks of the tokens made of white-space bytes
	split    *regexp2.Regexp   // o200k_base's split expression, for markAbsorbs
}

var encodings = map[string]*encoding{
	O200kBase:  {},
	Cl100kBase: {},
}

// Counter counts tokens in one encoding. Create it with [New]; the zero
// value, and a nil *Counter, count in o200k_base. A Counter is safe for
// concurrent use; all Counters of one encoding share its tables, which are
// loaded once per process.
type Counter struct {
	name string
	enc  *encoding
}

// New returns a Counter for the named encoding, o200k_base or cl100k_base.
// The encoding's tables are built on the first call for that name (about
// 25 ms for o200k_base) and shared afterwards.
func New(name string) (*Counter, error) {
	enc, ok := encodings[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q, want %s or %s", ErrUnknownEncoding, name, O200kBase, Cl100kBase)
	}
	enc.once.Do(func() { enc.load(name) })
	if enc.err != nil {
		return nil, fmt.Errorf("load %s: %w", name, enc.err)
	}
	return &Counter{name: name, enc: enc}, nil
}

func (e *encoding) load(name string) {
	e.name = name
	e.codec, e.err = tokenizer.Get(tokenizer.Encoding(name))
	if e.err != nil {
		return
	}
	c := &Counter{name: name, enc: e}
	e.call = c.CountTokens(" to=functions.") + channelMarker + c.CountTokens("commentary json")
	e.result = c.CountTokens(" to=assistant") + channelMarker + c.CountTokens("commentary")
}

// encoding returns c's loaded encoding: o200k_base for the zero value
// and for nil.
func (c *Counter) encoding() *encoding {
	if c != nil && c.enc != nil {
		return c.enc
	}
	e := encodings[O200kBase]
	e.once.Do(func() { e.load(O200kBase) })
	return e
}

// Encoding returns the encoding's name.
func (c *Counter) Encoding() string {
	if c == nil || c.name == "" {
		return O200kBase
	}
	return c.name
}

// CountTokens returns the number of tokens of text, as OpenAI's tiktoken
// counts them. Special-token text such as "<|endoftext|>" is counted as
// ordinary text, as providers do for user content; each byte that is not
// valid UTF-8 counts as U+FFFD, the character encoding/json sends in its
// place. If the encoder fails (it has no known failing input), the count is
// len(text), an upper bound. The first text holding a run of white space
// with several line breaks and other white space between them builds a
// table of the encoding's white-space tokens (about 50 ms, once per process
// and encoding).
func (c *Counter) CountTokens(text string) int {
	if text == "" {
		return 0
	}
	e := c.encoding()
	if e.err != nil {
		return len(text)
	}
	if strings.IndexByte(text, 0x7f) >= 0 { // see "Exactness"
		text = strings.ReplaceAll(text, "\x7f", "\x1f")
	}
	n, done := 0, 0
	for from := 0; ; {
		s, end := e.nextRun(text, done, from)
		if s < 0 {
			break
		}
		n += e.count(text[done:s]) + bpeCount(e.runs().wsRanks, text[s:end])
		done, from = end, end
	}
	return n + e.count(text[done:])
}

// count counts text, which holds no multi-break run, with the codec.
func (e *encoding) count(text string) int {
	n := 0
	for len(text) > 0 {
		cut := nextCut(text)
		k, err := e.codec.Count(text[:cut])
		if err != nil {
			k = cut
		}
		n += k
		text = text[cut:]
	}
	return n
}

// minChunk is the length, in bytes, from which CountTokens cuts its text
// at the next safe place (see nextCut).
const minChunk = 256

// nextCut returns the length of the first chunk CountTokens counts on its
// own: all of text, or its first minChunk or more bytes up to the first
// place safeCut accepts.
//
// The encoder's split expression rescans the rest of a run of white space
// for each piece it returns, and a run that mixes line breaks with other
// white space (" \n \n…", blank lines holding a space) has a piece per
// line: such a run cost time quadratic in its length (a run of 1 MiB took
// about 8 minutes). CountTokens now counts those runs itself (runs.go), so
// the text it gives the encoder has at most a few pieces per run; cutting it
// every minChunk bytes keeps the time linear all the same.
func nextCut(text string) int {
	for i := minChunk; i < len(text); i++ {
		if safeCut(text, i) {
			return i
		}
	}
	return len(text)
}

// safeCut reports whether text[i-1] is a line break and text[i:] starts
// with other white space. The encoder's counts of text[:i] and text[i:]
// then add up to its count of text, because its split expression ends a
// piece there (TestSafeCutAddsUp and FuzzSafeCut check the counts against
// the encoder's count of the whole text). OpenAI's expression ends one
// there too unless a line break follows in the same run of white space, a
// multi-break run, which CountTokens counts apart and never cuts.
func safeCut(text string, i int) bool {
	if i <= 0 || i >= len(text) || text[i-1] != '\n' && text[i-1] != '\r' {
		return false
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return r != '\n' && r != '\r' && unicode.IsSpace(r)
}

// FramingTokens returns the tokens a provider bills around m besides its
// Content: the message frame and role, and the headers of its tool calls
// and tool results, as the package documentation describes. A nil m
// counts 0.
func (c *Counter) FramingTokens(m *chitta.Message) int {
	if m == nil {
		return 0
	}
	e := c.encoding()
	frame := messageMarkers + c.CountTokens(string(m.Role))
	n := frame
	if k := len(m.ToolCallIDs); k > 0 {
		n += k*e.call + (k-1)*frame
	}
	if k := len(m.ToolResultIDs); k > 0 {
		n += k*e.result + (k-1)*frame
	}
	return n
}

var _ chitta.FramingCounter = (*Counter)(nil)
