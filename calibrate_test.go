package chitta_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// charsCounter is a stand-in for a provider's tokenizer: one token per 4
// bytes, rounded up, plus 4 tokens of framing per message.
type charsCounter struct{}

func (charsCounter) CountTokens(s string) int            { return (len(s) + 3) / 4 }
func (charsCounter) FramingTokens(m *chitta.Message) int { return 4 }

func truth(msgs []chitta.Message) int {
	n := 0
	for i := range msgs {
		n += charsCounter{}.CountTokens(msgs[i].Content) + 4
	}
	return n
}

// replayConversation builds an agent-like conversation: prose user turns,
// assistant turns with JSON tool arguments, tool results with paths and code.
func replayConversation(seed uint64, n int) []chitta.Message {
	r := rand.New(rand.NewPCG(seed, seed+1))
	words := []string{"the", "build", "fails", "because", "config", "is", "missing", "please", "check", "again", "tests", "pass"}
	code := []string{`{"path":"/src/pkg/main.go","line":42}`, "func (s *Server) Run(ctx context.Context) error {", "if err != nil { return fmt.Errorf(\"run: %w\", err) }", "ok  github.com/x/y 0.12s", "--- FAIL: TestParse (0.00s)"}
	msgs := make([]chitta.Message, n)
	for i := range msgs {
		var b strings.Builder
		switch i % 3 {
		case 0:
			msgs[i].Role = chitta.RoleUser
			for range 5 + r.IntN(30) {
				b.WriteString(words[r.IntN(len(words))] + " ")
			}
		case 1:
			msgs[i].Role = chitta.RoleAssistant
			b.WriteString("read_file ")
			b.WriteString(code[0])
		default:
			msgs[i].Role = chitta.RoleTool
			for range 2 + r.IntN(12) {
				b.WriteString(code[r.IntN(len(code))] + "\n")
			}
		}
		msgs[i].Content = b.String()
	}
	return msgs
}

func totalTokens(tc chitta.TokenCounter, msgs []chitta.Message) int {
	n := 0
	for i := range msgs {
		n += tc.CountTokens(msgs[i].Content)
		if fc, ok := tc.(chitta.FramingCounter); ok {
			n += fc.FramingTokens(&msgs[i])
		}
	}
	return n
}

func TestCalibratedCounterZeroValue(t *testing.T) {
	t.Parallel()
	var c chitta.CalibratedCounter
	assert.Equal(t, 1.0, c.Ratio())
	assert.Equal(t, 0, c.Observations())
	assert.Equal(t, chitta.EstimateTokens("a b c d e f g h i j"), c.CountTokens("a b c d e f g h i j"))
	assert.Equal(t, 0, c.FramingTokens(&chitta.Message{Role: chitta.RoleUser}), "EstimateTokens has no framing")
}

func TestCalibratedCounterObserve(t *testing.T) {
	t.Parallel()
	msgs := []chitta.Message{{Role: chitta.RoleUser, Content: "one two three four five six seven eight nine ten"}} // 13 estimated
	tests := []struct {
		name     string
		reported []int
		ratio    float64
		count    int
	}{
		{"none", nil, 1, 0},
		{"ignored non-positive", []int{0, -5}, 1, 0},
		{"one", []int{26}, 2, 1},
		{"latest within the outlier factor", []int{26, 13, 39}, 3, 3},
		{"outlier replaced by the median", []int{26, 26, 26, 1300}, 2, 4},
		{"low outlier replaced by the median", []int{26, 26, 26, 2}, 2, 4},
		{"median of an even count averages the middle two", []int{13, 26, 52, 520}, 3, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := chitta.NewCalibratedCounter(nil)
			for _, r := range tt.reported {
				c.Observe(msgs, r)
			}
			assert.InDelta(t, tt.ratio, c.Ratio(), 1e-12)
			assert.Equal(t, tt.count, c.Observations())
			assert.Equal(t, int(math.Round(13*tt.ratio)), c.CountTokens(msgs[0].Content))
		})
	}
	t.Run("empty messages ignored", func(t *testing.T) {
		c := chitta.NewCalibratedCounter(nil)
		c.Observe(nil, 100)
		c.Observe([]chitta.Message{{Role: chitta.RoleUser}}, 100)
		assert.Equal(t, 0, c.Observations())
	})
	t.Run("a lasting shift wins once it holds the window", func(t *testing.T) {
		c := chitta.NewCalibratedCounter(nil)
		for range chitta.CalibrationWindow {
			c.Observe(msgs, 13*1)
		}
		c.Observe(msgs, 13*5)
		assert.InDelta(t, 1, c.Ratio(), 1e-12, "first 5× observation is an outlier")
		for range chitta.CalibrationWindow / 2 {
			c.Observe(msgs, 13*5)
		}
		assert.InDelta(t, 5, c.Ratio(), 1e-12)
	})
}

// TestCalibratedCounterConvergence replays growing prefixes of a synthetic
// agent conversation, as an agent loop would call a provider: after three
// observed calls, the calibrated estimate of every later prefix is within
// 5% of the "provider" count, while EstimateTokens alone is not.
func TestCalibratedCounterConvergence(t *testing.T) {
	t.Parallel()
	msgs := replayConversation(7, 240)
	c := chitta.NewCalibratedCounter(nil)
	var worstRaw, worst float64
	for k := 12; k <= len(msgs); k += 12 {
		prefix := msgs[:k]
		want := float64(truth(prefix))
		if c.Observations() >= 3 {
			worst = max(worst, math.Abs(float64(totalTokens(c, prefix))-want)/want)
			worstRaw = max(worstRaw, math.Abs(float64(totalTokens(chitta.TokenCounterFunc(chitta.EstimateTokens), prefix))-want)/want)
		}
		c.Observe(prefix, int(want))
	}
	assert.LessOrEqual(t, worst, 0.05, "calibrated error after 3 observations")
	assert.Greater(t, worstRaw, 0.05, "EstimateTokens alone must be off for the test to mean anything")
}

func TestCalibratedCounterFramingPassThrough(t *testing.T) {
	t.Parallel()
	c := chitta.NewCalibratedCounter(chitta.NewCachedTokenCounter(charsCounter{}, 0))
	m := chitta.Message{Role: chitta.RoleUser, Content: strings.Repeat("x", 40)}
	assert.Equal(t, 4, c.FramingTokens(&m))
	c.Observe([]chitta.Message{m}, 28) // base 10 + 4 = 14
	assert.InDelta(t, 2, c.Ratio(), 1e-12)
	assert.Equal(t, 8, c.FramingTokens(&m))
	assert.Equal(t, 20, c.CountTokens(m.Content))

	res, err := chitta.Compact(t.Context(), []chitta.Message{m}, &chitta.Options{Tokens: c, TargetRatio: 1})
	require.NoError(t, err)
	assert.Equal(t, 28, res.Stats.BeforeTokens, "Compact adds the framing")
}

func TestCalibratedCounterConcurrent(t *testing.T) {
	t.Parallel()
	c := chitta.NewCalibratedCounter(nil)
	msgs := replayConversation(3, 30)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				c.Observe(msgs, 100+g+i)
				_ = c.CountTokens(msgs[i%len(msgs)].Content)
				_ = c.Ratio()
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 200, c.Observations())
	assert.Greater(t, c.Ratio(), 0.0)
}

func ExampleCalibratedCounter() {
	msgs := []chitta.Message{
		{Role: chitta.RoleUser, Content: "What does config.yaml set the port to?"},
		{Role: chitta.RoleAssistant, Content: `read_file {"path":"/srv/app/config.yaml"}`},
	}
	tc := chitta.NewCalibratedCounter(nil) // EstimateTokens, ratio 1 for now
	count := func() int { return tc.CountTokens(msgs[0].Content) + tc.CountTokens(msgs[1].Content) }
	fmt.Println(count())
	tc.Observe(msgs, 34) // the input tokens the provider reported for this call
	fmt.Printf("ratio %.2f, count %d\n", tc.Ratio(), count())
	// Pass tc as Options.Tokens to Compact from now on.
	// Output:
	// 11
	// ratio 3.09, count 34
}

type negativeFraming struct{ charsCounter }

func (negativeFraming) FramingTokens(*chitta.Message) int { return -1 }

func TestCompactCountsFraming(t *testing.T) {
	t.Parallel()
	msgs := []chitta.Message{
		{Role: chitta.RoleSystem, Content: strings.Repeat("s", 8)},
		{Role: chitta.RoleUser, Content: strings.Repeat("u", 16)},
	}
	for name, tc := range map[string]chitta.TokenCounter{
		"direct": charsCounter{},
		"cached": chitta.NewCachedTokenCounter(charsCounter{}, 0),
	} {
		res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Tokens: tc, TargetRatio: 1})
		require.NoError(t, err, name)
		assert.Equal(t, 2+4, res.Scores[0].Tokens, name)
		assert.Equal(t, 4+4, res.Scores[1].Tokens, name)
	}
	_, err := chitta.Compact(t.Context(), msgs, &chitta.Options{Tokens: negativeFraming{}})
	require.ErrorIs(t, err, chitta.ErrInvalidTokenCount)
	var nilCache *chitta.CachedTokenCounter
	assert.Equal(t, 0, nilCache.FramingTokens(&msgs[0]))
}
