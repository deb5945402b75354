package fakeanthropic

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServer: a tool_use reply, streamed, arrives as the event sequence the
// Messages API sends (its input whole in one input_json_delta, stop_reason
// tool_use), a plain reply as JSON; Reply sees the tool_result of the call
// it made, and Requests keeps every body.
func TestServer(t *testing.T) {
	t.Parallel()
	s := &Server{Reply: func(req Request) []Block {
		if b := req.ToolResult("toolu_1"); b != nil {
			return []Block{Text("got " + b["content"].(string))}
		}
		return []Block{Text("calling"), ToolUse("toolu_1", "remember", map[string]any{"text": "x"})}
	}}
	srv := httptest.NewServer(s)
	defer srv.Close()

	resp, err := http.Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	require.NoError(t, err)
	defer resp.Body.Close()
	var types []string
	var stop string
	var input string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type  string `json:"type"`
			Delta struct {
				StopReason  string `json:"stop_reason"`
				PartialJSON string `json:"partial_json"`
			} `json:"delta"`
		}
		require.NoError(t, json.Unmarshal([]byte(data), &ev))
		types = append(types, ev.Type)
		stop += ev.Delta.StopReason
		input += ev.Delta.PartialJSON
	}
	assert.Equal(t, []string{"message_start", "content_block_start", "content_block_delta", "content_block_stop",
		"content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}, types)
	assert.Equal(t, "tool_use", stop)
	assert.JSONEq(t, `{"text":"x"}`, input)

	resp2, err := http.Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(
		`{"model":"m","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}]}`))
	require.NoError(t, err)
	defer resp2.Body.Close()
	var msg struct {
		Content    []Block `json:"content"`
		StopReason string  `json:"stop_reason"`
	}
	require.NoError(t, json.NewDecoder(resp2.Body).Decode(&msg))
	assert.Equal(t, "end_turn", msg.StopReason)
	assert.Equal(t, "got ok", msg.Content[0]["text"])
	assert.Len(t, s.Requests(), 2)
	assert.Contains(t, s.Last(), "toolu_1")
}
