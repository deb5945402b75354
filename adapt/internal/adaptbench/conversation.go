package adaptbench

import "fmt"

// Kind is the kind of a benchmark conversation's message.
type Kind int

// The four kinds of message the benchmark conversations are made of.
const (
	Ask    Kind = iota // a user's text
	Call               // an assistant's tool call: Tool with the arguments Input (Args as JSON)
	Result             // the tool's output (Text) for the call ID
	Answer             // an assistant's text
)

// Step is one message of a benchmark conversation, for an adapter's
// benchmark to build with its SDK's own constructors.
type Step struct {
	Kind  Kind
	ID    string         // the tool call's ID, on Call and Result
	Text  string         // on Ask, Result and Answer
	Tool  string         // the tool's name, on Call and Result
	Input map[string]any // the arguments, on Call, for SDKs that carry them as a map (a new map per Step)
	Args  string         // the arguments as a JSON string, on Call, for SDKs that carry them so
}

// Constructors build each kind of Step as an SDK value, with the SDK's own
// constructors.
type Constructors[T any] struct {
	Ask, Call, Result, Answer func(Step) T
}

// Build builds steps with c, index for index.
func Build[T any](steps []Step, c Constructors[T]) []T {
	msgs := make([]T, len(steps))
	for i, s := range steps {
		switch s.Kind {
		case Ask:
			msgs[i] = c.Ask(s)
		case Call:
			msgs[i] = c.Call(s)
		case Result:
			msgs[i] = c.Result(s)
		case Answer:
			msgs[i] = c.Answer(s)
		}
	}
	return msgs
}

// Steps is the synthetic conversation of n messages every adapter's
// benchmark converts: user text, assistant tool call bash {"cmd": "go test
// ./pN"}, tool result, assistant text, repeating (a tool call and its result
// per four messages, about five words a message), the same strings for
// every SDK so that their figures compare.
func Steps(n int) []Step {
	steps := make([]Step, n)
	for i := range steps {
		s := Step{Kind: Kind(i % 4), ID: fmt.Sprintf("tu_%d", i/4)}
		switch s.Kind {
		case Ask:
			s.Text = fmt.Sprintf("step %d: check the build output of package p%d and fix what fails", i, i%17)
		case Call:
			cmd := fmt.Sprintf("go test ./p%d", i%17)
			s.Tool, s.Input = "bash", map[string]any{"cmd": cmd}
			s.Args = fmt.Sprintf(`{"cmd":%q}`, cmd)
		case Result:
			s.Tool = "bash"
			s.Text = fmt.Sprintf("--- FAIL: TestX%d (0.00s)\n    x_test.go:%d: got %d want %d", i, i%90, i, i+1)
		case Answer:
			s.Text = fmt.Sprintf("The failure in p%d is an off-by-one; fixed.", i%17)
		}
		steps[i] = s
	}
	return steps
}

// Conversation is Build(Steps(n), c).
func Conversation[T any](n int, c Constructors[T]) []T {
	return Build(Steps(n), c)
}
