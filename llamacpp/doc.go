// Package llamacpp embeds texts in process with llama.cpp over cgo, from any
// GGUF embedding model (BERT-style encoders such as bge, MiniLM or nomic, and
// decoder-only embedding models such as Qwen3-Embedding).
//
// The real implementation needs cgo and the build tag llamacpp, and links
// against the llama.cpp the user installed through pkg-config (a llama.pc on
// PKG_CONFIG_PATH):
//
//	eval "$(scripts/install-llama.sh)"   # or any llama.cpp install providing llama.pc
//	go build -tags llamacpp ./...
//
// Without the tag (or without cgo) the package still compiles, and [New]
// returns [ErrUnavailable].
//
// An [Embedder] owns one llama.cpp model and context. [Embedder.Embed] packs
// texts into llama.cpp calls of at most [Options.BatchSize] tokens (one
// sequence per text), truncates every text to [Options.MaxTokens] (by default
// the model's trained context) so that llama.cpp never aborts on a long
// input, pools and L2-normalises the vectors, and can be cancelled through its context, even in
// the middle of a batch. llama.cpp's own logging is silenced and its crash
// handler never forks a debugger (GGML_NO_BACKTRACE=1 unless the variable is
// already set).
//
// Texts embedded with [Embedder.Embed] are documents (prefixed with
// [Options.DocumentPrefix]); search queries go through [Embedder.EmbedQueries]
// or the [chitta.Embedder] returned by [Embedder.Queries] (prefixed with
// [Options.QueryPrefix]). For [chitta.Compact], set both sides, so that the
// messages are embedded as documents and [chitta.Options.Query] as a query:
//
//	opts := &chitta.Options{Query: task, Embedder: e, QueryEmbedder: e.Queries()}
package llamacpp
