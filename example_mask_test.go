package chitta_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/chitta-go/chitta"
)

// At ratio 0.3 masking keeps both lookups (the calls verbatim): their
// results are recent, but the calls fit only with the output elided, and
// each placeholder lists the ids the agent saw that the kept text does not
// already show (the reservation ids are in the user's message and the
// calls), so the next call can still use them.
func ExampleMaskOptions() {
	reservation := func(id, flight string) string {
		return `{\"reservation_id\": \"` + id + `\", \"flight_number\": \"` + flight + `\", \"cabin\": \"business\", \"note\": \"` +
			strings.Repeat("the passenger asked about the baggage allowance ", 12) + `\"}`
	}
	msgs, err := chitta.ParseMessages([]byte(`[
	  {"role": "system", "content": "You are an airline agent."},
	  {"role": "user", "content": "Downgrade my reservations JG7FMM and 2FBBAH to economy."},
	  {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
	    "function": {"name": "get_reservation_details", "arguments": "{\"reservation_id\": \"JG7FMM\"}"}}]},
	  {"role": "tool", "tool_call_id": "c1", "content": "` + reservation("JG7FMM", "HAT028") + `"},
	  {"role": "assistant", "content": null, "tool_calls": [{"id": "c2", "type": "function",
	    "function": {"name": "get_reservation_details", "arguments": "{\"reservation_id\": \"2FBBAH\"}"}}]},
	  {"role": "tool", "tool_call_id": "c2", "content": "` + reservation("2FBBAH", "HAT080") + `"},
	  {"role": "user", "content": "Go ahead with both."}
	]`))
	if err != nil {
		panic(err)
	}
	res, err := chitta.Compact(context.Background(), msgs, &chitta.Options{TargetRatio: 0.3, Mask: &chitta.MaskOptions{}})
	if err != nil {
		panic(err)
	}
	for k, i := range res.Kept {
		fmt.Printf("%d %s: %s\n", i, res.Messages[k].Role, res.Messages[k].Content)
	}
	fmt.Println("masked:", res.Stats.Masked)
	// Output:
	// 0 system: You are an airline agent.
	// 1 user: Downgrade my reservations JG7FMM and 2FBBAH to economy.
	// 2 assistant: get_reservation_details {"reservation_id": "JG7FMM"}
	// 3 tool: [chitta: get_reservation_details output elided (119 tokens); values: HAT028]
	// 4 assistant: get_reservation_details {"reservation_id": "2FBBAH"}
	// 5 tool: [chitta: get_reservation_details output elided (119 tokens); values: HAT080]
	// 6 user: Go ahead with both.
	// masked: 2
}
