package chitta_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/chitta-go/chitta"
)

// An agent loop calls the Compactor before every model call with the whole
// conversation so far. The first call compacts (the conversation is over
// MaxTokens); the second, two messages later, returns the first call's
// survivors followed by the new messages, so the prompt's prefix, and the
// provider's prompt cache, stay as they were.
func ExampleCompactor() {
	c, err := chitta.NewCompactor(nil, chitta.Policy{MaxTokens: 150, TargetTokens: 100})
	if err != nil {
		fmt.Println(err)
		return
	}
	call := func(id, cmd string) chitta.Message {
		return chitta.Message{Role: chitta.RoleAssistant, Content: "bash " + cmd, ToolCallIDs: []string{id}}
	}
	result := func(id, out string) chitta.Message {
		return chitta.Message{Role: chitta.RoleTool, Content: out, ToolResultIDs: []string{id}}
	}
	log := "FAIL TestParse: " + strings.Repeat("unexpected token near line 12 ", 12)
	conversation := []chitta.Message{
		{Role: chitta.RoleSystem, Content: "You are a coding agent."},
		{Role: chitta.RoleUser, Content: "The parser tests fail; fix them."},
		call("c1", "go test ./parser"), result("c1", log),
		call("c2", "go test ./parser"), result("c2", log),
		{Role: chitta.RoleAssistant, Content: "Fixed the tokenizer; the tests pass."},
		{Role: chitta.RoleUser, Content: "Now update the changelog."},
	}
	ctx := context.Background()
	res, err := c.Compact(ctx, conversation)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("call 1: %d messages, sent %v, compacted %v\n", len(conversation), res.Kept, res.Stats.Compacted)

	conversation = append(conversation, call("c3", "git diff CHANGELOG.md"), result("c3", "+ parser: fix tokenizer"))
	res, err = c.Compact(ctx, conversation)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("call 2: %d messages, sent %v, compacted %v, stable prefix %d\n",
		len(conversation), res.Kept, res.Stats.Compacted, res.Stats.StablePrefix)
	// Output:
	// call 1: 8 messages, sent [0 1 6 7], compacted true
	// call 2: 10 messages, sent [0 1 6 7 8 9], compacted false, stable prefix 4
}

// Validate reports what a provider would reject: here a tool result whose
// call is not in the conversation.
func ExampleValidate() {
	err := chitta.Validate([]chitta.Message{
		{Role: chitta.RoleUser, Content: "What is in main.go?"},
		{Role: chitta.RoleTool, Content: "package main", ToolResultIDs: []string{"c1"}},
	})
	var me *chitta.MessageError
	fmt.Println(errors.Is(err, chitta.ErrInvalidConversation), errors.As(err, &me) && me.Index == 1)
	fmt.Println(err)
	// Output:
	// true true
	// chitta: invalid conversation: message 1: ToolResultIDs: result for "c1" follows no call with that ID
}
