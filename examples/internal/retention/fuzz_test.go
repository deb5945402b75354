package retention

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// FuzzLoadLoCoMo checks that any input either loads into consistent
// conversations or fails with ErrInvalidData, never panics.
func FuzzLoadLoCoMo(f *testing.F) {
	f.Add(locomoFixture)
	f.Add(`[]`)
	f.Add(`[{"conversation": {"session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "x"}]}, "qa": [{"question": "q", "evidence": ["D1:1;;D1:1"], "category": 9}]}]`)
	f.Add(`[{"observation": {"session_x_observation": {"A": [["f", ["D1:1", "D2:2"]]]}}}]`)
	f.Fuzz(func(t *testing.T, in string) {
		convs, err := LoadLoCoMo(strings.NewReader(in))
		if err != nil {
			if !errors.Is(err, ErrInvalidData) {
				t.Fatalf("error %v does not wrap ErrInvalidData", err)
			}
			return
		}
		for _, c := range convs {
			if len(c.DiaIDs) != len(c.Messages) {
				t.Fatalf("%d dia_ids for %d messages", len(c.DiaIDs), len(c.Messages))
			}
			for _, q := range c.Questions {
				if len(q.Evidence) == 0 {
					t.Fatal("question without evidence kept")
				}
				for _, i := range q.Evidence {
					if i < 0 || i >= len(c.Messages) {
						t.Fatalf("evidence %d out of range", i)
					}
				}
			}
			_ = c.Covered() // must not index out of range
		}
	})
}

// FuzzLoadTau checks that any input loads or fails with ErrInvalidData,
// and that the cuts of a loaded run point at messages it has.
func FuzzLoadTau(f *testing.F) {
	f.Add(tauFixture)
	f.Add(`{"traj": []}`)
	f.Add(`{"info": {"task": {"actions": [{"name": "a", "kwargs": {"x": [1, {"y": "z"}]}}]}}, "traj": [{"role": "assistant", "tool_calls": [{"id": "1", "function": {"name": "a", "arguments": {"x": [1, {"y": "z"}]}}}]}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		run, err := LoadTau("fuzz", strings.NewReader(in))
		if err != nil {
			if !errors.Is(err, ErrInvalidData) {
				t.Fatalf("error %v does not wrap ErrInvalidData", err)
			}
			return
		}
		if len(run.Calls) != len(run.Messages) {
			t.Fatalf("%d call lists for %d messages", len(run.Calls), len(run.Messages))
		}
		cuts, missing := run.Cuts()
		if len(cuts)+len(missing) != len(run.Actions) {
			t.Fatalf("%d cuts + %d missing for %d actions", len(cuts), len(missing), len(run.Actions))
		}
		for _, c := range cuts {
			if c.Index < 0 || c.Index >= len(run.Messages) {
				t.Fatalf("cut %d out of range", c.Index)
			}
			_ = ArgumentValues(c.Action.Args)
		}
	})
}

// FuzzToolTerms checks that term extraction never panics and returns
// distinct terms of at least 4 characters.
func FuzzToolTerms(f *testing.F) {
	f.Add(`{"file_path": "/a/b/parse_config.go"}`)
	f.Add(`{"command": "FOO=1 go test ./... && git status; ls -la | head"}`)
	f.Add(`{"x": ["camelCase", {"y": "snake_case.v2"}], "command": ""}`)
	f.Fuzz(func(t *testing.T, in string) {
		terms := ToolTerms(ToolUse{Input: json.RawMessage(in)})
		seen := map[string]bool{}
		for _, term := range terms {
			if len([]rune(term)) < 4 || seen[term] {
				t.Fatalf("bad term %q in %q", term, terms)
			}
			seen[term] = true
		}
	})
}
