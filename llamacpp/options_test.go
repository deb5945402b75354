package llamacpp

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOptionsConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opts    *Options
		wantErr error
		check   func(t *testing.T, c config)
	}{
		{name: "nil means defaults", opts: nil, check: func(t *testing.T, c config) {
			assert.Equal(t, runtime.GOMAXPROCS(0), c.threads)
			assert.Equal(t, PoolingMean, c.pooling)
			assert.True(t, c.normalize)
			assert.Zero(t, c.batchSize)
			assert.Zero(t, c.maxTokens)
		}},
		{name: "zero equals nil", opts: &Options{}, check: func(t *testing.T, c config) {
			want, err := (*Options)(nil).config()
			require.NoError(t, err)
			assert.Equal(t, want, c)
		}},
		{name: "explicit", opts: &Options{Threads: 3, BatchSize: 512, Pooling: PoolingCLS, DisableNormalize: true,
			MaxTokens: 100, QueryPrefix: "q: ", DocumentPrefix: "d: ", BackendDir: "/x"},
			check: func(t *testing.T, c config) {
				assert.Equal(t, config{threads: 3, batchSize: 512, pooling: PoolingCLS, normalize: false,
					maxTokens: 100, queryPrefix: "q: ", documentPrefix: "d: ", backendDir: "/x"}, c)
			}},
		{name: "pooling last", opts: &Options{Pooling: PoolingLast}},
		{name: "pooling model", opts: &Options{Pooling: PoolingModel}},
		{name: "batch at limits", opts: &Options{BatchSize: MinBatchSize}},
		{name: "batch at max", opts: &Options{BatchSize: MaxBatchSize}},
		{name: "negative threads", opts: &Options{Threads: -1}, wantErr: ErrInvalidOption},
		{name: "too many threads", opts: &Options{Threads: MaxThreads + 1}, wantErr: ErrInvalidOption},
		{name: "batch too small", opts: &Options{BatchSize: MinBatchSize - 1}, wantErr: ErrInvalidOption},
		{name: "batch too large", opts: &Options{BatchSize: MaxBatchSize + 1}, wantErr: ErrInvalidOption},
		{name: "negative batch", opts: &Options{BatchSize: -1}, wantErr: ErrInvalidOption},
		{name: "negative max tokens", opts: &Options{MaxTokens: -5}, wantErr: ErrInvalidOption},
		{name: "too many max tokens", opts: &Options{MaxTokens: MaxBatchSize + 1}, wantErr: ErrInvalidOption},
		{name: "unknown pooling", opts: &Options{Pooling: "max"}, wantErr: ErrInvalidOption},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := tt.opts.config()
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			if tt.check != nil {
				tt.check(t, c)
			}
		})
	}
}

func TestConfigLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                       string
		batch, maxTok, train       int
		wantPack, wantMax, wantCtx int
	}{
		{"bert defaults", 0, 0, 512, 128, 512, 512},
		{"short context", 0, 0, 64, 128, 64, 128},
		{"long context", 0, 0, 8192, 128, 8192, 8192},
		{"very long context capped", 0, 0, 32768, 128, 8192, 8192},
		{"explicit max tokens beyond default cap", 0, 16384, 32768, 128, 16384, 16384},
		{"max tokens below context", 0, 100, 512, 128, 100, 128},
		{"max tokens above context clamped", 0, 4096, 512, 128, 512, 512},
		{"small batch", 64, 0, 512, 64, 512, 512},
		{"large batch lowered to the text limit", 4096, 0, 512, 512, 512, 512},
		{"largest batch lowered to the text limit", MaxBatchSize, 0, 512, 512, 512, 512},
		{"large batch, short context", 4096, 0, 64, 128, 64, 128},
		{"large batch, long context", MaxBatchSize, 0, 32768, 8192, 8192, 8192},
		{"batch within an explicit max tokens", 2048, 4096, 32768, 2048, 4096, 4096},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pack, maxTok, ctx := config{batchSize: tt.batch, maxTokens: tt.maxTok}.limits(tt.train)
			assert.Equal(t, tt.wantPack, pack, "tokens per call")
			assert.Equal(t, tt.wantMax, maxTok, "max tokens")
			assert.Equal(t, tt.wantCtx, ctx, "context size")
		})
	}
}

// TestPlanProperties checks over random inputs that plan covers every text
// once, in order, and never exceeds the token or sequence limits except
// with a single text longer than the token limit.
func TestPlanProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		maxTokens := 1 + rng.IntN(600)
		maxSeqs := 1 + rng.IntN(40)
		counts := make([]int, rng.IntN(120))
		for i := range counts {
			counts[i] = 1 + rng.IntN(maxTokens+maxTokens/4)
		}
		spans := plan(counts, maxTokens, maxSeqs)
		next := 0
		for _, s := range spans {
			require.Equal(t, next, s.start, "contiguous")
			require.Less(t, s.start, s.end, "non-empty")
			require.LessOrEqual(t, s.end-s.start, maxSeqs, "sequence limit")
			total := 0
			for _, n := range counts[s.start:s.end] {
				total += n
			}
			if s.end-s.start > 1 {
				require.LessOrEqual(t, total, maxTokens, "token limit")
			}
			next = s.end
		}
		require.Equal(t, len(counts), next, "covers all texts")
	}
}

func TestPlanPacks(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []span{{0, 3}, {3, 5}}, plan([]int{2, 3, 5, 9, 1}, 10, 8))
	assert.Equal(t, []span{{0, 2}, {2, 4}, {4, 5}}, plan([]int{1, 1, 1, 1, 1}, 10, 2))
	assert.Equal(t, []span{{0, 1}, {1, 2}, {2, 4}}, plan([]int{4, 12, 3, 3}, 10, 8), "long text alone")
	assert.Empty(t, plan(nil, 10, 2))
}

func TestTruncate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in       []int32
		limit    int
		keepLast bool
		want     []int32
	}{
		{"short kept", []int32{101, 5, 102}, 5, true, []int32{101, 5, 102}},
		{"exact kept", []int32{101, 5, 102}, 3, true, []int32{101, 5, 102}},
		{"keeps separator", []int32{101, 5, 6, 7, 102}, 3, true, []int32{101, 5, 102}},
		{"plain cut", []int32{1, 5, 6, 7, 8}, 3, false, []int32{1, 5, 6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, truncate(append([]int32(nil), tt.in...), tt.limit, tt.keepLast))
		})
	}
}

func TestFinish(t *testing.T) {
	t.Parallel()
	v := []float32{3, 4}
	require.NoError(t, finish(v, true))
	assert.InDelta(t, 0.6, v[0], 1e-7)
	assert.InDelta(t, 0.8, v[1], 1e-7)

	raw := []float32{3, 4}
	require.NoError(t, finish(raw, false))
	assert.Equal(t, []float32{3, 4}, raw)

	for _, bad := range [][]float32{{0, 0}, {1, float32(math.NaN())}, {float32(math.Inf(1)), 0}} {
		require.ErrorIs(t, finish(bad, true), ErrEncode, "%v", bad)
	}
}

func TestWithPrefix(t *testing.T) {
	t.Parallel()
	in := []string{"a", ""}
	assert.Equal(t, []string{"q: a", "q: "}, withPrefix(in, "q: "))
	assert.Equal(t, []string{"a", ""}, in, "input not modified")
	assert.Equal(t, in, withPrefix(in, ""))
}
