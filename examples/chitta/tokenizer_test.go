package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/tiktoken"
)

// tokenizerOutput is what the tokenizer tests read of a compact_context
// result.
type tokenizerOutput struct {
	Tokenizer string `json:"tokenizer"`
	Stats     struct {
		BeforeTokens int `json:"before_tokens"`
		AfterTokens  int `json:"after_tokens"`
	} `json:"stats"`
}

// TestCompactTokenizer checks that compact_context budgets and reports in
// the tokenizer a call names (or the server's default): before_tokens is
// what chitta.Compact counts with that counter on the same messages, and
// the exact encodings count this code-laden conversation higher than the
// words × 1.3 estimate.
func TestCompactTokenizer(t *testing.T) {
	t.Parallel()
	msgs, err := chitta.ParseMessages([]byte(conversation))
	require.NoError(t, err)
	before := func(tc chitta.TokenCounter) int {
		res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Tokens: tc, TargetRatio: 1})
		require.NoError(t, err)
		return res.Stats.BeforeTokens
	}
	exact := func(name string) chitta.TokenCounter {
		c, err := tiktoken.New(name)
		require.NoError(t, err)
		return c
	}
	for _, tt := range []struct {
		arg, def, want string
		tc             chitta.TokenCounter
	}{
		{"", "", "estimate", nil},
		{"estimate", "o200k_base", "estimate", nil},
		{"o200k_base", "", "o200k_base", exact(tiktoken.O200kBase)},
		{"cl100k_base", "", "cl100k_base", exact(tiktoken.Cl100kBase)},
		{"", "o200k_base", "o200k_base", exact(tiktoken.O200kBase)}, // the server's --tokenizer
	} {
		t.Run(tt.arg+"/"+tt.def, func(t *testing.T) {
			t.Parallel()
			a, _ := newTestApp(t)
			if tt.def != "" {
				a.tokenizer = tt.def
			}
			args := map[string]any{"messages": json.RawMessage(conversation), "target_ratio": 0.5}
			if tt.arg != "" {
				args["tokenizer"] = tt.arg
			}
			for range 2 { // the second call counts from the server's cache
				res, err := a.compactContext(t.Context(), mustJSON(t, args))
				require.NoError(t, err)
				require.False(t, res.IsError)
				var out tokenizerOutput
				require.NoError(t, json.Unmarshal(mustJSON(t, res.StructuredContent), &out))
				assert.Equal(t, tt.want, out.Tokenizer)
				assert.Equal(t, before(tt.tc), out.Stats.BeforeTokens)
				if tt.tc != nil {
					assert.Greater(t, out.Stats.BeforeTokens, before(nil), "exact counts of code and JSON exceed words × 1.3 here")
				}
				checkOutputSchema(t, a, "compact_context", res)
			}
		})
	}
}

// TestCompactTokenizerInvalid: an unknown tokenizer is an error naming the
// argument and the valid names.
func TestCompactTokenizerInvalid(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	for _, name := range []string{"gpt2", "O200K_BASE", " o200k_base"} {
		_, err := a.compactContext(t.Context(), mustJSON(t, map[string]any{"messages": json.RawMessage(conversation), "tokenizer": name}))
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), "tokenizer: ")
		assert.Contains(t, err.Error(), "want estimate, o200k_base, cl100k_base")
	}
}

// TestEnumArgNotString: a tokenizer or mask.actions of another JSON type
// than a string is an argument error (isError) naming the field, what
// came and the valid names,
// as a string outside them is.
func TestEnumArgNotString(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	cs := connect(t, a)
	const tokenizers = "want estimate, o200k_base, cl100k_base"
	const actions = "want oldest (default), newest, score or off"
	for _, tt := range []struct{ args, want string }{
		{`{"messages": [], "tokenizer": ["o200k_base"]}`, "tokenizer: got array, " + tokenizers},
		{`{"messages": [], "tokenizer": 7}`, "tokenizer: got number, " + tokenizers},
		{`{"messages": [], "tokenizer": {"name": "o200k_base"}}`, "tokenizer: got object, " + tokenizers},
		{`{"messages": [], "tokenizer": true}`, "tokenizer: got bool, " + tokenizers},
		{`{"messages": [], "mask": {"actions": ["newest"]}}`, "mask.actions: got array, " + actions},
		{`{"messages": [], "mask": {"actions": 1}}`, "mask.actions: got number, " + actions},
	} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "compact_context", Arguments: json.RawMessage(tt.args)})
		assert.Equal(t, tt.want, argError(t, res, err, tt.args), tt.args)
	}
}

// TestTokenizerFlag runs the built command: --tokenizer sets the default
// of a call that names none, and a bad name stops the command with an
// error naming the flag.
func TestTokenizerFlag(t *testing.T) {
	t.Parallel()
	req, err := os.ReadFile(filepath.Join("testdata", "compact.json"))
	require.NoError(t, err)
	outputs := map[string]tokenizerOutput{}
	for _, name := range []string{"estimate", "o200k_base"} {
		r := runChitta(t, t.TempDir(), string(req), "--tokenizer", name)
		require.Equal(t, 0, r.code, r.stderr)
		var resp struct {
			Result struct {
				StructuredContent tokenizerOutput `json:"structuredContent"`
			} `json:"result"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &resp))
		outputs[name] = resp.Result.StructuredContent
		assert.Equal(t, name, resp.Result.StructuredContent.Tokenizer)
	}
	assert.NotEqual(t, outputs["estimate"].Stats.BeforeTokens, outputs["o200k_base"].Stats.BeforeTokens)

	r := runChitta(t, t.TempDir(), string(req), "--tokenizer", "p50k_base")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `--tokenizer "p50k_base": want estimate, o200k_base, cl100k_base`)
}
