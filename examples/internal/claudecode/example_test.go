package claudecode_test

import (
	"fmt"
	"strings"

	"github.com/chitta-go/chitta/examples/internal/claudecode"
)

func ExampleParse() {
	transcript := `{"type":"user","uuid":"u1","message":{"role":"user","content":"List the Go files."}}
{"type":"assistant","uuid":"a1","message":{"id":"msg_1","content":[{"type":"thinking","thinking":"Use ls."}]}}
{"type":"assistant","uuid":"a2","message":{"id":"msg_1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls *.go"}}]}}
{"type":"user","uuid":"u2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"main.go"}]}}
{"type":"file-history-snapshot","messageId":"u1","snapshot":{}}
{"type":"assistant","uuid":"a3","message":{"id":"msg_2","content":[{"type":"text","text":"There is one: main.go."}]}}
{"type":"user","uuid":"u3","message":{"content":"Than`
	tr, err := claudecode.Parse(strings.NewReader(transcript), nil)
	if err != nil {
		panic(err)
	}
	for _, t := range tr.Turns {
		fmt.Printf("%-9s calls=%v results=%v prompt=%q\n", t.Message.Role, t.Message.ToolCallIDs, t.Message.ToolResultIDs, t.Prompt)
	}
	fmt.Println("skipped:", tr.Skipped, "malformed:", tr.Malformed)
	fmt.Println("last prompt:", claudecode.LastPrompt(tr.Turns))
	// Output:
	// user      calls=[] results=[] prompt="List the Go files."
	// assistant calls=[t1] results=[] prompt=""
	// user      calls=[] results=[t1] prompt=""
	// assistant calls=[] results=[] prompt=""
	// skipped: 1 malformed: 1
	// last prompt: List the Go files.
}
