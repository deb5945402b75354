package chitta_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/chitta-go/chitta"
)

func ExampleCompact() {
	msgs, err := chitta.ParseMessages([]byte(`[
	  {"role": "system", "content": "You are a careful coding agent."},
	  {"role": "user", "content": "The build fails on CI, can you look?"},
	  {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
	    "function": {"name": "run", "arguments": "{\"cmd\": \"go test ./...\"}"}}]},
	  {"role": "tool", "tool_call_id": "c1", "content": "FAIL parseConfig: unexpected EOF in config.yaml line 42"},
	  {"role": "assistant", "content": "config.yaml is truncated at line 42; restoring the last block fixes it."},
	  {"role": "user", "content": "Great, thanks. Now add a test for it."}
	]`))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := chitta.Compact(context.Background(), msgs, &chitta.Options{TargetRatio: 0.5})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range res.Scores {
		fmt.Printf("%d %-9s tokens=%2d score=%.3f kept=%v\n", s.Index, s.Role, s.Tokens, s.Score, s.Kept)
	}
	st, _ := json.Marshal(res.Stats)
	fmt.Println(string(st))
	// Output:
	// 0 system    tokens= 7 score=0.000 kept=true
	// 1 user      tokens=10 score=0.530 kept=true
	// 2 assistant tokens= 6 score=0.478 kept=false
	// 3 tool      tokens=10 score=0.333 kept=false
	// 4 assistant tokens=15 score=0.586 kept=false
	// 5 user      tokens=10 score=0.800 kept=true
	// {"before_tokens":58,"after_tokens":27,"dropped":3,"dropped_pct":53.44827586206897,"embedding":false,"kept":3,"target_tokens":29,"over_budget":false,"covered_dropped_pct":0,"distilled":0}
}

func ExampleParseMessages() {
	msgs, err := chitta.ParseMessages([]byte(`[
	  {"role": "assistant", "content": [
	    {"type": "text", "text": "Reading it."},
	    {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"path": "main.go"}}]},
	  {"role": "user", "content": [
	    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "package main"}]}
	]`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range msgs {
		fmt.Printf("%s calls=%v results=%v content=%q\n", m.Role, m.ToolCallIDs, m.ToolResultIDs, m.Content)
	}
	// Output:
	// assistant calls=[toolu_1] results=[] content="Reading it.\nRead {\"path\":\"main.go\"}"
	// user calls=[] results=[toolu_1] content="package main"
}

func ExampleEstimateTokens() {
	fmt.Println(chitta.EstimateTokens("the build fails on CI"))
	// Output: 6
}
