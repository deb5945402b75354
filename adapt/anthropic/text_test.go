package anthropic_test

import (
	"encoding/json"
	"math"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta/adapt/anthropic"
)

// TestToolCallScoringText pins the text chitta scores for tool_use blocks:
// the name, a space and the input as encoding/json renders it (sorted
// keys, HTML-safe escapes, ES6 numbers), a json.RawMessage or string input
// as it is, an input json.Marshal rejects in its %v form.
func TestToolCallScoringText(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		input any
		want  string
	}{
		"map": {
			map[string]any{"z": 1.0, "a": "<b>&\"x\"\n\u2028", "n": []any{1e21, 1e-7, math.Copysign(0, -1), nil, true, map[string]any{"é": "ü", "e": math.MaxInt64}}},
			`edit {"a":"\u003cb\u003e\u0026\"x\"\n\u2028","n":[1e+21,1e-7,-0,null,true,{"e":9223372036854775807,"é":"ü"}],"z":1}`,
		},
		"raw":    {json.RawMessage(`{"b": 1, "a": 2}`), `edit {"b": 1, "a": 2}`},
		"string": {"ls -la", "edit ls -la"},
		"nil":    {nil, "edit "},
		"bytes":  {[]byte("{}"), `edit "e30="`},
		"NaN":    {map[string]any{"x": math.NaN()}, "edit map[x:NaN]"},
		"struct": {struct {
			Path string `json:"path"`
		}{"a&b"}, `edit {"path":"a\u0026b"}`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			msgs, err := anthropic.Messages([]sdk.MessageParam{sdk.NewAssistantMessage(sdk.NewToolUseBlock("tu_1", tc.input, "edit"))})
			require.NoError(t, err)
			assert.Equal(t, tc.want, msgs[0].Content)
			assert.Equal(t, []string{"tu_1"}, msgs[0].ToolCallIDs)
		})
	}
}
