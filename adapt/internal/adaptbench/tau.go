package adaptbench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/chitta-go/chitta/internal/testkit/shareddata"
)

// tauData is where the tau-bench runs are in the shared data.
const tauData = "agent-trajectories/tau"

// TauSteps is the realistic benchmark conversation: the first n messages
// of the tau-bench airline runs in the shared data (files in name order,
// runs concatenated, system prompts left out), read at run time and never
// copied into the repository. Their sizes are those of a real agent's: a
// user turn of ~100 bytes, an assistant turn of ~300, tool arguments of
// ~100 (a JSON object, decoded into Input for SDKs that carry a map), a
// tool result of ~650 (JSON text). An assistant turn that has both text
// and a tool call becomes an Answer then a Call; tool call IDs get the
// run's index as a prefix, so that runs never share one. It fails in CI
// when the data is missing and skips the caller elsewhere.
func TauSteps(tb testing.TB, n int) []Step {
	tb.Helper()
	dir := shareddata.ForTest(tb, tauData)
	steps, err := readTau(dir, n)
	if err != nil {
		tb.Fatal(err)
	}
	return steps
}

type tauRun struct {
	Traj []struct {
		Role      string  `json:"role"`
		Content   *string `json:"content"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
		ToolCallID string `json:"tool_call_id"`
	} `json:"traj"`
}

func readTau(dir string, n int) ([]Step, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	steps := make([]Step, 0, n)
	for run, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var r tauRun
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		prefix := fmt.Sprintf("r%d_", run)
		tools := map[string]string{} // call ID → tool name
		for _, m := range r.Traj {
			text := ""
			if m.Content != nil {
				text = *m.Content
			}
			switch {
			case m.Role == "user":
				steps = append(steps, Step{Kind: Ask, Text: text})
			case m.Role == "assistant":
				if text != "" || len(m.ToolCalls) == 0 {
					steps = append(steps, Step{Kind: Answer, Text: text})
				}
				for _, tc := range m.ToolCalls {
					s := Step{Kind: Call, ID: prefix + tc.ID, Tool: tc.Function.Name, Args: tc.Function.Arguments}
					if err := json.Unmarshal([]byte(s.Args), &s.Input); err != nil {
						return nil, fmt.Errorf("%s: arguments of %s: %w", f, tc.ID, err)
					}
					tools[s.ID] = s.Tool
					steps = append(steps, s)
				}
			case m.Role == "tool":
				id := prefix + m.ToolCallID
				steps = append(steps, Step{Kind: Result, ID: id, Tool: tools[id], Text: text})
			}
		}
		if len(steps) >= n {
			return steps[:n], nil
		}
	}
	return nil, fmt.Errorf("%s: %d messages, want %d", dir, len(steps), n)
}
