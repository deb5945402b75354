//go:build cgo && llamacpp

package llamacpp

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/chitta-go/chitta/internal/testkit/ci"
	"github.com/chitta-go/chitta/internal/testkit/gguf"
	"github.com/chitta-go/chitta/internal/testkit/tinybert"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests build a tiny BERT model (64 dims, 2 layers, random weights,
// the real bge vocabulary) once per test binary. They need the vocabulary
// from scripts/install-llama.sh (CHITTA_LLAMA_VOCAB); outside CI they skip
// without it, in CI (CI=true) they fail.

var (
	modelDirOnce sync.Once
	modelDir     string
	modelDirErr  error
	models       sync.Map // model name → *modelFile
)

type modelFile struct {
	once sync.Once
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if modelDir != "" {
		os.RemoveAll(modelDir)
	}
	os.Exit(code)
}

// tinyModel returns the path of the shared tiny BERT test model.
func tinyModel(t testing.TB) string {
	t.Helper()
	return testModel(t, "tiny-bert", tinybert.Config{Seed: 1})
}

// testModel builds the named model once per test binary and returns its
// path.
func testModel(t testing.TB, name string, cfg tinybert.Config) string {
	t.Helper()
	vocab := os.Getenv("CHITTA_LLAMA_VOCAB")
	if vocab == "" {
		ci.Need(t, "CHITTA_LLAMA_VOCAB not set: run eval \"$(scripts/install-llama.sh)\" to enable llama.cpp tests")
	}
	modelDirOnce.Do(func() { modelDir, modelDirErr = os.MkdirTemp("", "chitta-llamacpp-test-") })
	require.NoError(t, modelDirErr)
	v, _ := models.LoadOrStore(name, &modelFile{})
	mf := v.(*modelFile)
	mf.once.Do(func() {
		mf.path = filepath.Join(modelDir, name+".gguf")
		mf.err = tinybert.Write(mf.path, vocab, cfg)
	})
	require.NoError(t, mf.err, "build model %s from %s", name, vocab)
	return mf.path
}

// newTiny opens the test model with opts and closes it at the end of the
// test. Unless opts sets Threads, it uses one thread: ggml's thread barrier
// spins, and on a loaded 2-core machine two threads per context are slower
// by orders of magnitude (see the package notes).
func newTiny(t testing.TB, opts *Options) *Embedder {
	t.Helper()
	o := Options{Threads: 1}
	if opts != nil {
		o = *opts
		if o.Threads == 0 {
			o.Threads = 1
		}
	}
	e, err := New(tinyModel(t), &o)
	require.NoError(t, err)
	t.Cleanup(func() { e.Close() })
	return e
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func cosine(a, b []float32) float64 {
	var dot float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
	}
	return dot / (norm(a) * norm(b))
}

// sampleTexts returns n distinct agent-transcript-like texts of varied
// length.
func sampleTexts(n int) []string {
	words := strings.Fields("the build failed because parseConfig returned nil when the yaml file " +
		"was missing so we added a default path and retried the tool call which listed three files " +
		"under internal and then the tests passed on the second run with race enabled")
	out := make([]string, n)
	for i := range out {
		k := 3 + i%17
		var b strings.Builder
		for j := range k {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[(i*7+j*3)%len(words)])
		}
		fmt.Fprintf(&b, " #%d", i)
		out[i] = b.String()
	}
	return out
}

func longText(words int) string {
	var b strings.Builder
	for i := range words {
		fmt.Fprintf(&b, "word%d ", i%97)
	}
	return b.String()
}

func TestEmbedDimensionsAndNorm(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e, err := New(tinyModel(t), nil) // all defaults
	require.NoError(t, err)
	t.Cleanup(func() { e.Close() })
	assert.Equal(t, 64, e.Dimensions())

	vecs, err := e.Embed(ctx, []string{"hello world", "", "parse_config failed", "ünïcödé 文字"})
	require.NoError(t, err)
	require.Len(t, vecs, 4)
	for i, v := range vecs {
		assert.Len(t, v, 64, "vector %d", i)
		assert.InDelta(t, 1, norm(v), 1e-5, "vector %d", i)
	}
	assert.Less(t, cosine(vecs[0], vecs[2]), 0.9999, "different texts differ")

	raw := newTiny(t, &Options{DisableNormalize: true})
	rv, err := raw.Embed(ctx, []string{"hello world"})
	require.NoError(t, err)
	assert.Greater(t, math.Abs(norm(rv[0])-1), 1e-3, "unnormalised vector keeps its norm")
	assert.InDelta(t, 1, cosine(rv[0], vecs[0]), 1e-5, "same direction")
}

func TestEmbedDeterministic(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := newTiny(t, nil)
	a, err := e.Embed(ctx, []string{"same text", "other", "same text"})
	require.NoError(t, err)
	b, err := e.Embed(ctx, []string{"same text"})
	require.NoError(t, err)
	assert.Equal(t, a[0], a[2])
	assert.InDelta(t, 1, cosine(a[0], b[0]), 1e-6)
}

func TestEmbedEmpty(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := newTiny(t, nil)
	vecs, err := e.Embed(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, vecs)

	vecs, err = e.Embed(ctx, []string{"", "   ", "hello", "bad \xff\xfe utf8 \xc3", "bad \uFFFD utf8 \uFFFD", "nul\x00byte"})
	require.NoError(t, err)
	assert.InDelta(t, 1, norm(vecs[0]), 1e-5)
	assert.InDelta(t, 1, cosine(vecs[0], vecs[1]), 1e-6, "whitespace tokenizes to nothing, like empty")
	assert.Less(t, cosine(vecs[0], vecs[2]), 0.9999)
	assert.InDelta(t, 1, cosine(vecs[3], vecs[4]), 1e-6, "invalid UTF-8 is replaced by U+FFFD")
	assert.InDelta(t, 1, norm(vecs[5]), 1e-5)
}

func TestEmbedBatchedMatchesSingle(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	texts := sampleTexts(40)
	texts = append(texts, longText(600))       // a full 512-token call of its own
	for _, batch := range []int{0, 16, 1024} { // 16: one text per call mostly; 1024: big packs
		t.Run(fmt.Sprintf("batch=%d", batch), func(t *testing.T) {
			t.Parallel()
			e := newTiny(t, &Options{BatchSize: batch})
			batched, err := e.Embed(ctx, texts)
			require.NoError(t, err)
			require.Len(t, batched, len(texts))
			for i, text := range texts {
				one, err := e.Embed(ctx, []string{text})
				require.NoError(t, err)
				assert.GreaterOrEqual(t, cosine(batched[i], one[0]), 0.9999, "text %d", i)
			}
		})
	}
}

func TestEmbedTruncates(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := newTiny(t, nil)
	long := longText(5000)
	vecs, err := e.Embed(ctx, []string{long, long + " and a different tail", "short"})
	require.NoError(t, err)
	assert.InDelta(t, 1, norm(vecs[0]), 1e-5)
	assert.InDelta(t, 1, cosine(vecs[0], vecs[1]), 1e-6, "tokens past the trained context are ignored")

	small := newTiny(t, &Options{MaxTokens: 16})
	vecs, err = small.Embed(ctx, []string{longText(20), longText(30), longText(4)})
	require.NoError(t, err)
	assert.InDelta(t, 1, cosine(vecs[0], vecs[1]), 1e-6, "MaxTokens truncates")
	assert.Less(t, cosine(vecs[0], vecs[2]), 0.9999, "shorter text is not truncated")
}

// TestTokenizeLongTextByPrefix: a text far longer than MaxTokens tokens is
// tokenized from a prefix, not whole, and keeps the tokens tokenizing it
// whole gives. A 10 MB text was handed whole to llama_tokenize (1.4 s,
// 40 MB, not cancellable) to keep 512 tokens.
func TestTokenizeLongTextByPrefix(t *testing.T) {
	t.Parallel()
	e := newTiny(t, nil) // 512 tokens
	small := newTiny(t, &Options{MaxTokens: 16})
	words := longText(50_000)
	tests := []struct {
		name string
		text string
	}{
		{"words", words},
		{"words, cut inside a word", "x" + words},
		{"cjk", strings.Repeat("日本語のテキストを埋め込む。", 20_000)},
		{"emoji and accents", strings.Repeat("café 😀 naïve 👍🏽 ", 30_000)},
		{"code", strings.Repeat("func (e *Embedder) tokenize(text string) ([]int32, error) { return nil, err }\n", 5_000)},
		{"mostly white space", strings.Repeat("a"+strings.Repeat(" ", 200), 5_000)},
		{"white space then words", strings.Repeat(" ", 200_000) + words},
		{"invalid UTF-8", strings.Repeat("ok \xff\xfe then \xc3", 50_000)},
		{"one long word", strings.Repeat("abcdefghij", 30_000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, m := range []*Embedder{e, small} {
				got, err := m.tokenize(tt.text)
				require.NoError(t, err)
				full, err := m.tokenizeAll(strings.ToValidUTF8(tt.text, "\uFFFD"))
				require.NoError(t, err)
				require.Equal(t, truncate(full, m.maxTokens, m.keepLast), got, "maxTokens %d", m.maxTokens)
			}
		})
	}

	huge := strings.Repeat("lorem ipsum dolor sit amet, parseConfig(x) = 42; ", 200_000) // 10 MB
	m := newTiny(t, nil)
	vecs, err := m.Embed(t.Context(), []string{huge})
	require.NoError(t, err)
	assert.InDelta(t, 1, norm(vecs[0]), 1e-5)
	assert.LessOrEqual(t, m.tokenizedBytes.Load(), int64((512+prefixMargin)*prefixBytesPerToken),
		"tokenized one prefix of the %d bytes", len(huge))
}

func TestEmbedThousandTexts(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := newTiny(t, nil)
	texts := sampleTexts(1000)
	vecs, err := e.Embed(ctx, texts)
	require.NoError(t, err)
	require.Len(t, vecs, 1000)
	for i, v := range vecs {
		require.Len(t, v, 64)
		require.InDelta(t, 1, norm(v), 1e-4, "vector %d", i)
	}
	last, err := e.Embed(ctx, texts[999:])
	require.NoError(t, err)
	assert.GreaterOrEqual(t, cosine(vecs[999], last[0]), 0.9999)
}

func TestEmbedConcurrent(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := newTiny(t, &Options{BatchSize: 128})
	texts := sampleTexts(64)
	want, err := e.Embed(ctx, texts)
	require.NoError(t, err)

	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			sub := texts[g*8 : g*8+8]
			for range 3 {
				got, err := e.Embed(ctx, sub)
				if err != nil {
					errs <- err
					return
				}
				for i := range sub {
					if c := cosine(got[i], want[g*8+i]); c < 0.9999 {
						errs <- fmt.Errorf("goroutine %d text %d: cosine %v", g, i, c)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
}

func TestCloseIdempotent(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e, err := New(tinyModel(t), nil)
	require.NoError(t, err)
	require.NoError(t, e.Close())
	require.NoError(t, e.Close())
	_, err = e.Embed(ctx, []string{"after close"})
	require.ErrorIs(t, err, ErrClosed)
	_, err = e.EmbedQueries(ctx, []string{"after close"})
	require.ErrorIs(t, err, ErrClosed)
	assert.Equal(t, 64, e.Dimensions())
}

func TestCloseWaitsForEmbed(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e, err := New(tinyModel(t), &Options{BatchSize: 64, Threads: 1})
	require.NoError(t, err)
	started := make(chan struct{})
	var once sync.Once
	e.afterBatch = func(int) { once.Do(func() { close(started) }) }
	done := make(chan error, 1)
	go func() {
		_, err := e.Embed(ctx, sampleTexts(200))
		done <- err
	}()
	<-started
	require.NoError(t, e.Close())
	require.NoError(t, <-done, "the running call finished before Close freed the model")
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, data, 0o644))
		return p
	}
	good, err := os.ReadFile(tinyModel(t))
	require.NoError(t, err)
	noTensors := filepath.Join(dir, "vocab-only.gguf")
	require.NoError(t, gguf.WriteFile(noTensors, []gguf.KV{
		{Key: "general.architecture", Value: gguf.Value{Type: gguf.TypeString, Data: "bert"}},
	}, nil))
	garbage := make([]byte, 4096)
	for i := range garbage {
		garbage[i] = byte(i*131 + 7)
	}
	copy(garbage, "GGUF")

	tests := []struct {
		name string
		path string
		opts *Options
		want error
	}{
		{"missing", filepath.Join(dir, "nope.gguf"), nil, fs.ErrNotExist},
		{"directory", dir, nil, ErrInvalidModel},
		{"empty file", write("empty.gguf", nil), nil, ErrInvalidModel},
		{"not gguf", write("text.gguf", []byte("hello, this is not a model")), nil, ErrInvalidModel},
		{"garbage after magic", write("garbage.gguf", garbage), nil, ErrInvalidModel},
		{"truncated header", write("trunc-head.gguf", good[:1000]), nil, ErrInvalidModel},
		{"truncated data", write("trunc-data.gguf", good[:len(good)/2]), nil, ErrInvalidModel},
		{"no tensors", noTensors, nil, ErrInvalidModel},
		{"vocabulary only", os.Getenv("CHITTA_LLAMA_VOCAB"), nil, ErrInvalidModel},
		{"bad threads", tinyModel(t), &Options{Threads: -1}, ErrInvalidOption},
		{"bad batch", tinyModel(t), &Options{BatchSize: 4}, ErrInvalidOption},
		{"bad pooling", tinyModel(t), &Options{Pooling: "max"}, ErrInvalidOption},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, err := New(tt.path, tt.opts)
			require.ErrorIs(t, err, tt.want)
			assert.Nil(t, e)
		})
	}
}

// TestNewRefusesAssertingMetadata: a GGUF file whose hyper-parameters break
// an assertion of llama.cpp's loader (rather than one of its errors) is
// refused with ErrInvalidModel before llama.cpp loads it. Each of these
// aborted the whole process (SIGABRT: GGML_ASSERT in
// llama_model_base::load_hparams), or, for the epsilons, the first Embed
// (GGML_ASSERT(eps >= 0.0f) in ggml's norm operations).
func TestNewRefusesAssertingMetadata(t *testing.T) {
	t.Parallel()
	vocabPath := os.Getenv("CHITTA_LLAMA_VOCAB")
	tinyModel(t) // skips (or fails in CI) without the vocabulary
	vocab, err := gguf.ReadHeaderFile(vocabPath)
	require.NoError(t, err)
	u32 := func(v uint32) gguf.Value { return gguf.Value{Type: gguf.TypeUint32, Data: v} }
	dir := t.TempDir()
	f32 := func(v float64) gguf.Value { return gguf.Value{Type: gguf.TypeFloat32, Data: float32(v)} }
	tests := []struct {
		name    string
		key     string
		value   gguf.Value
		wantErr string
	}{
		{"negative layer norm epsilon", "bert.attention.layer_norm_epsilon", f32(-1), "layer_norm_epsilon -1"},
		{"NaN layer norm epsilon", "bert.attention.layer_norm_epsilon", f32(math.NaN()), "layer_norm_epsilon NaN"},
		{"negative rms norm epsilon", "llama.attention.layer_norm_rms_epsilon", f32(-1e-30), "layer_norm_rms_epsilon -1e-30"},
		{"-Inf rms norm epsilon", "llama.attention.layer_norm_rms_epsilon", f32(math.Inf(-1)), "layer_norm_rms_epsilon -Inf"},
		{"no blocks", "bert.block_count", u32(0), "block_count 0 outside 1..512"},
		{"too many blocks", "bert.block_count", u32(100000), "block_count 100000 outside 1..512"},
		{"nextn beyond blocks", "bert.nextn_predict_layers", u32(10), "nextn_predict_layers 10 exceeds block_count 2"},
		{"too many experts", "bert.expert_count", u32(2000), "expert_count 2000 exceeds 1024"},
		{"experts used without experts", "bert.expert_used_count", u32(5), "expert_used_count 5 exceeds expert_count 0"},
		{"unknown rope scaling", "bert.rope.scaling.type", gguf.Value{Type: gguf.TypeString, Data: "foo"}, `rope.scaling.type "foo"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			kvs, tensors, err := tinybert.Build(vocab, tinybert.Config{Seed: 1, Decoder: strings.HasPrefix(tt.key, "llama.")}) // llama.*: the decoder-only tiny model
			require.NoError(t, err)
			set := false
			for i := range kvs {
				if kvs[i].Key == tt.key {
					kvs[i].Value, set = tt.value, true
				}
			}
			if !set {
				kvs = append(kvs, gguf.KV{Key: tt.key, Value: tt.value})
			}
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".gguf")
			require.NoError(t, gguf.WriteFile(path, kvs, tensors))
			e, err := New(path, &Options{Threads: 1})
			require.ErrorIs(t, err, ErrInvalidModel)
			assert.ErrorContains(t, err, tt.wantErr)
			assert.Nil(t, e)
		})
	}
}

func TestPoolingAndPrefixes(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	texts := []string{"pooling changes the vector", "x"}
	embed := func(opts *Options) [][]float32 {
		v, err := newTiny(t, opts).Embed(ctx, texts)
		require.NoError(t, err)
		return v
	}
	mean, cls, last, model := embed(nil), embed(&Options{Pooling: PoolingCLS}),
		embed(&Options{Pooling: PoolingLast}), embed(&Options{Pooling: PoolingModel})
	assert.Less(t, cosine(mean[0], cls[0]), 0.9999)
	assert.Less(t, cosine(mean[0], last[0]), 0.9999)
	assert.InDelta(t, 1, cosine(mean[0], model[0]), 1e-6, "the tiny model records mean pooling")

	e := newTiny(t, &Options{QueryPrefix: "query: ", DocumentPrefix: "passage: "})
	plain := newTiny(t, nil)
	q, err := e.EmbedQueries(ctx, texts)
	require.NoError(t, err)
	q2, err := e.Queries().Embed(ctx, texts)
	require.NoError(t, err)
	d, err := e.Embed(ctx, texts)
	require.NoError(t, err)
	wantQ, err := plain.Embed(ctx, []string{"query: " + texts[0]})
	require.NoError(t, err)
	wantD, err := plain.Embed(ctx, []string{"passage: " + texts[0]})
	require.NoError(t, err)
	assert.InDelta(t, 1, cosine(q[0], wantQ[0]), 1e-6)
	assert.InDelta(t, 1, cosine(q2[0], wantQ[0]), 1e-6)
	assert.InDelta(t, 1, cosine(d[0], wantD[0]), 1e-6)
	assert.Less(t, cosine(q[0], d[0]), 0.9999)
}

func TestEmbedCancel(t *testing.T) {
	t.Parallel()
	texts := sampleTexts(300)

	t.Run("pre-cancelled", func(t *testing.T) {
		t.Parallel()
		e := newTiny(t, nil)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := e.Embed(ctx, texts)
		require.ErrorIs(t, err, context.Canceled)
	})

	t.Run("between batches", func(t *testing.T) {
		t.Parallel()
		e := newTiny(t, &Options{BatchSize: 64})
		ctx, cancel := context.WithCancel(t.Context())
		var batches int
		e.afterBatch = func(b int) {
			batches++
			if b == 1 {
				cancel()
			}
		}
		_, err := e.Embed(ctx, texts)
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, 2, batches, "no batch runs after cancellation")
	})

	for _, threads := range []int{1, 2} { // 2: a persistent thread pool
		t.Run(fmt.Sprintf("during encode/threads=%d", threads), func(t *testing.T) {
			t.Parallel()
			e := newTiny(t, &Options{Threads: threads})
			if threads > 1 {
				require.NotNil(t, e.pool, "multi-threaded context has a thread pool")
			}
			ctx, cancel := context.WithCancel(t.Context())
			// Cancel after the abort callback is armed, just before
			// llama.cpp runs, and wait until the flag is up: llama.cpp must
			// stop the running graph and report an abort.
			e.beforeRun = func() {
				cancel()
				for !e.aborting() {
					runtime.Gosched() // context.AfterFunc runs in its own goroutine
				}
			}
			_, err := e.Embed(ctx, texts)
			require.ErrorIs(t, err, context.Canceled)
			assert.Equal(t, 2, e.lastStatus, "llama.cpp reported an aborted compute")

			// The context is usable again afterwards.
			e.beforeRun = nil
			vecs, err := e.Embed(t.Context(), texts[:3])
			require.NoError(t, err)
			assert.Len(t, vecs, 3)
		})
	}
}

// TestDecoderModel runs a decoder-only model (tiny llama architecture with
// the same vocabulary) through the llama_decode path.
func TestDecoderModel(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := testModel(t, "tiny-llama", tinybert.Config{Seed: 2, Decoder: true})
	for _, pooling := range []Pooling{PoolingMean, PoolingModel} {
		t.Run(string(pooling), func(t *testing.T) {
			t.Parallel()
			e, err := New(path, &Options{Threads: 1, Pooling: pooling, BatchSize: 256})
			require.NoError(t, err)
			t.Cleanup(func() { e.Close() })
			require.Equal(t, 64, e.Dimensions())
			require.False(t, e.encoder, "decoder-only model uses llama_decode")

			texts := append(sampleTexts(60), longText(5000), "")
			batched, err := e.Embed(ctx, texts)
			require.NoError(t, err)
			for i, text := range texts {
				assert.InDelta(t, 1, norm(batched[i]), 1e-4, "text %d", i)
				one, err := e.Embed(ctx, []string{text})
				require.NoError(t, err)
				assert.GreaterOrEqual(t, cosine(batched[i], one[0]), 0.9999, "text %d", i)
			}

			cctx, cancel := context.WithCancel(ctx)
			e.beforeRun = func() {
				cancel()
				for !e.aborting() {
					runtime.Gosched()
				}
			}
			_, err = e.Embed(cctx, texts)
			require.ErrorIs(t, err, context.Canceled)
			assert.Equal(t, 2, e.lastStatus, "llama_decode reported an abort")
			e.beforeRun = nil
			again, err := e.Embed(ctx, texts[:5])
			require.NoError(t, err)
			assert.GreaterOrEqual(t, cosine(again[4], batched[4]), 0.9999, "memory cleared after abort")
		})
	}
}

// FuzzEmbed feeds arbitrary bytes to the tokenizer and encoder: any input
// must give a unit vector or an error, never a crash in C.
func FuzzEmbed(f *testing.F) {
	for _, s := range []string{"", " ", "hello world", "\xff\xfe\xfd", "a\x00b", "[CLS] [SEP] [MASK]",
		"<s></s><|endoftext|>", strings.Repeat("ab ", 700), "日本語のテキスト", "\u202e\u0301\u200d"} {
		f.Add(s)
	}
	e := newTiny(f, &Options{BatchSize: 64})
	f.Fuzz(func(t *testing.T, text string) {
		vecs, err := e.Embed(t.Context(), []string{text, "fixed companion text"})
		require.NoError(t, err)
		require.Len(t, vecs, 2)
		assert.InDelta(t, 1, norm(vecs[0]), 1e-4)
	})
}

// TestNilAndZeroEmbedder: a nil *Embedder, or a zero Embedder not made by
// New, answers every method without panicking (a nil one dereferenced its
// fields; a zero one handed a nil vocabulary to llama.cpp, which crashes
// the process): Embed and EmbedQueries return ErrInvalidOption, Dimensions
// 0, Close nil. It needs no model.
func TestNilAndZeroEmbedder(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	for name, e := range map[string]*Embedder{"nil": nil, "zero": {}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, embed := range []func() ([][]float32, error){
				func() ([][]float32, error) { return e.Embed(ctx, []string{"x"}) },
				func() ([][]float32, error) { return e.EmbedQueries(ctx, []string{"x"}) },
				func() ([][]float32, error) { return e.Queries().Embed(ctx, []string{"x"}) },
				func() ([][]float32, error) { return e.Embed(ctx, nil) },
			} {
				require.NotPanics(t, func() {
					vecs, err := embed()
					require.ErrorIs(t, err, ErrInvalidOption)
					assert.ErrorContains(t, err, "not created with New")
					assert.Nil(t, vecs)
				})
			}
			require.NotPanics(t, func() { assert.Zero(t, e.Dimensions()) })
			require.NotPanics(t, func() { assert.NoError(t, e.Close()) })
			require.NotPanics(t, func() { assert.NoError(t, e.Close()) })
		})
	}
}
