package chitta

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestToolReferences: the tool names of the tool_reference blocks inside
// tool_result blocks, and nothing else.
func TestToolReferences(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, raw string
		want      []string
	}{
		{"two tools", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"s","content":[{"type":"tool_reference","tool_name":"TaskCreate"},{"tool_name":"TaskGet","type":"tool_reference"}]}]}`, []string{"TaskCreate", "TaskGet"}},
		{"white space and escapes", "{ \"content\" : [ { \"content\" : [ { \"type\" : \"tool_reference\" , \"tool_name\" : \"mcp__gh\\u005flist\" } ] , \"type\" : \"tool_result\" } ] }", []string{"mcp__gh_list"}},
		{"several results", `{"content":[{"type":"tool_result","content":"text"},{"type":"text","text":"x"},{"type":"tool_result","content":[{"type":"text","text":"tool_reference"},{"type":"tool_reference","tool_name":"WebFetch"}]}]}`, []string{"WebFetch"}},
		{"no name", `{"content":[{"type":"tool_result","content":[{"type":"tool_reference"},{"type":"tool_reference","tool_name":""}]}]}`, nil},
		{"a reference outside a result", `{"content":[{"type":"tool_reference","tool_name":"TaskGet"}]}`, nil},
		{"string content", `{"role":"user","content":"tool_reference"}`, nil},
		{"malformed", `{"content":[{"type":"tool_result","content":[{"type":"tool_reference","tool_name":"A"},{"type":`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, toolReferences([]byte(tt.raw)))
		})
	}
}
