package tiktoken

import (
	"container/heap"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dlclark/regexp2/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// OpenAI's split expressions, as tiktoken_ext/openai_public.py publishes
// them, for regexp2, which interprets them with backtracking as
// fancy-regex does for tiktoken.
//
// o200k_base's is the published string inside (?:…): the bare string is
// the one tiktoken-go/tokenizer registers its compiled code for, which
// regexp2.MustCompile would return. cl100k_base's is the current
// publication,
//
//	'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s
//
// with its possessive quantifiers written as atomic groups (regexp2 has no
// possessive quantifiers) and $ as \z (Rust's $ without the m flag: the end
// of the text only). Its first publication, which the library compiles,
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// splits the same but for white space that ends the text and holds a line
// break, which the current one keeps in one piece; the counts agree because
// no token has a byte after its last line break (TestNoTokenOutlastsABreak).
var openAIPatterns = map[string]string{
	O200kBase:  `(?:[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)`,
	Cl100kBase: `'(?i:[sdmt]|ll|ve|re)|(?>[^\r\n\p{L}\p{N}]?)(?>\p{L}+)|(?>\p{N}{1,3})| ?(?>[^\s\p{L}\p{N}]+)(?>[\r\n]*)|(?>\s+)\z|\s*[\r\n]|\s+(?!\S)|\s`,
}

// reference is OpenAI's tiktoken for one encoding, from first principles:
// the published split expression and a plain byte-pair encoding of each
// piece over all of the encoding's ranks.
type reference struct {
	split *regexp2.Regexp
	ranks map[string]uint32
}

var (
	referencesOnce sync.Once
	references     map[string]*reference
)

// refFor returns a Counter and the reference for enc.
func refFor(tb testing.TB, enc string) (*Counter, *reference) {
	tb.Helper()
	referencesOnce.Do(func() {
		references = make(map[string]*reference)
		for name, pat := range openAIPatterns {
			c, err := New(name)
			if err != nil {
				return
			}
			ref := &reference{split: regexp2.MustCompile(pat, regexp2.None), ranks: make(map[string]uint32)}
			for id := range vocabSize[name] {
				if tok, err := c.enc.codec.Decode([]uint{id}); err == nil {
					ref.ranks[tok] = uint32(id)
				}
			}
			references[name] = ref
		}
	})
	ref := references[enc]
	require.NotNil(tb, ref, enc)
	c, err := New(enc)
	require.NoError(tb, err)
	return c, ref
}

// pieces splits text as tiktoken does; invalid UTF-8 reads as U+FFFD, as
// the library reads it.
func (r *reference) pieces(tb testing.TB, text string) []string {
	tb.Helper()
	var out []string
	m, err := r.split.FindStringMatch(text)
	for ; m != nil; m, err = r.split.FindNextMatch(m) {
		out = append(out, m.String())
	}
	require.NoError(tb, err)
	return out
}

// encode returns tiktoken's token IDs of text.
func (r *reference) encode(tb testing.TB, text string) []uint32 {
	tb.Helper()
	var ids []uint32
	for _, p := range r.pieces(tb, text) {
		for _, tok := range r.bpe(p) {
			id, ok := r.ranks[tok]
			require.True(tb, ok, "%q", tok)
			ids = append(ids, id)
		}
	}
	return ids
}

func (r *reference) count(tb testing.TB, text string) int { return len(r.encode(tb, text)) }

// bpe is tiktoken's byte_pair_merge: the piece itself if it is a token,
// else its bytes merged pairwise, the lowest rank first and the leftmost of
// equal ranks first. Up to 512 bytes it rescans all pairs after each merge
// as tiktoken does; longer pieces use a heap of candidates (refHeapBPE,
// checked against the rescan in TestReferenceBPE).
func (r *reference) bpe(piece string) []string {
	if _, ok := r.ranks[piece]; ok {
		return []string{piece}
	}
	if len(piece) > 512 {
		return r.heapBPE(piece)
	}
	return r.scanBPE(piece)
}

func (r *reference) scanBPE(piece string) []string {
	parts := make([]string, len(piece))
	for i := range parts {
		parts[i] = piece[i : i+1]
	}
	for {
		best, at := ^uint32(0), -1
		for i := 0; i+1 < len(parts); i++ {
			if rank, ok := r.ranks[parts[i]+parts[i+1]]; ok && rank < best {
				best, at = rank, i
			}
		}
		if at < 0 {
			return parts
		}
		parts[at] += parts[at+1]
		parts = append(parts[:at+1], parts[at+2:]...)
	}
}

// heapBPE merges as scanBPE does with a heap of (rank, left part's index)
// over a doubly linked list of parts.
func (r *reference) heapBPE(piece string) []string {
	type part struct {
		text       string
		prev, next int
		gen        int
	}
	parts := make([]part, len(piece))
	for i := range parts {
		parts[i] = part{piece[i : i+1], i - 1, i + 1, 0}
	}
	h := &refHeap{}
	push := func(i int) {
		if i < 0 || parts[i].next >= len(parts) {
			return
		}
		j := parts[i].next
		if rank, ok := r.ranks[parts[i].text+parts[j].text]; ok {
			heap.Push(h, refCand{rank, i, parts[i].gen, parts[j].gen})
		}
	}
	for i := range parts {
		push(i)
	}
	dead := make([]bool, len(parts))
	for h.Len() > 0 {
		c := heap.Pop(h).(refCand)
		j := parts[c.at].next
		if dead[c.at] || j >= len(parts) || parts[c.at].gen != c.gen || parts[j].gen != c.nextGen {
			continue
		}
		parts[c.at].text += parts[j].text
		parts[c.at].gen++
		parts[c.at].next = parts[j].next
		if k := parts[j].next; k < len(parts) {
			parts[k].prev = c.at
		}
		dead[j] = true
		push(parts[c.at].prev)
		push(c.at)
	}
	var out []string
	for i := 0; i < len(parts); i = parts[i].next {
		out = append(out, parts[i].text)
	}
	return out
}

type refCand struct {
	rank         uint32
	at           int
	gen, nextGen int
}

type refHeap []refCand

func (h refHeap) Len() int { return len(h) }
func (h refHeap) Less(a, b int) bool {
	return h[a].rank < h[b].rank || h[a].rank == h[b].rank && h[a].at < h[b].at
}
func (h refHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *refHeap) Push(x any)   { *h = append(*h, x.(refCand)) }
func (h *refHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// wsText returns a random text for the white-space runs: line breaks,
// spaces, tabs and Unicode spaces between words (cased, Devanagari with its
// vowel signs, CJK, Hangul), digits, symbols that take the line breaks after
// them, combining marks and invalid UTF-8.
func wsText(r *rand.Rand, n int) string {
	return joinRandom(r, n, "\n", "\n", "\r\n", "\r", " ", " ", "  ", "\t", "    ", "\u00a0", "\u3000", "\u2028", "\u0085", "\v", "\f", "\u1680",
		"a", "Word", "HTTP", "x", "ſ", "'ll", "日本", "한국어", "हिन्दी", "\u093e", "1", "42", "!", ".", "/", ")", "{", "//", "'s", "\u0301", "é", "e\u0301",
		"!\u0301", "🙂", "\xff", "<|endoftext|>")
}

// TestReference pins the reference to OpenAI's published token IDs
// (tiktoken's tests/test_encoding.py: test_simple, test_simple_regex,
// test_basic_encode) and to the known deviation of the library: OpenAI's
// expression makes "\n\n  \n\n" one piece, the library two, and counts
// "a\n\n  \n\nb" as 4 tokens in o200k_base where tiktoken counts 3, and
// "today\n \n" as 3 in cl100k_base where tiktoken counts 2.
func TestReference(t *testing.T) {
	t.Parallel()
	_, cl := refFor(t, Cl100kBase)
	for text, want := range map[string][]uint32{
		"rer": {38149}, "'rer": {2351, 81}, "today\n ": {31213, 198, 220},
		"today\n \n": {31213, 27907}, "today\n  \n": {31213, 14211},
		"hello world": {15339, 1917}, " \u00850": {220, 126, 227, 15},
	} {
		assert.Equal(t, want, cl.encode(t, text), "%q", text)
	}
	_, o := refFor(t, O200kBase)
	assert.Equal(t, []uint32{83, 8251, 2488, 382, 2212, 0}, o.encode(t, "tiktoken is great!"))
	for enc, text := range map[string]string{O200kBase: "a\n\n  \n\nb", Cl100kBase: "today\n \n"} {
		c, ref := refFor(t, enc)
		assert.Equal(t, []string{"a", "\n\n  \n\n", "b"}, ref.pieces(t, "a\n\n  \n\nb"), enc)
		lib, err := c.enc.codec.Count(text)
		require.NoError(t, err)
		assert.Equal(t, lib-1, ref.count(t, text), "%s %q: the library's deviation", enc, text)
	}
}

// TestReferenceAgreesWithLibrary: on text without a multi-break run (and
// without U+007F, TestCountTokensDEL) the reference counts what the library
// counts — random text, the golden
// strings, and this module's sources and the repository's README.
func TestReferenceAgreesWithLibrary(t *testing.T) {
	t.Parallel()
	texts := []string{"hello world", "tiktoken is great!", "   leading spaces\n\n\ttabs", "<|endoftext|> is text here",
		"\xff\xfe bad utf8 \xc3", "1234567890 3.14159 -42", "日本語のテキストです。", "it's HE'S ſ 'S"}
	for _, pat := range []string{"*.go", "../README.md", "../*.go"} {
		files, err := filepath.Glob(pat)
		require.NoError(t, err)
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			texts = append(texts, string(b))
		}
	}
	for seed := range uint64(400) {
		r := rand.New(rand.NewPCG(seed, 5))
		texts = append(texts, cutText(r, 1+r.IntN(80)), wsText(r, 1+r.IntN(80)))
	}
	for _, enc := range []string{O200kBase, Cl100kBase} {
		c, ref := refFor(t, enc)
		agreed := 0
		for _, s := range texts {
			if s, _ := c.enc.nextRun(s, 0, 0); s >= 0 {
				continue
			}
			agreed++
			lib, err := c.enc.codec.Count(s)
			require.NoError(t, err)
			require.Equal(t, lib, ref.count(t, s), "%s %q", enc, s)
		}
		assert.Greater(t, agreed, 500, enc)
	}
}

// TestReferenceBPE: the heap merge of the reference merges as tiktoken's
// rescan does.
func TestReferenceBPE(t *testing.T) {
	t.Parallel()
	for _, enc := range []string{O200kBase, Cl100kBase} {
		_, ref := refFor(t, enc)
		for seed := range uint64(300) {
			r := rand.New(rand.NewPCG(seed, 7))
			for _, p := range ref.pieces(t, wsText(r, 1+r.IntN(200))+cutText(r, r.IntN(40))) {
				require.Equal(t, ref.scanBPE(p), ref.heapBPE(p), "%s %q", enc, p)
			}
			run := wsText(r, 1+r.IntN(300))
			require.Equal(t, ref.scanBPE(run), ref.heapBPE(run), "%s %q", enc, run)
		}
	}
}

// TestNoTokenOutlastsABreak: no token of either encoding made of
// white-space bytes has a byte after its last line break, so no token spans
// the end of a piece \s*[\r\n]+ ends and the white space after it: the
// two publications of cl100k_base's expression count alike.
func TestNoTokenOutlastsABreak(t *testing.T) {
	t.Parallel()
	for _, enc := range []string{O200kBase, Cl100kBase} {
		c, err := New(enc)
		require.NoError(t, err)
		ranks := c.enc.runs().wsRanks
		assert.Greater(t, len(ranks), 300, enc)
		breaks := 0
		for tok := range ranks {
			if i := strings.LastIndexAny(tok, "\r\n"); i >= 0 {
				breaks++
				assert.Equal(t, len(tok)-1, i, "%s %q", enc, tok)
			}
		}
		assert.Greater(t, breaks, 100, enc)
	}
}
