package chitta_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/chittatest"
)

// jsonLookups appends OpenAI tool exchanges whose results are JSON objects
// holding identifier-like values (the listed values), some built in Go
// (no Raw), to a wire conversation's messages.
func jsonLookups(r *rand.Rand, in []chitta.Message) []chitta.Message {
	for k := range 1 + r.IntN(4) {
		id := fmt.Sprintf("j%d", k)
		var fields []string
		for f := range 3 + r.IntN(40) {
			fields = append(fields, fmt.Sprintf(`"f%d": "ID%dX%d", "n%d": %d, "t%d": "word %d"`, f, r.IntN(9), f, f, 10+r.IntN(90000), f, f))
		}
		content := "{" + strings.Join(fields, ", ") + "}"
		call := chitta.Message{Role: chitta.RoleAssistant, Content: "lookup", ToolCallIDs: []string{id}}
		result := chitta.Message{Role: chitta.RoleTool, Content: content, ToolResultIDs: []string{id}}
		if r.IntN(3) > 0 {
			wire := `[{"role":"assistant","content":null,"tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"lookup","arguments":"{}"}}]},` +
				`{"role":"tool","tool_call_id":"` + id + `","content":` + string(jsonQuote(content)) + `}]`
			ms, err := chitta.ParseMessages([]byte(wire))
			if err != nil {
				panic(err)
			}
			call, result = ms[0], ms[1]
		}
		at := 1 + r.IntN(len(in))
		in = append(in[:at], append([]chitta.Message{call, result}, in[at:]...)...)
	}
	return in
}

// A MaskCache changes nothing: on random conversations compacted as an
// agent loop does (growing prefixes, then the whole again), with one cache
// shared by every call and the masking options drawn per conversation
// (ListValues also changing between calls), every Result's Messages, Kept
// and Scores equal an uncached Compact's.
func TestMaskCacheSameOutput(t *testing.T) {
	t.Parallel()
	cache := chitta.NewMaskCache()
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 31))
		in, err := chitta.ParseMessages([]byte(randomWireConversation(r)))
		require.NoError(t, err)
		in = jsonLookups(r, in)
		mask := chitta.MaskOptions{KeepRecent: r.IntN(4), MinTokens: []int{0, 1, 20, 101}[r.IntN(4)], Actions: chitta.MaskActions(r.IntN(4)), Restore: r.IntN(3) == 0}
		if r.IntN(3) == 0 {
			mask.MaxResultTokens = []int{5, 30, 90}[r.IntN(3)]
		}
		if r.IntN(4) == 0 {
			mask.ExcludeTools = []string{"grep"}
		}
		opts := chitta.Options{TargetRatio: 0.05 + 0.9*r.Float64(), Tokens: words, KeepLast: r.IntN(3)}
		if r.IntN(2) == 0 {
			opts.Embedder, opts.Store, opts.DistillNovel = chittatest.SeededEmbedder{Dims: 8}, &chittatest.Store{}, true
		}
		if r.IntN(3) == 0 {
			opts.Tokens = chitta.NewCachedTokenCounter(nil, 0)
		}
		for _, n := range []int{len(in) / 2, len(in) - 1, len(in), len(in)} {
			if n < 1 {
				continue
			}
			mask.ListValues = []int{0, -1, 2}[r.IntN(3)]
			plainMask, cachedMask := mask, mask
			cachedMask.Cache = cache
			plain, cached := opts, opts
			plain.Mask, cached.Mask = &plainMask, &cachedMask
			if opts.Store != nil { // the same store state for both
				plain.Store, cached.Store = &chittatest.Store{}, &chittatest.Store{}
			}
			want, err := chitta.Compact(t.Context(), in[:n], &plain)
			require.NoError(t, err)
			got, err := chitta.Compact(t.Context(), in[:n], &cached)
			require.NoError(t, err)
			require.Equal(t, want.Kept, got.Kept, "seed %d, %d messages", seed, n)
			require.Equal(t, want.Scores, got.Scores, "seed %d, %d messages", seed, n)
			require.Equal(t, want.Stats, got.Stats, "seed %d, %d messages", seed, n)
			require.Equal(t, len(want.Messages), len(got.Messages))
			for k := range want.Messages {
				require.Equal(t, want.Messages[k], got.Messages[k], "seed %d, %d messages, survivor %d", seed, n, k)
			}
		}
	}
	st := cache.Stats()
	require.Positive(t, st.Hits, "the agent loop re-reads cached messages")
	require.Positive(t, st.Misses)
	require.Less(t, st.Len, 4000, "entries of old conversations are dropped")
}

// A MaskCache is safe for concurrent use: calls over different and equal
// conversations share one (run with -race).
func TestMaskCacheConcurrent(t *testing.T) {
	t.Parallel()
	cache := chitta.NewMaskCache()
	convs := make([][]chitta.Message, 4)
	for k := range convs {
		r := rand.New(rand.NewPCG(uint64(k), 7))
		in, err := chitta.ParseMessages([]byte(randomWireConversation(r)))
		require.NoError(t, err)
		convs[k] = jsonLookups(r, in)
	}
	want := make([]*chitta.Result, len(convs))
	for k, in := range convs {
		res, err := chitta.Compact(t.Context(), in, &chitta.Options{TargetRatio: 0.3, Tokens: words, Mask: &chitta.MaskOptions{MinTokens: 1}})
		require.NoError(t, err)
		want[k] = res
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for j := range 20 {
				k := (g + j) % len(convs)
				res, err := chitta.Compact(t.Context(), convs[k], &chitta.Options{TargetRatio: 0.3, Tokens: words, Mask: &chitta.MaskOptions{MinTokens: 1, Cache: cache}})
				if assert.NoError(t, err) {
					assert.Equal(t, want[k].Messages, res.Messages)
				}
			}
		})
	}
	wg.Wait()
	require.Positive(t, cache.Stats().Hits)
}

func TestMaskCacheNil(t *testing.T) {
	t.Parallel()
	var c *chitta.MaskCache
	require.Equal(t, chitta.MaskCacheStats{}, c.Stats())
	require.Equal(t, chitta.MaskCacheStats{}, new(chitta.MaskCache).Stats())
}

// The values of a result are listed from its Content: two messages with
// the same Raw but Contents of the same length (a caller may set both)
// share the scan of Raw, not the values.
func TestMaskCacheValuesFollowContent(t *testing.T) {
	t.Parallel()
	wire := `[{"role":"user","content":"go"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"lookup","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"c","content":"{\"id\": \"AB12\", \"more\": \"` + strings.Repeat("words ", 80) + `\"}"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"d","type":"function","function":{"name":"f","arguments":"{}"},"id":"d"},{"id":"e","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"g","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"d","content":"ok"},{"role":"tool","tool_call_id":"e","content":"ok"},{"role":"tool","tool_call_id":"g","content":"ok"},` +
		`{"role":"user","content":"next"}]`
	in, err := chitta.ParseMessages([]byte(wire))
	require.NoError(t, err)
	other := slices.Clone(in)
	other[2].Content = strings.Replace(in[2].Content, "AB12", "ZZ99", 1)
	prose := slices.Clone(in)
	n := len(in[2].Content)
	prose[2].Content = strings.Repeat("x ", n/2) + strings.Repeat("y", n%2) // not JSON: no values
	cache := chitta.NewMaskCache()
	for _, conv := range [][]chitta.Message{in, other, prose, in} {
		var got [2]*chitta.Result
		for k, c := range []*chitta.MaskCache{nil, cache} {
			res, err := chitta.Compact(t.Context(), conv, &chitta.Options{TargetRatio: 1, Tokens: words, Mask: &chitta.MaskOptions{MinTokens: 1, Cache: c}})
			require.NoError(t, err)
			got[k] = res
		}
		require.Equal(t, got[0].Messages, got[1].Messages)
		require.True(t, got[1].Scores[2].Masked)
		if conv[2].Content != prose[2].Content {
			require.Contains(t, got[1].Messages[2].Content, "values: "+conv[2].Content[8:12]+"]", "the placeholder lists this Content's id")
		} else {
			require.NotContains(t, got[1].Messages[2].Content, "values")
		}
	}
	require.Positive(t, cache.Stats().Hits)
}

// countingFramer is a countingCounter with 3 tokens of framing per
// message (a chitta.FramingCounter).
type countingFramer struct{ countingCounter }

func (*countingFramer) FramingTokens(*chitta.Message) int { return 3 }

// Masking takes a result's content count from the message's count instead
// of counting (and, with a CachedTokenCounter, hashing) the content again.
func TestMaskCountsContentOnce(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("word ", 300)
	wire := `[{"role":"user","content":"go"},
		{"role":"assistant","content":null,"tool_calls":[{"id":"c0","type":"function","function":{"name":"read_file","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c0","content":"` + big + `"}`
	for _, id := range []string{"c1", "c2", "c3"} { // the recent results, kept whole
		wire += `,{"role":"assistant","content":null,"tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"ls","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"` + id + `","content":"a b"}`
	}
	in, err := chitta.ParseMessages([]byte(wire + `,{"role":"user","content":"next"}]`))
	require.NoError(t, err)
	tc := &countingFramer{}
	res, err := chitta.Compact(t.Context(), in, &chitta.Options{TargetRatio: 1, Tokens: tc, Mask: &chitta.MaskOptions{}})
	require.NoError(t, err)
	require.Equal(t, 1, res.Stats.Masked)
	assert.Equal(t, 1, tc.asked(in[2].Content))
	assert.Contains(t, res.Messages[2].Content, " elided (300 tokens)", "the placeholder names the content's own count")
}

// charCounter counts a token per div bytes; comparable, so that a
// MaskCache keeps the token counts of forms counted with it.
type charCounter struct{ div int }

func (c charCounter) CountTokens(s string) int { return (len(s) + c.div - 1) / c.div }

// A form's token count cached in a MaskCache is reused only for the same
// message, placeholders and token counter: with one cache, compacting
// variants of a conversation (another listed value, another tool name for
// the call, other values shown before, fewer listed values, a memory
// named, another counter, another budget), each twice, gives what an uncached Compact gives, and some
// counts are reused.
func TestMaskCacheFormsFollowChanges(t *testing.T) {
	t.Parallel()
	result := func(id string) string {
		return `{\"id\": \"` + id + `\", \"user\": \"mia_li_3668\", \"codes\": [\"HAT028\", \"JG7FMM\", \"MCO\", 2024], \"more\": \"` + strings.Repeat("words ", 60) + `\"}`
	}
	conv := func(tool, id, ask string) []chitta.Message {
		wire := `[{"role":"system","content":"policy"},{"role":"user","content":"` + ask + `"},`
		for k := range 4 {
			c := fmt.Sprint("c", k)
			wire += `{"role":"assistant","content":null,"tool_calls":[{"id":"` + c + `","type":"function","function":{"name":"` + tool + `","arguments":"{\"user\": \"mia_li_3668\"}"}}]},` +
				`{"role":"tool","tool_call_id":"` + c + `","content":"` + result(fmt.Sprint(id, k)) + `"},`
		}
		wire += `{"role":"user","content":"next"}]`
		in, err := chitta.ParseMessages([]byte(wire))
		require.NoError(t, err)
		return in
	}
	convs := map[string][]chitta.Message{
		"base":     conv("lookup", "AB1", "find reservation HAT028"),
		"other id": conv("lookup", "ZZ9999", "find reservation HAT028"), // longer: another count
		"tool":     conv("lookup_every_reservation_of_the_user", "AB1", "find reservation HAT028"),
		"shown":    conv("lookup", "AB1", "find reservation MCO"), // another value left out, as many listed
	}
	type variant struct {
		conv    string
		ratio   float64
		values  int
		counter chitta.TokenCounter
		distill bool
	}
	var variants []variant // the conversations innermost: a cache keeps the counts of one counter
	for _, counter := range []chitta.TokenCounter{charCounter{4}, charCounter{2}, chitta.NewCachedTokenCounter(nil, 0), nil} {
		for _, ratio := range []float64{1, 0.4} {
			for _, values := range []int{0, 2} {
				for _, distill := range []bool{false, true} {
					for _, c := range []string{"base", "other id", "tool", "shown", "base"} {
						variants = append(variants, variant{c, ratio, values, counter, distill})
					}
				}
			}
		}
	}
	cache := chitta.NewMaskCache()
	for _, v := range variants {
		for range 2 {
			var got [2]*chitta.Result
			for k, c := range []*chitta.MaskCache{nil, cache} {
				opts := chitta.Options{TargetRatio: v.ratio, Tokens: v.counter, Mask: &chitta.MaskOptions{MinTokens: 1, KeepRecent: 1, ListValues: v.values, Cache: c}}
				if v.distill {
					opts.Embedder, opts.Store, opts.DistillNovel = chittatest.SeededEmbedder{Dims: 8}, &chittatest.Store{}, true
				}
				res, err := chitta.Compact(t.Context(), convs[v.conv], &opts)
				require.NoError(t, err)
				got[k] = res
			}
			at := fmt.Sprintf("%+v", v)
			require.Equal(t, got[0].Scores, got[1].Scores, at)
			require.Equal(t, got[0].Stats, got[1].Stats, at)
			require.Equal(t, got[0].Messages, got[1].Messages, at)
			require.Positive(t, got[1].Stats.Masked, at)
		}
	}
	require.Positive(t, cache.Stats().Forms, "token counts of forms are reused")
	require.Positive(t, cache.Stats().Built, "rewritten messages are reused")
}

// A MaskCache returns a rewritten message it built in an earlier call as
// a copy the caller owns: in every format, with the memory a store names
// and without it (a store that fails), each call equals an uncached
// Compact's, and scribbling over a returned Raw changes no later Result.
func TestMaskCacheBuiltForms(t *testing.T) {
	t.Parallel()
	for _, f := range maskFormats {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			in, err := chitta.ParseMessages([]byte(f.data))
			require.NoError(t, err)
			cache := chitta.NewMaskCache()
			stores := [2][]*chittatest.Store{} // per side: one that works, one that fails
			for k := range stores {
				stores[k] = []*chittatest.Store{{}, {AddErr: errors.New("disk full")}}
			}
			for call := range 6 {
				var got [2]*chitta.Result
				for k, c := range []*chitta.MaskCache{nil, cache} {
					opts := &chitta.Options{TargetRatio: 1, Tokens: charCounter{4}, Mask: &chitta.MaskOptions{KeepRecent: 1, Cache: c}}
					if call >= 2 { // the memory named, then not (a store error)
						opts.Embedder, opts.Store, opts.DistillNovel = chittatest.SeededEmbedder{Dims: 16}, stores[k][call%2], true
					}
					got[k], err = chitta.Compact(t.Context(), in, opts)
					require.NoError(t, err)
				}
				at := fmt.Sprint("call ", call)
				require.Equal(t, got[0].Messages, got[1].Messages, at)
				require.Equal(t, got[0].Scores, got[1].Scores, at)
				require.Equal(t, got[0].Stats, got[1].Stats, at)
				if call < 2 { // (a placeholder naming a memory may be no smaller)
					require.Positive(t, got[1].Stats.Masked, at)
				}
				for j, m := range got[1].Messages { // a rewritten one is the caller's own
					if got[1].Scores[got[1].Kept[j]].Masked {
						for b := range m.Raw {
							m.Raw[b] = 'x'
						}
					}
				}
			}
			require.Positive(t, cache.Stats().Built, "rewritten messages are reused")
		})
	}
}

// overheadCounter is a token counter of a comparable struct type whose
// values may still not compare: == on two of them panics when the
// wrapped counter is a TokenCounterFunc.
type overheadCounter struct {
	chitta.TokenCounter
	per int
}

func (o overheadCounter) CountTokens(s string) int { return o.TokenCounter.CountTokens(s) + o.per }

// TestMaskCacheUncomparableCounter: a MaskCache keeps placeholder counts
// per counter, which it compares with ==; a counter whose type is
// comparable but whose values are not (a struct wrapping a
// TokenCounterFunc) made Compact panic at its second masked message. Such
// a counter has no counts kept, and the output equals an uncached call's.
func TestMaskCacheUncomparableCounter(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	tokens := overheadCounter{words, 1}
	cache := chitta.NewMaskCache()
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 13))
		in, err := chitta.ParseMessages([]byte(randomWireConversation(r)))
		require.NoError(t, err)
		mask := chitta.MaskOptions{MinTokens: 1, KeepRecent: 1}
		uncached, err := chitta.Compact(ctx, in, &chitta.Options{Tokens: tokens, Mask: &mask, TargetRatio: 0.3})
		require.NoError(t, err)
		mask.Cache = cache
		for range 2 {
			res, err := chitta.Compact(ctx, in, &chitta.Options{Tokens: tokens, Mask: &mask, TargetRatio: 0.3})
			require.NoError(t, err)
			assert.Equal(t, uncached.Messages, res.Messages, "seed %d", seed)
		}
	}
}

// A MaskCache never serves a changed message what it read from the
// message before: with one cache, compacting a conversation again after
// one of its messages changed — a Raw written over in place (the same
// slice, the same length, one byte of the called tool's name different), a long
// Content of a message built in Go replaced by one of the same length
// with one byte different, a Content that is a longer prefix of the same
// bytes (the same address, another length), and Contents made afresh on
// every call, which the allocator may place where a dropped one was —
// gives what an uncached Compact gives, every time. It fails if the cache
// knows a Raw by its address, a Content by its length, or holds a
// Content's address without keeping the string alive.
func TestMaskCacheChangedMessage(t *testing.T) {
	t.Parallel()
	payload := func(v string) string { // a long JSON result listing v
		return `{"code": "` + v + `", "user": "mia_li_3668", "note": "` + strings.Repeat("words ", 120) + `"}`
	}
	goConv := func(content string) []chitta.Message { // built in Go: no Raw
		return []chitta.Message{
			{Role: chitta.RoleUser, Content: "find it"},
			{Role: chitta.RoleAssistant, Content: "lookup", ToolCallIDs: []string{"c1"}},
			{Role: chitta.RoleTool, Content: content, ToolResultIDs: []string{"c1"}},
			{Role: chitta.RoleAssistant, Content: "lookup", ToolCallIDs: []string{"c2"}},
			{Role: chitta.RoleTool, Content: "small", ToolResultIDs: []string{"c2"}},
			{Role: chitta.RoleUser, Content: "next"},
		}
	}
	wire := `[{"role":"user","content":"find it"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"lookup","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":` + string(jsonQuote(payload("HAT028"))) + `},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c2","type":"function","function":{"name":"lookup","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"c2","content":"small"},` +
		`{"role":"user","content":"next"}]`
	wireConv, err := chitta.ParseMessages([]byte(wire))
	require.NoError(t, err)
	require.NotEmpty(t, wireConv[1].Raw)
	long := payload("HAT028") + payload("JG7FMM")

	steps := []struct {
		name   string
		change func() []chitta.Message // the conversation after the change
		want   string                  // what the masked result's placeholder must show
	}{
		{"raw as parsed", func() []chitta.Message { return wireConv }, "lookup output elided"},
		{"raw written over in place", func() []chitta.Message {
			raw := wireConv[1].Raw // the call: the result is named after it
			at := strings.Index(string(raw), `"name":"lookup"`) + len(`"name":"lookup`) - 1
			raw[at] = 'q' // "lookuq": the same slice, the same length
			return wireConv
		}, "lookuq output elided"},
		{"content", func() []chitta.Message { return goConv(payload("HAT028")) }, "HAT028"},
		{"content again", func() []chitta.Message { return goConv(payload("HAT028")) }, "HAT028"},
		{"one byte different", func() []chitta.Message { return goConv(payload("HAT029")) }, "HAT029"},
		{"prefix of one buffer", func() []chitta.Message { return goConv(long[:len(long)/2]) }, "HAT028"},
		{"longer prefix of it", func() []chitta.Message { return goConv(long) }, "JG7FMM"},
	}
	for k := range 64 { // fresh strings of one length, dropped after each call
		v := fmt.Sprintf("ZX%04d", k)
		steps = append(steps, struct {
			name   string
			change func() []chitta.Message
			want   string
		}{"fresh " + v, func() []chitta.Message {
			runtime.GC() // free the strings of the calls before
			return goConv(strings.Clone(payload(v)))
		}, v})
	}
	cache := chitta.NewMaskCache()
	for _, step := range steps {
		in := step.change()
		var got [2]*chitta.Result
		for k, c := range []*chitta.MaskCache{nil, cache} {
			res, err := chitta.Compact(t.Context(), in, &chitta.Options{TargetRatio: 1, Mask: &chitta.MaskOptions{KeepRecent: 1, Cache: c}})
			require.NoError(t, err, step.name)
			got[k] = res
		}
		require.Equal(t, got[0].Messages, got[1].Messages, step.name)
		require.Equal(t, got[0].Scores, got[1].Scores, step.name)
		require.Equal(t, got[0].Stats, got[1].Stats, step.name)
		require.Equal(t, 1, got[1].Stats.Masked, step.name)
		assert.Contains(t, got[1].Messages[2].Content, step.want, step.name)
	}
	assert.Positive(t, cache.Stats().Hits, "unchanged messages are read from the cache")
}
