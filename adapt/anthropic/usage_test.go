package anthropic_test

import (
	"fmt"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/anthropic"
)

func TestInputTokens(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		u    sdk.Usage
		want int
	}{
		{"zero", sdk.Usage{}, 0},
		{"no cache", sdk.Usage{InputTokens: 1200, OutputTokens: 80}, 1200},
		{"cache written", sdk.Usage{InputTokens: 12, CacheCreationInputTokens: 3000}, 3012},
		{"cache read", sdk.Usage{InputTokens: 40, CacheReadInputTokens: 5000, CacheCreationInputTokens: 300, OutputTokens: 9}, 5340},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, anthropic.InputTokens(tc.u))
		})
	}
}

// With a warm prompt cache, InputTokens calibrates the counter to the
// call's real size; u.InputTokens alone would not.
func TestInputTokensCalibrates(t *testing.T) {
	t.Parallel()
	msgs := []chitta.Message{{Role: chitta.RoleUser, Content: "read the deploy script and find why the test is flaky"}}
	u := sdk.Usage{InputTokens: 3, CacheReadInputTokens: 40}
	count := func(reported int) int {
		c := chitta.NewCalibratedCounter(nil)
		c.Observe(msgs, reported)
		require.Equal(t, 1, c.Observations())
		return c.CountTokens(msgs[0].Content) + c.FramingTokens(&msgs[0])
	}
	assert.Equal(t, 43, count(anthropic.InputTokens(u)))
	assert.Less(t, count(int(u.InputTokens)), 10, "input_tokens alone: the message counted at a fraction of its size")
}

func ExampleInputTokens() {
	// The usage of a call whose prefix was read from the prompt cache.
	u := sdk.Usage{InputTokens: 25, CacheReadInputTokens: 4000, OutputTokens: 120}
	fmt.Println(anthropic.InputTokens(u))
	// Output: 4025
}
