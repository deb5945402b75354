package tiktoken_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/tiktoken"
)

// listing returns an indented directory listing of n entries, as a coding
// agent's LS tool returns it: nested directories, two spaces per level.
func listing(n int) string {
	var b strings.Builder
	b.WriteString("- /home/dev/weather-report/\n")
	dirs := []string{"weather_report/", "static/", "tests/", "fixtures/", "tools/", "rendered_pages/"}
	files := []string{"__init__.py", "app.py", "parser.py", "schema.py", "index.html", "forecast.html", "test_station_parsing.py", "sample_readings.jsonl", "weekly_summary_page.html", "setup.cfg"}
	for i := range n {
		name := files[i%len(files)]
		if i%4 == 0 {
			name = dirs[i%len(dirs)]
		}
		fmt.Fprintf(&b, "%s- %s\n", strings.Repeat("  ", 1+(i/3)%4), name)
	}
	return b.String()
}

// prose returns n words of English prose in paragraphs of 40 words.
func prose(n int) string {
	words := strings.Fields("The plan mode of the assistant lets a user review what it intends to do before it changes any file. While it is on, the assistant reads the code, asks questions and writes a plan; when the user approves the plan, it leaves plan mode and starts to edit. This keeps large changes reviewable and avoids surprises in a shared repository.")
	var b strings.Builder
	for i := range n {
		b.WriteString(words[i%len(words)])
		if i%40 == 39 {
			b.WriteString("\n\n")
		} else {
			b.WriteString(" ")
		}
	}
	return b.String()
}

// replayCalls calls a provider at each assistant message of msgs, sending
// the prefix, with o200k_base (content and framing) as the provider's
// count: the count of each call by a CalibratedCounter over
// EstimateTokens before it observes the call, and o200k's.
func replayCalls(t *testing.T, msgs []chitta.Message) (got, want []float64) {
	t.Helper()
	tc, err := tiktoken.New(tiktoken.O200kBase)
	require.NoError(t, err)
	cal := chitta.NewCalibratedCounter(nil)
	for k := 1; k <= len(msgs); k++ {
		if msgs[k-1].Role != chitta.RoleAssistant {
			continue
		}
		prefix := msgs[:k]
		truth := sum(tc, prefix, true)
		got = append(got, float64(sum(cal, prefix, true)))
		want = append(want, float64(truth))
		cal.Observe(prefix, truth)
	}
	return got, want
}

// TestCalibratedNewContent replays the start of two agent conversations
// whose last call adds one message that is most of the call, so that the
// estimate of that message decides the call (as in the Claude Code
// sessions of the shared data, where such calls missed 5% by up to 15%):
// an indented directory listing after a few turns of prose and JSON
// (indentation, dashes and dotted names cost tokens no word shows), and a
// prose document after turns of short tool calls and results (whose
// framing costs more per word than prose). Both calls are counted within
// 5% of o200k.
func TestCalibratedNewContent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		msgs  []chitta.Message
		large string // the message that is most of the last call
	}{
		{
			name: "listing",
			msgs: []chitta.Message{
				{Role: chitta.RoleUser, Content: "Could you add a workflow that runs the tests and the linter on every push? Try it locally with `act` first."},
				{Role: chitta.RoleAssistant, Content: "I'll add a workflow for the tests and the linter. First I will write down the steps so that we can track them."},
				{Role: chitta.RoleAssistant, Content: `TodoWrite {"todos":[{"id":"1","content":"Write the CI workflow","status":"in_progress","priority":"high"},{"id":"2","content":"Run the workflow with act","status":"pending","priority":"medium"}]}`, ToolCallIDs: []string{"toolu_01"}},
				{Role: chitta.RoleTool, Content: "The todo list was updated. Keep using it to track your progress, and go on with the current task.", ToolResultIDs: []string{"toolu_01"}},
				{Role: chitta.RoleAssistant, Content: `LS {"path":"/home/dev/weather-report"}`, ToolCallIDs: []string{"toolu_02"}},
				{Role: chitta.RoleTool, Content: listing(60), ToolResultIDs: []string{"toolu_02"}},
				{Role: chitta.RoleAssistant, Content: `Bash {"command":"mkdir -p .github/workflows","description":"Create the workflows directory"}`, ToolCallIDs: []string{"toolu_03"}},
			},
			large: listing(60),
		},
		{
			name: "document after tool calls",
			msgs: func() []chitta.Message {
				msgs := []chitta.Message{{Role: chitta.RoleUser, Content: "Research the plan mode of the assistant and write a short document about it."}}
				for i := range 5 {
					id := fmt.Sprint("toolu_0", i)
					msgs = append(msgs,
						chitta.Message{Role: chitta.RoleAssistant, Content: fmt.Sprintf(`TaskUpdate {"taskId":"%d","status":"in_progress","owner":"alice"}`, i), ToolCallIDs: []string{id}},
						chitta.Message{Role: chitta.RoleTool, Content: fmt.Sprintf("Updated task #%d owner, status", i), ToolResultIDs: []string{id}})
				}
				return append(msgs,
					chitta.Message{Role: chitta.RoleAssistant, Content: `WebFetch {"url":"https://example.com/docs/plan-mode","prompt":"Extract how plan mode works"}`, ToolCallIDs: []string{"toolu_9"}},
					chitta.Message{Role: chitta.RoleTool, Content: prose(600), ToolResultIDs: []string{"toolu_9"}},
					chitta.Message{Role: chitta.RoleAssistant, Content: "I have what I need; writing the document now."})
			}(),
			large: prose(600),
		},
	}
	tc, err := tiktoken.New(tiktoken.O200kBase)
	require.NoError(t, err)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, want := replayCalls(t, tt.msgs)
			last := len(want) - 1
			require.GreaterOrEqual(t, last, 3, "three observations before the last call")
			require.Greater(t, float64(tc.CountTokens(tt.large)), 0.5*want[last], "the large message is most of its call")
			e := math.Abs(got[last]-want[last]) / want[last]
			t.Logf("last call: %v counted, o200k %v (%.1f%% off)", got[last], want[last], 100*e)
			assert.LessOrEqual(t, e, 0.05, "last call: %v counted, o200k %v", got[last], want[last])
		})
	}
}
