package genai_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"google.golang.org/genai"

	"github.com/chitta-go/chitta"
	adapter "github.com/chitta-go/chitta/adapt/genai"
)

// An agent loop calls the Compactor before every model call with the
// whole conversation so far. The first call compacts (the conversation is
// over MaxTokens); the second, two contents later, returns the first call's
// values followed by the new ones, so the prompt's prefix, and the
// provider's prompt cache, stay as they were.
func ExampleCompactor() {
	c, err := adapter.NewCompactor(nil, chitta.Policy{MaxTokens: 150, TargetTokens: 100})
	if err != nil {
		fmt.Println(err)
		return
	}
	call := func(cmd string) *genai.Content {
		return genai.NewContentFromFunctionCall("bash", map[string]any{"cmd": cmd}, genai.RoleModel)
	}
	result := func(out string) *genai.Content {
		return genai.NewContentFromFunctionResponse("bash", map[string]any{"output": out}, genai.RoleUser)
	}
	log := "FAIL TestParse: " + strings.Repeat("unexpected token near line 12 ", 12)
	msgs := []*genai.Content{
		genai.NewContentFromText("The parser tests fail; fix them.", genai.RoleUser),
		call("go test ./parser"), result(log),
		call("go test ./parser"), result(log),
		genai.NewContentFromText("Fixed the tokenizer; the tests pass.", genai.RoleModel),
		genai.NewContentFromText("Now update the changelog.", genai.RoleUser),
	}
	ctx := context.Background()
	out, res, err := c.Compact(ctx, msgs)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("call 1: %d contents, sent %v, compacted %v\n", len(msgs), res.Kept, res.Stats.Compacted)

	msgs = append(msgs, call("git diff CHANGELOG.md"), result("+ parser: fix tokenizer"))
	next, res, err := c.Compact(ctx, msgs)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("call 2: %d contents, sent %v, compacted %v, stable prefix %d\n", len(msgs), res.Kept, res.Stats.Compacted, res.Stats.StablePrefix)
	fmt.Println("call 1's values first:", reflect.DeepEqual(out, next[:len(out)]))
	// Output:
	// call 1: 7 contents, sent [0 5 6], compacted true
	// call 2: 9 contents, sent [0 5 6 7 8], compacted false, stable prefix 3
	// call 1's values first: true
}
