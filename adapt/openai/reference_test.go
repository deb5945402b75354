package openai_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/internal/adapttest"
	adapter "github.com/chitta-go/chitta/adapt/openai"
)

// TestResponsesItemReference: an item_reference to a stored function_call
// and the output answering it (whose call_id no item of the input issues)
// are kept or dropped together, as chitta.ParseMessages links them. On
// main the output was a unit of its own: CompactResponses kept it without
// the reference, which the API refuses.
func TestResponsesItemReference(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("flight detail row ", 80)
	ref := responses.ResponseInputItemParamOfItemReference
	user := func(s string) responses.ResponseInputItemUnionParam {
		return responses.ResponseInputItemParamOfMessage(s, responses.EasyInputMessageRoleUser)
	}
	custom := responses.ResponseInputItemUnionParam{OfCustomToolCallOutput: &responses.ResponseCustomToolCallOutputParam{
		CallID: "call_2", Output: responses.ResponseCustomToolCallOutputOutputUnionParam{OfString: param.NewOpt(big)}}}
	for _, tc := range []struct {
		name   string
		in     []responses.ResponseInputItemUnionParam
		groups [][]int
	}{
		{"one reference", []responses.ResponseInputItemUnionParam{user("book it"), ref("fc_1"), output("call_1", big), user("thanks")}, [][]int{{1, 2}}},
		{"parallel, a custom tool's output", []responses.ResponseInputItemUnionParam{user("both"), ref("rs_1"), ref("fc_1"), ref("ctc_2"), output("call_1", big), custom, user("thanks")}, [][]int{{1, 2, 3, 4, 5}}},
		{"two runs", []responses.ResponseInputItemUnionParam{user("go"), ref("fc_1"), output("call_1", big), ref("fc_2"), output("call_2", big), user("thanks")}, [][]int{{1, 2}, {3, 4}}},
		{"a reference to a message", []responses.ResponseInputItemUnionParam{user("go"), ref("msg_1"), responses.ResponseInputItemParamOfFunctionCall("{}", "call_1", "search"), output("call_1", big), user("thanks")}, [][]int{{2, 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			conv := adapttest.MatchesParse(t, tc.in, adapter.ResponsesMessages)
			require.NoError(t, chitta.Validate(conv))
			adapttest.SameKept(t, tc.in, adapter.CompactResponses)
			for _, mask := range []*chitta.MaskOptions{nil, {KeepRecent: 1, MinTokens: 10}} {
				for ratio := 0.05; ratio <= 1; ratio += 0.05 {
					_, res, err := adapter.CompactResponses(t.Context(), tc.in, &chitta.Options{TargetRatio: ratio, Mask: mask})
					require.NoError(t, err)
					keptTogether(t, res.Kept, tc.groups, fmt.Sprintf("ratio %.2f, mask %v", ratio, mask != nil))
				}
			}
		})
	}
}
