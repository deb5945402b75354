package tiktoken_test

import (
	"context"
	"fmt"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/tiktoken"
)

func Example() {
	tc, err := tiktoken.New(tiktoken.O200kBase)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tc.CountTokens("tiktoken is great!"))

	msgs := []chitta.Message{
		{Role: chitta.RoleSystem, Content: "You are a careful coding agent."},
		{Role: chitta.RoleUser, Content: "Rename the logger package to logging everywhere in the repository."},
		{Role: chitta.RoleAssistant, Content: "Renamed logger to logging in 14 files; go build ./... passes."},
		{Role: chitta.RoleUser, Content: "Which port does config.yaml set?"},
		{Role: chitta.RoleAssistant, Content: `read_file {"path":"config.yaml"}`, ToolCallIDs: []string{"c1"}},
		{Role: chitta.RoleTool, Content: "port: 8080\nhost: 0.0.0.0", ToolResultIDs: []string{"c1"}},
	}
	// The live turn (the last user message and what follows) is always kept;
	// the older exchange does not fit in 60 tokens. In an agent loop, wrap
	// the counter: chitta.NewCachedTokenCounter(tc, 0).
	res, err := chitta.Compact(context.Background(), msgs, &chitta.Options{Tokens: tc, MaxTokens: 60})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Stats.BeforeTokens, res.Stats.AfterTokens, res.Kept)
	// Output:
	// 6
	// 103 68 [0 3 4 5]
}
