package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chitta-go/chitta"
)

// Limits of the tools' arguments.
const (
	defaultRecallK = 5
	maxRecallK     = 100
)

// compactInput is the arguments of compact_context. Messages stays raw so
// that the kept messages go back as the caller's own JSON objects; optional
// numbers are pointers so that an explicit value is told from an absent one.
type compactInput struct {
	Messages       json.RawMessage `json:"messages" jsonschema:"the conversation: an array of OpenAI- or Anthropic-format message objects (role, content, tool_calls, tool_call_id, tool_use/tool_result blocks)"`
	Query          string          `json:"query,omitempty" jsonschema:"the upcoming task; messages similar to it score higher"`
	TargetRatio    *float64        `json:"target_ratio,omitempty" jsonschema:"fraction of the input's tokens to keep, 0.05 to 1.0 (default 0.4)"`
	DistillNovel   bool            `json:"distill_novel,omitempty" jsonschema:"record dropped messages the memory store does not cover yet as new memories (default false)"`
	NovelThreshold *float64        `json:"novel_threshold,omitempty" jsonschema:"coverage at or above which a dropped message counts as already known, in (0, 1] (default 0.5)"`
	MaxTokens      int             `json:"max_tokens,omitempty" jsonschema:"absolute token budget used instead of target_ratio; 0 means unused"`
	KeepLast       int             `json:"keep_last,omitempty" jsonschema:"always keep the last N non-system messages (default 0)"`
	Mask           *maskInput      `json:"mask,omitempty" jsonschema:"observation masking: old, large tool results are replaced by a one-line placeholder before selection, their calls kept verbatim (absent: no masking)"`

	RelevanceReserve float64 `json:"relevance_reserve,omitempty" jsonschema:"share of the free budget filled first by the messages most similar to query and least held by memory, the rest then going to the least-covered messages, newest first; 0 to 1 (default 0 = off; 0.5 with lexical 0.3 is the measured preset)"`
	Lexical          float64 `json:"lexical,omitempty" jsonschema:"weight of a BM25 score learned from the conversation inside the semantic term, 0 to 1 (default 0 = off)"`

	Tokenizer string `json:"tokenizer,omitempty" jsonschema:"how the budget and the stats count tokens: estimate (words × 1.3), o200k_base (exact for GPT-4o, GPT-4.1, GPT-5 and the o-series; the nearest public tokenizer for other models) or cl100k_base (GPT-4, GPT-3.5); default: the server's --tokenizer (estimate unless set)"`
}

// maskActionNames lists the valid values of the mask's actions argument.
const maskActionNames = "oldest (default), newest, score or off"

// maskActions maps the mask's actions argument to chitta.MaskActions.
var maskActions = map[string]chitta.MaskActions{
	"": chitta.ActionsOldestFirst, "oldest": chitta.ActionsOldestFirst, "newest": chitta.ActionsNewestFirst,
	"score": chitta.ActionsByScore, "off": chitta.ActionsOff,
}

// maskInput is the mask argument of compact_context: chitta.MaskOptions.
type maskInput struct {
	KeepRecent      int      `json:"keep_recent,omitempty" jsonschema:"newest tool results never masked (0 means 3)"`
	MinTokens       int      `json:"min_tokens,omitempty" jsonschema:"only results at least this many tokens are masked (0 means 100)"`
	ExcludeTools    []string `json:"exclude_tools,omitempty" jsonschema:"tool names whose results are never masked"`
	MaxResultTokens int      `json:"max_result_tokens,omitempty" jsonschema:"when > 0, any single result larger than this is cut to head and tail, even a recent one"`
	ListValues      int      `json:"list_values,omitempty" jsonschema:"identifier-like values (ids, codes, dates, numbers) of a JSON result its placeholder lists (0 means 32, negative none)"`
	Actions         string   `json:"actions,omitempty" jsonschema:"how tool-call groups are kept before the dialogue: oldest (default), newest or score first, masking even recent results of a call before dropping it; off selects by score alone"`
	Restore         bool     `json:"restore,omitempty" jsonschema:"return masked results whole, newest first, while budget is left (default false)"`
}

// compactOutput is the structured result of compact_context.
type compactOutput struct {
	Messages  []json.RawMessage  `json:"messages" jsonschema:"the kept messages, the caller's objects unmodified (but for the tool output mask replaced), in original order"`
	Stats     chitta.Stats       `json:"stats" jsonschema:"before_tokens, after_tokens, dropped, dropped_pct, embedding and the rest of the compaction summary"`
	Distilled []chitta.Distilled `json:"distilled,omitempty" jsonschema:"memories recorded by distill_novel"`
	Tokenizer string             `json:"tokenizer" jsonschema:"the tokenizer the budget and the stats counted with"`
}

// rememberInput is the arguments of remember.
type rememberInput struct {
	Text       string   `json:"text" jsonschema:"what to remember"`
	Kind       string   `json:"kind,omitempty" jsonschema:"fact, correction, preference, habit, wisdom, episode or any label (default fact)"`
	Confidence *float64 `json:"confidence,omitempty" jsonschema:"how sure, 0 to 1 (default 1)"`
}

// rememberOutput is the structured result of remember.
type rememberOutput struct {
	ID       string `json:"id" jsonschema:"the memory's ID (the same text and kind always get the same ID)"`
	Kind     string `json:"kind" jsonschema:"the stored kind"`
	Memories int    `json:"memories" jsonschema:"number of memories in the store"`
}

// recallInput is the arguments of recall.
type recallInput struct {
	Text          string   `json:"text" jsonschema:"what to look for"`
	K             *int     `json:"k,omitempty" jsonschema:"how many memories to return, 1 to 100 (default 5)"`
	MinSimilarity *float64 `json:"min_similarity,omitempty" jsonschema:"leave out memories less similar than this, 0 to 1 (default 0: never a negative similarity)"`
}

// recalled is one memory returned by recall: a listed memory and its
// similarity.
type recalled struct {
	listed
	Similarity float64 `json:"similarity" jsonschema:"cosine similarity to the text, min_similarity to 1"`
}

// recallOutput is the structured result of recall.
type recallOutput struct {
	Memories []recalled `json:"memories" jsonschema:"the nearest memories, most similar first"`
}

// tool is one tool of the chitta command: its MCP definition and the handler
// both modes call.
type tool struct {
	def  *mcp.Tool
	call func(ctx context.Context, args json.RawMessage) (*mcp.CallToolResult, error)
}

// tools returns the tool set of a, in listing order.
func (a *app) tools() []tool {
	return append([]tool{
		{
			def: &mcp.Tool{
				Name: "compact_context",
				Description: "Compact a conversation: score every non-system message by role, recency, relevance to the query " +
					"and coverage by the memory store, and keep the best under a token budget. Kept messages come back " +
					"verbatim, in order, with tool calls never separated from their results.",
				InputSchema:  compactSchema(),
				OutputSchema: compactOutputSchema(),
			},
			call: a.compactContext,
		},
		{
			def: &mcp.Tool{
				Name:         "remember",
				Description:  "Store a memory (a fact, correction, preference, habit, wisdom or episode) in the persistent memory store.",
				InputSchema:  rememberSchema(),
				OutputSchema: schemaFor[rememberOutput](),
			},
			call: a.remember,
		},
		{
			def: &mcp.Tool{
				Name:         "recall",
				Description:  "Return the stored memories most similar to a text, with their cosine similarity.",
				InputSchema:  recallSchema(),
				OutputSchema: schemaFor[recallOutput](),
			},
			call: a.recall,
		},
	}, a.manageTools()...)
}

// callTool runs the named tool. An unknown tool is a *jsonrpc.Error with
// code -32602 (a protocol error); invalid arguments, like failures while
// running a valid call, come back as a result with IsError set, its text
// the message naming the field (MCP 2025-11-25, SEP-1303: input
// validation errors are tool execution errors, which the model sees and
// can correct; no earlier version forbade it). A panic (a bug) is logged
// with its stack and answered with -32603, so that one request cannot end
// a session or make one-shot mode exit 2.
func (a *app) callTool(ctx context.Context, name string, args json.RawMessage) (res *mcp.CallToolResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			a.log.Error("tool panicked", "tool", name, "panic", r, "stack", string(debug.Stack()))
			res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("internal error: %s failed unexpectedly (see the server's log)", name)}
		}
	}()
	for _, t := range a.toolset {
		if t.def.Name == name {
			a.sync()
			res, err := t.call(ctx, args)
			if wire := (*jsonrpc.Error)(nil); errors.As(err, &wire) && wire.Code == jsonrpc.CodeInvalidParams {
				return argumentError(wire), nil
			}
			return res, err
		}
	}
	// The same message as the SDK's for a tool it does not know.
	return nil, invalidParams("unknown tool %q", name)
}

func invalidParams(format string, args ...any) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// argumentError is the tool result of a call whose arguments the tool
// refused (e, -32602 naming the field): isError, the message its text, cut
// as an error message is (see [clipMessage]).
func argumentError(e *jsonrpc.Error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: clipMessage(e.Message)}}}
}

// toolError is a tool result reporting a failure of a valid call.
func toolError(format string, args ...any) *mcp.CallToolResult {
	res := &mcp.CallToolResult{}
	res.SetError(fmt.Errorf(format, args...))
	return res
}

// argRanges are the values the tools' number arguments take, by field
// (its dotted path, as decodeArgs names it): every "out of range" error
// says them, a number beyond what JSON decodes to (1e999) too.
var argRanges = map[string]string{
	"target_ratio":           fmt.Sprintf("want %v to %v (default %v)", chitta.MinTargetRatio, chitta.MaxTargetRatio, chitta.DefaultTargetRatio),
	"novel_threshold":        fmt.Sprintf("want (0, 1] (default %v)", chitta.DefaultNovelThreshold),
	"max_tokens":             "want >= 0 (0 means use target_ratio)",
	"keep_last":              "want >= 0",
	"relevance_reserve":      "want 0 to 1 (default 0, off)",
	"lexical":                "want 0 to 1 (default 0, off)",
	"mask.keep_recent":       "want >= 0",
	"mask.min_tokens":        "want >= 0",
	"mask.max_result_tokens": "want >= 0",
	"confidence":             "want 0 to 1 (default 1)",
	"k":                      fmt.Sprintf("want 1 to %d (default %d)", maxRecallK, defaultRecallK),
	"min_similarity":         "want 0 to 1 (default 0)",
	"limit":                  fmt.Sprintf("want 1 to %d (default %d)", maxListLimit, defaultListLimit),
	"offset":                 "want >= 0",
}

// outOfRange is the -32602 error (callTool answers it as a tool error) of
// a number argument outside what field takes, which it says (argRanges).
func outOfRange(field string, v any) *jsonrpc.Error {
	if want, ok := argRanges[field]; ok {
		return invalidParams("%s: %v out of range, %s", field, v, want)
	}
	return invalidParams("%s: %v out of range", field, v)
}

// enumArgs is a tool input whose string fields take one of a few values:
// allowed returns them for a field (its dotted path, as decodeArgs names
// it), written as the error for a string outside them lists them, or "".
type enumArgs interface {
	allowed(field string) string
}

// allowed lists the valid tokenizer and mask.actions values.
func (compactInput) allowed(field string) string {
	switch field {
	case "tokenizer":
		return strings.Join(tokenizerNames, ", ")
	case "mask.actions":
		return maskActionNames
	}
	return ""
}

// decodeArgs decodes a tool's arguments object strictly into dst: unknown
// fields and wrong types are errors naming the field (and, for a field of
// an enumArgs dst, its valid values). Absent or null arguments decode as
// {}.
func decodeArgs(args json.RawMessage, dst any) error {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		return nil
	}
	if args[0] != '{' {
		return invalidParams("arguments: want an object")
	}
	err := decodeStrict(args, dst)
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && jsonType(typeErr.Type) == "an integer" && strings.HasPrefix(typeErr.Value, "number ") {
		// Perhaps an integer written with a zero fractional part: once
		// more with such integers in the plain form (only then, so that
		// a big call is not scanned once more for nothing).
		if plain, changed := integralInts(args, reflect.TypeOf(dst)); changed {
			args, err = plain, decodeStrict(plain, dst)
		}
	}
	if err != nil {
		var typeErr *json.UnmarshalTypeError
		var syntaxErr *json.SyntaxError
		switch {
		case errors.As(err, &typeErr):
			field := typeErr.Field
			if field == "" {
				field = "arguments"
			}
			want := jsonType(typeErr.Type)
			if num, ok := strings.CutPrefix(typeErr.Value, "number "); ok &&
				(want == "a number" || want == "an integer" && integralLiteral(num)) {
				// Beyond float64, or an integer beyond int (or, written
				// with a fraction or an exponent, beyond 2^53: see
				// integralInts), such as 1e30.
				return outOfRange(field, num)
			}
			if e, ok := dst.(enumArgs); ok {
				if names := e.allowed(field); names != "" {
					return invalidParams("%s: got %s, want %s", field, typeErr.Value, names)
				}
			}
			return invalidParams("%s: want %s, got %s", field, want, typeErr.Value)
		case errors.As(err, &syntaxErr):
			return invalidParams("arguments: invalid JSON: %v", err)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			// encoding/json does not say which object holds the field:
			// exactKeys does (an unknown field of mask is mask's).
			if named := exactKeys(args, reflect.TypeOf(dst), ""); named != nil {
				return named
			}
			return invalidParams("arguments: unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
		default:
			return invalidParams("arguments: %v", err)
		}
	}
	return exactKeys(args, reflect.TypeOf(dst), "")
}

// integralLiteral reports whether the JSON number literal lit has no
// fractional part (1e30, 2.50e1, -7, 0.0; not 1.5 nor 1e-3), reading its
// digits only, so that 1e400 or an exponent beyond int is not computed.
func integralLiteral(lit string) bool {
	mant, exp, _ := strings.Cut(strings.ToLower(strings.TrimPrefix(lit, "-")), "e")
	whole, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimRight(strings.TrimLeft(whole+frac, "0"), "0")
	if digits == "" {
		return true // zero
	}
	// The value is digits × 10^e, its last digit not 0; trailing is the
	// number of zeros cut from digits.
	trailing := len(strings.TrimLeft(whole+frac, "0")) - len(digits)
	e, err := strconv.Atoi(exp)
	if exp == "" {
		e, err = 0, nil
	}
	if err != nil || e > 1<<30 || e < -(1<<30) {
		// An exponent beyond what any digits make up for: integral
		// when it is positive.
		return !strings.HasPrefix(exp, "-")
	}
	return e+trailing-len(frac) >= 0
}

// decodeStrict decodes the JSON object args into dst, refusing unknown
// fields.
func decodeStrict(args json.RawMessage, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	return dec.Decode(dst)
}

// integralInts returns the JSON object data with each member that an
// integer field of the struct t (or of the struct t points to, nested
// objects of struct fields included) takes, written as a number with a
// zero fractional part (10.0, 1e1), rewritten as the plain integer (10):
// its schema says "integer", which JSON Schema defines as any number with
// a zero fractional part (a Python client's json.dumps writes 10.0 for a
// float), and encoding/json decodes only the plain form into an int.
// Numbers beyond 2^53 in magnitude are left as written (decoding refuses
// them). changed reports a rewrite; the other members keep their bytes as
// sent.
func integralInts(data json.RawMessage, t reflect.Type) (out json.RawMessage, changed bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var fields map[string]rawRef
	if t.Kind() != reflect.Struct || json.Unmarshal(data, &fields) != nil {
		return data, false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		raw, ok := fields[name]
		if name == "" || name == "-" || !ok {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		lit := bytes.TrimSpace(raw)
		switch {
		case ft.Kind() == reflect.Struct:
			if nested, ok := integralInts(json.RawMessage(lit), ft); ok {
				fields[name], changed = rawRef(nested), true
			}
		case ft.Kind() >= reflect.Int && ft.Kind() <= reflect.Int64 && len(lit) > 0 &&
			(lit[0] == '-' || lit[0] >= '0' && lit[0] <= '9') && bytes.ContainsAny(lit, ".eE"):
			if n, ok := integerLiteral(string(lit)); ok {
				fields[name], changed = rawRef(strconv.FormatInt(n, 10)), true
			}
		}
	}
	if !changed {
		return data, false
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		key, _ := marshal(k)
		b.Write(key)
		b.WriteByte(':')
		b.Write(fields[k])
	}
	b.WriteByte('}')
	return b.Bytes(), true
}

// rawRef is a JSON value as a slice of the text it was decoded from (no
// copy); it is valid while that text is.
type rawRef []byte

// UnmarshalJSON implements [json.Unmarshaler].
func (r *rawRef) UnmarshalJSON(b []byte) error { *r = b; return nil }

// exactKeys checks that every key of the JSON object data names a field
// of the struct t (or of the struct t points to) exactly, as JSON keys
// match, nested objects of struct fields included: encoding/json matches
// them case-insensitively, taking "TEXT" for text. data has decoded into
// t already, or failed to only for an unknown field. path is the dotted
// name of data's object among the arguments ("" for the arguments
// themselves, "mask" for mask): the error names the object that holds the
// unknown field.
func exactKeys(data json.RawMessage, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var fields map[string]rawRef // not RawMessage: a copy of the messages would double a big call's memory
	if t.Kind() != reflect.Struct || json.Unmarshal(data, &fields) != nil {
		return nil
	}
	byName := make(map[string]reflect.Type, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
			byName[name] = f.Type
		}
	}
	keys := slices.Sorted(maps.Keys(fields))
	for _, k := range keys {
		ft, ok := byName[k]
		if !ok {
			holder := path
			if holder == "" {
				holder = "arguments"
			}
			return invalidParams("%s: unknown field %q", holder, k)
		}
		if ft != reflect.TypeOf(json.RawMessage(nil)) {
			sub := k
			if path != "" {
				sub = path + "." + k
			}
			if err := exactKeys(json.RawMessage(fields[k]), ft, sub); err != nil {
				return err
			}
		}
	}
	return nil
}

// jsonType names a Go type the way a JSON caller thinks of it.
func jsonType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		if e := jsonType(t.Elem()); e != "a JSON value" {
			return "an array of " + strings.TrimPrefix(strings.TrimPrefix(e, "an "), "a ") + "s"
		}
		return "an array"
	}
	return "a JSON value"
}

// compactContext implements the compact_context tool.
func (a *app) compactContext(ctx context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
	var in compactInput
	if err := decodeArgs(args, &in); err != nil {
		return nil, err
	}
	msgsJSON := bytes.TrimSpace(in.Messages)
	if len(msgsJSON) == 0 || string(msgsJSON) == "null" {
		return nil, invalidParams("messages: required (an array of message objects)")
	}
	if msgsJSON[0] != '[' {
		return nil, invalidParams("messages: want an array of message objects")
	}
	if err := checkMessageCount(msgsJSON); err != nil {
		return nil, err
	}
	opts := &chitta.Options{
		Query:        in.Query,
		DistillNovel: in.DistillNovel,
		MaxTokens:    in.MaxTokens,
		KeepLast:     in.KeepLast,
		Embedder:     a.embedder,
		Store:        a.store,
		Logger:       a.log,

		RelevanceReserve: in.RelevanceReserve,
		Lexical:          in.Lexical,
		QueryEmbedder:    a.queries,
	}
	if r := in.TargetRatio; r != nil {
		if math.IsNaN(*r) || *r < chitta.MinTargetRatio || *r > chitta.MaxTargetRatio {
			return nil, outOfRange("target_ratio", *r)
		}
		opts.TargetRatio = *r
	}
	if t := in.NovelThreshold; t != nil {
		if math.IsNaN(*t) || *t <= 0 || *t > 1 {
			return nil, outOfRange("novel_threshold", *t)
		}
		opts.NovelThreshold = *t
	}
	if in.MaxTokens < 0 {
		return nil, outOfRange("max_tokens", in.MaxTokens)
	}
	if in.KeepLast < 0 {
		return nil, outOfRange("keep_last", in.KeepLast)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"relevance_reserve", in.RelevanceReserve}, {"lexical", in.Lexical}} {
		if math.IsNaN(f.v) || f.v < 0 || f.v > 1 {
			return nil, outOfRange(f.name, f.v)
		}
	}
	tokenizer := in.Tokenizer
	if tokenizer == "" {
		tokenizer = a.tokenizer
	}
	if err := checkTokenizer("tokenizer:", tokenizer); err != nil {
		return nil, invalidParams("%v", err)
	}
	if m := in.Mask; m != nil {
		for _, f := range []struct {
			name string
			v    int
		}{{"keep_recent", m.KeepRecent}, {"min_tokens", m.MinTokens}, {"max_result_tokens", m.MaxResultTokens}} {
			if f.v < 0 {
				return nil, outOfRange("mask."+f.name, f.v)
			}
		}
		actions, ok := maskActions[m.Actions]
		if !ok {
			return nil, invalidParams("mask.actions: %q, want %s", m.Actions, maskActionNames)
		}
		opts.Mask = &chitta.MaskOptions{KeepRecent: m.KeepRecent, MinTokens: m.MinTokens, ExcludeTools: m.ExcludeTools, MaxResultTokens: m.MaxResultTokens,
			ListValues: m.ListValues, Actions: actions, Restore: m.Restore}
	}
	msgs, err := chitta.ParseMessages(msgsJSON)
	if err != nil {
		return nil, messagesError(err)
	}
	if opts.Tokens, err = a.tokens.counter(tokenizer); err != nil {
		return toolError("tokenizer: %v", err), nil
	}
	// Kept messages go back byte for byte, so one that is not UTF-8 would
	// make the whole response invalid JSON.
	for i, m := range msgs {
		if !utf8.Valid(m.Raw) {
			return nil, invalidParams("messages[%d]: not valid UTF-8 (JSON text must be UTF-8)", i)
		}
	}

	// Distillation writes to the store: hold the write lock so that the
	// file saved afterwards holds this call's memories whole.
	if in.DistillNovel {
		a.mu.Lock()
		defer a.mu.Unlock()
	}
	res, err := chitta.Compact(ctx, msgs, opts)
	if err != nil {
		var me *chitta.MessageError
		if errors.Is(err, chitta.ErrUnknownRole) && errors.As(err, &me) && me.Index >= 0 && me.Index < len(msgs) {
			// The library's message tells a Go caller to set
			// Options.RoleWeights, which an MCP client cannot.
			// The roles first: a long role is what a clipped message loses.
			return nil, invalidParams("messages[%d].role: want %s, got %q", me.Index, knownRoles, msgs[me.Index].Role)
		}
		if errors.Is(err, chitta.ErrUnknownRole) || errors.Is(err, chitta.ErrInvalidMessages) ||
			errors.Is(err, chitta.ErrInvalidTargetRatio) || errors.Is(err, chitta.ErrInvalidOption) {
			return nil, messagesError(err)
		}
		return toolError("compact: %v", err), nil
	}
	out := compactOutput{Messages: make([]json.RawMessage, len(res.Messages)), Stats: res.Stats, Distilled: res.Distilled, Tokenizer: tokenizer}
	for i, m := range res.Messages {
		out.Messages[i] = m.Raw
	}
	summary := fmt.Sprintf("kept %d of %d messages, %d → %d tokens (%s, %.1f%% dropped), embedding %s",
		res.Stats.Kept, len(msgs), res.Stats.BeforeTokens, res.Stats.AfterTokens, tokenizer, res.Stats.DroppedPct, onOff(res.Stats.Embedding))
	if in.Mask != nil {
		summary += fmt.Sprintf(", %d tool results masked (%d tokens saved)", res.Stats.Masked, res.Stats.MaskedTokens)
	}
	if in.DistillNovel {
		summary += fmt.Sprintf(", %d memories distilled", res.Stats.Distilled)
		if res.DistillErr != nil {
			a.log.Warn("distill", "err", res.DistillErr)
		}
		if len(res.Distilled) > 0 {
			if err := a.save(); err != nil {
				return toolError("%v", err), nil
			}
		}
	}
	return structured(out, summary)
}

// knownRoles are the roles compact_context weighs or keeps (chitta's
// built-in structural weights), as its unknown-role error lists them.
const knownRoles = "user, assistant or tool (function and tool_result count as tool), or system or developer (always kept)"

// messagesError turns a chitta parse or compact error into -32602, naming
// the message and field.
func messagesError(err error) *jsonrpc.Error {
	var me *chitta.MessageError
	if errors.As(err, &me) {
		where := "messages"
		if me.Index >= 0 {
			where = fmt.Sprintf("messages[%d]", me.Index)
		}
		if me.Field != "" {
			where += "." + me.Field
		}
		return invalidParams("%s: %s", where, me.Msg)
	}
	return invalidParams("%s", strings.TrimPrefix(err.Error(), "chitta: "))
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// remember implements the remember tool.
func (a *app) remember(ctx context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
	if err := checkUTF8Fields(args); err != nil {
		return nil, err
	}
	var in rememberInput
	if err := decodeArgs(args, &in); err != nil {
		return nil, err
	}
	text := strings.TrimSpace(in.Text)
	if text == "" {
		return nil, invalidParams("text: required (a non-empty string)")
	}
	kind := strings.TrimSpace(in.Kind)
	if kind == "" {
		kind = chitta.KindFact
	}
	if i := strings.IndexByte(kind, 0); i >= 0 {
		// chitta refuses it in a Kind; the store's error was a tool error.
		return nil, invalidParams("kind: holds a NUL byte (at byte %d), want none", i)
	}
	confidence := 1.0
	if c := in.Confidence; c != nil {
		if math.IsNaN(*c) || *c < 0 || *c > 1 {
			return nil, outOfRange("confidence", *c)
		}
		confidence = *c
	}
	vec, err := a.embedOne(ctx, text)
	if err != nil {
		return toolError("%v", err), nil
	}
	if isZero(vec) {
		return nil, invalidParams("text: nothing to embed: the embedder gives %q a zero vector (the hash embedder reads letters and digits)", firstLine(text, 80))
	}
	m := chitta.Memory{
		ID:         chitta.MemoryID(kind, text),
		Text:       text,
		Kind:       kind,
		Confidence: confidence,
		Vector:     vec,
		CreatedAt:  a.now(),
		Source:     "chitta remember",
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.store.Add(ctx, m); err != nil {
		return toolError("store memory: %v", err), nil
	}
	if err := a.save(); err != nil {
		return toolError("%v", err), nil
	}
	out := rememberOutput{ID: m.ID, Kind: kind, Memories: a.store.Len()}
	return structured(out, fmt.Sprintf("remembered %s %s (%d memories)", kind, m.ID, out.Memories))
}

// recall implements the recall tool.
func (a *app) recall(ctx context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
	var in recallInput
	if err := decodeArgs(args, &in); err != nil {
		return nil, err
	}
	text := strings.TrimSpace(in.Text)
	if text == "" {
		return nil, invalidParams("text: required (a non-empty string)")
	}
	k := defaultRecallK
	if in.K != nil {
		if *in.K < 1 || *in.K > maxRecallK {
			return nil, outOfRange("k", *in.K)
		}
		k = *in.K
	}
	minSim := 0.0
	if m := in.MinSimilarity; m != nil {
		if math.IsNaN(*m) || *m < 0 || *m > 1 {
			return nil, outOfRange("min_similarity", *m)
		}
		minSim = *m
	}
	vec, err := a.embedOne(ctx, text)
	if err != nil {
		return toolError("%v", err), nil
	}
	var hits []chitta.Hit
	if !isZero(vec) { // a text with nothing to embed is similar to no memory
		if hits, err = a.store.Recall(ctx, vec, k); err != nil {
			return toolError("recall: %v", err), nil
		}
	}
	// Most similar first: cut at the first hit below the floor.
	if i := slices.IndexFunc(hits, func(h chitta.Hit) bool { return !(h.Similarity >= minSim) }); i >= 0 {
		hits = hits[:i]
	}
	out := recallOutput{Memories: make([]recalled, len(hits))}
	for i, h := range hits {
		out.Memories[i] = recalled{listed: listedOf(h.Memory), Similarity: h.Similarity}
	}
	summary := fmt.Sprintf("%d memories", len(hits))
	if len(hits) > 0 {
		summary += fmt.Sprintf(", best %.3f: %s", hits[0].Similarity, firstLine(hits[0].Text, 80))
	}
	return structured(out, summary)
}

// embedOne embeds one text.
func (a *app) embedOne(ctx context.Context, text string) ([]float32, error) {
	vecs, err := a.embedder.Embed(ctx, []string{text})
	if err != nil {
		return nil, fmt.Errorf("embed text: %w", err)
	}
	if len(vecs) != 1 || len(vecs[0]) == 0 {
		return nil, fmt.Errorf("embed text: embedder returned %d vectors for 1 text", len(vecs))
	}
	return vecs[0], nil
}

// isZero reports whether every element of v is 0: the hash embedder's
// vector for a text without letters or digits, which no store accepts.
func isZero(v []float32) bool {
	return !slices.ContainsFunc(v, func(x float32) bool { return x != 0 })
}

// firstLine returns the first line of s, cut to at most n bytes (and
// "…") at a character boundary.
func firstLine(s string, n int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > n {
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "…"
	}
	return s
}

// structured builds a result with out as structured content and summary as
// its one text block.
func structured(out any, summary string) (*mcp.CallToolResult, error) {
	data, err := marshal(out)
	if err != nil {
		return toolError("encode result: %v", err), nil
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: summary}},
		StructuredContent: json.RawMessage(data),
	}, nil
}

// marshal encodes v without escaping <, > and &, so that message text
// reads as it came.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// schemaFor infers the JSON schema of T; it panics only on a programming
// error in the types above, which the tests exercise.
func schemaFor[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("schema for %T: %v", *new(T), err))
	}
	return s
}

// plain makes an optional (pointer) property a plain JSON type: null is
// accepted as "absent" by decodeArgs anyway.
func plain(p *jsonschema.Schema, typ string) *jsonschema.Schema {
	p.Type, p.Types = typ, nil
	return p
}

// objectArray is the schema of a "messages" property: an array of message
// objects, passed through verbatim, so their fields are not constrained.
func objectArray(description string) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "array", Description: description, Items: &jsonschema.Schema{Type: "object"}}
}

func compactSchema() *jsonschema.Schema {
	s := schemaFor[compactInput]()
	s.Properties["messages"] = objectArray(s.Properties["messages"].Description)
	s.Properties["messages"].MaxItems = jsonschema.Ptr(maxMessages)
	ratio := plain(s.Properties["target_ratio"], "number")
	ratio.Minimum, ratio.Maximum = jsonschema.Ptr(chitta.MinTargetRatio), jsonschema.Ptr(chitta.MaxTargetRatio)
	ratio.Default = json.RawMessage(fmt.Sprint(chitta.DefaultTargetRatio))
	thr := plain(s.Properties["novel_threshold"], "number")
	thr.ExclusiveMinimum, thr.Maximum = jsonschema.Ptr(0.0), jsonschema.Ptr(1.0)
	thr.Default = json.RawMessage(fmt.Sprint(chitta.DefaultNovelThreshold))
	s.Properties["distill_novel"].Default = json.RawMessage("false")
	s.Properties["max_tokens"].Minimum = jsonschema.Ptr(0.0)
	s.Properties["keep_last"].Minimum = jsonschema.Ptr(0.0)
	mask := s.Properties["mask"]
	mask.Type, mask.Types = "object", nil
	for _, f := range []string{"keep_recent", "min_tokens", "max_result_tokens"} {
		mask.Properties[f].Minimum = jsonschema.Ptr(0.0)
	}
	mask.Properties["keep_recent"].Default = json.RawMessage(fmt.Sprint(chitta.DefaultMaskKeepRecent))
	mask.Properties["min_tokens"].Default = json.RawMessage(fmt.Sprint(chitta.DefaultMaskMinTokens))
	mask.Properties["list_values"].Default = json.RawMessage(fmt.Sprint(chitta.DefaultMaskListValues))
	mask.Properties["actions"].Enum = []any{"oldest", "newest", "score", "off"}
	mask.Properties["actions"].Default = json.RawMessage(`"oldest"`)
	mask.Properties["restore"].Default = json.RawMessage("false")
	tok := s.Properties["tokenizer"]
	tok.Enum = make([]any, len(tokenizerNames))
	for i, n := range tokenizerNames {
		tok.Enum[i] = n
	}
	for _, name := range []string{"relevance_reserve", "lexical"} {
		p := s.Properties[name]
		p.Minimum, p.Maximum, p.Default = jsonschema.Ptr(0.0), jsonschema.Ptr(1.0), json.RawMessage("0")
	}
	return s
}

func compactOutputSchema() *jsonschema.Schema {
	s := schemaFor[compactOutput]()
	s.Properties["messages"] = objectArray(s.Properties["messages"].Description)
	return s
}

func rememberSchema() *jsonschema.Schema {
	s := schemaFor[rememberInput]()
	s.Properties["text"].MinLength = jsonschema.Ptr(1)
	s.Properties["kind"].Default = json.RawMessage(`"` + chitta.KindFact + `"`)
	c := plain(s.Properties["confidence"], "number")
	c.Minimum, c.Maximum, c.Default = jsonschema.Ptr(0.0), jsonschema.Ptr(1.0), json.RawMessage("1")
	return s
}

func recallSchema() *jsonschema.Schema {
	s := schemaFor[recallInput]()
	s.Properties["text"].MinLength = jsonschema.Ptr(1)
	k := plain(s.Properties["k"], "integer")
	k.Minimum, k.Maximum = jsonschema.Ptr(1.0), jsonschema.Ptr(float64(maxRecallK))
	k.Default = json.RawMessage(fmt.Sprint(defaultRecallK))
	m := plain(s.Properties["min_similarity"], "number")
	m.Minimum, m.Maximum, m.Default = jsonschema.Ptr(0.0), jsonschema.Ptr(1.0), json.RawMessage("0")
	return s
}
