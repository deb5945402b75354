package llamacpp

import (
	"fmt"
	"runtime"
)

// Pooling selects how token vectors become one vector per text.
type Pooling string

// Pooling types. The zero value "" means [PoolingMean].
const (
	// PoolingMean averages the token vectors (the default).
	PoolingMean Pooling = "mean"
	// PoolingCLS takes the first token's vector (BERT's [CLS]).
	PoolingCLS Pooling = "cls"
	// PoolingLast takes the last token's vector (decoder-only embedding
	// models such as Qwen3-Embedding).
	PoolingLast Pooling = "last"
	// PoolingModel uses the pooling type recorded in the model file; New
	// fails with [ErrInvalidModel] if the model records none.
	PoolingModel Pooling = "model"
)

// Limits on [Options] fields.
const (
	MaxThreads   = 512     // largest Options.Threads
	MinBatchSize = 8       // smallest non-zero Options.BatchSize
	MaxBatchSize = 1 << 16 // largest Options.BatchSize
)

// defaultBatchSize is the batch size used when Options.BatchSize is zero and
// the model's trained context is not larger.
const defaultBatchSize = 2048

// maxDefaultBatchSize caps the default batch size for long-context models:
// encoder attention spans the whole batch, so its cost grows with the square
// of the batch size.
const maxDefaultBatchSize = 8192

// Options configures an [Embedder]. The zero value of every field means the
// documented default, and a nil *Options means all defaults. Options are
// read by [New] only; changing them afterwards has no effect.
type Options struct {
	// Threads is the number of CPU threads llama.cpp uses per batch.
	// Zero means runtime.GOMAXPROCS(0); otherwise 1..MaxThreads.
	Threads int

	// BatchSize is the number of tokens per llama.cpp call (n_batch =
	// n_ubatch = n_ctx). Texts are packed into batches of at most this many
	// tokens, and a longer text is truncated to it. Zero means
	// max(2048, min(trained context, 8192)); otherwise
	// MinBatchSize..MaxBatchSize.
	BatchSize int

	// Pooling selects the pooling type; "" means PoolingMean.
	Pooling Pooling

	// DisableNormalize turns off L2 normalisation of the returned vectors.
	// The zero value (false) normalises every vector to unit length.
	DisableNormalize bool

	// MaxTokens caps the tokens per text, special tokens included; longer
	// texts are truncated (their trailing SEP/EOS token kept). Zero means
	// the model's trained context. Values above the trained context or the
	// batch size are lowered to them, because llama.cpp aborts the process
	// on longer inputs. Negative values are invalid.
	MaxTokens int

	// QueryPrefix is prepended to every text passed to
	// [Embedder.EmbedQueries] (for example "query: " for e5 models, or an
	// instruction for Qwen3-Embedding). Empty means no prefix.
	QueryPrefix string

	// DocumentPrefix is prepended to every text passed to [Embedder.Embed]
	// (for example "passage: " for e5 models). Empty means no prefix.
	DocumentPrefix string

	// BackendDir is the directory from which llama.cpp loads its CPU backend
	// libraries (libggml-cpu-*.so) when libggml was built with dynamically
	// loaded backends. Empty means the directory holding the libggml-base
	// library the process loaded (found through the dynamic loader), which
	// is right for any standard install. Backends are loaded once per
	// process, by the first successful New.
	BackendDir string
}

// config is the validated, defaulted form of Options that does not depend
// on the model.
type config struct {
	threads        int
	batchSize      int // 0: derive from the model
	pooling        Pooling
	normalize      bool
	maxTokens      int // 0: trained context
	queryPrefix    string
	documentPrefix string
	backendDir     string
}

func (o *Options) config() (config, error) {
	var opt Options
	if o != nil {
		opt = *o
	}
	c := config{
		threads:        opt.Threads,
		batchSize:      opt.BatchSize,
		pooling:        opt.Pooling,
		normalize:      !opt.DisableNormalize,
		maxTokens:      opt.MaxTokens,
		queryPrefix:    opt.QueryPrefix,
		documentPrefix: opt.DocumentPrefix,
		backendDir:     opt.BackendDir,
	}
	switch {
	case c.threads < 0 || c.threads > MaxThreads:
		return c, fmt.Errorf("%w: threads %d outside 0..%d", ErrInvalidOption, c.threads, MaxThreads)
	case c.batchSize != 0 && (c.batchSize < MinBatchSize || c.batchSize > MaxBatchSize):
		return c, fmt.Errorf("%w: batch size %d outside %d..%d (or 0)", ErrInvalidOption, c.batchSize, MinBatchSize, MaxBatchSize)
	case c.maxTokens < 0:
		return c, fmt.Errorf("%w: max tokens %d is negative", ErrInvalidOption, c.maxTokens)
	}
	switch c.pooling {
	case "":
		c.pooling = PoolingMean
	case PoolingMean, PoolingCLS, PoolingLast, PoolingModel:
	default:
		return c, fmt.Errorf("%w: pooling %q not one of mean, cls, last, model", ErrInvalidOption, c.pooling)
	}
	if c.threads == 0 {
		c.threads = runtime.GOMAXPROCS(0)
	}
	return c, nil
}

// limits returns the batch size and the per-text token cap for a model with
// the given trained context (n_ctx_train).
func (c config) limits(trainedCtx int) (batchSize, maxTokens int) {
	batchSize = c.batchSize
	if batchSize == 0 {
		batchSize = max(defaultBatchSize, min(trainedCtx, maxDefaultBatchSize))
	}
	maxTokens = trainedCtx
	if c.maxTokens > 0 {
		maxTokens = min(maxTokens, c.maxTokens)
	}
	return batchSize, min(maxTokens, batchSize)
}
