package chitta

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parsedContent is what build read back before chatContent: the parser's
// Content of raw.
func parsedContent(raw []byte) (string, error) {
	var p parser
	m, err := p.parse(-1, raw)
	return m.Content, err
}

// contentSeeds are chat messages of the shapes masking rewrites, and
// their corners: parallel results, text beside a result, nested content
// arrays, images and documents, escapes, surrogates, invalid UTF-8, blank
// and empty texts, odd white space, duplicate and upper-case keys.
var contentSeeds = []string{
	`{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"one"},{"type":"tool_result","tool_use_id":"b","content":"two"}]}`,
	`{"role":"user","content":[{"type":"text","text":"read_file"},{"type":"tool_result","tool_use_id":"a","content":"[chitta: read_file output elided (120 tokens)]"}]}`,
	`{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":[{"type":"text","text":"x"},{"type":"image","source":{}},"bare",{"type":"document"}]},{"type":"text","text":"after"}]}`,
	`{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":[{"type":"tool_result","tool_use_id":"n","content":[{"type":"text","text":"deep"}]}]}]}`,
	`{"role":"user","content":[{"type":"text","text":"a\"b\\c\/d\b\f\n\r\tz \u00e9 \ud83d\ude00 \ud800 x \udc00 \u0000"},{"type":"tool_result","tool_use_id":"a","content":"日本語 é"}]}`,
	"{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"bad \xff\xfe utf8 \xe6\x97\"},{\"type\":\"tool_result\",\"tool_use_id\":\"a\",\"content\":\"\"}]}",
	`{"role":"user","content":[{"type":"text","text":""},{"type":"text","text":"   \n\t"},{"type":"tool_result","tool_use_id":"a","content":" "},{"type":"tool_result","tool_use_id":"b"},{"type":"tool_result","tool_use_id":"c","content":null},{"type":"tool_result","tool_use_id":"d","content":[]}]}`,
	" \n{ \"role\" : \"user\" ,\r\n \"content\" : [ { \"type\" : \"tool_result\" , \"tool_use_id\" : \"a\" , \"content\" : \"x\" } , \"s\" ] } \t",
	`{"role":"assistant","content":[{"type":"thinking","thinking":"hmm"},{"type":"redacted_thinking","data":"x"},{"type":"tool_use","id":"t","name":"read","input":{ "path" : "a b" , "n" : [1, 2.5e3, -0, true, null] }},{"type":"server_tool_use","id":"s","name":"web","input":"\"q\""}],"tool_call_id":null}`,
	`{"ROLE":"user","Content":[{"TYPE":"Text","Text":"case"},{"Type":"tool_result","Tool_Use_ID":"a","CONTENT":"x"}],"content":[{"type":"text","text":"last wins"},{"type":"tool_result","tool_use_id":"a","content":"y","content":"z"}]}`,
	`{"role":"user","content":[{"type":"web_search_tool_result","tool_use_id":"w","content":[{"type":"web_search_result","title":"t","url":"u"}]},{"type":"image_url","image_url":{"url":"x"}},{"type":"input_file"},{"type":"unknown","text":"kept"},{"type":"unknown"},{"text":"untyped"}]}`,
	`{"role":"user","content":[{"type":"search_result","source":"s","title":"t","content":[{"type":"text","text":"x"},"bare"]},{"type":"tool_result","tool_use_id":"a","content":[{"type":"search_result","title":" ","source":null,"content":[{"type":"search_result","title":"nested","content":"str"}]}]}]}`,
	`{"role":"tool","tool_call_id":"a","content":"plain string"}`,
	`{"role":"user","content":"a string","tool_calls":null,"function_call":null,"tool_call_ids":null}`,
	`{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":[{"type":"tool_use","id":"x","name":"n","input":{}}]},{"type":"tool_result","tool_use_id":"b","content":[{"type":"web_search_tool_result","tool_use_id":"w"}]}]}`,
	`{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":[{"type":"tool_result","tool_use_id":"","content":"x"},{"type":"tool_use","id":null,"name":"n"}]}]}`,
	`{"role":"assistant","content":[{"type":"refusal","refusal":"no"},{"type":"input_audio","input_audio":{"data":"UklG","format":"wav"}},{"type":"text"},{"type":"output_text","text":null},{"type":"container_upload", "file_id" : "f"}]}`,
	`{"role":"user","content":[{"type":"tool_result","tool_use_id":"s","content":[{"type":"tool_reference","tool_name":"TaskCreate"},{"type":"tool_reference"}]}]}`,
	// The reader leaves these to the parser (ok false).
	`{"role":"assistant","content":"x","tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]}`,
	`{"role":"user","content":[{"type":"text","text":"x"}],"tool_call_ids":["a","b"]}`,
	`{"role":"user","content":[{"typ\u0065":"text","text":"escaped key"}]}`,
	`{"rôle":"user","role":"user","content":"non-ASCII key"}`,
	"{\"role\":\"user\",\"content\":\"raw\ncontrol\"}",
	`{"role":"user","content":[{"type":"text","text":"x"}]} trailing`,
	`{"role":"","content":"empty role"}`,
	`{"role":"user","content":[{"type":"text","text":5}]}`,
	`{"role":"user","content":[null]}`,
	`{"role":"user","content":{"type":"text"}}`,
	`{"role":"user","parts":[{"text":"genai"}]}`,
	`{"type":"function_call_output","call_id":"c","output":"x"}`,
	`{"role":"user","content":[{"type":"text","text":"x"}],"n":01}`,
	`{"role":"user","content":[{"type":"text","text":"x"}],"n":1.}`,
	`{"role":"user","content":[{"type":"text","text":"\x"}]}`,
	`{"role":"user","content":[{"type":"tool_use","id":3,"name":"f"}]}`,
	`{"role":"user","content":[{"type":"search_result","title":5}]}`,
	`{"role":"assistant","content":"x","reasoning_content":"why"}`,
	`{"role":"assistant","content":[{"type":"web_fetch_tool_result","tool_use_id":"f","content":{"url":"u"}}]}`,
	`{"role":"user","content":"x","Multi_Content":[{"type":"text","text":"y"}]}`,
	`{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"bad \u00zz"},{"type":"tool_result","tool_use_id":"b","content":[{"type":"text","text":1}]}]}`,
	`{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":` + strings.Repeat(`[{"type":"tool_result","content":`, 17) + `"deep"` + strings.Repeat(`}]`, 17) + `}]}`,
}

// TestChatContent: on every seed, what chatContent reads (when it reads
// at all) is the parser's Content, and it reads every seed of a shape it
// handles.
func TestChatContent(t *testing.T) {
	t.Parallel()
	handled := 18 // the seeds before the ones left to the parser
	for k, raw := range contentSeeds {
		got, ok := chatContent([]byte(raw))
		want, err := parsedContent([]byte(raw))
		if k < handled {
			require.NoError(t, err, "seed %d", k)
			require.True(t, ok, "seed %d: %s", k, raw)
		} else {
			assert.False(t, ok, "seed %d: %s", k, raw)
		}
		if ok {
			require.NoError(t, err, "seed %d", k)
			assert.Equal(t, want, got, "seed %d", k)
		}
	}
}

// TestChatContentRewrites is the property build relies on: for random
// Anthropic-shaped messages with random tool_result blocks rewritten to
// random texts (as build splices them), chatContent reads the rewritten
// Raw and gives the parser's Content; and resultsOf's: resultText reads
// each tool_result block as appendContent does.
func TestChatContentRewrites(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(13, 11))
	read := 0
	for n := range 4000 {
		raw := randomChatRaw(r)
		want, err := parsedContent(raw)
		require.NoError(t, err, "%s", raw)
		got, ok := chatContent(raw)
		require.True(t, ok, "%s", raw)
		require.Equal(t, want, got, "%s", raw)
		rewritten := rewriteResults(raw, func(int) (string, bool) {
			if r.IntN(3) == 0 {
				return "", false
			}
			return randomText(r), true
		})
		want, err = parsedContent(rewritten)
		require.NoError(t, err, "%d: %s", n, rewritten)
		got, ok = chatContent(rewritten)
		require.True(t, ok, "%s", rewritten)
		require.Equal(t, want, got, "%d: %s", n, rewritten)
		read += checkResultTexts(t, raw)
	}
	require.Greater(t, read, 1000, "results read by resultText itself")
}

// checkResultTexts checks that, on every top-level tool_result block of
// raw (as resultsOf finds them), resultText gives appendContent's text,
// linkage and failure, and returns how many it read without
// appendContent.
func checkResultTexts(t *testing.T, raw []byte) int {
	t.Helper()
	read := 0
	for it := newMembers(raw, 0); it.next(); {
		if !keyIs(it.key, "content") || it.start() >= len(raw) || raw[it.start()] != '[' {
			continue
		}
		rs, _, end := blockResults(raw, it.start())
		it.setEnd(end)
		for _, r := range rs {
			v := r.spans[len(r.spans)-1]
			var sb strings.Builder
			var m Message
			err := appendContent(&sb, &m, raw[v.start:v.end], "", 1)
			text, linked, ok := resultText(raw, v)
			require.Equal(t, err == nil, ok, "%q", raw[v.start:v.end])
			if ok {
				require.Equal(t, sb.String(), text, "%q", raw[v.start:v.end])
				require.Equal(t, len(m.ToolCallIDs)+len(m.ToolResultIDs) > 0, linked, "%q", raw[v.start:v.end])
			}
			var ignored bool
			if validValue(raw, v.start, 0) == v.end && renderContent(&strings.Builder{}, &ignored, raw, v, 1) {
				read++
			}
		}
	}
	return read
}

// rewriteResults replaces the content of each top-level tool_result
// block k of raw, for which text(k) says so, by that text as a JSON
// string, as build does.
func rewriteResults(raw []byte, text func(k int) (string, bool)) []byte {
	var edits []edit
	for it := newMembers(raw, 0); it.next(); {
		if !keyIs(it.key, "content") || raw[it.start()] != '[' {
			continue
		}
		rs, _, end := blockResults(raw, it.start())
		it.setEnd(end)
		edits = edits[:0]
		for k, res := range rs {
			if s, ok := text(k); ok {
				val := appendJSONString(nil, s)
				for _, sp := range res.spans {
					edits = append(edits, edit{sp, val})
				}
			}
		}
	}
	if len(edits) == 0 {
		return raw
	}
	return splice(raw, edits)
}

// randomText is a text from pieces that exercise addText and the string
// escapes: blanks, quotes, backslashes, controls, multi-byte runes.
func randomText(r *rand.Rand) string {
	pieces := []string{"", " ", "\n", "\t", "word", "[chitta: t output elided (12 tokens)]", "\"", "\\", "\x01", "é", "日本", "😀", "\u2028", "<&>"}
	var b strings.Builder
	for range r.IntN(5) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// randomChatRaw is a random chat message of the shapes chatContent
// handles, with random white space and key case.
func randomChatRaw(r *rand.Rand) []byte {
	ws := func() string { return []string{"", "", " ", "\n  ", "\t"}[r.IntN(5)] }
	key := func(k string) string {
		if r.IntN(8) == 0 {
			k = strings.ToUpper(k[:1]) + k[1:]
		}
		return ws() + `"` + k + `"` + ws() + ":" + ws()
	}
	str := func() string {
		b, _ := json.Marshal(randomText(r))
		if r.IntN(4) == 0 {
			return strings.ReplaceAll(string(b), "é", `\u00e9`)
		}
		return string(b)
	}
	var content func(depth int) string
	block := func(depth int) string {
		switch r.IntN(9) {
		case 0, 1:
			return "{" + key("type") + `"text",` + key("text") + str() + "}"
		case 2:
			return "{" + key("type") + `"image",` + key("source") + `{"data":"x"}}`
		case 3:
			return str()
		case 4:
			return "{" + key("type") + `"tool_use",` + key("id") + `"t",` + key("name") + str() + "," + key("input") + `{ "a" : [1, "x y"] }}`
		case 5:
			return "{" + key("type") + `"thinking",` + key("thinking") + str() + "}"
		case 6:
			if depth <= 2 {
				return "{" + key("type") + `"search_result",` + key("title") + str() + "," + key("source") + str() + "," + key("content") + content(depth+1) + "}"
			}
			return str()
		default:
			if depth > 2 {
				return "{" + key("type") + `"text",` + key("text") + `"leaf"}`
			}
			return "{" + key("type") + `"tool_result",` + key("tool_use_id") + fmt.Sprintf(`"id%d",`, r.IntN(9)) + key("content") + content(depth+1) + "}"
		}
	}
	content = func(depth int) string {
		switch r.IntN(6) {
		case 0:
			return str()
		case 1:
			return "null"
		}
		var parts []string
		for range r.IntN(5) {
			parts = append(parts, ws()+block(depth)+ws())
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	top := content(0)
	if top == "null" {
		top = "[]"
	}
	return []byte(ws() + "{" + key("role") + `"user",` + key("content") + top + "}" + ws())
}

// FuzzChatContent: whatever chatContent reads, the parser accepts and
// reads the same, for any input and for any rewrite of its tool_result
// blocks; resultText reads each tool_result block as appendContent does;
// validJSON agrees with json.Valid (short of its nesting bound).
func FuzzChatContent(f *testing.F) {
	for _, s := range contentSeeds {
		f.Add(s, "[chitta: read_file output elided (120 tokens); values: A1, B2]")
	}
	f.Add(contentSeeds[0], "")
	f.Add(contentSeeds[1], " \n ")
	f.Add(contentSeeds[4], "q\"\\\x00\xff日本")
	f.Fuzz(func(t *testing.T, raw, text string) {
		b := []byte(raw)
		if len(b) < 2*maxValidDepth {
			assert.Equal(t, json.Valid(b), validJSON(b, 0), "%q", raw)
		} else if validJSON(b, 0) {
			assert.True(t, json.Valid(b), "%q", raw)
		}
		check := func(b []byte) {
			got, ok := chatContent(b)
			if !ok {
				return
			}
			want, err := parsedContent(b)
			require.NoError(t, err, "%q", b)
			require.Equal(t, want, got, "%q", b)
		}
		check(b)
		checkResultTexts(t, b)
		if _, err := parsedContent(b); err == nil && json.Valid(b) {
			check(rewriteResults(b, func(k int) (string, bool) { return text, k%2 == 0 || len(text) > 3 }))
		}
	})
}

// TestUnquoteAt: every JSON string decodes as encoding/json decodes it.
func TestUnquoteAt(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"a", "é", "\xff", "\xe6\x97", `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u0041`, `\u00e9`, `\ud83d\ude00`, `\ud800`, `\udc00`, `\ud800\u0041`, `\ud83d`, `\ude00\ud83d`, `\uD83D\uDE00`, "\x7f", "😀"}
	for range 20000 {
		var b strings.Builder
		b.WriteByte('"')
		for range r.IntN(8) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		b.WriteByte('"')
		raw := []byte(b.String())
		var want string
		require.NoError(t, json.Unmarshal(raw, &want), "%q", raw)
		require.Equal(t, len(raw), validString(raw, 0), "%q", raw)
		got, ok := unquoteAt(raw, jsonSpan{0, len(raw)})
		require.True(t, ok, "%q", raw)
		require.Equal(t, want, got, "%q", raw)
	}
}
