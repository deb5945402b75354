package chitta_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// TestMaskLeavesPartsBesideNullContent: a result message with "content":
// null beside langchaingo or genai parts is read from its parts, so a
// placeholder written into content would leave the whole output in the
// parts while Stats counted the placeholder: it is not masked.
func TestMaskLeavesPartsBesideNullContent(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("log line with many words in it ", 60)
	for name, result := range map[string]string{
		"langchaingo": `{"role":"tool","content":null,"parts":[{"type":"tool_response","tool_response":{"tool_call_id":"t1","name":"read","content":"` + big + `"}}]}`,
		"genai":       `{"role":"function","content":null,"parts":[{"functionResponse":{"id":"t1","name":"read","response":{"output":"` + big + `"}}}]}`,
	} {
		call := `{"role":"ai","parts":[{"type":"tool_call","tool_call":{"id":"t1","type":"function","function":{"name":"read","arguments":"{}"}}}]}`
		if name == "genai" {
			call = `{"role":"model","parts":[{"functionCall":{"id":"t1","name":"read","args":{}}}]}`
		}
		msgs, err := chitta.ParseMessages([]byte(`[{"role":"system","content":"be brief"},{"role":"user","content":"read it"},` + call + `,` + result + `,{"role":"user","content":"and now?"}]`))
		require.NoError(t, err, name)
		res, err := chitta.Compact(t.Context(), msgs, &chitta.Options{TargetRatio: 0.2, Mask: &chitta.MaskOptions{}})
		require.NoError(t, err, name)
		assert.Zero(t, res.Stats.Masked, name)
		for k, i := range res.Kept {
			if res.Scores[i].Masked {
				assert.NotContains(t, string(res.Messages[k].Raw), big, "%s: a masked message does not hold its output", name)
			}
		}
	}
}
