package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAnswerRelevanceReserve passes relevance_reserve and lexical through
// one-shot mode: an old note that answers the query survives only with
// the reserve.
func TestAnswerRelevanceReserve(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t)
	const note = "before I forget, a long note from the migration last year: we moved the build agents, renamed the staging " +
		"buckets, rotated most tokens, archived the old wiki pages, cleaned the monitoring dashboards, retired the " +
		"cron host, and the deploy key lives in vault under secret/prod/deployKey; the rest of the notes are in the shared drive"
	msgs := []map[string]string{{"role": "user", "content": note}}
	topics := []string{"lunch menu options", "weekend hiking trail", "coffee grinder settings", "holiday photos album", "guitar chord practice"}
	for i := range 40 {
		msgs = append(msgs, map[string]string{"role": "user", "content": fmt.Sprintf("we talked about the %s again, turn %d of the chat", topics[i%len(topics)], i)})
	}
	for _, tt := range []struct {
		extra string
		kept  bool
	}{
		{"", false},
		{`,"relevance_reserve":0.5,"lexical":0.3`, true},
	} {
		args, err := json.Marshal(msgs)
		require.NoError(t, err)
		req := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"compact_context","arguments":{"messages":` + string(args) +
			`,"query":"where does the deploy key live in vault","target_ratio":0.3` + tt.extra + `}}}`
		resp := a.answer(t.Context(), []byte(req))
		require.Nil(t, resp.Error)
		data, err := marshal(resp)
		require.NoError(t, err)
		assert.Equal(t, tt.kept, strings.Contains(string(data), "deployKey"), "arguments %q", tt.extra)
	}
}
