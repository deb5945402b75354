package adaptkit_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/internal/adaptkit"
)

// TestMaskRawReadsBack is the property masking through the adapters
// relies on: for any sequence of pieces (tool references included), in
// mask mode, the synthetic Raw
// of a message holding a declared result is valid JSON that
// chitta.ParseMessages reads back as exactly the message's Content, with
// the message's tool IDs; every Raw is valid JSON; and a message with neither
// tool IDs nor a result role has none.
func TestMaskRawReadsBack(t *testing.T) {
	t.Parallel()
	roles := []chitta.Role{chitta.RoleUser, chitta.RoleAssistant, chitta.RoleTool}
	words := []string{"", " ", "\n\t", "a", " b ", "read_file", "ü\u2028", "x\ny", `q"uote\`, "<tag>&", "\xff"}
	args := []any{nil, "s", map[string]any{"path": "a.go", "n": 2.0}, []any{}, 3, map[string]any{"cmd": "ls <d>"}}
	for trial := range 500 {
		rng := rand.New(rand.NewPCG(17, uint64(trial)))
		word := func() string { return words[rng.IntN(len(words))] }
		n := 1 + rng.IntN(8)
		var b adaptkit.Builder
		b.StartMask(n)
		full := make([]bool, n) // a declared result in the general path
		for i := range n {
			if rng.IntN(4) == 0 {
				r, id := roles[rng.IntN(len(roles))], "id"+word()
				switch rng.IntN(3) {
				case 0:
					b.Message(r, word())
				case 1:
					b.ResultMessage(r, id, word())
				case 2:
					b.CallMessage(r, id, word(), args[rng.IntN(len(args))])
				}
				continue
			}
			b.SetRole(roles[rng.IntN(len(roles))])
			open := false
			for range rng.IntN(6) {
				switch rng.IntN(8) {
				case 0:
					b.Add(word())
				case 1:
					b.CallID("c" + word())
					b.AddCall(word(), word())
				case 2:
					b.CallID("c" + word())
					b.AddCallJSON("tool", args[rng.IntN(len(args))])
				case 3:
					b.AddJSON(args[rng.IntN(len(args))])
				case 4:
					if open {
						b.CloseResult()
					} else {
						b.ResultID("r" + word())
						b.OpenResult("r")
						full[i] = true
					}
					open = !open
				case 5:
					b.AddResultJSON("tool", args[rng.IntN(len(args))])
				case 6:
					b.CallName("cn", "tool")
				case 7:
					b.AddReference(word()) // a tool_reference block inside a result
				}
			}
			if open {
				b.CloseResult()
			}
			b.End()
		}
		out := b.Finish()
		for i, m := range out {
			if m.Raw == nil {
				assert.True(t, len(m.ToolCallIDs)+len(m.ToolResultIDs) == 0 && m.Role != chitta.RoleTool, "trial %d message %d: no Raw, no linkage", trial, i)
				continue
			}
			require.True(t, json.Valid(m.Raw), "trial %d message %d: %s", trial, i, m.Raw)
			if !full[i] {
				continue
			}
			if bytes.Count(m.Raw, []byte(`{"type":`)) == 1 && bytes.HasSuffix(m.Raw, []byte(`"content":""}]}`)) {
				// one result and nothing else: chitta reads it from Content
				assert.Len(t, m.ToolResultIDs, 1, "trial %d message %d: a whole result", trial, i)
				assert.Empty(t, m.ToolCallIDs, "trial %d message %d: a whole result", trial, i)
				continue
			}
			parsed, err := chitta.ParseMessages(append(append([]byte{'['}, m.Raw...), ']'))
			require.NoError(t, err, "trial %d message %d: %s", trial, i, m.Raw)
			assert.Equal(t, strings.ToValidUTF8(m.Content, "\uFFFD"), parsed[0].Content, "trial %d message %d: %s", trial, i, m.Raw)
		}
	}
}

func TestRewrittenTexts(t *testing.T) {
	t.Parallel()
	orig := `{"role":"user","content":[{"type":"text","text":"t"},{"type":"tool_result","tool_use_id":"a","content":"long"},{"type":"tool_result","tool_use_id":"b","content":[{"type":"text","text":"x"}]}]}`
	for _, tc := range []struct {
		name, masked string
		want         []string
		err          string
	}{
		{"one masked", `{"role":"user","content":[{"type":"text","text":"t"},{"type":"tool_result","tool_use_id":"a","content":"[chitta: p]"},{"type":"tool_result","tool_use_id":"b","content":[{"type":"text","text":"x"}]}]}`, []string{"[chitta: p]", ""}, ""},
		{"both", `{"role":"user","content":[{"type":"text","text":"t"},{"type":"tool_result","tool_use_id":"a","content":"p1"},{"type":"tool_result","tool_use_id":"b","content":"p2"}]}`, []string{"p1", "p2"}, ""},
		{"unchanged", orig, []string{"", ""}, ""},
		{"a result lost", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"p"}]}`, nil, "2 results, masked 1"},
		{"not a string", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":[]},{"type":"tool_result","tool_use_id":"b","content":[]}]}`, nil, "not a non-empty string"},
		{"empty", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":""},{"type":"tool_result","tool_use_id":"b","content":[{"type":"text","text":"x"}]}]}`, nil, "not a non-empty string"},
		{"other layout, decoded", `{"content": [{"type": "tool_result", "content": "p1"}, {"content": "p2", "type": "tool_result"}]}`, []string{"p1", "p2"}, ""},
		{"invalid", `{"content":[`, nil, "masked"},
	} {
		got, err := adaptkit.RewrittenTexts(json.RawMessage(orig), json.RawMessage(tc.masked))
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, got, tc.name)
	}
}

// FuzzRewrittenTexts: reading the rewritten results back never panics;
// without error, it gives one text per tool_result block, non-empty
// exactly where the content changed.
func FuzzRewrittenTexts(f *testing.F) {
	f.Add(`{"content":[{"type":"tool_result","content":""}]}`, `{"content":[{"type":"tool_result","content":"[chitta: x output elided (3 tokens)]"}]}`)
	f.Add(`{"content":[{"type":"text","text":"a"},{"type":"tool_result","content":"o"}]}`, `{"content":[{"type":"text","text":"a"},{"type":"tool_result","content":"o"}]}`)
	f.Add(`{"content":"s"}`, `{"content":null}`)
	f.Add(`[]`, `{}`)
	f.Fuzz(func(t *testing.T, orig, masked string) {
		texts, err := adaptkit.RewrittenTexts(json.RawMessage(orig), json.RawMessage(masked))
		if err != nil {
			return
		}
		a, err := adaptkit.ResultContents(json.RawMessage(orig))
		require.NoError(t, err)
		b, err := adaptkit.ResultContents(json.RawMessage(masked))
		require.NoError(t, err)
		require.Len(t, texts, len(a), "one text per tool_result block")
		for k := range texts {
			require.Equal(t, !bytes.Equal(a[k], b[k]), texts[k] != "", "result %d: a text exactly where the content changed", k)
		}
		if orig == masked {
			for _, s := range texts {
				require.Empty(t, s)
			}
		}
		for _, s := range texts {
			if s != "" {
				require.True(t, json.Valid([]byte(masked)))
			}
		}
	})
}

// FuzzResultContents: on any Raw the Builder writes (text, declared
// results of one and of two pieces, a call), and on it with a result's content
// replaced by a JSON string as chitta's rewrite does, scanning for the
// tool_result blocks finds what decoding finds.
func FuzzResultContents(f *testing.F) {
	f.Add("text", "output", "name", `{"a":"b"}`, "[chitta: x output elided (3 tokens)]")
	f.Add(`{"type":"tool_result","tool_use_id":`, `"]}\`, "", "", "\n")
	f.Add("", "", `\"`, "[", "]")
	f.Fuzz(func(t *testing.T, text, output, name, args, replacement string) {
		var b adaptkit.Builder
		b.StartMask(1)
		b.SetRole(chitta.RoleUser)
		b.Add(text)
		b.ResultID("r1")
		b.OpenResult("r1")
		b.Add(output)
		b.Add(text)
		b.CloseResult()
		b.ResultID("r2")
		b.OpenResult("r2")
		b.Add(name)
		b.Add(output)
		b.CloseResult()
		b.CallID("c1")
		b.AddCall(name, args)
		b.End()
		raw := b.Finish()[0].Raw
		want, err := adaptkit.DecodeContents(raw)
		require.NoError(t, err, "%s", raw)
		got, err := adaptkit.ResultContents(raw)
		require.NoError(t, err)
		require.Equal(t, want, got, "%s", raw)
		for k := range want {
			rep, err := json.Marshal(replacement)
			require.NoError(t, err)
			masked := bytes.Replace(raw, want[k], rep, 1)
			if !json.Valid(masked) {
				continue // the content's bytes occurred earlier, in another value
			}
			w, err := adaptkit.DecodeContents(masked)
			require.NoError(t, err)
			g, err := adaptkit.ResultContents(masked)
			require.NoError(t, err)
			require.Equal(t, w, g, "%s", masked)
		}
	})
}

// TestMaskCallTakesItsOwnID: in mask mode a call piece is the call of the
// ID declared right before it; an ID declared with no call piece of its
// own (a langchaingo ToolCall without a FunctionCall) names no call, and a
// call declared without an ID takes none.
func TestMaskCallTakesItsOwnID(t *testing.T) {
	t.Parallel()
	var b adaptkit.Builder
	b.StartMask(1)
	b.SetRole(chitta.RoleAssistant)
	b.CallID("bare")
	b.CallID("g")
	b.AddCall("grep", `{"q":"BUG"}`)
	b.AddCall("read", `{"path":"a.go"}`)
	b.End()
	m := b.Finish()[0]
	assert.Equal(t, []string{"bare", "g"}, m.ToolCallIDs)
	assert.JSONEq(t, `{"role":"assistant","content":[{"type":"tool_use","id":"g","name":"grep"}]}`, string(m.Raw))
}

// TestWholeMessagesMatchGeneral: Message, ResultMessage, CallMessage and
// CallTextMessage give, in mask mode as in plain mode, exactly the message
// (Raw included) that the general calls they stand for give, whatever the
// text: one starting with a word, blank, or starting with a space or a
// non-ASCII byte.
func TestWholeMessagesMatchGeneral(t *testing.T) {
	t.Parallel()
	words := []string{"", " ", "\n\t", "\u00a0", "a", " b ", "read_file", "ü\u2028", "x\ny", `q"uote\`}
	args := []any{nil, "s", map[string]any{"cmd": "ls <d>"}, map[string]any{"path": "a.go", "n": 2.0}}
	for _, mask := range []bool{false, true} {
		start := func() *adaptkit.Builder {
			var b adaptkit.Builder
			if mask {
				b.StartMask(1)
			} else {
				b.Start(1)
			}
			return &b
		}
		check := func(what string, whole, general func(b *adaptkit.Builder)) {
			w, g := start(), start()
			whole(w)
			general(g)
			assert.Equal(t, g.Finish(), w.Finish(), "%s, mask %v", what, mask)
		}
		for _, r := range []chitta.Role{"", chitta.RoleUser, chitta.RoleTool} {
			for _, w := range words {
				check(fmt.Sprintf("Message(%q, %q)", r, w),
					func(b *adaptkit.Builder) { b.Message(r, w) },
					func(b *adaptkit.Builder) { b.SetRole(r); b.Add(w); b.End() })
				check(fmt.Sprintf("ResultMessage(%q, id, %q)", r, w),
					func(b *adaptkit.Builder) { b.ResultMessage(r, "id", w) },
					func(b *adaptkit.Builder) {
						b.SetRole(r)
						b.ResultID("id")
						b.OpenResult("id")
						b.Add(w)
						b.CloseResult()
						b.End()
					})
				for _, a := range words {
					check(fmt.Sprintf("CallTextMessage(%q, id, %q, %q)", r, w, a),
						func(b *adaptkit.Builder) { b.CallTextMessage(r, "id", w, a) },
						func(b *adaptkit.Builder) { b.SetRole(r); b.CallID("id"); b.AddCall(w, a); b.End() })
				}
				for _, a := range args {
					check(fmt.Sprintf("CallMessage(%q, id, %q, %v)", r, w, a),
						func(b *adaptkit.Builder) { b.CallMessage(r, "id", w, a) },
						func(b *adaptkit.Builder) { b.SetRole(r); b.CallID("id"); b.AddCallJSON(w, a); b.End() })
				}
			}
		}
	}
}
