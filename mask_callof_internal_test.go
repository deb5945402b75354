package chitta

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// callOfReference is pass.callOf as it was written first: a backward scan
// of every earlier message's ToolCallIDs, then a forward one.
func callOfReference(p *pass, id string, i int) int {
	for k := min(i, len(p.msgs)) - 1; k >= 0; k-- {
		if slices.Contains(p.msgs[k].ToolCallIDs, id) {
			return k
		}
	}
	for k := i; k < len(p.msgs); k++ {
		if slices.Contains(p.msgs[k].ToolCallIDs, id) {
			return k
		}
	}
	return -1
}

// nameReference is the name pass.resolveName gives a result of message i
// as it was written first: the message's own name, else the first call of
// the answering message with the result's ID.
func nameReference(p *pass, o *resolved, i int, r *toolResult) string {
	m := &p.msgs[i]
	name := ""
	if r.nameAt.end > 0 {
		name, _ = stringAt(m.Raw, r.nameAt)
	}
	ids := m.ToolResultIDs
	if r.block >= 0 {
		ids = []string{r.callID}
	}
	for _, id := range ids {
		if name != "" {
			break
		}
		if c := callOfReference(p, id, i); c >= 0 {
			for _, call := range p.callNames(o, c) {
				if call.id == id {
					name = call.name
					break
				}
			}
		}
	}
	return name
}

// randomParallelWire is a conversation whose assistant messages issue up
// to 300 parallel calls (OpenAI tool_calls or Anthropic tool_use blocks,
// some IDs repeated within a message or reused across messages, a system
// message issuing some too), answered in random order, some before their
// call, some by no call at all.
func randomParallelWire(r *rand.Rand) string {
	tools := []string{"read_file", "grep", "bash", ""}
	out := []string{`{"role":"user","content":"start"}`}
	if r.IntN(3) == 0 {
		out = append(out, `{"role":"system","content":"s","tool_calls":[{"id":"dup0","type":"function","function":{"name":"sys","arguments":"{}"}}]}`)
	}
	for g := range 1 + r.IntN(4) {
		k := 1 + r.IntN([]int{3, 40, 300}[r.IntN(3)])
		ids := make([]string, k)
		for j := range ids {
			ids[j] = fmt.Sprintf("g%d_%d", g, j)
			if r.IntN(6) == 0 {
				ids[j] = fmt.Sprintf("dup%d", r.IntN(4))
			}
		}
		var res []string
		anthropic := r.IntN(2) == 0
		calls := make([]string, k)
		for j, id := range ids {
			tool := tools[r.IntN(len(tools))]
			if anthropic {
				calls[j] = `{"type":"tool_use","id":"` + id + `","name":"` + tool + `","input":{}}`
				res = append(res, `{"type":"tool_result","tool_use_id":"`+id+`","content":"out"}`)
			} else {
				calls[j] = `{"id":"` + id + `","type":"function","function":{"name":"` + tool + `","arguments":"{}"}}`
				res = append(res, `{"role":"tool","tool_call_id":"`+id+`","content":"out"}`)
			}
		}
		if r.IntN(4) == 0 {
			res = append(res, strings.ReplaceAll(res[0], ids[0], "missing"))
		}
		r.Shuffle(len(res), func(a, b int) { res[a], res[b] = res[b], res[a] })
		if anthropic {
			for j := 0; j < len(res); {
				n := min(len(res)-j, 1+r.IntN(len(res)))
				res[j] = `{"role":"user","content":[` + strings.Join(res[j:j+n], ",") + `]}`
				res = slices.Delete(res, j+1, j+n)
				j++
			}
		}
		if r.IntN(4) == 0 {
			out = append(out, res[0]) // a result before its call
			res = res[1:]
		}
		if anthropic {
			out = append(out, `{"role":"assistant","content":[`+strings.Join(calls, ",")+`]}`)
		} else {
			out = append(out, `{"role":"assistant","content":null,"tool_calls":[`+strings.Join(calls, ",")+`]}`)
		}
		out = append(out, res...)
	}
	return "[" + strings.Join(out, ",") + "]"
}

// callOf and the names masking gives results agree with the reference on
// conversations with many parallel calls, reused IDs, results before their
// call and results of no call.
func TestCallOfMatchesReference(t *testing.T) {
	t.Parallel()
	checked := 0
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 21))
		data := randomParallelWire(r)
		msgs, err := ParseMessages([]byte(data))
		require.NoError(t, err, "seed %d", seed)
		o, err := resolve(&Options{Mask: &MaskOptions{}})
		require.NoError(t, err)
		p, err := o.prepare(msgs)
		require.NoError(t, err)
		for i := range msgs {
			for _, id := range append(slices.Clone(msgs[i].ToolResultIDs), "missing", "dup1", "g0_0") {
				require.Equal(t, callOfReference(p, id, i), p.callOf(id, i), "seed %d: callOf(%q, %d)", seed, id, i)
			}
			if len(msgs[i].ToolResultIDs) == 0 {
				continue
			}
			for _, res := range p.info(o, i).results {
				want := nameReference(p, o, i, &res)
				p.name(o, i, &res)
				require.Equal(t, want, res.name, "seed %d: message %d block %d", seed, i, res.block)
				checked++
			}
		}
		p.releaseScratch()
	}
	require.Greater(t, checked, 10000)
}
