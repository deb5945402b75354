// Package wiregen writes random conversations that chitta.Validate
// accepts, as JSON in every format chitta.ParseMessages reads, for the
// property tests of the root package and of the adapters (which unmarshal
// them into their SDK's types). It is test tooling: only _test.go files
// import it.
package wiregen

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// Formats are the formats [Conversation] writes.
var Formats = []string{"openai", "responses", "anthropic", "swe", "langchaingo", "genai", "mixed"}

// Options are the choices of [Conversation] beyond the format.
type Options struct {
	// Pending ends the conversation in an assistant call with no result
	// yet (so that it fails chitta.Validate).
	Pending bool
	// Typed gives every OpenAI Responses item its type ("message" too),
	// which the SDK's union needs to read it.
	Typed bool
	// NoLegacy leaves out OpenAI's legacy function_call and function
	// messages, which eino's schema.Message has no field for.
	NoLegacy bool
	// NoMCP leaves out the Anthropic MCP connector's blocks, which only
	// the SDK's beta types read.
	NoMCP bool
}

// Conversation writes a conversation that passes chitta.Validate in
// format (one of Formats; "mixed" draws each step's format): system and
// developer messages, prompts, replies, parallel tool calls and their
// results, legacy function calls, Responses reasoning, *_call/_output pairs
// and compaction items, Anthropic thinking, server tools and results in one
// message or the next, MCP blocks, genai calls with and without IDs. Some
// IDs are reused (in Anthropic's format, whose tool_use IDs are unique,
// only across formats), some parallel calls answered out of order.
func Conversation(r *rand.Rand, format string, o Options) string {
	vocab := []string{"deploy", "config", "parseConfig", "error", "the", "test", "fix", "user", "memory", "go", "build", "ok", "AB12", "<&>", "naïve", `"q"`}
	say := func(lo, hi int) string {
		n := lo + r.IntN(hi-lo+1)
		w := make([]string, n)
		for i := range w {
			w[i] = vocab[r.IntN(len(vocab))]
		}
		return strings.Join(w, " ")
	}
	q := func(s string) string { return string(must(json.Marshal(s))) }
	size := func() (int, int) { return []int{0, 1, 5, 30, 120}[r.IntN(5)], 1 + r.IntN(150) }
	out := func() string { lo, hi := size(); return say(lo, max(lo, hi)) }
	tools := []string{"read_file", "grep", "bash", "Read"}
	tool := func() string { return tools[r.IntN(len(tools))] }
	call := 0
	anthropicReused := false // an Anthropic step has issued "reused"
	newID := func() string {
		call++
		if r.IntN(8) == 0 {
			return "reused"
		}
		return fmt.Sprintf("id%d", call)
	}
	var msgs []string
	add := func(s ...string) { msgs = append(msgs, s...) }
	// callable is whether the last message other than a system or
	// developer message is a genai prompt or function response, which a
	// genai function call may follow (the Gemini API wants one of them
	// right before it; after anything else a step writes a prompt first).
	callable := false
	pick := func() string {
		if format == "mixed" {
			return Formats[r.IntN(len(Formats)-1)]
		}
		return format
	}
	prompt := func(f string) {
		callable = f == "genai"
		switch f {
		case "anthropic":
			add(`{"role":"user","content":[{"type":"text","text":` + q(say(1, 20)) + `}]}`)
		case "langchaingo":
			add(`{"role":"human","parts":[{"type":"text","text":` + q(say(1, 20)) + `}]}`)
		case "genai":
			add(`{"role":"user","parts":[{"text":` + q(say(1, 20)) + `}]}`)
		case "responses":
			switch {
			case r.IntN(2) == 0:
				add(`{"type":"message","role":"user","content":[{"type":"input_text","text":` + q(say(1, 20)) + `}]}`)
				return
			case o.Typed:
				add(`{"type":"message","role":"user","content":` + q(say(1, 20)) + `}`)
				return
			}
			fallthrough
		default:
			add(`{"role":"user","content":` + q(say(1, 20)) + `}`)
		}
	}
	system := func(f string) {
		switch f {
		case "anthropic": // Anthropic's system prompt is no message
			prompt(f)
		case "langchaingo":
			add(`{"role":"system","parts":[{"type":"text","text":` + q(say(1, 8)) + `}]}`)
		case "genai": // genai has no system role in contents; a user note instead
			callable = true
			add(`{"role":"user","parts":[{"text":` + q(say(1, 8)) + `}]}`)
		case "responses":
			switch {
			case r.IntN(2) == 0:
				add(`{"type":"compaction","id":"cmp` + fmt.Sprint(call) + `","encrypted_content":"gAAA"}`)
				return
			case o.Typed:
				add(`{"type":"message","role":"` + []string{"system", "developer"}[r.IntN(2)] + `","content":` + q(say(1, 8)) + `}`)
				return
			}
			fallthrough
		default:
			add(`{"role":"` + []string{"system", "developer"}[r.IntN(2)] + `","content":` + q(say(1, 8)) + `}`)
		}
	}
	reply := func(f string) {
		defer func() { callable = false }()
		switch f {
		case "anthropic":
			th := ""
			if r.IntN(2) == 0 {
				th = `{"type":"thinking","thinking":` + q(say(1, 10)) + `,"signature":"sig"},`
			}
			add(`{"role":"assistant","content":[` + th + `{"type":"text","text":` + q(say(1, 30)) + `}]}`)
		case "langchaingo":
			add(`{"role":"ai","parts":[{"type":"text","text":` + q(say(1, 30)) + `}]}`)
		case "genai":
			add(`{"role":"model","parts":[{"text":` + q(say(1, 30)) + `}]}`)
		case "responses":
			if r.IntN(2) == 0 {
				add(`{"type":"reasoning","id":"rs","summary":[{"type":"summary_text","text":` + q(say(1, 10)) + `}]}`)
				if r.IntN(4) == 0 { // the item after it is pinned
					system(f)
				}
			}
			add(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":` + q(say(1, 30)) + `}]}`)
		default:
			add(`{"role":"assistant","content":` + q(say(1, 30)) + `}`)
		}
	}
	// step writes an assistant message issuing k calls and, unless
	// pendingStep, the messages answering them.
	step := func(f string, pendingStep bool) {
		k := 1 + r.IntN(3)
		ids := make([]string, k)
		for j := range ids {
			ids[j] = newID()
			for j2 := range j {
				if ids[j2] == ids[j] { // one message issues an ID once
					ids[j] = fmt.Sprintf("id%d_%d", call, j)
				}
			}
			if f == "anthropic" && ids[j] == "reused" {
				// Anthropic's tool_use IDs are unique in a conversation
				// (chitta.Validate refuses a second use).
				if anthropicReused {
					ids[j] = fmt.Sprintf("id%d_%d", call, j)
				}
				anthropicReused = true
			}
		}
		var answers []string
		switch f {
		case "openai":
			if !o.NoLegacy && r.IntN(5) == 0 { // legacy function call
				add(`{"role":"assistant","content":null,"function_call":{"name":"` + tool() + `","arguments":"{\"p\":1}"}}`)
				answers = append(answers, `{"role":"function","name":"f","content":`+q(out())+`}`)
				break
			}
			var cs []string
			for _, id := range ids {
				cs = append(cs, `{"id":"`+id+`","type":"function","function":{"name":"`+tool()+`","arguments":"{\"path\":\"a.go\"}"}}`)
			}
			add(`{"role":"assistant","content":` + []string{"null", q(say(0, 5))}[r.IntN(2)] + `,"tool_calls":[` + strings.Join(cs, ",") + `]}`)
			for _, id := range ids {
				answers = append(answers, `{"role":"tool","tool_call_id":"`+id+`","content":`+q(out())+`}`)
			}
		case "swe":
			var cs []string
			for _, id := range ids {
				cs = append(cs, `{"function":{"arguments":"{}","name":"`+tool()+`"},"id":"`+id+`","type":"function"}`)
			}
			add(`{"role":"assistant","content":` + q(say(1, 5)) + `,"agent":"main","tool_calls":[` + strings.Join(cs, ",") + `],"message_type":"action"}`)
			answers = append(answers, `{"role":"tool","content":`+q(out())+`,"agent":"main","tool_call_ids":`+string(must(json.Marshal(ids)))+`,"message_type":"observation"}`)
		case "responses":
			if r.IntN(2) == 0 {
				add(`{"type":"reasoning","id":"rs","summary":[{"type":"summary_text","text":` + q(say(1, 10)) + `}],"encrypted_content":"gAAA"}`)
			}
			for _, id := range ids {
				switch r.IntN(8) {
				case 0:
					add(`{"type":"custom_tool_call","call_id":"` + id + `","name":"` + tool() + `","input":"x"}`)
					answers = append(answers, `{"type":"custom_tool_call_output","call_id":"`+id+`","output":`+q(out())+`}`)
					continue
				case 1:
					add(`{"type":"computer_call","id":"cu_` + id + `","call_id":"` + id + `","action":{"type":"click","x":1,"y":2},"pending_safety_checks":[],"status":"completed"}`)
					answers = append(answers, `{"type":"computer_call_output","call_id":"`+id+`","output":{"type":"computer_screenshot","image_url":"data:image/png;base64,AAAA"}}`)
					continue
				case 2:
					add(`{"type":"local_shell_call","id":"ls_` + id + `","call_id":"` + id + `","action":{"type":"exec","command":["ls"]},"status":"completed"}`)
					answers = append(answers, `{"type":"local_shell_call_output","id":"`+id+`","output":`+q(out())+`}`)
					continue
				case 3:
					add(`{"type":"mcp_approval_request","id":"` + id + `","name":"` + tool() + `","arguments":"{}","server_label":"s"}`)
					answers = append(answers, `{"type":"mcp_approval_response","approval_request_id":"`+id+`","approve":true}`)
					continue
				case 4:
					add(`{"type":"web_search_call","id":"ws_` + id + `","status":"completed","action":{"type":"search","query":"go"}}`)
				}
				add(`{"type":"function_call","call_id":"` + id + `","name":"` + tool() + `","arguments":"{}"}`)
				answers = append(answers, `{"type":"function_call_output","call_id":"`+id+`","output":`+q(out())+`}`)
			}
		case "anthropic":
			var uses, results []string
			for _, id := range ids {
				uses = append(uses, `{"type":"tool_use","id":"`+id+`","name":"`+tool()+`","input":{"q":"x"}}`)
				results = append(results, `{"type":"tool_result","tool_use_id":"`+id+`","content":`+q(out())+`}`)
			}
			pre, later := "", ""
			sid := "srv" + fmt.Sprint(call)
			searched := `{"type":"web_search_tool_result","tool_use_id":"` + sid + `","content":[{"type":"web_search_result","title":"Go","url":"https://go.dev","encrypted_content":"x"}]}`
			switch r.IntN(6) {
			case 0, 1: // a server tool answered in the same message
				pre = `{"type":"server_tool_use","id":"` + sid + `","name":"web_search","input":{"query":"go"}},` + searched + `,`
			case 2: // an MCP connector's call and result, in the same message
				if o.NoMCP {
					break
				}
				pre = `{"type":"mcp_tool_use","id":"m` + sid + `","name":"lookup","server_name":"docs","input":{}},{"type":"mcp_tool_result","tool_use_id":"m` + sid + `","is_error":false,"content":[{"type":"text","text":` + q(say(1, 9)) + `}]},`
			case 3: // a server tool pending beside the client calls: the next response carries its result
				pre = `{"type":"server_tool_use","id":"` + sid + `","name":"web_search","input":{"query":"go"}},`
				later = `{"role":"assistant","content":[` + searched + `,{"type":"text","text":` + q(say(1, 9)) + `}]}`
			}
			if r.IntN(3) == 0 {
				pre = `{"type":"thinking","thinking":` + q(say(1, 8)) + `,"signature":"s"},` + pre
			}
			add(`{"role":"assistant","content":[` + pre + strings.Join(uses, ",") + `]}`)
			if r.IntN(2) == 0 {
				results = append(results, `{"type":"text","text":`+q(say(1, 3))+`}`)
			}
			answers = append(answers, `{"role":"user","content":[`+strings.Join(results, ",")+`]}`)
			if later != "" {
				answers = append(answers, later)
			}
		case "langchaingo":
			var cs, rs []string
			for _, id := range ids {
				cs = append(cs, `{"type":"tool_call","tool_call":{"id":"`+id+`","type":"function","function":{"name":"`+tool()+`","arguments":"{}"}}}`)
				rs = append(rs, `{"type":"tool_response","tool_response":{"tool_call_id":"`+id+`","name":"f","content":`+q(out())+`}}`)
			}
			add(`{"role":"ai","parts":[` + strings.Join(cs, ",") + `]}`)
			if r.IntN(2) == 0 {
				answers = append(answers, `{"role":"tool","parts":[`+strings.Join(rs, ",")+`]}`)
			} else {
				for _, p := range rs {
					answers = append(answers, `{"role":"tool","parts":[`+p+`]}`)
				}
			}
		case "genai":
			withIDs := r.IntN(2) == 0
			var cs, rs []string
			for _, id := range ids {
				idf := ""
				if withIDs {
					idf = `"id":"` + id + `",`
				}
				cs = append(cs, `{"functionCall":{`+idf+`"name":"f","args":{"a":1}}}`)
				rs = append(rs, `{"functionResponse":{`+idf+`"name":"f","response":{"output":`+q(out())+`}}}`)
			}
			if r.IntN(4) == 0 {
				cs = append(cs, `{"executableCode":{"language":"PYTHON","code":"print(1)"}}`, `{"codeExecutionResult":{"outcome":"OUTCOME_OK","output":"1"}}`)
			}
			if !callable {
				prompt(f)
			}
			add(`{"role":"model","parts":[` + strings.Join(cs, ",") + `]}`)
			answers = append(answers, `{"role":"user","parts":[`+strings.Join(rs, ",")+`]}`)
		}
		if (f == "openai" || f == "responses" || f == "langchaingo") && r.IntN(3) == 0 {
			slices.Reverse(answers) // parallel calls answered out of order
		}
		callable = false
		if !pendingStep {
			add(answers...)
			callable = f == "genai"
		}
	}
	f := pick()
	if r.IntN(2) == 0 {
		system(f)
	}
	prompt(f)
	for n := 1 + r.IntN(30); len(msgs) < n; {
		f := pick()
		switch r.IntN(9) {
		case 0:
			system(f)
		case 1, 2:
			prompt(f)
		case 3, 4:
			reply(f)
		default:
			step(f, false)
		}
	}
	if o.Pending {
		step(pick(), true)
	}
	return "[" + strings.Join(msgs, ",") + "]"
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// NamedIDs returns ids with each ID named after a message index
// ("function_call@4", "reasoning@2", "functionCall@3.0") as "@": read
// back from a compacted conversation, such IDs are numbered anew.
func NamedIDs(ids []string) []string {
	out := make([]string, len(ids))
	for k, id := range ids {
		out[k] = id
		if strings.Contains(id, "@") {
			out[k] = "@"
		}
	}
	return out
}
