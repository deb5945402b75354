package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/storepath"
)

// manyMessages returns a messages array of n short user and assistant
// messages (about 60 bytes each).
func manyMessages(n int) string {
	var b strings.Builder
	b.Grow(n * 64)
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		fmt.Fprintf(&b, `{"role":"%s","content":"message %d about topic %d"}`, role, i, i%97)
	}
	b.WriteByte(']')
	return b.String()
}

func FuzzJSONShape(f *testing.F) {
	for _, s := range []string{`[]`, `[ ]`, `[1]`, `[1,[2,3],{"a":[4]}]`, `{"a":1,"b":"x,y]"}`, `["\"],[", 2]`, `[[[[]]]]`, `"s"`, `7`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		depth, n := jsonShape(data)
		var arr []json.RawMessage
		if json.Unmarshal(data, &arr) == nil {
			assert.Equal(t, len(arr), n, "elements of %s", data)
			assert.Equal(t, len(arr), countElements(data))
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(data, &obj) == nil && !bytes.Contains(data, []byte(`\`)) && len(obj) == strings.Count(string(data), `":`) {
			assert.Equal(t, len(obj), n, "members of %s", data)
		}
		// Depth: nest the value once more and it grows by one.
		d2, _ := jsonShape(append(append([]byte("["), data...), ']'))
		assert.Equal(t, depth+1, d2)
	})
}

// TestMessageCap: a compact_context call over maxMessages is refused with
// a tool error (isError) naming the cap, in both modes; one at the cap is
// answered.
func TestMessageCap(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	over := `{"messages":` + manyMessages(maxMessages+1) + `}`
	res, err := a.callTool(t.Context(), "compact_context", json.RawMessage(over))
	assert.Contains(t, argError(t, res, err), fmt.Sprintf("%d messages, more than the %d", maxMessages+1, maxMessages))

	req := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"compact_context","arguments":` + over + `}}`
	rs := runSession(t, a, maxLineLength, initializeLine, initializedLine, req)
	assert.Contains(t, wireArgError(t, byID(t, rs, "1")), fmt.Sprint(maxMessages))

	res, err = a.callTool(t.Context(), "compact_context", json.RawMessage(`{"messages":`+manyMessages(2000)+`,"target_ratio":0.1}`))
	require.NoError(t, err)
	assert.False(t, res.IsError)
}

// TestRememberRejectsInvalidUTF8: remember refuses text or kind that is
// not UTF-8, naming the field, as compact_context refuses such messages
// (decoding replaced the bytes with U+FFFD and stored that).
func TestRememberRejectsInvalidUTF8(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, args, field string }{
		{name: "text", args: "{\"text\":\"caf\xe9\"}", field: "text"},
		{name: "kind", args: "{\"text\":\"ok\",\"kind\":\"f\xffct\"}", field: "kind"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, saves := newTestApp(t)
			resp := a.answer(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"remember","arguments":`+tt.args+`}}`))
			assert.Contains(t, answerArgError(t, resp), tt.field+": not valid UTF-8")

			rs := runSession(t, a, 1<<20, initializeLine, initializedLine,
				`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"remember","arguments":`+tt.args+`}}`)
			assert.Contains(t, wireArgError(t, byID(t, rs, "2")), tt.field)
			assert.Zero(t, a.store.Len())
			assert.Zero(t, saves.Load())
		})
	}
}

// TestSaveErrorSaidOnce: a failed save reads "save store: …" once in the
// tool's error (it read "save store: save store: …").
func TestSaveErrorSaidOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	link := filepath.Join(dir, "m.chitta")
	store, err := storepath.OpenShared(link, testDims)
	require.NoError(t, err)
	a := newApp(store, chitta.NewHashEmbedder(testDims), store.Save, nil)
	// The path becomes a link to nothing after start.
	require.NoError(t, os.Symlink(filepath.Join(dir, "gone", "m.chitta"), link))
	res, err := a.callTool(t.Context(), "remember", json.RawMessage(`{"text":"x"}`))
	require.NoError(t, err)
	require.True(t, res.IsError)
	text := textOf(t, res)
	assert.Equal(t, 1, strings.Count(text, "save store"), text)
}
