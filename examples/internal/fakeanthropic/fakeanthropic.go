// Package fakeanthropic is a stand-in for the Anthropic Messages API, for
// tests that run a real client (the Claude Code CLI, through
// ANTHROPIC_BASE_URL) without an account or a network: it answers every
// POST /v1/messages with the blocks its Reply function chooses (streamed as
// server-sent events when the request asks for a stream), answers
// /v1/messages/count_tokens with a rough count, and keeps every request
// body so that a test can read what the client sent.
package fakeanthropic

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"testing"

	"github.com/chitta-go/chitta/internal/testkit/ci"
)

// Request is what Reply sees of one POST /v1/messages.
type Request struct {
	N        int       // 1 for the first request the server received
	Model    string    `json:"model"`    // the model the client asked for, echoed in the reply
	Stream   bool      `json:"stream"`   // the client asked for server-sent events
	Messages []Message `json:"messages"` // the conversation sent
}

// Message is one message of a request.
type Message struct {
	Role    string          `json:"role"`    // user or assistant
	Content json.RawMessage `json:"content"` // a string or an array of blocks
}

// Blocks returns the content blocks of m (a string content as one text
// block).
func (m Message) Blocks() []Block {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []Block{Text(s)}
	}
	var out []Block
	_ = json.Unmarshal(m.Content, &out)
	return out
}

// Block is a content block as the API encodes it.
type Block map[string]any

// Text returns a text block.
func Text(s string) Block { return Block{"type": "text", "text": s} }

// ToolUse returns a tool_use block.
func ToolUse(id, name string, input map[string]any) Block {
	return Block{"type": "tool_use", "id": id, "name": name, "input": input}
}

// LastUser returns the last user message of req (Claude Code may send a
// system message after it), or the zero Message.
func (req Request) LastUser() Message {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			return req.Messages[i]
		}
	}
	return Message{}
}

// ToolResult returns the tool_result block of req's last user message that
// answers the call id, or nil.
func (req Request) ToolResult(id string) Block {
	for _, b := range req.LastUser().Blocks() {
		if b["type"] == "tool_result" && b["tool_use_id"] == id {
			return b
		}
	}
	return nil
}

// Server is the fake API; use it as an http.Handler (httptest.NewServer).
// Reply, when set, chooses the content of each reply; nil replies with one
// text block. A Server is safe for concurrent use; set Reply before the
// first request.
type Server struct {
	Reply func(Request) []Block // the content of each reply; nil: one text block "Reply N."

	mu       sync.Mutex
	requests []string
}

// Requests returns the bodies of the POST /v1/messages received so far, in
// order.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// Last returns the body of the last POST /v1/messages ("" before any).
func (s *Server) Last() string {
	r := s.Requests()
	if len(r) == 0 {
		return ""
	}
	return r[len(r)-1]
}

// ServeHTTP answers POST /v1/messages with Reply's blocks (stop_reason
// tool_use when one is a tool_use block), as one JSON message or, when the
// request streams, as Anthropic's server-sent events, and
// /v1/messages/count_tokens with a rough count; any other path is 404.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	switch r.URL.Path {
	case "/v1/messages/count_tokens":
		_ = json.NewEncoder(w).Encode(map[string]any{"input_tokens": len(body) / 4})
		return
	case "/v1/messages":
	default:
		http.NotFound(w, r)
		return
	}
	var req Request
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, string(body))
	req.N = len(s.requests)
	s.mu.Unlock()
	blocks := []Block{Text(fmt.Sprintf("Reply %d.", req.N))}
	if s.Reply != nil {
		blocks = s.Reply(req)
	}
	stop := "end_turn"
	for _, b := range blocks {
		if b["type"] == "tool_use" {
			stop = "tool_use"
		}
	}
	id := fmt.Sprint("msg_fake_", req.N)
	usage := map[string]any{"input_tokens": len(body) / 4, "output_tokens": 20}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": id, "type": "message", "role": "assistant", "model": req.Model,
			"content": blocks, "stop_reason": stop, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	events := []map[string]any{{"type": "message_start", "message": map[string]any{"id": id, "type": "message", "role": "assistant",
		"model": req.Model, "content": []any{}, "usage": usage}}}
	for i, b := range blocks {
		switch b["type"] {
		case "tool_use":
			input, _ := json.Marshal(b["input"])
			events = append(events,
				map[string]any{"type": "content_block_start", "index": i, "content_block": Block{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}},
				map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
		default:
			events = append(events,
				map[string]any{"type": "content_block_start", "index": i, "content_block": Text("")},
				map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		}
		events = append(events, map[string]any{"type": "content_block_stop", "index": i})
	}
	events = append(events,
		map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop}, "usage": map[string]any{"output_tokens": 20}},
		map[string]any{"type": "message_stop"})
	for _, ev := range events {
		data, _ := json.Marshal(ev)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev["type"], data)
	}
}

// TestKey is the API key ClaudeEnv gives the client: a fake the server
// accepts, so that a test can check it never appears in what it records.
const TestKey = "sk-ant-test-not-a-key"

// ClaudeEnv returns the environment for a Claude Code CLI that talks to the
// fake at apiURL with home as its home directory: PATH and TMPDIR of this
// process, a fake key, and no updater, telemetry or other traffic.
func ClaudeEnv(apiURL, home string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + os.TempDir(),
		"ANTHROPIC_BASE_URL=" + apiURL, "ANTHROPIC_API_KEY=" + TestKey,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1",
	}
}

// ClaudeCLI returns the Claude Code CLI that $CHITTA_CLAUDE names
// (scripts/install-claude-code.sh installs it and scripts/test-claudecode.sh
// sets it). Without it the test is skipped, or fails under CI, where the
// test command installs it.
func ClaudeCLI(t testing.TB) string {
	t.Helper()
	claude := os.Getenv("CHITTA_CLAUDE")
	if claude == "" {
		ci.Need(t, "CHITTA_CLAUDE is not set: scripts/test-claudecode.sh installs Claude Code and sets it")
	}
	return claude
}
