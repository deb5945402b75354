package llamacpp

import (
	"fmt"
	"runtime"
)

// Pooling selects how token vectors become one vector per text. The zero
// value means [PoolingMean].
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
	MaxBatchSize = 1 << 16 // largest Options.BatchSize and Options.MaxTokens
)

// DefaultBatchSize is the number of tokens packed into one llama.cpp call
// when Options.BatchSize is zero. llama.cpp's encoder attends across the
// whole packed batch (masking other texts), so that cost grows with the
// square of the batch while the per-call overhead it amortises is fixed;
// 128 tokens was fastest for both short and medium texts in BenchmarkEmbed,
// and should keep the cross-text attention of larger models to a few per
// cent of their compute.
const DefaultBatchSize = 128

// DefaultMaxTokens caps the default per-text token limit (the model's
// trained context) for long-context models, whose worst-case compute
// buffers grow with the square of the tokens per call.
const DefaultMaxTokens = 8192

// Options configures an [Embedder]. The zero value of every field means the
// documented default, and a nil *Options means all defaults. Options are
// read by [New] only (never modified, nor kept); changing them afterwards
// has no effect.
type Options struct {
	// Threads is the number of CPU threads llama.cpp uses per batch.
	// Zero means runtime.GOMAXPROCS(0); otherwise 1..MaxThreads.
	Threads int

	// BatchSize is the number of tokens packed into one llama.cpp call:
	// consecutive texts share a call while their tokens fit, one sequence
	// per text; a text longer than BatchSize (up to MaxTokens) gets a call
	// of its own. The context is created with n_batch = n_ubatch = n_ctx =
	// max(BatchSize, MaxTokens), so no call ever exceeds it. Zero means
	// DefaultBatchSize; otherwise MinBatchSize..MaxBatchSize.
	//
	// A BatchSize above max(MaxTokens, DefaultBatchSize) is lowered to it:
	// llama.cpp's compute buffer grows with the square of n_ubatch (8.3 GB
	// at 65 536 tokens for a 512-token BERT model), and packing more tokens
	// into a call than one text may hold only adds cross-text attention.
	// The compute buffer is therefore never larger than MaxTokens (the
	// model's trained context, at most DefaultMaxTokens, unless set) alone
	// requires.
	BatchSize int

	// Pooling selects the pooling type; "" means PoolingMean.
	Pooling Pooling

	// DisableNormalize turns off L2 normalisation of the returned vectors.
	// The zero value (false) normalises every vector to unit length.
	DisableNormalize bool

	// MaxTokens caps the tokens per text, special tokens included; longer
	// texts are truncated (their trailing SEP/EOS token kept). Zero means
	// the model's trained context, at most DefaultMaxTokens. Values above
	// the trained context are lowered to it, because llama.cpp aborts the
	// process on longer inputs. Otherwise 1..MaxBatchSize.
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
	case c.maxTokens < 0 || c.maxTokens > MaxBatchSize:
		return c, fmt.Errorf("%w: max tokens %d outside 0..%d", ErrInvalidOption, c.maxTokens, MaxBatchSize)
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

// limits returns, for a model with the given trained context (n_ctx_train),
// the tokens packed per call, the per-text token cap, and the context size
// (n_ctx = n_batch = n_ubatch), which holds either.
func (c config) limits(trainedCtx int) (pack, maxTokens, ctxSize int) {
	pack = c.batchSize
	if pack == 0 {
		pack = DefaultBatchSize
	}
	maxTokens = min(trainedCtx, DefaultMaxTokens)
	if c.maxTokens > 0 {
		maxTokens = min(trainedCtx, c.maxTokens)
	}
	// See Options.BatchSize: the batch never sizes the context beyond what
	// one text needs.
	pack = min(pack, max(maxTokens, DefaultBatchSize))
	return pack, maxTokens, max(pack, maxTokens)
}
