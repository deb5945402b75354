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
		{Role: chitta.RoleUser, Content: "Which port does config.yaml set?"},
		{Role: chitta.RoleAssistant, Content: `read_file {"path":"config.yaml"}`, ToolCallIDs: []string{"c1"}},
		{Role: chitta.RoleTool, Content: "port: 8080\nhost: 0.0.0.0", ToolResultIDs: []string{"c1"}},
	}
	// In an agent loop, wrap it: chitta.NewCachedTokenCounter(tc, 0).
	res, err := chitta.Compact(context.Background(), msgs, &chitta.Options{Tokens: tc, MaxTokens: 60})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Stats.BeforeTokens, res.Stats.AfterTokens, res.Kept)
	// Output:
	// 6
	// 68 57 [0 2 3]
}
