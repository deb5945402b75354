package tiktoken_test

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tiktoken-go/tokenizer"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/internal/testkit/wiregen"
	"github.com/chitta-go/chitta/tiktoken"
)

var golden = []struct {
	text          string
	o200k, cl100k int
}{
	{"", 0, 0},
	{"hello world", 2, 2},
	{"tiktoken is great!", 6, 6},
	{"func (s *Server) Run(ctx context.Context) error {\n\treturn nil\n}", 17, 17},
	{`{"path":"/srv/app/config.yaml","line":42}`, 13, 12},
	{"日本語のテキストです。", 8, 10},
	{"   leading spaces\n\n\ttabs", 6, 6},
	{"<|endoftext|> is text here", 10, 10},
	{"\xff\xfe bad utf8 \xc3", 5, 5},
	{"1234567890 3.14159 -42", 11, 11},
}

// TestGolden checks the counts against fixed values (recorded from the
// encoder library and cross-checked with github.com/pkoukk/tiktoken-go) and
// against the library's own Encode.
func TestGolden(t *testing.T) {
	t.Parallel()
	for _, enc := range []string{tiktoken.O200kBase, tiktoken.Cl100kBase} {
		c, err := tiktoken.New(enc)
		require.NoError(t, err)
		assert.Equal(t, enc, c.Encoding())
		lib, err := tokenizer.Get(tokenizer.Encoding(enc))
		require.NoError(t, err)
		for _, g := range golden {
			want := g.o200k
			if enc == tiktoken.Cl100kBase {
				want = g.cl100k
			}
			ids, _, err := lib.Encode(g.text)
			require.NoError(t, err)
			assert.Equal(t, want, c.CountTokens(g.text), "%s %q", enc, g.text)
			assert.Len(t, ids, want, "%s %q: library", enc, g.text)
		}
	}
}

// TestKnownTokenIDs pins the encodings themselves to the IDs OpenAI's
// tiktoken documents for "tiktoken is great!".
func TestKnownTokenIDs(t *testing.T) {
	t.Parallel()
	for enc, want := range map[string][]uint{
		tiktoken.O200kBase:  {83, 8251, 2488, 382, 2212, 0},
		tiktoken.Cl100kBase: {83, 1609, 5963, 374, 2294, 0},
	} {
		lib, err := tokenizer.Get(tokenizer.Encoding(enc))
		require.NoError(t, err)
		ids, _, err := lib.Encode("tiktoken is great!")
		require.NoError(t, err)
		assert.Equal(t, want, ids, enc)
	}
}

func TestNewUnknownEncoding(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"", "p50k_base", "O200K_BASE", "gpt-4o"} {
		c, err := tiktoken.New(name)
		require.ErrorIs(t, err, tiktoken.ErrUnknownEncoding, name)
		assert.Nil(t, c)
		assert.Contains(t, err.Error(), "o200k_base")
		assert.Contains(t, err.Error(), "cl100k_base")
	}
}

func TestZeroCounterIsO200k(t *testing.T) {
	t.Parallel()
	var c tiktoken.Counter
	assert.Equal(t, tiktoken.O200kBase, c.Encoding())
	assert.Equal(t, 6, c.CountTokens("tiktoken is great!"))
	assert.Equal(t, 4, c.FramingTokens(&chitta.Message{Role: chitta.RoleUser}))
}

// TestNilCounterIsO200k: a nil *Counter (New's result when its error was
// dropped) counts as the zero value does instead of panicking, in Compact
// too.
func TestNilCounterIsO200k(t *testing.T) {
	t.Parallel()
	var c *tiktoken.Counter
	tests := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"Encoding", func(t *testing.T) { assert.Equal(t, tiktoken.O200kBase, c.Encoding()) }},
		{"CountTokens", func(t *testing.T) { assert.Equal(t, 6, c.CountTokens("tiktoken is great!")) }},
		{"FramingTokens", func(t *testing.T) { assert.Equal(t, 4, c.FramingTokens(&chitta.Message{Role: chitta.RoleUser})) }},
		{"Compact", func(t *testing.T) {
			msgs := []chitta.Message{{Role: chitta.RoleUser, Content: "tiktoken is great!"}}
			res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Tokens: c})
			require.NoError(t, err)
			assert.Equal(t, 10, res.Stats.BeforeTokens)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.NotPanics(t, func() { tt.run(t) })
		})
	}
}

func TestFramingTokens(t *testing.T) {
	t.Parallel()
	c, err := tiktoken.New(tiktoken.O200kBase)
	require.NoError(t, err)
	tests := []struct {
		name string
		m    chitta.Message
		want int
	}{
		{"user", chitta.Message{Role: chitta.RoleUser, Content: "hi"}, 3 + 1},
		{"assistant", chitta.Message{Role: chitta.RoleAssistant}, 3 + 1},
		{"one call", chitta.Message{Role: chitta.RoleAssistant, ToolCallIDs: []string{"a"}}, 4 + 8},
		{"two parallel calls", chitta.Message{Role: chitta.RoleAssistant, ToolCallIDs: []string{"a", "b"}}, 4 + 2*8 + 4},
		{"one result", chitta.Message{Role: chitta.RoleTool, ToolResultIDs: []string{"a"}}, 4 + 6},
		{"two results in one user message", chitta.Message{Role: chitta.RoleUser, ToolResultIDs: []string{"a", "b"}}, 4 + 2*6 + 4},
		{"two-token role", chitta.Message{Role: "tool_result"}, 3 + 2},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, c.FramingTokens(&tt.m), tt.name)
	}
}

// TestCompactUsesFraming checks that Compact counts Content plus framing
// with a Counter, directly and through a CachedTokenCounter.
func TestCompactUsesFraming(t *testing.T) {
	t.Parallel()
	c, err := tiktoken.New(tiktoken.O200kBase)
	require.NoError(t, err)
	msgs := []chitta.Message{
		{Role: chitta.RoleUser, Content: "tiktoken is great!"},
		{Role: chitta.RoleAssistant, Content: "hello world"},
	}
	for _, tc := range []chitta.TokenCounter{c, chitta.NewCachedTokenCounter(c, 0)} {
		res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Tokens: tc, TargetRatio: 1})
		require.NoError(t, err)
		assert.Equal(t, 6+4, res.Scores[0].Tokens)
		assert.Equal(t, 2+4, res.Scores[1].Tokens)
	}
}

func TestCounterConcurrent(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("concurrent counting of the same encoder ", 20)
	want := new(tiktoken.Counter).CountTokens(text)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for _, enc := range []string{tiktoken.O200kBase, tiktoken.Cl100kBase} {
				c, err := tiktoken.New(enc)
				if !assert.NoError(t, err) {
					return
				}
				n := c.CountTokens(text)
				if enc == tiktoken.O200kBase {
					assert.Equal(t, want, n)
				}
			}
		})
	}
	wg.Wait()
}

func FuzzCountTokens(f *testing.F) {
	for _, g := range golden {
		f.Add(g.text)
	}
	c, err := tiktoken.New(tiktoken.O200kBase)
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, s string) {
		n := c.CountTokens(s)
		assert.GreaterOrEqual(t, n, 0)
		assert.LessOrEqual(t, n, len(s), "a token covers at least one byte")
		if s != "" {
			assert.Positive(t, n)
		}
	})
}

func TestFramingTokensNilMessage(t *testing.T) {
	t.Parallel()
	var c tiktoken.Counter
	assert.NotPanics(t, func() { assert.Zero(t, c.FramingTokens(nil)) })
}

// TestInvalidUTF8CountsAsSent: a byte that is not UTF-8 counts as the
// U+FFFD that encoding/json sends in its place (the doc said such bytes
// were encoded as bytes).
func TestInvalidUTF8CountsAsSent(t *testing.T) {
	t.Parallel()
	c, err := tiktoken.New(tiktoken.O200kBase)
	require.NoError(t, err)
	for _, s := range []string{"\xff", "\xff\xfe bad utf8 \xc3", strings.Repeat("\x80", 64), "caf\xc3 ok \xe2\x82", "\xed\xa0\x80 surrogate"} {
		data, err := json.Marshal(s)
		require.NoError(t, err)
		var sent string
		require.NoError(t, json.Unmarshal(data, &sent))
		require.NotEqual(t, s, sent)
		assert.Equal(t, c.CountTokens(sent), c.CountTokens(s), "%q", s)
	}
}

// Compact and a Compactor counting with tiktoken, masks included, keep
// random valid conversations valid, and their AfterTokens is what the
// Counter counts of what they return, framing included, plus the
// messages' MediaTokens (wiregen's conversations hold images).
func TestWireProperties(t *testing.T) {
	t.Parallel()
	c, err := tiktoken.New(tiktoken.O200kBase)
	require.NoError(t, err)
	count := func(msgs []chitta.Message) int { // as Compact counts a message: text, framing, media
		n := 0
		for i := range msgs {
			n += c.CountTokens(msgs[i].Content) + c.FramingTokens(&msgs[i]) + msgs[i].MediaTokens
		}
		return n
	}
	for seed := range uint64(150) {
		r := rand.New(rand.NewPCG(seed, 3))
		data := wiregen.Conversation(r, wiregen.Formats[r.IntN(len(wiregen.Formats))], wiregen.Options{})
		in, err := chitta.ParseMessages([]byte(data))
		require.NoError(t, err)
		require.NoError(t, chitta.Validate(in), "seed %d", seed)
		opts := &chitta.Options{Tokens: c, TargetRatio: 0.05 + 0.95*r.Float64(), KeepLast: r.IntN(3)}
		if r.IntN(2) == 0 {
			opts.Mask = &chitta.MaskOptions{MinTokens: 1 + r.IntN(40), MaxResultTokens: r.IntN(60)}
		}
		res, err := chitta.Compact(t.Context(), in, opts)
		require.NoError(t, err, "seed %d", seed)
		require.NoError(t, chitta.Validate(res.Messages), "seed %d", seed)
		assert.Equal(t, count(res.Messages), res.Stats.AfterTokens, "seed %d", seed)
		cp, err := chitta.NewCompactor(opts, chitta.Policy{MaxTokens: 2 + r.IntN(1000)})
		require.NoError(t, err)
		for end := 1; end <= len(in); end++ {
			res, err := cp.Compact(t.Context(), in[:end])
			require.NoError(t, err, "seed %d", seed)
			if chitta.Validate(in[:end]) == nil {
				require.NoError(t, chitta.Validate(res.Messages), "seed %d, %d messages", seed, end)
			}
			assert.Equal(t, count(res.Messages), res.Stats.AfterTokens, "seed %d, %d messages", seed, end)
		}
	}
}
