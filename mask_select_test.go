package chitta_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// actionsConversation: two old call units with 60-word results, a long
// user digression that outscores them, and a live turn with a recent
// 40-word result.
const actionsConversation = `[
{"role":"user","content":"book the trip"},
{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"lookup","arguments":"{\"id\":\"R1\"}"}}]},
{"role":"tool","tool_call_id":"c1","content":"` + "r1 " + "x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x" + `"},
{"role":"assistant","content":null,"tool_calls":[{"id":"c2","type":"function","function":{"name":"lookup","arguments":"{\"id\":\"R2\"}"}}]},
{"role":"tool","tool_call_id":"c2","content":"` + "r2 " + "y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y y" + `"},
{"role":"assistant","content":"` + "I can help with that and here is a long explanation of the policy that applies to the trip you booked earlier today" + `"},
{"role":"user","content":"` + "tell me more about the policy and the trip and the fees and the rules that apply to changes of the booking" + `"},
{"role":"assistant","content":null,"tool_calls":[{"id":"c3","type":"function","function":{"name":"lookup","arguments":"{\"id\":\"R3\"}"}}]},
{"role":"tool","tool_call_id":"c3","content":"` + "r3 " + "z z z z z z z z z z z z z z z z z z z z z z z z z z z z z z z z z z z z z z z z" + `"}
]`

// Masked call units are kept before free-scored dialogue (the default);
// ActionsOff restores the plain race, which the dialogue wins.
func TestMaskActionsFirst(t *testing.T) {
	t.Parallel()
	in, err := chitta.ParseMessages([]byte(actionsConversation))
	require.NoError(t, err)
	tests := []struct {
		name  string
		mask  chitta.MaskOptions
		calls []int // call messages kept
	}{
		{"actions first", chitta.MaskOptions{KeepRecent: 1, MinTokens: 10}, []int{1, 3, 7}},
		{"off", chitta.MaskOptions{KeepRecent: 1, MinTokens: 10, Actions: chitta.ActionsOff}, []int{7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := chitta.Compact(t.Context(), in, &chitta.Options{TargetRatio: 0.45, Tokens: words, Mask: &tt.mask})
			require.NoError(t, err)
			checkMasked(t, in, res)
			checkPairs(t, in, res)
			var calls []int
			for _, i := range res.Kept {
				if len(in[i].ToolCallIDs) > 0 {
					calls = append(calls, i)
				}
			}
			assert.Equal(t, tt.calls, calls)
			assert.LessOrEqual(t, res.Stats.AfterTokens, res.Stats.TargetTokens)
		})
	}
}

// With room for one old call group, the order of Actions picks it.
func TestMaskActionsOrder(t *testing.T) {
	t.Parallel()
	in, err := chitta.ParseMessages([]byte(actionsConversation))
	require.NoError(t, err)
	tests := []struct {
		actions chitta.MaskActions
		calls   []int
	}{
		{chitta.ActionsOldestFirst, []int{1, 7}},
		{chitta.ActionsNewestFirst, []int{3, 7}},
		{chitta.ActionsByScore, []int{3, 7}}, // no query: recency decides the score
		{chitta.ActionsOff, []int{3, 7}},     // the formula: the newer unit scores higher and fits
	}
	for _, tt := range tests {
		res, err := chitta.Compact(t.Context(), in, &chitta.Options{TargetRatio: 0.37, Tokens: words, Mask: &chitta.MaskOptions{KeepRecent: 1, MinTokens: 10, Actions: tt.actions}})
		require.NoError(t, err)
		checkMasked(t, in, res)
		var calls []int
		for _, i := range res.Kept {
			if len(in[i].ToolCallIDs) > 0 {
				calls = append(calls, i)
			}
		}
		assert.Equal(t, tt.calls, calls, "actions %d", tt.actions)
	}
}

// lookups is a prompt, n lookup calls with 60-word results (call k at
// index 2k+1, its result at 2k+2), and a live turn of a prompt and a reply.
func lookups(n int) string {
	var b strings.Builder
	b.WriteString(`[{"role":"user","content":"book the trip"},`)
	for k := range n {
		fmt.Fprintf(&b, `{"role":"assistant","content":null,"tool_calls":[{"id":"c%d","type":"function","function":{"name":"lookup","arguments":"{}"}}]},`, k)
		fmt.Fprintf(&b, `{"role":"tool","tool_call_id":"c%d","content":"%s"},`, k, output(string(rune('a'+k)), 60))
	}
	b.WriteString(`{"role":"user","content":"and now"},{"role":"assistant","content":"ok"}]`)
	return b.String()
}

// When a call unit does not fit even masked, its recent or small result is
// masked too (degraded) before the call is dropped; with room to spare it
// returns to its masked form.
func TestMaskDegradesBeforeDropping(t *testing.T) {
	t.Parallel()
	in, err := chitta.ParseMessages([]byte(lookups(1)))
	require.NoError(t, err)
	tests := []struct {
		name     string
		mask     chitta.MaskOptions
		ratio    float64
		kept     bool // the call unit
		degraded bool // its recent result returned as a placeholder
	}{
		{"too small even degraded", chitta.MaskOptions{}, 0.05, false, false},
		{"degraded to fit", chitta.MaskOptions{}, 0.25, true, true},
		{"fits as it is", chitta.MaskOptions{}, 1, true, false},
		{"off never degrades", chitta.MaskOptions{Actions: chitta.ActionsOff}, 0.25, false, false},
		{"excluded tools are never degraded", chitta.MaskOptions{ExcludeTools: []string{"lookup"}}, 0.25, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := chitta.Compact(t.Context(), in, &chitta.Options{TargetRatio: tt.ratio, Tokens: words, Mask: &tt.mask})
			require.NoError(t, err)
			checkMasked(t, in, res)
			checkPairs(t, in, res)
			assert.Equal(t, tt.kept, res.Scores[1].Kept)
			assert.Equal(t, tt.degraded, res.Scores[2].Masked)
			if tt.degraded {
				require.Equal(t, []int{0, 1, 2, 3, 4}, res.Kept)
				assert.Equal(t, "[chitta: lookup output elided (60 tokens)]", res.Messages[2].Content)
			}
			assert.LessOrEqual(t, res.Stats.AfterTokens, res.Stats.TargetTokens)
		})
	}
}

// After degrading call groups to keep them all, the newest results are
// the first to be whole again, whatever the order of Actions.
func TestMaskNewestWholeFirst(t *testing.T) {
	t.Parallel()
	in, err := chitta.ParseMessages([]byte(lookups(2)))
	require.NoError(t, err)
	for _, actions := range []chitta.MaskActions{chitta.ActionsOldestFirst, chitta.ActionsNewestFirst, chitta.ActionsByScore} {
		res, err := chitta.Compact(t.Context(), in, &chitta.Options{TargetRatio: 0.65, Tokens: words, Mask: &chitta.MaskOptions{Actions: actions}})
		require.NoError(t, err)
		checkMasked(t, in, res)
		require.Equal(t, []int{0, 1, 2, 3, 4, 5, 6}, res.Kept, "actions %d", actions)
		assert.True(t, res.Scores[2].Masked, "actions %d: the older result is degraded", actions)
		assert.False(t, res.Scores[4].Masked, "actions %d: the newest result is whole", actions)
	}
}

// jsonResult is a JSON tool result of a reservation, as a JSON string
// literal (the content of a message).
const jsonResult = `"{\"reservation_id\": \"JG7FMM\", \"user_id\": \"omar_davis_3817\", \"cabin\": \"business\", \"origin\": \"MCO\", \"note\": \"call back later today please\", \"flights\": [{\"flight_number\": \"HAT028\", \"date\": \"2024-05-21\", \"price\": 1859, \"seats\": 2}, {\"flight_number\": \"HAT277\", \"date\": \"2024-05-21\", \"price\": 1679, \"seats\": 2}], \"payment\": \"credit_card_2929732\", \"refundable\": true, \"insurance\": null, \"remarks\": \"the customer asked twice about the baggage allowance for this trip and was told the policy\"}"`

func TestMaskListValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string
		mask    chitta.MaskOptions
		want    string
	}{
		{"defaults", jsonResult, chitta.MaskOptions{MinTokens: 1, KeepRecent: 1},
			"[chitta: get_reservation output elided (54 tokens); values: JG7FMM, omar_davis_3817, MCO, HAT028, 2024-05-21, 1859, HAT277, 1679, credit_card_2929732]"},
		{"capped", jsonResult, chitta.MaskOptions{MinTokens: 1, KeepRecent: 1, ListValues: 2},
			"[chitta: get_reservation output elided (54 tokens); values: JG7FMM, omar_davis_3817]"},
		{"none", jsonResult, chitta.MaskOptions{MinTokens: 1, KeepRecent: 1, ListValues: -1},
			"[chitta: get_reservation output elided (54 tokens)]"},
		{"not JSON", `"` + output("HAT", 30) + `"`, chitta.MaskOptions{MinTokens: 1, KeepRecent: 1},
			"[chitta: get_reservation output elided (30 tokens)]"},
		{"values that would not save anything are left out", `"[\"A1\", \"B2\", \"C3\", \"D4\", \"E5\", \"F6\", \"G7\", \"H8\", \"I9\", \"J10\", \"K11\"]"`, chitta.MaskOptions{MinTokens: 1, KeepRecent: 1},
			"[chitta: get_reservation output elided (11 tokens)]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data := `[
{"role":"user","content":"change it"},
{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_reservation","arguments":"{}"}}]},
{"role":"tool","tool_call_id":"c1","content":` + tt.content + `},
{"role":"assistant","content":null,"tool_calls":[{"id":"c2","type":"function","function":{"name":"get_reservation","arguments":"{}"}}]},
{"role":"tool","tool_call_id":"c2","content":"done"}
]`
			_, res := compactMasked(t, data, &tt.mask)
			require.True(t, res.Scores[2].Masked)
			assert.Equal(t, tt.want, res.Messages[2].Content)
			assert.NotContains(t, res.Messages[2].Content, "\n")
		})
	}
}

// Placeholders with values stay valid in every provider format.
func TestMaskListValuesFormats(t *testing.T) {
	t.Parallel()
	for _, f := range maskFormats {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			// A JSON result of 200 tokens where the oldest output was.
			inner := strings.TrimSuffix(strings.TrimPrefix(jsonResult, `"`), `"`)
			data := strings.Replace(f.data, output("a", 200), inner+` `+output("a", 150), 1)
			in, res := compactMasked(t, data, &chitta.MaskOptions{KeepRecent: 1})
			i := f.results[0]
			require.True(t, res.Scores[i].Masked, "%s", in[i].Content)
			for k, j := range res.Kept {
				if j == i {
					assert.Contains(t, res.Messages[k].Content, "; values: JG7FMM, omar_davis_3817, MCO, HAT028")
				}
			}
		})
	}
}

// Restore returns masked results whole, newest first, while the budget
// allows.
func TestMaskRestore(t *testing.T) {
	t.Parallel()
	in, err := chitta.ParseMessages([]byte(maskFormats[0].data))
	require.NoError(t, err)
	tests := []struct {
		name   string
		ratio  float64
		masked []int
	}{
		{"room for everything", 1, nil},
		{"room for the newest", 0.75, []int{3}},
		{"no room", 0.4, []int{3, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := chitta.Compact(t.Context(), in, &chitta.Options{TargetRatio: tt.ratio, Tokens: words, Mask: &chitta.MaskOptions{KeepRecent: 1, Restore: true}})
			require.NoError(t, err)
			checkMasked(t, in, res)
			var masked []int
			for _, i := range res.Kept {
				if res.Scores[i].Masked {
					masked = append(masked, i)
				}
			}
			assert.Equal(t, tt.masked, masked)
			assert.LessOrEqual(t, res.Stats.AfterTokens, res.Stats.TargetTokens)
		})
	}
}

// reservations is a tool loop whose results repeat what the calls and
// the other results show: the user's id is in the prompt and every
// result, each reservation id in its call and in the user's record.
func reservations(pad int) string {
	padding := strings.Repeat("the customer asked about the baggage allowance ", pad)
	result := func(fields string) string {
		return `"{` + fields + `, \"remarks\": \"` + padding + `\"}"`
	}
	return `[
{"role":"user","content":"I am omar_davis_3817 and want to change a flight"},
{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_user","arguments":"{\"user_id\": \"omar_davis_3817\"}"}}]},
{"role":"tool","tool_call_id":"c1","content":` + result(`\"user_id\": \"omar_davis_3817\", \"reservations\": [\"JG7FMM\", \"2FBBAH\"]`) + `},
{"role":"assistant","content":null,"tool_calls":[{"id":"c2","type":"function","function":{"name":"get_reservation","arguments":"{\"reservation_id\": \"JG7FMM\"}"}}]},
{"role":"tool","tool_call_id":"c2","content":` + result(`\"reservation_id\": \"JG7FMM\", \"user_id\": \"omar_davis_3817\", \"flight\": \"HAT028\"`) + `},
{"role":"assistant","content":null,"tool_calls":[{"id":"c3","type":"function","function":{"name":"get_reservation","arguments":"{\"reservation_id\": \"2FBBAH\"}"}}]},
{"role":"tool","tool_call_id":"c3","content":` + result(`\"reservation_id\": \"2FBBAH\", \"user_id\": \"omar_davis_3817\", \"flight\": \"HAT080\"`) + `},
{"role":"user","content":"the second one please"}
]`
}

// When call groups must be degraded to fit, a placeholder does not list
// a value the kept text already shows (a pinned message, a kept call's
// arguments, an older kept placeholder), so more groups fit; a value
// only a dropped message holds is still listed.
func TestMaskListsValuesOnce(t *testing.T) {
	t.Parallel()
	in, err := chitta.ParseMessages([]byte(reservations(4)))
	require.NoError(t, err)
	tests := []struct {
		name      string
		mask      chitta.MaskOptions
		maxTokens int
		want      map[int]string // kept result → its returned content
	}{
		{"each value once, oldest first", chitta.MaskOptions{}, 55, map[int]string{
			2: "[chitta: get_user output elided (35 tokens); values: JG7FMM, 2FBBAH]",
			4: "[chitta: get_reservation output elided (36 tokens); values: HAT028]",
			6: "[chitta: get_reservation output elided (36 tokens); values: HAT080]",
		}},
		{"newest first: the newest kept result lists them", chitta.MaskOptions{Actions: chitta.ActionsNewestFirst}, 40, map[int]string{
			4: "[chitta: get_reservation output elided (36 tokens); values: HAT028]",
			6: "[chitta: get_reservation output elided (36 tokens); values: HAT080]",
		}},
		{"no values", chitta.MaskOptions{ListValues: -1}, 60, map[int]string{
			2: "[chitta: get_user output elided (35 tokens)]",
			4: "[chitta: get_reservation output elided (36 tokens)]",
			6: "[chitta: get_reservation output elided (36 tokens)]",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := chitta.Compact(t.Context(), in, &chitta.Options{MaxTokens: tt.maxTokens, Tokens: words, Mask: &tt.mask})
			require.NoError(t, err)
			checkMasked(t, in, res)
			checkPairs(t, in, res)
			got := map[int]string{}
			for k, i := range res.Kept {
				if in[i].Role == chitta.RoleTool {
					got[i] = res.Messages[k].Content
				}
			}
			assert.Equal(t, tt.want, got)
			assert.LessOrEqual(t, res.Stats.AfterTokens, res.Stats.TargetTokens)
		})
	}
}

// A degraded message given back its masked form (the newest result whole
// again) leaves out of its other placeholders the values they left out
// when degraded.
func TestMaskRestoredFormListsOnce(t *testing.T) {
	t.Parallel()
	padding := strings.Repeat("the customer asked about the baggage allowance ", 4)
	result := func(id, flight string) string {
		return `"{\"reservation_id\": \"` + id + `\", \"user_id\": \"omar_davis_3817\", \"flight\": \"` + flight + `\", \"remarks\": \"` + padding + `\"}"`
	}
	in, err := chitta.ParseMessages([]byte(`[
{"role":"user","content":"hi"},
{"role":"assistant","content":[{"type":"tool_use","id":"t0","name":"get_user","input":{"user_id":"omar_davis_3817"}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"t0","content":"{\"user_id\": \"omar_davis_3817\", \"reservations\": [\"JG7FMM\", \"2FBBAH\"], \"remarks\": \"` + padding + `\"}"}]},
{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"get_reservation","input":{"reservation_id":"JG7FMM"}},{"type":"tool_use","id":"t2","name":"get_reservation","input":{"reservation_id":"2FBBAH"}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":` + result("JG7FMM", "HAT028") + `},{"type":"tool_result","tool_use_id":"t2","content":` + result("2FBBAH", "HAT080") + `}]},
{"role":"assistant","content":"` + strings.Repeat("I found both reservations and can change either ", 3) + `"},
{"role":"user","content":"the second one please"}
]`))
	require.NoError(t, err)
	first := "[chitta: get_reservation output elided (36 tokens); values: HAT028]"
	tests := []struct {
		name      string
		maxTokens int
		want      string // message 4 as returned
	}{
		{"degraded", 50, first + "\n[chitta: get_reservation output elided (36 tokens); values: HAT080]"},
		{"degraded, then its masked form", 66, first + "\n" + strings.TrimSuffix(strings.TrimPrefix(strings.ReplaceAll(result("2FBBAH", "HAT080"), `\"`, `"`), `"`), `"`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := chitta.Compact(t.Context(), in, &chitta.Options{MaxTokens: tt.maxTokens, Tokens: words, Mask: &chitta.MaskOptions{KeepRecent: 1, MinTokens: 10}})
			require.NoError(t, err)
			checkMasked(t, in, res)
			checkPairs(t, in, res)
			require.Equal(t, []int{0, 1, 2, 3, 4, 6}, res.Kept)
			assert.Equal(t, "[chitta: get_user output elided (35 tokens); values: JG7FMM, 2FBBAH]", res.Messages[2].Content)
			assert.Equal(t, tt.want, res.Messages[4].Content)
			assert.LessOrEqual(t, res.Stats.AfterTokens, res.Stats.TargetTokens)
		})
	}
}

// A result cut to head and tail (MaxResultTokens) lists in its marker the
// values of the part cut out, as many as fit.
func TestMaskCutListsValues(t *testing.T) {
	t.Parallel()
	data := `[
{"role":"user","content":"change it"},
{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_reservation","arguments":"{}"}}]},
{"role":"tool","tool_call_id":"c1","content":` + jsonResult + `}
]`
	tests := []struct {
		name string
		mask chitta.MaskOptions
		want string
	}{
		{"the values cut out", chitta.MaskOptions{MaxResultTokens: 30},
			"{\"reservation_id\": \"JG7FMM\",\n[chitta: get_reservation output cut from 54 tokens to head and tail; values: omar_davis_3817, MCO, HAT028, 2024-05-21, 1859, HAT277, 1679, credit_card_2929732]\nthis trip and was told the policy\"}"},
		{"as many as fit", chitta.MaskOptions{MaxResultTokens: 14},
			"[chitta: get_reservation output cut from 54 tokens to head and tail; values: JG7FMM, omar_davis_3817]"},
		{"none", chitta.MaskOptions{MaxResultTokens: 30, ListValues: -1},
			"{\"reservation_id\": \"JG7FMM\", \"user_id\": \"omar_davis_3817\", \"cabin\":\n[chitta: get_reservation output cut from 54 tokens to head and tail]\ntwice about the baggage allowance for this trip and was told the policy\"}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, res := compactMasked(t, data, &tt.mask)
			require.True(t, res.Scores[2].Masked)
			c := res.Messages[2].Content
			assert.LessOrEqual(t, words.CountTokens(c), tt.mask.MaxResultTokens)
			assert.Equal(t, tt.want, c)
		})
	}
}

// When the pinned live turn alone exceeds the budget, its older results
// are degraded, oldest first, while it does; the newest stays whole.
func TestMaskDegradesPinnedOverBudget(t *testing.T) {
	t.Parallel()
	in, err := chitta.ParseMessages([]byte(`[
{"role":"user","content":"read the three files"},
{"role":"assistant","content":null,"tool_calls":[
 {"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.go\"}"}},
 {"id":"c2","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"b.go\"}"}},
 {"id":"c3","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"c.go\"}"}}]},
{"role":"tool","tool_call_id":"c1","content":"` + output("a", 60) + `"},
{"role":"tool","tool_call_id":"c2","content":"` + output("b", 60) + `"},
{"role":"tool","tool_call_id":"c3","content":"` + output("c", 60) + `"}
]`))
	require.NoError(t, err)
	tests := []struct {
		name      string
		mask      *chitta.MaskOptions
		maxTokens int
		masked    []int
	}{
		{"over budget: the oldest first", &chitta.MaskOptions{}, 140, []int{2}},
		{"far over budget: all but the newest", &chitta.MaskOptions{}, 20, []int{2, 3}},
		{"within budget", &chitta.MaskOptions{}, 200, nil},
		{"actions off", &chitta.MaskOptions{Actions: chitta.ActionsOff}, 20, nil},
		{"no masking", nil, 20, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := chitta.Compact(t.Context(), in, &chitta.Options{MaxTokens: tt.maxTokens, Tokens: words, Mask: tt.mask})
			require.NoError(t, err)
			checkMasked(t, in, res)
			require.NoError(t, chitta.Validate(res.Messages))
			require.Equal(t, []int{0, 1, 2, 3, 4}, res.Kept, "the live turn is pinned")
			var masked []int
			for _, s := range res.Scores {
				if s.Masked {
					masked = append(masked, s.Index)
				}
			}
			assert.Equal(t, tt.masked, masked)
			assert.Equal(t, in[4], res.Messages[4], "the newest result is whole")
			if tt.mask == nil {
				assert.Equal(t, in, res.Messages, "verbatim")
			}
		})
	}
}

// randomLookups writes an OpenAI tool loop whose JSON results share ids
// with each other, with the calls' arguments and with the user's turns.
func randomLookups(r *rand.Rand) string {
	id := func() string { return fmt.Sprintf("R%d", r.IntN(6)) }
	pad := func(n int) string { return strings.Repeat("the customer asked again ", n) }
	q := func(s string) string { return string(jsonQuote(s)) }
	out := []string{`{"role":"user","content":` + q("I am U1 and hold "+id()) + `}`}
	if r.IntN(2) == 0 {
		out = append([]string{`{"role":"system","content":"be brief; ids look like R1"}`}, out...)
	}
	for k := range 2 + r.IntN(7) {
		switch r.IntN(4) {
		case 0:
			out = append(out, `{"role":"user","content":`+q("what about "+id()+" "+pad(r.IntN(4)))+`}`)
		default:
			c := fmt.Sprintf("c%d", k)
			items := make([]string, r.IntN(4))
			for j := range items {
				items[j] = `"` + id() + `"`
			}
			result := fmt.Sprintf(`{"id": "%s", "user": "U1", "items": [%s], "n": %d, "note": "%s"}`, id(), strings.Join(items, ", "), 10+r.IntN(90), pad(r.IntN(30)))
			out = append(out,
				`{"role":"assistant","content":null,"tool_calls":[{"id":"`+c+`","type":"function","function":{"name":"lookup","arguments":`+q(`{"id": "`+id()+`"}`)+`}}]}`,
				`{"role":"tool","tool_call_id":"`+c+`","content":`+q(result)+`}`)
		}
	}
	return "[" + strings.Join(out, ",\n") + "]"
}

// Property: a value a kept placeholder leaves out is shown by another
// kept message as returned, and the output stays valid and paired.
func TestMaskListsValuesOnceProperty(t *testing.T) {
	t.Parallel()
	checked := 0
	for seed := range uint64(400) {
		r := rand.New(rand.NewPCG(seed, 7))
		in, err := chitta.ParseMessages([]byte(randomLookups(r)))
		require.NoError(t, err)
		mask := &chitta.MaskOptions{KeepRecent: r.IntN(3), MinTokens: []int{1, 10, 0}[r.IntN(3)], ListValues: []int{0, 3}[r.IntN(2)], Actions: chitta.MaskActions(r.IntN(3))}
		if r.IntN(4) == 0 {
			mask.MaxResultTokens = 30
		}
		res, err := chitta.Compact(t.Context(), in, &chitta.Options{TargetRatio: 0.1 + 0.9*r.Float64(), Tokens: words, Mask: mask})
		require.NoError(t, err, "seed %d", seed)
		checkMasked(t, in, res)
		checkPairs(t, in, res)
		require.NoError(t, chitta.Validate(res.Messages), "seed %d", seed)
		max := mask.ListValues
		if max == 0 {
			max = chitta.DefaultMaskListValues
		}
		for k, i := range res.Kept {
			c := res.Messages[k].Content
			at := strings.Index(c, "; values: ")
			if in[i].Role != chitta.RoleTool || !strings.HasPrefix(c, "[chitta: lookup output elided") || at < 0 {
				continue
			}
			listed := strings.Split(strings.TrimSuffix(c[at+len("; values: "):], "]"), ", ")
			shown := map[string]bool{}
			for j := range res.Messages {
				if j != k {
					for _, w := range chitta.ValueWords(nil, res.Messages[j].Content) {
						shown[w] = true
					}
				}
			}
			for _, v := range chitta.ListValues(in[i].Content, max) {
				if !slices.Contains(listed, v) {
					checked++
					assert.True(t, shown[v], "seed %d: %q left out of message %d but not shown elsewhere", seed, v, i)
				}
			}
		}
	}
	require.Greater(t, checked, 100, "the property met values left out")
}
