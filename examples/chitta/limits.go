package main

import (
	"encoding/json"
	"errors"
	"io"
	"slices"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxMessages is the most messages one compact_context call may carry, in
// both modes. Compaction holds every message's text, tokens and vector at
// once (a few KB each), so the cap keeps one request to a few hundred MB; a
// longer conversation is refused (a tool error, isError) naming the cap,
// before any of it is parsed.
const maxMessages = 100_000

// checkMessageCount refuses a messages array (valid JSON) holding more
// than maxMessages elements.
func checkMessageCount(array []byte) *jsonrpc.Error {
	if n := countElements(array); n > maxMessages {
		return invalidParams("messages: %d messages, more than the %d one call may carry (compact the conversation in parts)", n, maxMessages)
	}
	return nil
}

// countElements returns the number of elements of the valid JSON array
// data, without decoding them.
func countElements(data []byte) int {
	_, n := jsonShape(data)
	return n
}

// jsonShape returns the deepest nesting of objects and arrays in the valid
// JSON text data, and the number of elements (or members) of the
// outermost array (or object), without decoding anything.
func jsonShape(data []byte) (depth, elements int) {
	level, commas, nonEmpty := 0, 0, false
	inString, escaped := false, false
	for _, b := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		if level == 1 {
			switch b {
			case ',':
				commas++
			case ' ', '\t', '\n', '\r', ']', '}':
			default:
				nonEmpty = true
			}
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			level++
			depth = max(depth, level)
		case '}', ']':
			level--
		}
	}
	if nonEmpty {
		elements = commas + 1
	}
	return depth, elements
}

// checkUTF8Fields refuses tool arguments (a JSON object) whose bytes are not
// valid UTF-8, naming the first field at fault: decoding would silently
// replace the bad bytes, storing text the caller never sent.
func checkUTF8Fields(args json.RawMessage) *jsonrpc.Error {
	if utf8.Valid(args) {
		return nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(args, &fields) == nil {
		names := make([]string, 0, len(fields))
		for name := range fields {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			if !utf8.Valid(fields[name]) {
				return invalidParams("%s: not valid UTF-8 (JSON text must be UTF-8)", name)
			}
		}
	}
	return invalidParams("arguments: not valid UTF-8 (JSON text must be UTF-8)")
}

// errTooLarge reports a first request on stdin longer than maxLineLength.
var errTooLarge = errors.New("request too large")

// cappedReader fails with errTooLarge once left bytes have been read
// through it, until left is set negative (no limit): it bounds what
// reading the first request buffers (a string that never ends would
// otherwise take all memory).
type cappedReader struct {
	r    io.Reader
	left int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left < 0 {
		return c.r.Read(p)
	}
	if c.left == 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}
