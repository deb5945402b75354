package adaptkit_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/internal/adaptkit"
)

func TestBuilder(t *testing.T) {
	t.Parallel()
	var b adaptkit.Builder
	b.Start(4)
	b.Add("only piece")
	b.CallID("c1")
	b.End()
	b.End()
	b.Add("text")
	b.AddCallJSON("bash", map[string]any{"cmd": "ls <dir>"})
	b.ResultID("r1")
	b.ResultID("r2")
	b.End()
	require.True(t, b.Empty())
	b.AddCall("", " ")
	b.AddJSON(json.RawMessage(`{"a":1}`))
	b.End()
	out := b.Finish()
	assert.Equal(t, []chitta.Message{
		{Content: "only piece", ToolCallIDs: []string{"c1"}},
		{},
		{Content: "text\nbash {\"cmd\":\"ls \\u003cdir\\u003e\"}", ToolResultIDs: []string{"r1", "r2"}},
		{Content: `{"a":1}`},
	}, out)
	assert.Len(t, out[0].ToolCallIDs, cap(out[0].ToolCallIDs), "ID slices are capped: appending never overwrites a neighbour")
}

// TestBuilderMatchesText is the property the adapters rely on: for any
// sequence of pieces, a Builder gives each message exactly the text Text
// builds from the same pieces, exactly the IDs added for it, and the role
// set for it (none when SetRole was not called): in new memory (Start),
// and in a pooled Builder's memory, where every message slot still holds
// what the previous conversation left there (Reuse), which the Builder
// overwrites only where it differs. In the pooled memory each conversation
// is built three times: as it is, again unchanged (every slot already
// holds its text, which the Builder keeps), and again with about one word
// in six changed.
func TestBuilderMatchesText(t *testing.T) {
	t.Parallel()
	t.Run("new memory", func(t *testing.T) {
		t.Parallel()
		testBuilderMatchesText(t, 1, func(n int) *adaptkit.Builder {
			b := new(adaptkit.Builder)
			b.Start(n)
			return b
		})
	})
	t.Run("reused memory", func(t *testing.T) {
		t.Parallel()
		var pooled adaptkit.Builder
		testBuilderMatchesText(t, 3, func(n int) *adaptkit.Builder {
			pooled.Reuse(n)
			return &pooled
		})
	})
}

func testBuilderMatchesText(t *testing.T, passes int, start func(n int) *adaptkit.Builder) {
	for trial := range 300 {
		var kept []chitta.Message // the first pass's messages, which later passes must not change
		for pass := range passes {
			rng := rand.New(rand.NewPCG(11, uint64(trial)))
			mutate := rand.New(rand.NewPCG(13, uint64(trial)))
			got := buildTrial(t, rng, mutate, pass == 2, start)
			if pass == 0 && passes > 1 {
				kept = slices.Clone(got)
			}
		}
		if kept != nil {
			rng := rand.New(rand.NewPCG(11, uint64(trial)))
			want := buildTrial(t, rng, nil, false, func(n int) *adaptkit.Builder {
				b := new(adaptkit.Builder)
				b.Start(n)
				return b
			})
			require.Equal(t, want, kept, "trial %d: a later conversation changed an earlier one's messages", trial)
		}
	}
}

// buildTrial builds a random conversation drawn from rng in start(n), with
// about one word in six replaced (drawn from mutate) when changed, checks
// it against Text and the IDs added, and returns it.
func buildTrial(t *testing.T, rng, mutate *rand.Rand, changed bool, start func(n int) *adaptkit.Builder) []chitta.Message {
	roles := []chitta.Role{"", chitta.RoleUser, chitta.RoleAssistant, chitta.RoleTool}
	words := []string{"", " ", "\n\t", "\v\f\r", "\u00a0", "\u3000\u0085", "\u3000x", "a", " b ", "read_file", "ü\u2028", "x\ny"}
	args := []any{nil, "", " ", "s", json.RawMessage(`{"a": 1}`), map[string]any{"path": "a.go", "n": 2.0}, []any{}, map[string]any{}, 3, []byte("b"),
		map[string]any{"cmd": "ls <d>"}, map[string]any{"x": math.NaN()}, map[string]any{"s": struct{ A int }{1}}, map[string]any(nil)}
	word := func() string {
		w := words[rng.IntN(len(words))]
		if changed && mutate.IntN(6) == 0 {
			w = words[mutate.IntN(len(words))]
		}
		return w
	}
	{
		n := rng.IntN(12)
		want := make([]chitta.Message, n)
		b := start(n)
		for i := range n {
			if rng.IntN(3) == 0 { // a whole message in one call
				r, s, id := roles[rng.IntN(len(roles))], word(), word()
				var ref adaptkit.Text
				switch rng.IntN(4) {
				case 0:
					b.Message(r, s)
					ref.Add(s)
				case 1:
					b.ResultMessage(r, id, s)
					ref.Add(s)
					want[i].ToolResultIDs = []string{id}
				case 2:
					a := args[rng.IntN(len(args))]
					b.CallMessage(r, id, s, a)
					ref.Add(s + " " + adaptkit.JSON(a))
					want[i].ToolCallIDs = []string{id}
				case 3:
					a := word()
					b.CallTextMessage(r, id, s, a)
					ref.Add(s + " " + a)
					want[i].ToolCallIDs = []string{id}
				}
				want[i].Role, want[i].Content = r, ref.String()
				continue
			}
			var ref adaptkit.Text
			if r := roles[rng.IntN(len(roles))]; r != "" {
				b.SetRole(roles[rng.IntN(len(roles))]) // set twice: the last one counts
				b.SetRole(r)
				want[i].Role = r
			}
			for range rng.IntN(5) {
				switch rng.IntN(6) {
				case 0, 1:
					s := word()
					b.Add(s)
					ref.Add(s)
				case 2:
					name, a := word(), word()
					b.AddCall(name, a)
					ref.Add(name + " " + a)
				case 3:
					name, a := word(), args[rng.IntN(len(args))]
					b.AddCallJSON(name, a)
					ref.Add(name + " " + adaptkit.JSON(a))
				case 4:
					a := args[rng.IntN(len(args))]
					if rng.IntN(2) == 0 {
						b.AddJSON(a)
						ref.Add(adaptkit.JSON(a))
					} else {
						name := word()
						b.AddResultJSON(name, a)
						ref.Add(name + " " + adaptkit.JSON(a))
					}
				case 5:
					id := word()
					if rng.IntN(2) == 0 {
						b.CallID(id)
						want[i].ToolCallIDs = append(want[i].ToolCallIDs, id)
					} else {
						b.ResultID(id)
						want[i].ToolResultIDs = append(want[i].ToolResultIDs, id)
					}
				}
				require.Equal(t, ref.String() == "", b.Empty(), "message %d", i)
			}
			want[i].Content = ref.String()
			b.End()
		}
		got := b.Finish()
		require.Equal(t, want, got)
		return got
	}
}

// TestBuilderMemo: a pooled Builder that finds the texts of tool calls
// (arguments as a map or as text) by the identity of their strings (see
// memo) gives exactly
// what a new Builder gives, whatever the conversations it saw before:
// the same one again, one whose messages moved, one whose argument maps
// are new maps or were changed in place (a value, or the key of the same
// value), one whose strings are equal
// copies or other strings, and after a conversation abandoned before
// Finish (whose texts were never set).
func TestBuilderMemo(t *testing.T) {
	t.Parallel()
	type msg struct {
		call         bool
		id, name     string
		args         map[string]any
		argsText     string // a call with its arguments as text, if set
		output, text string
	}
	values := make([]string, 40)
	for i := range values {
		values[i] = fmt.Sprintf("go test ./p%d <%d>", i, i%3)
	}
	conversation := func(n, seed int) []msg {
		msgs := make([]msg, n)
		for i := range msgs {
			k := (i + seed) % len(values)
			switch i % 3 {
			case 0:
				msgs[i] = msg{call: true, id: fmt.Sprint("c", i), name: "bash", args: map[string]any{"cmd": values[k]}}
				if i%2 == 0 {
					msgs[i].argsText = values[(k+3)%len(values)]
				}
			case 1:
				msgs[i] = msg{id: fmt.Sprint("c", i-1), name: "bash", output: values[(k+7)%len(values)]}
			default:
				msgs[i] = msg{text: values[k]}
			}
		}
		return msgs
	}
	build := func(b *adaptkit.Builder, msgs []msg) {
		for _, m := range msgs {
			switch {
			case m.call && m.argsText != "":
				b.CallTextMessage(chitta.RoleAssistant, m.id, m.name, m.argsText)
			case m.call:
				b.CallMessage(chitta.RoleAssistant, m.id, m.name, m.args)
			case m.name != "":
				b.ResultMessage(chitta.RoleTool, m.id, m.output)
			default:
				b.Message(chitta.RoleUser, m.text)
			}
		}
	}
	want := func(msgs []msg) []chitta.Message {
		var b adaptkit.Builder
		b.Start(len(msgs))
		build(&b, msgs)
		return b.Finish()
	}
	var pooled adaptkit.Builder
	check := func(name string, msgs []msg) {
		pooled.Reuse(len(msgs))
		build(&pooled, msgs)
		require.Equal(t, want(msgs), pooled.Finish(), name)
	}
	msgs := conversation(120, 0)
	check("first", msgs)
	check("again", msgs)
	check("again, table grown", msgs)
	check("shifted by one", msgs[1:])
	check("shifted back", msgs)
	check("a suffix", msgs[50:])
	moved := slices.Clone(msgs)
	for i := range moved {
		if moved[i].call {
			moved[i].args = map[string]any{"cmd": moved[i].args["cmd"]}
		}
	}
	check("new maps, same strings", moved)
	for i := range moved {
		if moved[i].call {
			moved[i].args["cmd"] = values[(i+11)%len(values)] // changed in place
		}
	}
	check("maps changed in place", moved)
	for i := range moved {
		if moved[i].call {
			v := moved[i].args["cmd"]
			delete(moved[i].args, "cmd")
			moved[i].args["command"] = v // the same string under another key
		}
	}
	check("maps re-keyed in place", moved)
	check("maps re-keyed, again", moved)
	renamed := slices.Clone(moved)
	for i := range renamed {
		renamed[i].name = "sh" // another tool, the same maps
	}
	check("another tool's name", renamed)
	texts := slices.Clone(msgs)
	for i := range texts {
		if texts[i].argsText != "" {
			texts[i].argsText = values[(i+5)%len(values)] // other arguments' text
		}
	}
	check("other argument texts", texts)
	copies := slices.Clone(msgs)
	for i := range copies {
		copies[i].name = strings.Clone(copies[i].name)
		copies[i].output = strings.Clone(copies[i].output)
		copies[i].argsText = strings.Clone(copies[i].argsText)
		if copies[i].call {
			copies[i].args = map[string]any{"cmd": strings.Clone(msgs[i].args["cmd"].(string))}
		}
	}
	check("equal copies", copies)
	check("others", conversation(90, 5))
	// Abandoned halfway, as a build that fails is: its texts are never set.
	other := conversation(120, 17)
	pooled.Reuse(len(other))
	build(&pooled, other[:60])
	check("after an abandoned conversation", other)
	check("the first again", msgs)
}

// TestBuilderPooledMatchesNew: for random sequences of conversations (the
// last one again, or its suffix, with new messages, sometimes shuffled;
// names and values that are copies of the same bytes elsewhere in memory,
// blank or starting with a space; argument maps shared between messages
// and changed or re-keyed in place between conversations; roles of every
// kind), each conversation a pooled Builder builds (memo, guess, kept
// slots) is exactly what a new Builder builds.
func TestBuilderPooledMatchesNew(t *testing.T) {
	t.Parallel()
	type op struct {
		kind, role, name, val, id int
		clone                     bool
	}
	names := []string{"bash", "read", "grep", " odd", ""}
	roles := []chitta.Role{chitta.RoleUser, chitta.RoleAssistant, chitta.RoleTool}
	keys := []string{"cmd", "path"}
	vals := []string{"ls -la", "go test ./...", "", " lead", "x\ny", "日本", `a"b`}
	for len(vals) < 20 {
		vals = append(vals, fmt.Sprint("cmd ", len(vals)))
	}
	built := 0
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 9))
		maps := make([]map[string]any, 6)
		for i := range maps {
			maps[i] = map[string]any{keys[r.IntN(2)]: vals[r.IntN(len(vals))]}
		}
		build := func(b *adaptkit.Builder, ops []op) []chitta.Message {
			for _, o := range ops {
				v, n, id := vals[o.val], names[o.name], fmt.Sprint("id", o.id)
				if o.clone {
					v, n = strings.Clone(v), strings.Clone(n)
				}
				switch o.kind {
				case 0:
					b.Message(roles[o.role], v)
				case 1:
					b.ResultMessage(roles[o.role], id, v)
				case 2:
					b.CallMessage(roles[o.role], id, n, maps[o.val%len(maps)])
				case 3:
					b.CallTextMessage(roles[o.role], id, n, v)
				default:
					b.CallMessage(roles[o.role], id, n, map[string]any{"cmd": v})
				}
			}
			return b.Finish()
		}
		var pooled adaptkit.Builder
		var last []op
		for conv := range 12 {
			var ops []op
			switch r.IntN(4) {
			case 0:
				ops = append(ops, last...)
			case 1:
				ops = append(ops, last[min(2, len(last)):]...)
			}
			for range 1 + r.IntN(15) {
				ops = append(ops, op{r.IntN(5), r.IntN(len(roles)), r.IntN(len(names)), r.IntN(len(vals)), r.IntN(4), r.IntN(5) == 0})
			}
			if r.IntN(3) == 0 {
				r.Shuffle(len(ops), func(a, b int) { ops[a], ops[b] = ops[b], ops[a] })
			}
			last = ops
			switch m := maps[r.IntN(len(maps))]; r.IntN(3) {
			case 0: // a value changed in place
				for k := range m {
					m[k] = vals[r.IntN(len(vals))]
				}
			case 1: // re-keyed in place
				clear(m)
				m[keys[r.IntN(2)]] = vals[r.IntN(len(vals))]
			}
			var fresh adaptkit.Builder
			fresh.Start(len(ops))
			want := build(&fresh, ops)
			pooled.Reuse(len(ops))
			require.Equal(t, want, build(&pooled, ops), "seed %d conversation %d", seed, conv)
			built += len(ops)
		}
	}
	require.Greater(t, built, 10000)
}
