package chitta

import (
	"context"
	"math"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Dimensions of [HashEmbedder].
const (
	// DefaultHashDimensions is the vector length of a HashEmbedder created
	// with dims <= 0, and of the zero HashEmbedder.
	DefaultHashDimensions = 512
	// MaxHashDimensions is the largest vector length a HashEmbedder
	// produces; larger requests are clamped to it.
	MaxHashDimensions = 1 << 16
)

// HashEmbedder is a deterministic, model-free [Embedder]: it turns a text
// into a signed feature-hashing vector of lexical features, L2-normalised,
// so that the cosine of two vectors measures how many (weighted) words,
// identifiers and spellings the texts share. It is chitta's default
// embedder: it needs no download, runs in pure Go, and gives the same
// vector for the same text on every run, platform and Go version (up to
// float rounding in the last bits).
//
// The features of a text are:
//
//   - words: maximal runs of Unicode letters, digits and marks, lower-cased
//     (simple Unicode case folding), with identifiers split into their parts
//     at '_', '-', '.', '/', backslash, ':', apostrophes and case changes
//     (parseConfig, ParseConfig, parse_config, parse-config and
//     "parse config" all yield the words parse and config; HTTPServer
//     yields http and server). Han, Hiragana and Katakana characters are
//     words of their own. Each word is lightly stemmed (plurals, -ing, -ed,
//     -ation, -ion, final -e, for ASCII words), and English stop words and
//     the words of JSON object keys ("command": in tool-call arguments)
//     weigh 0.1 instead of 1;
//   - the whole identifier, as its stemmed parts, when it has two or more
//     parts that are not stop words (so not contractions like don't), so
//     that exact identifiers match more strongly than their words;
//   - bigrams of consecutive non-stop words, across identifiers and prose;
//   - character trigrams (with word-boundary markers) of letter-only words
//     of 4 to 32 characters, together weighing as much as one word, so
//     that misspellings and inflections still overlap.
//
// Each feature's weight is scaled by 1 + ln(tf) (sublinear term frequency),
// hashed with FNV-1a 64 and a fixed 64-bit finaliser to a dimension and a
// sign, and the sum is L2-normalised. A text with no letters or digits
// (empty, white space, punctuation) gives the zero vector, which [Compact]
// treats as "no embedding". Invalid UTF-8 bytes act as separators.
//
// The zero value is ready to use and produces [DefaultHashDimensions]
// dimensions. A HashEmbedder is safe for concurrent use; it keeps no state
// between calls besides pooled scratch buffers. The vectors returned by
// Embed belong to the caller (they share one backing array, each capped to
// its own length, so appending to one never overwrites another).
type HashEmbedder struct {
	dims int
}

// NewHashEmbedder returns a HashEmbedder producing vectors of dims
// dimensions. dims <= 0 means [DefaultHashDimensions]; dims above
// [MaxHashDimensions] is clamped to it. Lower dimensions are faster to
// compare and store but make unrelated texts collide more often; 256–1024
// is the useful range.
func NewHashEmbedder(dims int) *HashEmbedder {
	return &HashEmbedder{dims: dims}
}

// Dimensions returns the length of the vectors h produces.
func (h *HashEmbedder) Dimensions() int {
	if h == nil || h.dims <= 0 {
		return DefaultHashDimensions
	}
	return min(h.dims, MaxHashDimensions)
}

// hashCtxEvery is how many bytes Embed processes between checks of ctx.
const hashCtxEvery = 256 << 10

// Embed returns one L2-normalised vector (or the zero vector, for a text
// without letters or digits) per text, in order. It returns ctx.Err() if ctx
// is done before or during the call; it checks ctx between texts, about
// every 256 KiB of input. Embed never fails otherwise.
func (h *HashEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d := h.Dimensions()
	out := make([][]float32, len(texts))
	backing := make([]float32, len(texts)*d)
	st := hashStatePool.Get().(*hashState)
	defer st.release()
	since := 0
	for i, t := range texts {
		if since >= hashCtxEvery {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			since = 0
		}
		since += len(t) + 64
		v := backing[i*d : (i+1)*d : (i+1)*d]
		st.embed(t, v)
		out[i] = v
	}
	return out, nil
}

// Feature weights.
const (
	wordWeight    = 1.0
	stopWeight    = 0.1
	bigramWeight  = 0.5
	wholeWeight   = 0.7
	trigramWeight = 1.0 // L2 weight of all trigrams of one word together
	minGramRunes  = 4
	maxGramRunes  = 32
	maxWholeParts = 16 // identifiers with more parts get no whole feature
)

// Feature namespaces, mixed into the hash so that a word, a bigram and a
// trigram never share a feature.
const (
	nsWord   = 'u'
	nsBigram = 'b'
	nsWhole  = 'w'
	nsGram   = 'g'
)

// hashState is the scratch space of one embedding, pooled.
type hashState struct {
	// Open-addressing table of features and the occupied slots in
	// insertion order (for a deterministic summation order and a cheap
	// reset).
	slots []featureSlot
	used  []int32

	acc   []float64 // the vector being built
	low   []byte    // lower-cased bytes of the current chunk
	parts []wordPart
	gram  []byte  // boundary-marked word for trigrams
	pos   []int32 // rune offsets in gram

	prev   uint64 // hash of the previous non-stop word, 0 if none
	key    bool   // the current chunk is a JSON key: its words weigh like stop words
	noGram bool   // skip character trigrams (the lexical pass of Options.Lexical)
}

// featureSlot is one entry of the feature table: a feature's hash (0 =
// empty), its summed weight and its count.
type featureSlot struct {
	key       uint64
	sumw, cnt float32
}

// wordPart is one part of an identifier chunk, as a span of hashState.low.
type wordPart struct {
	start, end int32
	letters    bool // letters (and marks) only, no digits
	ascii      bool
	runes      int32
}

var hashStatePool = sync.Pool{New: func() any {
	s := &hashState{}
	s.resetTable(256)
	return s
}}

const maxPooledSlots = 1 << 15

func (s *hashState) release() {
	if len(s.slots) > maxPooledSlots {
		s.resetTable(256)
	}
	if cap(s.low) > 1<<16 {
		s.low = nil
	}
	hashStatePool.Put(s)
}

func (s *hashState) resetTable(n int) {
	s.slots = make([]featureSlot, n)
	s.used = make([]int32, 0, n/2)
}

// add records one occurrence of feature h with weight w.
func (s *hashState) add(h uint64, w float32) {
	if h == 0 {
		h = 1
	}
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		sl := &s.slots[i]
		switch sl.key {
		case h:
			sl.sumw += w
			sl.cnt++
			return
		case 0:
			*sl = featureSlot{key: h, sumw: w, cnt: 1}
			s.used = append(s.used, int32(i))
			if 2*len(s.used) > len(s.slots) {
				s.grow()
			}
			return
		}
	}
}

func (s *hashState) grow() {
	slots, used := s.slots, s.used
	s.resetTable(2 * len(slots))
	mask := uint64(len(s.slots) - 1)
	for _, j := range used {
		i := slots[j].key & mask
		for s.slots[i].key != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = slots[j]
		s.used = append(s.used, int32(i))
	}
}

// embed writes the normalised vector of text into v (len(v) = dims).
func (s *hashState) embed(text string, v []float32) {
	s.prev = 0
	s.tokenize(text)
	d := len(v)
	if cap(s.acc) < d {
		s.acc = make([]float64, d)
	}
	acc := s.acc[:d]
	clear(acc)
	for _, i := range s.used {
		sl := &s.slots[i]
		h, c := sl.key, sl.cnt
		w := float64(sl.sumw/c) * sublinear(c)
		if h&1 != 0 {
			w = -w
		}
		acc[((h>>32)*uint64(d))>>32] += w
		sl.key = 0
	}
	s.used = s.used[:0]
	var sq float64
	for _, x := range acc {
		sq += x * x
	}
	if sq == 0 {
		clear(v)
		return
	}
	inv := 1 / math.Sqrt(sq)
	for k, x := range acc {
		v[k] = float32(x * inv)
	}
}

var sublinearTab = func() (t [64]float64) {
	for i := 1; i < len(t); i++ {
		t[i] = 1 + math.Log(float64(i))
	}
	return t
}()

// sublinear returns 1 + ln(c) for a count c >= 1.
func sublinear(c float32) float64 {
	if c < float32(len(sublinearTab)) {
		return sublinearTab[int(c)]
	}
	return 1 + math.Log(float64(c))
}

// Rune classes of the tokenizer.
const (
	classSep   = iota // separates chunks
	classWord         // letter, digit or mark
	classJoin         // joins the parts of an identifier: _ - . / \ : '
	classIdeo         // Han, Hiragana, Katakana: a word of its own
	classUpper        // upper-case letter (a classWord for chunking)
	classDigit        // non-ASCII digit or number (a classWord for chunking)
)

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := 0; c < utf8.RuneSelf; c++ {
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			t[c] = classWord
		case 'A' <= c && c <= 'Z':
			t[c] = classUpper
		case c == '_' || c == '-' || c == '.' || c == '/' || c == '\\' || c == ':' || c == '\'':
			t[c] = classJoin
		default:
			t[c] = classSep
		}
	}
	return t
}()

// runeClass returns the tokenizer class of a non-ASCII rune. Runes below
// U+3400 (every alphabet, Hiragana, Katakana) come from a table built on
// first use; the CJK ideograph blocks are recognised by range.
func runeClass(r rune) uint8 {
	switch {
	case r < utf8.RuneSelf:
		return asciiClass[r]
	case r < bmpClassSize:
		return bmpClass()[r]
	case r <= 0x4dbf || (r >= 0x4e00 && r <= 0x9fff):
		return classIdeo
	}
	return slowRuneClass(r)
}

const bmpClassSize = 0x3400

var bmpClass = sync.OnceValue(func() *[bmpClassSize]uint8 {
	t := new([bmpClassSize]uint8)
	for r := range t {
		t[r] = slowRuneClass(rune(r))
	}
	return t
})

func slowRuneClass(r rune) uint8 {
	switch {
	case r < utf8.RuneSelf:
		return asciiClass[r]
	case r == utf8.RuneError:
		return classSep
	case unicode.IsLetter(r):
		if r >= 0x2e80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r)) {
			return classIdeo
		}
		if unicode.IsUpper(r) || unicode.IsTitle(r) {
			return classUpper
		}
		return classWord
	case unicode.IsDigit(r) || unicode.IsNumber(r):
		return classDigit
	case unicode.IsMark(r):
		return classWord
	case r == '’' || r == '‐' || r == '‑':
		return classJoin
	}
	return classSep
}

// tokenize splits text into chunks (identifiers and words) and feeds their
// features to the table.
func (s *hashState) tokenize(text string) {
	start := -1 // start of the current chunk, or -1
	for i := 0; i < len(text); {
		c := text[i]
		var cls uint8
		n := 1
		if c < utf8.RuneSelf {
			cls = asciiClass[c]
		} else {
			var r rune
			r, n = utf8.DecodeRuneInString(text[i:])
			cls = runeClass(r)
		}
		switch cls {
		case classSep:
			if start >= 0 {
				s.key = isJSONKey(text, start, i)
				s.chunk(text[start:i])
				s.key = false
				start = -1
			}
		case classIdeo:
			if start >= 0 {
				s.chunk(text[start:i])
				start = -1
			}
			s.chunk(text[i : i+n])
		default:
			if start < 0 {
				start = i
			}
		}
		i += n
	}
	if start >= 0 {
		s.chunk(text[start:])
	}
}

// isJSONKey reports whether text[start:end] is a JSON object key: quoted
// and followed by a colon, as in the arguments of a tool call.
func isJSONKey(text string, start, end int) bool {
	return start > 0 && text[start-1] == '"' && end+1 < len(text) && text[end] == '"' && text[end+1] == ':'
}

// chunk splits an identifier chunk (word and join runes) into lower-cased
// parts at join runes and case changes, and adds its features.
func (s *hashState) chunk(c string) {
	s.low = s.low[:0]
	s.parts = s.parts[:0]
	cur := wordPart{start: -1}
	flush := func() {
		if cur.start >= 0 {
			cur.end = int32(len(s.low))
			s.parts = append(s.parts, cur)
		}
		cur = wordPart{start: -1}
	}
	var prevCls uint8 = classSep
	var prevLower bool
	for i := 0; i < len(c); {
		b := c[i]
		var r rune
		n := 1
		var cls uint8
		if b < utf8.RuneSelf {
			r, cls = rune(b), asciiClass[b]
		} else {
			r, n = utf8.DecodeRuneInString(c[i:])
			cls = runeClass(r)
		}
		if cls == classJoin || cls == classSep {
			flush()
			prevCls, prevLower = cls, false
			i += n
			continue
		}
		isUpper := cls == classUpper
		if isUpper && cur.start >= 0 {
			switch {
			case prevLower:
				flush() // parseConfig → parse | Config, utf8Reader → utf8 | Reader
			case prevCls == classUpper && i+n < len(c) && nextIsLower(c[i+n:]):
				flush() // HTTPServer → HTTP | Server
			}
		}
		if cur.start < 0 {
			cur = wordPart{start: int32(len(s.low)), letters: true, ascii: true}
		}
		if b < utf8.RuneSelf {
			if isUpper {
				b += 'a' - 'A'
			}
			s.low = append(s.low, b)
			if b >= '0' && b <= '9' {
				cur.letters = false
			}
			prevLower = !isUpper
		} else {
			s.low = utf8.AppendRune(s.low, unicode.ToLower(r))
			cur.ascii = false
			if cls == classDigit {
				cur.letters = false
			}
			prevLower = !isUpper // lower-case, caseless letter, digit or mark
		}
		cur.runes++
		prevCls = cls
		i += n
	}
	flush()
	if len(s.parts) == 0 {
		return
	}
	whole := uint64(nsWhole)
	content := 0 // parts that are not stop words
	for _, p := range s.parts {
		h, stop := s.part(p)
		whole = mix(whole, h)
		if !stop {
			content++
		}
	}
	// Contractions and possessives (don't, Ann's) are not identifiers.
	if content >= 2 && len(s.parts) <= maxWholeParts && !s.key {
		s.add(whole, wholeWeight)
	}
}

func nextIsLower(rest string) bool {
	if rest[0] < utf8.RuneSelf {
		return rest[0] >= 'a' && rest[0] <= 'z'
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return unicode.IsLower(r)
}

// part adds the features of one lower-cased word and returns the hash of
// its stem and whether it weighed as a stop word.
func (s *hashState) part(p wordPart) (uint64, bool) {
	w := s.low[p.start:p.end]
	if s.key || isStopWord(w) {
		h := hashBytes(nsWord, w)
		s.add(h, stopWeight)
		return h, true
	}
	if !s.noGram && p.letters && p.runes >= minGramRunes && p.runes <= maxGramRunes {
		s.trigrams(w, p.runes)
	}
	if p.ascii {
		w = stem(w)
	}
	h := hashBytes(nsWord, w)
	s.add(h, wordWeight)
	if s.prev != 0 {
		s.add(mix(mix(nsBigram, s.prev), h), bigramWeight)
	}
	s.prev = h
	return h, false
}

// trigrams adds the character trigrams of word w (runes runes long), with
// 0x01 and 0x02 marking its start and end.
func (s *hashState) trigrams(w []byte, runes int32) {
	s.gram = append(append(append(s.gram[:0], 1), w...), 2)
	s.pos = s.pos[:0]
	for i := 0; i < len(s.gram); {
		s.pos = append(s.pos, int32(i))
		if s.gram[i] < utf8.RuneSelf {
			i++
		} else {
			_, n := utf8.DecodeRune(s.gram[i:])
			i += n
		}
	}
	s.pos = append(s.pos, int32(len(s.gram)))
	grams := len(s.pos) - 3 // runes+2 marked runes give runes trigrams
	wt := float32(trigramWeight / math.Sqrt(float64(grams)))
	for k := 0; k < grams; k++ {
		s.add(hashBytes(nsGram, s.gram[s.pos[k]:s.pos[k+3]]), wt)
	}
}

// FNV-1a 64 constants.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// hashBytes returns the FNV-1a 64 hash of the namespace byte followed by b,
// finalised with fmix64.
func hashBytes(ns byte, b []byte) uint64 {
	h := uint64(fnvOffset)
	h ^= uint64(ns)
	h *= fnvPrime
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return fmix64(h)
}

// mix combines two hashes into one.
func mix(a, b uint64) uint64 {
	return fmix64(a*0x9e3779b97f4a7c15 ^ b)
}

// fmix64 is MurmurHash3's 64-bit finaliser.
func fmix64(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// stem strips common English suffixes from an ASCII lower-case word, in
// place, and returns the stem: a light, Porter-inspired stemmer that maps
// parse, parses, parsed, parsing and parser's plural to one stem. Words of
// three letters or fewer are left alone.
func stem(w []byte) []byte {
	n := len(w)
	if n <= 3 {
		return w
	}
	// Plurals and third person.
	switch {
	case hasSuffix(w, "ies") && n > 4:
		w[n-3] = 'y'
		w = w[:n-2]
	case hasSuffix(w, "sses"):
		w = w[:n-2]
	case hasSuffix(w, "xes") || hasSuffix(w, "ches") || hasSuffix(w, "shes") || hasSuffix(w, "zzes"):
		w = w[:n-2]
	case w[n-1] == 's' && w[n-2] != 's' && w[n-2] != 'u' && w[n-2] != 'i':
		w = w[:n-1]
	}
	n = len(w)
	// Past tense and gerund.
	switch {
	case hasSuffix(w, "ied") && n > 4:
		w[n-3] = 'y'
		w = w[:n-2]
	case hasSuffix(w, "ing") && n-3 >= 3 && hasVowel(w[:n-3]):
		w = undouble(w[:n-3])
	case hasSuffix(w, "ed") && n-2 >= 3 && hasVowel(w[:n-2]):
		w = undouble(w[:n-2])
	case hasSuffix(w, "ation") && n-5 >= 3:
		w = w[:n-5]
	case hasSuffix(w, "ion") && n-3 >= 4 && (w[n-4] == 't' || w[n-4] == 's'):
		w = w[:n-3]
	}
	n = len(w)
	if n > 3 && w[n-1] == 'e' {
		w = w[:n-1]
	}
	return w
}

func hasSuffix(w []byte, suf string) bool {
	return len(w) >= len(suf) && string(w[len(w)-len(suf):]) == suf
}

func hasVowel(w []byte) bool {
	for _, c := range w {
		switch c {
		case 'a', 'e', 'i', 'o', 'u', 'y':
			return true
		}
	}
	return false
}

// undouble turns a stem ending in a doubled consonant other than l, s or z
// into a single one (stopp → stop, call stays call).
func undouble(w []byte) []byte {
	n := len(w)
	if n >= 2 && w[n-1] == w[n-2] {
		switch w[n-1] {
		case 'a', 'e', 'i', 'o', 'u', 'l', 's', 'z':
		default:
			return w[:n-1]
		}
	}
	return w
}

func isStopWord(w []byte) bool {
	if len(w) > maxStopLen {
		return false
	}
	_, ok := stopWords[string(w)]
	return ok
}

const maxStopLen = 10

// stopWords are English function words (and single letters, which
// contractions and initials leave behind); they weigh stopWeight.
var stopWords = func() map[string]struct{} {
	m := make(map[string]struct{})
	for _, w := range [...]string{
		"a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
		"are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
		"but", "by", "can", "could", "did", "do", "does", "doing", "done", "down", "during", "each",
		"else", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here",
		"hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its",
		"itself", "just", "let", "like", "me", "more", "most", "much", "my", "myself", "no", "nor",
		"not", "now", "of", "off", "ok", "okay", "on", "once", "only", "or", "other", "our", "ours",
		"ourselves", "out", "over", "own", "please", "same", "she", "should", "so", "some", "such",
		"than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these",
		"they", "this", "those", "through", "to", "too", "under", "until", "up", "us", "very", "was",
		"we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with",
		"would", "yes", "you", "your", "yours", "yourself", "yourselves",
		"b", "c", "d", "e", "f", "g", "h", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s", "t",
		"u", "v", "w", "x", "y", "z", "ll", "re", "ve", "don", "didn", "doesn", "isn", "wasn",
		"aren", "won",
	} {
		m[w] = struct{}{}
	}
	return m
}()
