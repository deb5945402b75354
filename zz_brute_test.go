package chitta_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/chitta-go/chitta"
)

func tinyConv(r *rand.Rand) []chitta.Message {
	ids := []string{"a", "b", "c"}
	roles := []chitta.Role{chitta.RoleUser, chitta.RoleUser, chitta.RoleAssistant, chitta.RoleAssistant, chitta.RoleTool, chitta.RoleSystem, "function"}
	n := 1 + r.IntN(8)
	var msgs []chitta.Message
	for range n {
		m := chitta.Message{Role: roles[r.IntN(len(roles))], Content: strings.Repeat("w ", 1+r.IntN(6))}
		var blocks []string
		if r.IntN(2) == 0 {
			k := r.IntN(3)
			for range k {
				id := ids[r.IntN(len(ids))]
				m.ToolCallIDs = append(m.ToolCallIDs, id)
				typ := []string{"tool_use", "server_tool_use", "mcp_tool_use"}[r.IntN(3)]
				blocks = append(blocks, fmt.Sprintf(`{"type":%q,"id":%q,"name":"n","input":{}}`, typ, id))
			}
		}
		if r.IntN(2) == 0 {
			k := r.IntN(3)
			for range k {
				id := ids[r.IntN(len(ids))]
				m.ToolResultIDs = append(m.ToolResultIDs, id)
				blocks = append(blocks, fmt.Sprintf(`{"type":"tool_result","tool_use_id":%q,"content":%q}`, id, strings.Repeat("r ", r.IntN(9))))
			}
		}
		if len(blocks) > 0 && r.IntN(2) == 0 {
			m.Raw = []byte(fmt.Sprintf(`{"role":%q,"content":[%s]}`, m.Role, strings.Join(blocks, ",")))
		}
		msgs = append(msgs, m)
	}
	return msgs
}

func TestBrute(t *testing.T) {
	valid, bad := 0, 0
	for seed := range uint64(1500000) {
		r := rand.New(rand.NewPCG(seed, 5))
		msgs := tinyConv(r)
		if chitta.Validate(msgs) != nil {
			continue
		}
		valid++
		for _, budget := range []int{1, 3, 6, 10, 20} {
			for keep := range 2 {
				o := &chitta.Options{MaxTokens: budget, KeepLast: keep, Tokens: words}
				if seed%2 == 0 {
					o.Mask = &chitta.MaskOptions{MinTokens: 1, KeepRecent: 1, MaxResultTokens: int(seed % 3), Actions: chitta.MaskActions(seed % 4), Restore: seed%3 == 0}
				}
				res, err := chitta.Compact(t.Context(), msgs, o)
				if err != nil {
					t.Fatal(err)
				}
				if err := chitta.Validate(res.Messages); err != nil {
					bad++
					if bad < 6 {
						t.Errorf("seed %d budget %d keep %d: %v kept %v", seed, budget, keep, err, res.Kept)
						for i, m := range msgs {
							t.Logf("  %d %s calls=%v results=%v raw=%s", i, m.Role, m.ToolCallIDs, m.ToolResultIDs, m.Raw)
						}
					}
				}
			}
		}
	}
	t.Log(valid, bad)
}
