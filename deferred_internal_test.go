package chitta

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestToolReferences: the tool names of the tool_reference blocks inside
// tool_result and tool_search_tool_result blocks and of the function and
// custom tools of a tool_search_output item, and nothing else.
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
		{"a server tool search", `{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"tool_search_tool_regex","input":{"query":"task"}},{"type":"tool_search_tool_result","tool_use_id":"srvtoolu_1","content":{"tool_references":[{"type":"tool_reference","tool_name":"TaskUpdate"},{"tool_name":"TaskGet","type":"tool_reference"}],"type":"tool_search_tool_search_result"}}]}`, []string{"TaskUpdate", "TaskGet"}},
		{"a server tool search error", `{"content":[{"type":"tool_search_tool_result","tool_use_id":"s","content":{"type":"tool_search_tool_result_error","error_code":"unavailable"}}]}`, nil},
		{"a Responses tool search output", `{"tools":[{"type":"function","name":"TaskUpdate","parameters":{"type":"object"}},{"name":"apply_patch","type":"custom"},{"type":"mcp","server_label":"gh"},{"type":"namespace","name":"crm","tools":[{"type":"function","name":"CrmGet"},{"type":"namespace","name":"deeper","tools":[{"type":"function","name":"No"}]}]}],"call_id":"s1","type":"tool_search_output"}`, []string{"TaskUpdate", "apply_patch", "CrmGet"}},
		{"tools of another item", `{"type":"function_call_output","call_id":"s1","tools":[{"type":"function","name":"TaskUpdate"}]}`, nil},
		{"a Responses output with malformed tools", `{"type":"tool_search_output","tools":[{"type":"function","name":"A"},{"type":`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, toolReferences([]byte(tt.raw)))
		})
	}
}
