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

// TestBuilderMemoArgsChanged: a pooled Builder that remembered the text of
// a call whose arguments are a map of several keys, nested maps and lists
// (see memo's check) gives the new text once any value in them was
// changed in place, at any depth, however the memo looks the text up: by
// its guess (the conversation in the same order) or by the map's identity
// (in another order). Each change alters the text, so a memo that
// returned the remembered text would fail.
func TestBuilderMemoArgsChanged(t *testing.T) {
	t.Parallel()
	negZero := math.Copysign(0, -1)
	args := func() map[string]any {
		return map[string]any{
			"user_id": "mia_li_3668",
			"flights": []any{
				map[string]any{"flight_number": "HAT136", "date": "2024-05-20"},
				map[string]any{"flight_number": "HAT039", "date": "2024-05-20"},
			},
			"names":     []string{"Mia", "Li"},
			"amount":    250.0,
			"bags":      3,
			"big":       int64(1 << 40),
			"insurance": false,
			"zero":      0.0,
			"none":      nil,
			"empty":     map[string]any{},
			"list":      []any{},
		}
	}
	flight := func(m map[string]any, i int) map[string]any { return m["flights"].([]any)[i].(map[string]any) }
	for _, tc := range []struct {
		name   string
		change func(m map[string]any)
	}{
		{"a string at the top", func(m map[string]any) { m["user_id"] = "mia_li_9999" }},
		{"a string in a map in a list", func(m map[string]any) { flight(m, 1)["date"] = "2024-05-21" }},
		{"a key renamed in a nested map", func(m map[string]any) {
			f := flight(m, 0)
			f["day"] = f["date"]
			delete(f, "date")
		}},
		{"a key added to a nested map", func(m map[string]any) { flight(m, 0)["seat"] = "4A" }},
		{"a key dropped at the top", func(m map[string]any) { delete(m, "bags") }},
		{"a list element replaced", func(m map[string]any) { m["flights"].([]any)[0] = "none" }},
		{"a list element swapped", func(m map[string]any) {
			l := m["flights"].([]any)
			l[0], l[1] = l[1], l[0]
		}},
		{"a []string element", func(m map[string]any) { m["names"].([]string)[1] = "Lee" }},
		{"a float", func(m map[string]any) { m["amount"] = 250.5 }},
		{"0 to -0", func(m map[string]any) { m["zero"] = negZero }},
		{"an int", func(m map[string]any) { m["bags"] = 4 }},
		{"an int to an int64", func(m map[string]any) { m["bags"] = int64(4) }},
		{"an int64", func(m map[string]any) { m["big"] = int64(1 << 41) }},
		{"a bool", func(m map[string]any) { m["insurance"] = true }},
		{"nil to a string", func(m map[string]any) { m["none"] = "x" }},
		{"a nil value's key renamed", func(m map[string]any) {
			delete(m, "none")
			m["nothing"] = nil
		}},
		{"an empty map to nil", func(m map[string]any) { m["empty"] = map[string]any(nil) }},
		{"an empty list to nil", func(m map[string]any) { m["list"] = []any(nil) }},
		{"a string to a number", func(m map[string]any) { m["user_id"] = 3.0 }},
		{"a value the memo cannot remember", func(m map[string]any) { m["none"] = struct{ A int }{1} }},
	} {
		for _, moved := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/moved=%v", tc.name, moved), func(t *testing.T) {
				t.Parallel()
				m, other := args(), args()
				other["user_id"] = "other"
				build := func(b *adaptkit.Builder, maps ...map[string]any) []chitta.Message {
					for i, a := range maps {
						b.CallMessage(chitta.RoleAssistant, fmt.Sprint("c", i), "book", a)
					}
					return b.Finish()
				}
				var pooled adaptkit.Builder
				for range 3 { // remembered, then found by guess
					pooled.Reuse(2)
					build(&pooled, other, m)
				}
				before := adaptkit.JSON(m)
				tc.change(m)
				require.NotEqual(t, before, adaptkit.JSON(m), "the change alters the text")
				order := []map[string]any{other, m}
				if moved {
					order = []map[string]any{m, other}
				}
				var fresh adaptkit.Builder
				fresh.Start(2)
				want := build(&fresh, order...)
				pooled.Reuse(2)
				require.Equal(t, want, build(&pooled, order...))
				pooled.Reuse(2)
				require.Equal(t, want, build(&pooled, order...), "again, remembered anew")
			})
		}
	}
}

// TestBuilderPooledMatchesNewNested is TestBuilderPooledMatchesNew for
// arguments of every shape: random maps of several keys with maps, lists
// and []string nested in them, numbers (0 and -0), bools, nil, nil and
// empty maps and lists, now and then a value the memo cannot remember,
// shared between messages (as the calls of one conversation, in the same
// order, rotated or with a call before them) and changed in place
// between conversations at any depth: a value set to another, to an
// equal copy of a string or to another type, a key added, dropped or
// renamed, a list's element set. Each conversation a pooled Builder
// builds is exactly what a new Builder builds.
func TestBuilderPooledMatchesNewNested(t *testing.T) {
	t.Parallel()
	keys := []string{"a", "b", "date", "flights", "amount"}
	strs := []string{"HAT136", "2024-05-20", "", "x\ny", `a"b`, "日本"}
	var value func(r *rand.Rand, depth int) any
	value = func(r *rand.Rand, depth int) any {
		switch k := r.IntN(16); {
		case k < 5:
			return strs[r.IntN(len(strs))]
		case k == 5:
			return strings.Clone(strs[r.IntN(len(strs))])
		case k == 6:
			return []float64{0, math.Copysign(0, -1), 1.5, 1e21, 1e-7}[r.IntN(5)]
		case k == 7:
			return []any{3, int64(-4), true, false, nil}[r.IntN(5)]
		case k == 8:
			return []any{map[string]any(nil), []any(nil), []string(nil), []string{}, struct{ A int }{1}}[r.IntN(5)]
		case depth > 2:
			return strs[0]
		case k < 12:
			m := map[string]any{}
			for range r.IntN(4) {
				m[keys[r.IntN(len(keys))]] = value(r, depth+1)
			}
			return m
		case k < 15:
			l := make([]any, r.IntN(4))
			for i := range l {
				l[i] = value(r, depth+1)
			}
			return l
		default:
			return []string{strs[r.IntN(len(strs))], strs[r.IntN(len(strs))]}
		}
	}
	// change changes in place one map or list reachable from v.
	change := func(r *rand.Rand, v any) {
		var all []any
		var walk func(v any)
		walk = func(v any) {
			switch x := v.(type) {
			case map[string]any:
				if x != nil {
					all = append(all, x)
				}
				for _, e := range x {
					walk(e)
				}
			case []any:
				if len(x) > 0 {
					all = append(all, x)
				}
				for _, e := range x {
					walk(e)
				}
			case []string:
				if len(x) > 0 {
					all = append(all, x)
				}
			}
		}
		walk(v)
		switch x := all[r.IntN(len(all))].(type) {
		case map[string]any:
			k := keys[r.IntN(len(keys))]
			switch r.IntN(4) {
			case 0:
				x[k] = value(r, 1)
			case 1:
				delete(x, k)
			case 2: // another value of the same type
				for k, e := range x {
					x[k] = neighbour(e)
				}
			default: // renamed: another key, the same value
				for old, e := range x {
					delete(x, old)
					x[k] = e
					break
				}
			}
		case []any:
			if i := r.IntN(len(x)); r.IntN(2) == 0 {
				x[i] = value(r, 1)
			} else {
				x[i] = neighbour(x[i])
			}
		case []string:
			x[r.IntN(len(x))] = strs[r.IntN(len(strs))]
		}
	}
	built := 0
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 21))
		args := make([]map[string]any, 6)
		for i := range args {
			args[i] = map[string]any{}
			for range 2 + r.IntN(4) {
				args[i][keys[r.IntN(len(keys))]] = value(r, 1)
			}
		}
		calls := make([]int, 1+r.IntN(10)) // the args of each call
		for i := range calls {
			calls[i] = r.IntN(len(args))
		}
		names := []string{"book", "update"}
		build := func(b *adaptkit.Builder, calls []int) []chitta.Message {
			for i, k := range calls {
				b.CallMessage(chitta.RoleAssistant, fmt.Sprint("c", i), names[k%2], args[k])
			}
			return b.Finish()
		}
		var pooled adaptkit.Builder
		for conv := range 12 {
			order := calls
			switch r.IntN(4) {
			case 0:
				order = append(slices.Clone(calls[1:]), calls[0])
			case 1:
				order = append([]int{r.IntN(len(args))}, calls...)
			}
			for range r.IntN(3) {
				change(r, args[r.IntN(len(args))])
			}
			var fresh adaptkit.Builder
			fresh.Start(len(order))
			want := build(&fresh, order)
			pooled.Reuse(len(order))
			require.Equal(t, want, build(&pooled, order), "seed %d conversation %d", seed, conv)
			built += len(order)
		}
	}
	require.Greater(t, built, 10000)
}

// neighbour returns another value of v's type, or v: a bool negated, a
// number negated and moved by one (a zero turns into -0, a -0 into 0), a
// string cloned.
func neighbour(v any) any {
	switch x := v.(type) {
	case bool:
		return !x
	case float64:
		if x == 0 {
			return math.Copysign(0, -math.Copysign(1, x))
		}
		return -x
	case int:
		return x + 1
	case int64:
		return -x - 1
	case string:
		return strings.Clone(x)
	}
	return v
}
