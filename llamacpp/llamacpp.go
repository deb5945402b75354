//go:build cgo && llamacpp

package llamacpp

/*
#cgo pkg-config: llama
#cgo LDFLAGS: -ldl

#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "gguf.h"
#include "llama.h"

// Log sink: llama.cpp and ggml log through this callback once chitta_init
// has run. Everything is dropped except the first error line since the
// last chitta_take_error (usually the most specific one), kept so that Go
// can put it into error messages.
static pthread_mutex_t chitta_log_mu = PTHREAD_MUTEX_INITIALIZER;
static char chitta_last_error[512];
static enum ggml_log_level chitta_prev_level = GGML_LOG_LEVEL_NONE;

static void chitta_log(enum ggml_log_level level, const char *text, void *ud) {
	(void)ud;
	pthread_mutex_lock(&chitta_log_mu);
	if (level == GGML_LOG_LEVEL_CONT) {
		level = chitta_prev_level;
	} else {
		chitta_prev_level = level;
	}
	if (level == GGML_LOG_LEVEL_ERROR && text != NULL && chitta_last_error[0] == 0) {
		strncpy(chitta_last_error, text, sizeof chitta_last_error - 1);
		chitta_last_error[sizeof chitta_last_error - 1] = 0;
	}
	pthread_mutex_unlock(&chitta_log_mu);
}

// chitta_take_error copies the kept error line into buf (empty if none)
// and clears it.
static void chitta_take_error(char *buf, size_t n) {
	pthread_mutex_lock(&chitta_log_mu);
	strncpy(buf, chitta_last_error, n - 1);
	buf[n - 1] = 0;
	chitta_last_error[0] = 0;
	pthread_mutex_unlock(&chitta_log_mu);
}

// chitta_find_ggml finds the directory of the loaded libggml-base library.
static int chitta_find_ggml(struct dl_phdr_info *info, size_t size, void *data) {
	(void)size;
	const char *name = info->dlpi_name;
	if (name == NULL) {
		return 0;
	}
	const char *slash = strrchr(name, '/');
	if (slash == NULL || strncmp(slash + 1, "libggml-base", 12) != 0) {
		return 0;
	}
	size_t len = (size_t)(slash - name);
	if (len >= 4096) {
		return 0;
	}
	memcpy(data, name, len);
	((char *)data)[len] = 0;
	return 1;
}

// chitta_init silences logging, disables ggml's debugger backtrace unless
// the user set GGML_NO_BACKTRACE, loads the backends from dir (NULL: the
// directory of libggml-base, or ggml's own search path) unless some are
// registered already, and returns the number of backend devices.
static size_t chitta_init(const char *dir) {
	setenv("GGML_NO_BACKTRACE", "1", 0);
	llama_log_set(chitta_log, NULL);
	if (ggml_backend_dev_count() == 0) {
		char found[4096];
		found[0] = 0;
		if (dir == NULL && dl_iterate_phdr(chitta_find_ggml, found) == 1) {
			dir = found;
		}
		ggml_backend_load_all_from_path(dir);
	}
	llama_backend_init();
	return ggml_backend_dev_count();
}

// chitta_gguf_open reads the metadata of the GGUF file at path, not its
// tensor data; NULL for a file gguf cannot parse.
static struct gguf_context *chitta_gguf_open(const char *path) {
	struct gguf_init_params p = { .no_alloc = true, .ctx = NULL };
	return gguf_init_from_file(path, p);
}

static struct llama_model *chitta_load_model(const char *path) {
	struct llama_model_params p = llama_model_default_params();
	p.n_gpu_layers = 0;
	return llama_model_load_from_file(path, p);
}

// The abort flag is C memory shared with llama.cpp's compute threads.
static bool chitta_should_abort(void *data) {
	return __atomic_load_n((int *)data, __ATOMIC_ACQUIRE) != 0;
}

static void chitta_set_flag(int *flag, int v) {
	__atomic_store_n(flag, v, __ATOMIC_RELEASE);
}

static int chitta_get_flag(int *flag) {
	return __atomic_load_n(flag, __ATOMIC_ACQUIRE);
}

static struct llama_context *chitta_new_context(struct llama_model *model, uint32_t n_batch,
		uint32_t n_seq, int32_t threads, int pooling, int *abort_flag) {
	struct llama_context_params p = llama_context_default_params();
	p.n_ctx = n_batch;
	p.n_batch = n_batch;
	p.n_ubatch = n_batch;
	p.n_seq_max = n_seq;
	p.n_threads = threads;
	p.n_threads_batch = threads;
	p.embeddings = true;
	p.pooling_type = (enum llama_pooling_type)pooling;
	p.kv_unified = true;
	p.no_perf = true;
	p.abort_callback = chitta_should_abort;
	p.abort_callback_data = abort_flag;
	return llama_init_from_model(model, p);
}

// chitta_attach_pool gives ctx a persistent CPU thread pool of n_threads
// threads, so that each graph does not spawn and join its own threads (the
// default). The pool functions live in the CPU backend, reached through the
// backend registry because that library may be loaded at run time. Returns
// NULL (and leaves ggml's default) for one thread or when unavailable.
static struct ggml_threadpool *chitta_attach_pool(struct llama_context *ctx, int32_t n_threads) {
	if (n_threads <= 1) {
		return NULL;
	}
	ggml_backend_reg_t reg = ggml_backend_reg_by_name("CPU");
	if (reg == NULL) {
		return NULL;
	}
	struct ggml_threadpool *(*pool_new)(struct ggml_threadpool_params *) =
		(struct ggml_threadpool *(*)(struct ggml_threadpool_params *))ggml_backend_reg_get_proc_address(reg, "ggml_threadpool_new");
	if (pool_new == NULL || ggml_backend_reg_get_proc_address(reg, "ggml_threadpool_free") == NULL) {
		return NULL;
	}
	struct ggml_threadpool_params params = ggml_threadpool_params_default(n_threads);
	struct ggml_threadpool *pool = pool_new(&params);
	if (pool != NULL) {
		llama_attach_threadpool(ctx, pool, pool);
	}
	return pool;
}

static void chitta_free_pool(struct llama_context *ctx, struct ggml_threadpool *pool) {
	if (pool == NULL) {
		return;
	}
	if (ctx != NULL) {
		llama_detach_threadpool(ctx);
	}
	ggml_backend_reg_t reg = ggml_backend_reg_by_name("CPU");
	void (*pool_free)(struct ggml_threadpool *) =
		(void (*)(struct ggml_threadpool *))ggml_backend_reg_get_proc_address(reg, "ggml_threadpool_free");
	pool_free(pool);
}

// chitta_fill lays n_seqs token sequences (lens[s] tokens each, flattened in
// tokens) into batch, one sequence id per text, positions from 0.
static void chitta_fill(struct llama_batch *batch, const int32_t *tokens, const int32_t *lens, int32_t n_seqs) {
	int32_t k = 0;
	for (int32_t s = 0; s < n_seqs; s++) {
		for (int32_t i = 0; i < lens[s]; i++, k++) {
			batch->token[k] = tokens[k];
			batch->pos[k] = i;
			batch->n_seq_id[k] = 1;
			batch->seq_id[k][0] = s;
			batch->logits[k] = 1;
		}
	}
	batch->n_tokens = k;
}

// chitta_run encodes the batch (llama_decode after clearing the memory for
// decoder-only models) and copies n_seqs pooled vectors of n_embd floats
// into out. It returns 0, llama.cpp's non-zero status, or -1000-s when
// sequence s has no embedding.
static int32_t chitta_run(struct llama_context *ctx, struct llama_batch batch, bool encoder,
		int32_t n_seqs, int32_t n_embd, float *out) {
	int32_t rc;
	if (encoder) {
		rc = llama_encode(ctx, batch);
	} else {
		llama_memory_clear(llama_get_memory(ctx), true);
		rc = llama_decode(ctx, batch);
	}
	if (rc != 0) {
		return rc;
	}
	for (int32_t s = 0; s < n_seqs; s++) {
		const float *v = llama_get_embeddings_seq(ctx, s);
		if (v == NULL) {
			return -1000 - s;
		}
		memcpy(out + (size_t)s * n_embd, v, (size_t)n_embd * sizeof(float));
	}
	return 0;
}
*/
import "C"

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/chitta-go/chitta"
)

// Embedder embeds texts with one llama.cpp model and context. It is safe for
// concurrent use: calls tokenize in parallel and take turns on the context
// one batch at a time. The zero value is not usable; create one with [New]
// and release its C memory with [Embedder.Close]. A nil or zero Embedder
// never panics (nor reaches llama.cpp): its Embed and EmbedQueries return
// an error wrapping [ErrInvalidOption], Dimensions 0 and Close nil.
// Returned vectors belong to the caller.
type Embedder struct {
	// life guards the C objects: Embed holds it for reading, Close for
	// writing, so Close waits for running calls and frees nothing in use.
	life   sync.RWMutex
	closed bool

	// mu serialises use of the llama.cpp context (one batch at a time).
	mu    sync.Mutex
	model *C.struct_llama_model
	lctx  *C.struct_llama_context
	pool  *C.struct_ggml_threadpool
	batch C.struct_llama_batch

	// abort is a C int read by llama.cpp's abort callback; abortGen makes a
	// late cancellation of one batch unable to abort the next.
	abort    *C.int
	abortMu  sync.Mutex
	abortGen uint64

	vocab     *C.struct_llama_vocab
	dims      int
	pack      int // tokens packed per call
	ctxSize   int // n_ctx = n_batch = n_ubatch
	maxSeqs   int
	maxTokens int
	encoder   bool
	keepLast  bool    // truncation keeps the final SEP/EOS token
	fallback  []int32 // tokens for a text that tokenizes to nothing
	cfg       config

	// Test hooks: beforeRun runs under the context mutex just before
	// llama.cpp is called, afterBatch after each batch; lastStatus is the
	// status of the last llama.cpp call (guarded by mu).
	beforeRun  func()
	afterBatch func(batch int)
	lastStatus int

	// tokenizedBytes counts the bytes handed to llama_tokenize (for tests).
	tokenizedBytes atomic.Int64
}

var (
	initMu   sync.Mutex
	initDone bool
)

// initBackends runs chitta_init until it finds at least one device.
func initBackends(dir string) error {
	initMu.Lock()
	defer initMu.Unlock()
	if initDone {
		return nil
	}
	var cdir *C.char
	if dir != "" {
		cdir = C.CString(dir)
		defer C.free(unsafe.Pointer(cdir))
	}
	if C.chitta_init(cdir) == 0 {
		return fmt.Errorf("%w: no llama.cpp backend found (backend dir %q)", ErrUnavailable, dir)
	}
	initDone = true
	return nil
}

// lastError returns the first error line llama.cpp logged since the last
// call, if any, as a suffix for an error message. The buffer is process
// wide, so concurrent failures may report each other's message.
func lastError() string {
	var buf [512]C.char
	C.chitta_take_error(&buf[0], C.size_t(len(buf)))
	if msg := C.GoString(&buf[0]); msg != "" {
		return ": " + strings.TrimSpace(msg)
	}
	return ""
}

// New loads the GGUF embedding model at modelPath and creates a context for
// it. A nil opts means all defaults. It returns an error wrapping
// [fs.ErrNotExist] for a missing file, [ErrInvalidModel] for a file
// llama.cpp cannot use for embeddings (with llama.cpp's reason when it
// logged one), and [ErrInvalidOption] for bad options. New checks the GGUF
// magic before llama.cpp sees the file; missing, truncated or mismatched
// tensors and unknown architectures are reported by llama.cpp as errors,
// not aborts. New also reads the file's metadata first and refuses, with
// ErrInvalidModel, the hyper-parameters on which the part of llama.cpp's
// loader shared by every architecture asserts, aborting the process: a
// block count outside 1..512, more next-token-prediction layers than
// blocks, more than 1024 experts or inconsistent expert counts, an
// unknown rope scaling type; and a negative or NaN layer-norm epsilon,
// which passes the loader and aborted the first Embed (ggml's norm
// operations assert it). The assertions llama.cpp makes for one
// architecture only are not checked: a file crafted to break them can
// still abort the process.
func New(modelPath string, opts *Options) (*Embedder, error) {
	cfg, err := opts.config()
	if err != nil {
		return nil, err
	}
	if err := checkMagic(modelPath); err != nil {
		return nil, err
	}
	if err := initBackends(cfg.backendDir); err != nil {
		return nil, err
	}
	if err := checkMeta(modelPath); err != nil {
		return nil, err
	}

	cpath := C.CString(modelPath)
	defer C.free(unsafe.Pointer(cpath))
	lastError() // drop stale messages
	model := C.chitta_load_model(cpath)
	if model == nil {
		return nil, fmt.Errorf("%w: load %s%s", ErrInvalidModel, modelPath, lastError())
	}
	e := &Embedder{model: model, cfg: cfg}
	if err := e.setup(); err != nil {
		e.free()
		return nil, err
	}
	return e, nil
}

// checkMagic rejects files that are not GGUF before llama.cpp sees them.
func checkMagic(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open model: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is not a regular file", ErrInvalidModel, path)
	}
	var magic [4]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil || string(magic[:]) != "GGUF" {
		return fmt.Errorf("%w: %s is not a GGUF file", ErrInvalidModel, path)
	}
	return nil
}

// checkMeta reads the GGUF metadata of the file at path (not its tensors)
// and refuses, with [ErrInvalidModel], the hyper-parameters on which
// llama.cpp's loader asserts instead of failing (see checkHparams).
func checkMeta(path string) error {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	lastError()
	g := C.chitta_gguf_open(cpath)
	if g == nil {
		return fmt.Errorf("%w: read GGUF metadata of %s%s", ErrInvalidModel, path, lastError())
	}
	defer C.gguf_free(g)
	arch := ""
	if m, ok := ggufValue(g, "general.architecture"); ok && m.kind == metaString {
		arch = m.str
	}
	return checkHparams(arch, func(key string) (metaValue, bool) { return ggufValue(g, arch+"."+key) })
}

// ggufValue returns the metadata value of key in g and whether g has it.
// Arrays are read when they hold uint32, int32 or bool and no more than
// llamaMaxLayers elements (llama.cpp takes no longer ones for a per-layer
// value); any other value is of kind metaOther.
func ggufValue(g *C.struct_gguf_context, key string) (metaValue, bool) {
	ckey := C.CString(key)
	defer C.free(unsafe.Pointer(ckey))
	id := C.gguf_find_key(g, ckey)
	if id < 0 {
		return metaValue{}, false
	}
	switch C.gguf_get_kv_type(g, id) {
	case C.GGUF_TYPE_UINT32:
		return metaValue{kind: metaU32, u32: uint32(C.gguf_get_val_u32(g, id))}, true
	case C.GGUF_TYPE_FLOAT32:
		return metaValue{kind: metaF32, f32: float32(C.gguf_get_val_f32(g, id))}, true
	case C.GGUF_TYPE_STRING:
		return metaValue{kind: metaString, str: C.GoString(C.gguf_get_val_str(g, id))}, true
	case C.GGUF_TYPE_ARRAY:
		n := int(C.gguf_get_arr_n(g, id))
		if n > llamaMaxLayers {
			break
		}
		arr := make([]uint32, n)
		switch C.gguf_get_arr_type(g, id) {
		case C.GGUF_TYPE_UINT32, C.GGUF_TYPE_INT32:
			if n > 0 {
				copy(arr, unsafe.Slice((*uint32)(C.gguf_get_arr_data(g, id)), n))
			}
		case C.GGUF_TYPE_BOOL:
			if n > 0 {
				for i, b := range unsafe.Slice((*int8)(C.gguf_get_arr_data(g, id)), n) {
					if b != 0 {
						arr[i] = 1
					}
				}
			}
		default:
			return metaValue{kind: metaOther}, true
		}
		return metaValue{kind: metaArray, arr: arr}, true
	}
	return metaValue{kind: metaOther}, true
}

// setup validates the loaded model and creates the context and batch.
func (e *Embedder) setup() error {
	m := e.model
	hasEnc, hasDec := bool(C.llama_model_has_encoder(m)), bool(C.llama_model_has_decoder(m))
	if !hasEnc && !hasDec {
		return fmt.Errorf("%w: model has neither encoder nor decoder", ErrInvalidModel)
	}
	e.encoder = hasEnc
	e.dims = int(C.llama_model_n_embd_out(m))
	if e.dims <= 0 {
		return fmt.Errorf("%w: embedding size %d", ErrInvalidModel, e.dims)
	}
	trained := int(C.llama_model_n_ctx_train(m))
	if trained <= 0 {
		return fmt.Errorf("%w: trained context %d", ErrInvalidModel, trained)
	}
	e.pack, e.maxTokens, e.ctxSize = e.cfg.limits(trained)
	e.maxSeqs = min(e.pack, int(C.llama_max_parallel_sequences()))

	e.vocab = C.llama_model_get_vocab(m)
	if C.llama_vocab_n_tokens(e.vocab) <= 0 {
		return fmt.Errorf("%w: empty vocabulary", ErrInvalidModel)
	}
	e.keepLast = bool(C.llama_vocab_get_add_eos(e.vocab)) || bool(C.llama_vocab_get_add_sep(e.vocab))
	for _, tok := range []C.llama_token{C.llama_vocab_bos(e.vocab), C.llama_vocab_eos(e.vocab), C.llama_vocab_sep(e.vocab)} {
		if tok >= 0 {
			e.fallback = []int32{int32(tok)}
			break
		}
	}

	pooling := map[Pooling]C.int{
		PoolingMean:  C.LLAMA_POOLING_TYPE_MEAN,
		PoolingCLS:   C.LLAMA_POOLING_TYPE_CLS,
		PoolingLast:  C.LLAMA_POOLING_TYPE_LAST,
		PoolingModel: C.LLAMA_POOLING_TYPE_UNSPECIFIED,
	}[e.cfg.pooling]

	e.abort = (*C.int)(C.calloc(1, C.size_t(unsafe.Sizeof(C.int(0)))))
	lastError()
	e.lctx = C.chitta_new_context(m, C.uint32_t(e.ctxSize), C.uint32_t(e.maxSeqs),
		C.int32_t(e.cfg.threads), pooling, e.abort)
	if e.lctx == nil {
		return fmt.Errorf("%w: create context%s", ErrInvalidModel, lastError())
	}
	e.pool = C.chitta_attach_pool(e.lctx, C.int32_t(e.cfg.threads))
	switch C.llama_pooling_type(e.lctx) {
	case C.LLAMA_POOLING_TYPE_MEAN, C.LLAMA_POOLING_TYPE_CLS, C.LLAMA_POOLING_TYPE_LAST:
	default:
		return fmt.Errorf("%w: model's pooling type gives no sequence embedding (set Options.Pooling)", ErrInvalidModel)
	}
	e.batch = C.llama_batch_init(C.int32_t(e.ctxSize), 0, 1)
	return nil
}

// free releases every C object; it is safe on a partly set-up Embedder.
func (e *Embedder) free() {
	if e.batch.token != nil {
		C.llama_batch_free(e.batch)
		e.batch = C.struct_llama_batch{}
	}
	if e.pool != nil {
		C.chitta_free_pool(e.lctx, e.pool)
		e.pool = nil
	}
	if e.lctx != nil {
		C.llama_free(e.lctx)
		e.lctx = nil
	}
	if e.model != nil {
		C.llama_model_free(e.model)
		e.model = nil
	}
	if e.abort != nil {
		C.free(unsafe.Pointer(e.abort))
		e.abort = nil
	}
}

// errNotNew is the error of Embed on a nil or zero Embedder.
var errNotNew = fmt.Errorf("%w: Embedder not created with New", ErrInvalidOption)

// Close frees the model and context. It waits for running calls to finish;
// later calls fail with [ErrClosed]. Close is idempotent and always returns
// nil, on a nil Embedder too (so that a deferred Close after a failed New
// is harmless).
func (e *Embedder) Close() error {
	if e == nil {
		return nil
	}
	e.life.Lock()
	defer e.life.Unlock()
	if !e.closed {
		e.closed = true
		e.free()
	}
	return nil
}

// Dimensions returns the length of the vectors Embed returns (the model's
// output embedding size). It stays valid after Close. It is 0 for a nil
// or zero Embedder.
func (e *Embedder) Dimensions() int {
	if e == nil {
		return 0
	}
	return e.dims
}

// Embed returns one vector per text, in order, as documents: each text is
// prefixed with [Options.DocumentPrefix], truncated to the token limit,
// pooled and (unless [Options.DisableNormalize]) L2-normalised. A text far
// longer than the token limit is tokenized only from a prefix that holds
// the tokens kept (with a margin), so that its cost does not grow with its
// length; the tokens are those of the whole text, except for a single word
// of thousands of characters across the prefix's end. An empty
// text is embedded as the special tokens the tokenizer adds (or the BOS, EOS
// or SEP token). Embed checks ctx before every batch and aborts a running
// batch when ctx is cancelled, returning ctx's error. Embed implements
// [chitta.Embedder].
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if e == nil {
		return nil, errNotNew
	}
	return e.embed(ctx, withPrefix(texts, e.cfg.documentPrefix))
}

// EmbedQueries is Embed for search queries: each text is prefixed with
// [Options.QueryPrefix] instead of the document prefix.
func (e *Embedder) EmbedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	if e == nil {
		return nil, errNotNew
	}
	return e.embed(ctx, withPrefix(texts, e.cfg.queryPrefix))
}

// Queries returns a [chitta.Embedder] that calls [Embedder.EmbedQueries],
// for APIs that take an embedder for queries, such as
// [chitta.Options.QueryEmbedder].
func (e *Embedder) Queries() chitta.Embedder { return chitta.EmbedderFunc(e.EmbedQueries) }

func (e *Embedder) embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.life.RLock()
	defer e.life.RUnlock()
	if e.closed {
		return nil, ErrClosed
	}
	if e.lctx == nil { // a zero Embedder: llama.cpp would crash on its nil vocabulary
		return nil, errNotNew
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(texts) == 0 {
		return [][]float32{}, nil
	}

	tokens := make([][]int32, len(texts))
	counts := make([]int, len(texts))
	for i, t := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		toks, err := e.tokenize(t)
		if err != nil {
			return nil, fmt.Errorf("text %d: %w", i, err)
		}
		tokens[i], counts[i] = toks, len(toks)
	}

	flat := make([]float32, len(texts)*e.dims)
	out := make([][]float32, len(texts))
	for b, s := range plan(counts, e.pack, e.maxSeqs) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		vecs := flat[s.start*e.dims : s.end*e.dims]
		if err := e.encodeBatch(ctx, tokens[s.start:s.end], vecs); err != nil {
			return nil, fmt.Errorf("batch %d: %w", b, err)
		}
		for i := s.start; i < s.end; i++ {
			v := flat[i*e.dims : (i+1)*e.dims : (i+1)*e.dims]
			if err := finish(v, e.cfg.normalize); err != nil {
				return nil, fmt.Errorf("text %d: %w", i, err)
			}
			out[i] = v
		}
		if e.afterBatch != nil {
			e.afterBatch(b)
		}
	}
	return out, nil
}

// A text longer than (maxTokens+prefixMargin)·prefixBytesPerToken bytes is
// tokenized from a prefix of that many bytes (cut at a character), 4 times
// longer each time it gives fewer than maxTokens+prefixMargin tokens, and
// whole only when no shorter prefix does: tokenizing a 10 MB tool output
// whole took 1.4 s, 40 MB and could not be cancelled, to keep 512 tokens.
// The tokens kept are those of the whole text, since a tokenizer's output
// depends on the text near each token only (words, pre-tokenizer splits,
// merges of neighbours); the prefixMargin tokens before the cut absorb the
// word it splits. The one exception is a single word so long that it
// crosses the cut more than prefixMargin tokens after the limit, which a
// WordPiece tokenizer reads as [UNK] whole if it holds a character outside
// the vocabulary after the cut. A text that has too few tokens for any
// prefix (mostly white space) costs at most 7/3 of tokenizing it whole.
const (
	prefixBytesPerToken = 16
	prefixMargin        = 64
)

// tokenize returns the text's tokens with the model's special tokens,
// truncated to maxTokens (tokenizing a long text from a prefix, see
// prefixBytesPerToken). Invalid UTF-8 is replaced by U+FFFD first: some
// llama.cpp tokenizers throw C++ exceptions on it, which would abort the
// process.
func (e *Embedder) tokenize(text string) ([]int32, error) {
	if len(text) > 1<<31-1 {
		return nil, fmt.Errorf("%w: %d bytes exceeds 2 GiB", ErrInvalidText, len(text))
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	want := e.maxTokens + prefixMargin
	for n := want * prefixBytesPerToken; n < len(text); n *= 4 {
		for !utf8.RuneStart(text[n]) {
			n--
		}
		toks, err := e.tokenizeAll(text[:n])
		if err != nil {
			return nil, err
		}
		if len(toks) >= want {
			return truncate(toks, e.maxTokens, e.keepLast), nil
		}
	}
	toks, err := e.tokenizeAll(text)
	if err != nil {
		return nil, err
	}
	return truncate(toks, e.maxTokens, e.keepLast), nil
}

// tokenizeAll returns all the tokens of text (valid UTF-8, under 2 GiB)
// with the model's special tokens, or the fallback token when there are
// none.
func (e *Embedder) tokenizeAll(text string) ([]int32, error) {
	e.tokenizedBytes.Add(int64(len(text)))
	var empty byte
	ptr := &empty
	if len(text) > 0 {
		ptr = unsafe.StringData(text)
	}
	buf := make([]int32, min(len(text)+8, 1<<31-1))
	for range 2 {
		n := C.llama_tokenize(e.vocab, (*C.char)(unsafe.Pointer(ptr)), C.int32_t(len(text)),
			(*C.llama_token)(unsafe.Pointer(&buf[0])), C.int32_t(len(buf)), true, false)
		switch {
		case n == C.INT32_MIN:
			return nil, fmt.Errorf("%w: too many tokens", ErrInvalidText)
		case n < 0:
			buf = make([]int32, -int(n))
			continue
		case n == 0:
			if e.fallback == nil {
				return nil, fmt.Errorf("%w: no tokens and no BOS, EOS or SEP token", ErrInvalidText)
			}
			return append([]int32(nil), e.fallback...), nil
		}
		return buf[:n], nil
	}
	return nil, fmt.Errorf("%w: tokenizer size changed between calls", ErrInvalidText)
}

// encodeBatch runs one batch under the context mutex and writes the pooled
// vectors into out (len(seqs)*dims floats).
func (e *Embedder) encodeBatch(ctx context.Context, seqs [][]int32, out []float32) error {
	var total int
	lens := make([]int32, len(seqs))
	for i, s := range seqs {
		lens[i] = int32(len(s))
		total += len(s)
	}
	// plan guarantees these; checked again because llama.cpp aborts the
	// process on an oversized batch.
	if total == 0 || total > e.ctxSize || len(seqs) > e.maxSeqs {
		return fmt.Errorf("%w: batch of %d tokens, %d texts exceeds %d tokens, %d texts",
			ErrEncode, total, len(seqs), e.ctxSize, e.maxSeqs)
	}
	flat := make([]int32, 0, total)
	for _, s := range seqs {
		flat = append(flat, s...)
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	gen := e.arm()
	stop := context.AfterFunc(ctx, func() { e.fire(gen) })
	C.chitta_fill(&e.batch, (*C.int32_t)(unsafe.Pointer(&flat[0])), (*C.int32_t)(unsafe.Pointer(&lens[0])), C.int32_t(len(seqs)))
	if e.beforeRun != nil {
		e.beforeRun()
	}
	lastError()
	rc := C.chitta_run(e.lctx, e.batch, C.bool(e.encoder), C.int32_t(len(seqs)), C.int32_t(e.dims), (*C.float)(unsafe.Pointer(&out[0])))
	stop()
	e.arm() // disarm: a late fire of gen is now a no-op
	e.lastStatus = int(rc)
	switch {
	case rc == 0:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case rc == 2:
		return fmt.Errorf("%w: aborted", ErrEncode)
	case rc <= -1000:
		return fmt.Errorf("%w: no embedding for text %d of the batch", ErrEncode, -1000-int(rc))
	}
	return fmt.Errorf("%w: llama.cpp status %d%s", ErrEncode, int(rc), lastError())
}

// arm starts a new abort generation with the flag cleared.
func (e *Embedder) arm() uint64 {
	e.abortMu.Lock()
	defer e.abortMu.Unlock()
	e.abortGen++
	C.chitta_set_flag(e.abort, 0)
	return e.abortGen
}

// aborting reports whether the abort flag is raised.
func (e *Embedder) aborting() bool { return C.chitta_get_flag(e.abort) != 0 }

// fire raises the abort flag if generation gen is still running.
func (e *Embedder) fire(gen uint64) {
	e.abortMu.Lock()
	defer e.abortMu.Unlock()
	if e.abortGen == gen {
		C.chitta_set_flag(e.abort, 1)
	}
}

var _ chitta.Embedder = (*Embedder)(nil)
