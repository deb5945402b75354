package chitta

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cos is a float64 reference cosine for tests.
func cos(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func embedPair(t *testing.T, e Embedder, a, b string) float64 {
	t.Helper()
	v, err := e.Embed(t.Context(), []string{a, b})
	require.NoError(t, err)
	require.Len(t, v, 2)
	return cos(v[0], v[1])
}

func TestHashEmbedderDimensions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		e    *HashEmbedder
		want int
	}{
		{"zero value", &HashEmbedder{}, DefaultHashDimensions},
		{"nil", nil, DefaultHashDimensions},
		{"dims 0", NewHashEmbedder(0), DefaultHashDimensions},
		{"negative", NewHashEmbedder(-7), DefaultHashDimensions},
		{"explicit", NewHashEmbedder(64), 64},
		{"one", NewHashEmbedder(1), 1},
		{"clamped", NewHashEmbedder(MaxHashDimensions + 1), MaxHashDimensions},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.e.Dimensions())
			vecs, err := tt.e.Embed(t.Context(), []string{"hello world", ""})
			require.NoError(t, err)
			require.Len(t, vecs, 2)
			assert.Len(t, vecs[0], tt.want)
			assert.Len(t, vecs[1], tt.want)
			assert.InDelta(t, 1, norm(vecs[0]), 1e-5)
			assert.Zero(t, norm(vecs[1]))
		})
	}
}

func TestHashEmbedderZeroVector(t *testing.T) {
	t.Parallel()
	texts := []string{"", " ", "\n\t  \r\n", "!!! ... --- ///", "\u00a0\u2003", "\xff\xfe"}
	vecs, err := NewHashEmbedder(0).Embed(t.Context(), texts)
	require.NoError(t, err)
	require.Len(t, vecs, len(texts))
	for i, v := range vecs {
		assert.Zero(t, norm(v), "text %q", texts[i])
	}
}

func TestHashEmbedderEmptyBatch(t *testing.T) {
	t.Parallel()
	vecs, err := NewHashEmbedder(0).Embed(t.Context(), nil)
	require.NoError(t, err)
	assert.Empty(t, vecs)
}

func TestHashEmbedderSimilarity(t *testing.T) {
	t.Parallel()
	e := NewHashEmbedder(0)
	tests := []struct {
		name     string
		a, b     string
		min, max float64
	}{
		{"camel vs snake", "parseConfig", "parse_config", 0.99, 1},
		{"camel vs words", "parseConfig", "parse config", 0.9, 1},
		{"camel vs pascal", "parseConfig", "ParseConfig", 0.99, 1},
		{"camel vs kebab", "parseConfig", "parse-config", 0.99, 1},
		{"dotted vs words", "config.Parse", "config parse", 0.85, 1},
		{"acronym", "HTTPServer", "http server", 0.9, 1},
		{"identifier in prose", "call parseConfig before startServer", "we call parse_config before start_server", 0.8, 1},
		{"plural and tense", "the tests failed while parsing configs", "test fails when the parser parses config", 0.5, 1},
		{"near duplicate", "The build failed because the config file /etc/app.yaml is missing.", "the build failed because config file /etc/app.yaml was missing", 0.85, 1},
		{"near duplicate with noise", "Error: cannot open database connection to postgres on port 5432", "ERROR cannot open database connection to Postgres on port 5432 (retrying)", 0.8, 1},
		{"misspelling", "configuration parser error", "configuraton parsr eror", 0.25, 1},
		{"unrelated", "The build failed because the config file is missing", "I love hiking in the mountains with my dog", -0.2, 0.2},
		{"unrelated identifiers", "parseConfig", "renderTemplate", -0.2, 0.2},
		{"unrelated code", "func (s *Store) Recall(ctx context.Context, q []float32)", "Remember to water the tomatoes every evening", -0.2, 0.2},
		{"JSON keys barely count", `Bash {"command":"act -j test","timeout":300000,"description":"Run the CI workflow"}`, `Bash {"command":"ls -la /tmp","description":"List temporary files"}`, -0.2, 0.25},
		{"JSON values count", `Read {"file_path":"/src/claude_code_log/converter.py"}`, "the converter.py file in claude_code_log", 0.5, 1},
		{"contractions are not identifiers", "I'm sure it's red, don't you think", "I'm told it's blue, don't you see", -0.15, 0.15},
		{"stop words alone barely count", "the cat sat on the mat", "the dog ran in the park", -0.3, 0.3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := embedPair(t, e, tt.a, tt.b)
			assert.GreaterOrEqual(t, c, tt.min, "cos(%q, %q)", tt.a, tt.b)
			assert.LessOrEqual(t, c, tt.max, "cos(%q, %q)", tt.a, tt.b)
		})
	}
}

func TestHashEmbedderRanking(t *testing.T) {
	t.Parallel()
	// A query must find its own topic among distractors.
	docs := []string{
		"user: my flight UA123 to Denver was cancelled, can you rebook me?",
		"assistant: I ran go test ./... and TestParseMessages fails on an empty content array",
		"tool: open /home/u/project/config.yaml: permission denied",
		"user: please prefer tabs over spaces in every Go file",
		"assistant: the HNSW index rebuilds when the dimension changes",
	}
	queries := map[string]int{
		"rebook the cancelled flight UA123":      0,
		"why does TestParseMessages fail":        1,
		"permission denied opening config.yaml":  2,
		"tabs or spaces for go files":            3,
		"hnsw dimension change triggers rebuild": 4,
	}
	e := NewHashEmbedder(0)
	dv, err := e.Embed(t.Context(), docs)
	require.NoError(t, err)
	for q, want := range queries {
		qv, err := e.Embed(t.Context(), []string{q})
		require.NoError(t, err)
		best, bestCos := -1, -2.0
		for i, v := range dv {
			if c := cos(qv[0], v); c > bestCos {
				best, bestCos = i, c
			}
		}
		assert.Equal(t, want, best, "query %q", q)
	}
}

func TestHashEmbedderDeterministic(t *testing.T) {
	t.Parallel()
	texts := synthTurns(1, 50)
	a, err := NewHashEmbedder(0).Embed(t.Context(), texts)
	require.NoError(t, err)
	// One by one, on other goroutines, must give identical vectors.
	var wg sync.WaitGroup
	got := make([][]float32, len(texts))
	for i := range texts {
		wg.Go(func() {
			v, err := (&HashEmbedder{}).Embed(context.Background(), texts[i:i+1])
			if err == nil {
				got[i] = v[0]
			}
		})
	}
	wg.Wait()
	for i := range texts {
		assert.Equal(t, a[i], got[i], "text %d", i)
		assert.InDelta(t, 1, norm(a[i]), 1e-5)
	}
}

func TestHashEmbedderOwnership(t *testing.T) {
	t.Parallel()
	vecs, err := NewHashEmbedder(8).Embed(t.Context(), []string{"alpha beta", "gamma delta"})
	require.NoError(t, err)
	second := append([]float32(nil), vecs[1]...)
	_ = append(vecs[0], 42) // must not overwrite vecs[1]
	assert.Equal(t, second, vecs[1])
}

// TestHashEmbedderGolden pins vectors of fixed texts: HashEmbedder must give
// the same vectors on every run, platform and Go version, because stored
// memories are compared with vectors computed later. Changing the features
// or weights on purpose means updating these numbers (and telling users
// that stored vectors must be recomputed).
func TestHashEmbedderGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text     string
		nonzero  int
		checksum float64 // Σ (i+1)·v[i]
		comps    map[int]float32
	}{
		{"parseConfig failed: open /etc/chitta/config.yaml: no such file", 50, -280.218743,
			map[int]float32{417: -0.360914, 104: 0.213162, 48: 0.213162, 176: 0.213162}},
		{"The user prefers tabs over spaces.", 30, -141.762261,
			map[int]float32{457: 0.337676, 158: -0.337676, 214: -0.337676, 305: -0.337676}},
		{"héllo Wörld 世界", 17, 365.218851,
			map[int]float32{411: 0.384900, 173: -0.384900, 225: 0.384900, 16: 0.384900}},
	}
	e := NewHashEmbedder(0)
	for _, tt := range tests {
		v, err := e.Embed(t.Context(), []string{tt.text})
		require.NoError(t, err)
		require.Len(t, v[0], DefaultHashDimensions)
		nz := 0
		var sum float64
		for i, x := range v[0] {
			if x != 0 {
				nz++
			}
			sum += float64(i+1) * float64(x)
		}
		assert.Equal(t, tt.nonzero, nz, "%q: non-zero components", tt.text)
		assert.InDelta(t, tt.checksum, sum, 1e-3, "%q: checksum", tt.text)
		assert.InDelta(t, 1, norm(v[0]), 1e-6, "%q: norm", tt.text)
		for i, want := range tt.comps {
			assert.InDelta(t, want, v[0][i], 1e-5, "%q: component %d", tt.text, i)
		}
	}
}

// cancelAfter is a context whose Err reports Canceled from the n-th call on.
type cancelAfter struct {
	context.Context
	n     int32
	calls atomic.Int32
}

func (c *cancelAfter) Err() error {
	if c.calls.Add(1) >= c.n {
		return context.Canceled
	}
	return nil
}

func TestHashEmbedderCancel(t *testing.T) {
	t.Parallel()
	e := NewHashEmbedder(0)
	t.Run("before", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		vecs, err := e.Embed(ctx, []string{"hello"})
		require.ErrorIs(t, err, context.Canceled)
		assert.Nil(t, vecs)
	})
	t.Run("during a big batch", func(t *testing.T) {
		t.Parallel()
		ctx := &cancelAfter{Context: t.Context(), n: 2}
		texts := make([]string, 64)
		for i := range texts {
			texts[i] = strings.Repeat("word ", 20<<10) // 100 KB each
		}
		vecs, err := e.Embed(ctx, texts)
		require.ErrorIs(t, err, context.Canceled)
		assert.Nil(t, vecs)
		assert.Equal(t, int32(2), ctx.calls.Load(), "stopped at the first check after the start")
	})
}

func TestHashEmbedderHugeAndInvalid(t *testing.T) {
	t.Parallel()
	size := 10 << 20 // the random-bytes text; the others are smaller to keep -race fast
	if testing.Short() {
		size = 1 << 20
	}
	rng := rand.New(rand.NewPCG(7, 7))
	b := make([]byte, size)
	for i := range b {
		switch {
		case i%4096 < 64:
			b[i] = byte(0x80 + rng.UintN(128)) // random high bytes: invalid or valid runes
		case i%32 == 0:
			b[i] = 'a' + byte(rng.UintN(26))
		default:
			b[i] = 0xff // never valid UTF-8
		}
	}
	const small = 256 << 10
	turns := strings.Join(synthTurns(3, 50), "\n")
	texts := []string{
		string(b),
		strings.Repeat(turns, small/len(turns)+1)[:small],
		strings.Repeat("a", small), // one giant word
		strings.Repeat("aB_", small/3),
		strings.Repeat("\xf0\x9f", small/2), // truncated runes
	}
	vecs, err := NewHashEmbedder(0).Embed(t.Context(), texts)
	require.NoError(t, err)
	for i, v := range vecs {
		want := 1.0
		if i == len(texts)-1 {
			want = 0
		}
		assert.InDelta(t, want, norm(v), 1e-4, "text %d", i)
	}
}

func TestStem(t *testing.T) {
	t.Parallel()
	groups := [][]string{
		{"parse", "parses", "parsed", "parsing"},
		{"config", "configs"},
		{"configure", "configured", "configuring", "configures", "configuration", "configurations"},
		{"test", "tests", "tested", "testing"},
		{"copy", "copies", "copied"},
		{"stop", "stopped", "stopping", "stops"},
		{"call", "calls", "called", "calling"},
		{"pass", "passes", "passed", "passing"},
		{"fix", "fixes", "fixed", "fixing"},
		{"connect", "connection", "connections", "connected"},
		{"file", "files"},
	}
	for _, g := range groups {
		want := string(stem([]byte(g[0])))
		for _, w := range g[1:] {
			assert.Equal(t, want, string(stem([]byte(w))), "stem(%q) vs stem(%q)", w, g[0])
		}
	}
	// Short words and words that only look inflected are kept.
	for w, want := range map[string]string{"is": "is", "bus": "bus", "status": "status", "analysis": "analysis", "red": "red", "bed": "bed", "sing": "sing"} {
		assert.Equal(t, want, string(stem([]byte(w))), "stem(%q)", w)
	}
}

func FuzzHashEmbedder(f *testing.F) {
	for _, s := range []string{"", " ", "parseConfig", "HTTPServer_v2.go", "héllo Wörld 世界", "\xff\xfe\xfd", "a-b-c", "ǅemal ǈuba", "İstanbul", "ΣΊΣΥΦΟΣ", "x\u0301y", "123.456/789"} {
		f.Add(s)
	}
	e := NewHashEmbedder(64)
	f.Fuzz(func(t *testing.T, s string) {
		ctx := context.Background()
		v1, err := e.Embed(ctx, []string{s})
		require.NoError(t, err)
		v2, err := e.Embed(ctx, []string{s, s})
		require.NoError(t, err)
		require.Len(t, v1[0], 64)
		assert.Equal(t, v1[0], v2[0])
		assert.Equal(t, v1[0], v2[1])
		n := norm(v1[0])
		if n != 0 {
			assert.InDelta(t, 1, n, 1e-4)
		}
		for _, x := range v1[0] {
			require.False(t, math.IsNaN(float64(x)) || math.IsInf(float64(x), 0))
		}
		if !strings.ContainsFunc(s, func(r rune) bool {
			return r != '\uFFFD' && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r) || unicode.IsMark(r))
		}) {
			assert.Zero(t, n, "no letters or digits in %q", s)
		}
	})
}

// synthTurns returns n transcript-like texts (prose, identifiers, paths,
// numbers) from a fixed seed.
func synthTurns(seed uint64, n int) []string {
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	prose := strings.Fields(`the a to of and in is it that for on with as this be are was you we
		can not but run test build error file config function message value should would could
		failed fix change update check found return call use need make add remove server client
		request response database query index memory vector token budget score model agent user`)
	idents := []string{"parseConfig", "HTTPServer", "compact_messages", "vecmath.Cosine", "/etc/app/config.yaml",
		"TestCompactBudget", "ErrInvalidOption", "internal/store/hnsw.go", "max_tokens", "user-id", "UA123",
		"ctx.Err()", "json.Unmarshal", "go test -race ./...", "ReservationID", "flight_number"}
	out := make([]string, n)
	var sb strings.Builder
	for i := range out {
		sb.Reset()
		words := 20 + rng.IntN(180)
		for w := range words {
			if w > 0 {
				sb.WriteByte(' ')
			}
			switch r := rng.IntN(10); {
			case r == 0:
				sb.WriteString(idents[rng.IntN(len(idents))])
			case r == 1:
				fmt.Fprintf(&sb, "%d", rng.IntN(100000))
			default:
				sb.WriteString(prose[rng.IntN(len(prose))])
			}
		}
		out[i] = sb.String()
	}
	return out
}

// whitespaceEmbedder is the trivial baseline of the benchmarks: split on
// white space, hash each field with FNV-1a, add ±1, normalise.
type whitespaceEmbedder struct{ dims int }

func (w whitespaceEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, w.dims)
		for _, f := range strings.Fields(t) {
			h := fnv.New64a()
			h.Write([]byte(f))
			x := h.Sum64()
			if x>>63 != 0 {
				v[x%uint64(w.dims)]--
			} else {
				v[x%uint64(w.dims)]++
			}
		}
		if n := norm(v); n > 0 {
			for k := range v {
				v[k] = float32(float64(v[k]) / n)
			}
		}
		out[i] = v
	}
	return out, nil
}

// multilingualTurns returns n texts mixing German, Russian, Greek and
// Japanese words with identifiers, from a fixed seed.
func multilingualTurns(seed uint64, n int) []string {
	rng := rand.New(rand.NewPCG(seed, seed))
	words := strings.Fields(`Größe Änderung Prüfung über Fehler Datei Konfiguration ошибка файл конфигурация
		проверка сервер запрос ответ σφάλμα αρχείο ρύθμιση διακομιστής 設定 ファイル エラー 確認 サーバー
		parseConfig HTTPServer user_id`)
	out := make([]string, n)
	for i := range out {
		k := 20 + rng.IntN(120)
		ws := make([]string, k)
		for j := range ws {
			ws[j] = words[rng.IntN(len(words))]
		}
		out[i] = strings.Join(ws, " ")
	}
	return out
}

func BenchmarkHashEmbedder(b *testing.B) {
	for _, bc := range []struct {
		name  string
		e     Embedder
		texts []string
	}{
		{"baseline=whitespace", whitespaceEmbedder{DefaultHashDimensions}, synthTurns(42, 256)},
		{"dims=256", NewHashEmbedder(256), synthTurns(42, 256)},
		{"dims=512", NewHashEmbedder(512), synthTurns(42, 256)},
		{"dims=1024", NewHashEmbedder(1024), synthTurns(42, 256)},
		{"baseline=whitespace/multilingual", whitespaceEmbedder{DefaultHashDimensions}, multilingualTurns(42, 256)},
		{"dims=512/multilingual", NewHashEmbedder(512), multilingualTurns(42, 256)},
	} {
		texts := bc.texts
		total := 0
		for _, t := range texts {
			total += len(t)
		}
		b.Run(bc.name, func(b *testing.B) {
			ctx := b.Context()
			b.SetBytes(int64(total))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.e.Embed(ctx, texts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestRuneClassTable checks the table and range shortcuts against the
// unicode-package definition over the whole BMP and the supplementary
// ideograph planes' edges.
func TestRuneClassTable(t *testing.T) {
	t.Parallel()
	for r := rune(0); r <= 0x10ffff; r++ {
		if r > 0xffff && r%97 != 0 {
			continue // sample the supplementary planes
		}
		fast, slow := runeClass(r), slowRuneClass(r)
		if fast == slow {
			continue
		}
		// The CJK blocks are claimed whole, unassigned code points included.
		inCJK := (r >= 0x3400 && r <= 0x4dbf) || (r >= 0x4e00 && r <= 0x9fff)
		require.True(t, inCJK && fast == classIdeo && slow == classSep, "runeClass(%U) = %d, slowRuneClass = %d", r, fast, slow)
	}
}
