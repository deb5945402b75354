package adaptkit_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/chitta-go/chitta/adapt/internal/adaptkit"
)

func TestPending(t *testing.T) {
	t.Parallel()
	type step struct {
		start      bool   // a new message first
		call       string // a call's ID, or
		answer     string // a response's ID ("" for none, when call is "")
		answeredID string // what Answer returns
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"by position", []step{
			{start: true, call: "a"}, {call: "b"},
			{start: true, answeredID: "a"}, {start: true, answeredID: "b"}, {answeredID: ""},
		}},
		{"by ID, then the rest by position", []step{
			{start: true, call: "a"}, {call: "b"}, {call: "c"},
			{start: true, answer: "b", answeredID: "b"}, {answeredID: "a"}, {answeredID: "c"},
		}},
		{"a response to a call not awaiting one keeps its ID", []step{
			{start: true, call: "a"}, {start: true, answer: "z", answeredID: "z"}, {answeredID: "a"},
		}},
		{"a new turn of calls expires the unanswered ones", []step{
			{start: true, call: "a"}, {call: "b"}, {start: true, answeredID: "a"},
			{start: true, call: "c"}, {start: true, answeredID: "c"}, {answeredID: ""},
		}},
		{"no calls", []step{{start: true, answeredID: ""}, {answer: "x", answeredID: "x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var p adaptkit.Pending
			for k, s := range tt.steps {
				if s.start {
					p.Start()
				}
				if s.call != "" {
					p.Call(s.call)
					continue
				}
				assert.Equal(t, s.answeredID, p.Answer(s.answer), "step %d", k)
			}
		})
	}
}
