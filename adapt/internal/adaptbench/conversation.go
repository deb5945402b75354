package adaptbench

import "fmt"

// Kind is the kind of a benchmark conversation's message.
type Kind int

// The four kinds of message the benchmark conversation repeats, in order.
const (
	Ask    Kind = iota // a user's text
	Call               // an assistant's tool call: Tool with the argument cmd = Cmd
	Result             // the tool's output (Text) for the call ID
	Answer             // an assistant's text
)

// Step is one message of the benchmark conversation, for an adapter's
// benchmark to build with its SDK's own constructors.
type Step struct {
	Kind Kind
	ID   string // the tool call's ID, on Call and Result
	Text string // on Ask, Result and Answer
	Tool string // "bash", on Call
	Cmd  string // the command, on Call: arguments {"cmd": Cmd}
	Args string // Cmd's arguments as a JSON string, for SDKs that carry them so
}

// Constructors build each kind of Step as an SDK value, with the SDK's own
// constructors.
type Constructors[T any] struct {
	Ask, Call, Result, Answer func(Step) T
}

// Conversation is the n messages every adapter's benchmark converts: user
// text, assistant tool call, tool result, assistant text, repeating (a
// tool call and its result per four messages), the same strings for every
// SDK so that their figures compare, built by c.
func Conversation[T any](n int, c Constructors[T]) []T {
	msgs := make([]T, n)
	for i := range msgs {
		s := Step{Kind: Kind(i % 4), ID: fmt.Sprintf("tu_%d", i/4)}
		switch s.Kind {
		case Ask:
			s.Text = fmt.Sprintf("step %d: check the build output of package p%d and fix what fails", i, i%17)
			msgs[i] = c.Ask(s)
		case Call:
			s.Tool, s.Cmd = "bash", fmt.Sprintf("go test ./p%d", i%17)
			s.Args = fmt.Sprintf(`{"cmd":%q}`, s.Cmd)
			msgs[i] = c.Call(s)
		case Result:
			s.Text = fmt.Sprintf("--- FAIL: TestX%d (0.00s)\n    x_test.go:%d: got %d want %d", i, i%90, i, i+1)
			msgs[i] = c.Result(s)
		case Answer:
			s.Text = fmt.Sprintf("The failure in p%d is an off-by-one; fixed.", i%17)
			msgs[i] = c.Answer(s)
		}
	}
	return msgs
}
