package llamacpp

import "errors"

// Sentinel errors. Errors returned by this package wrap one of these (or a
// context error, or an fs error for a missing model file); test with
// [errors.Is].
var (
	// ErrUnavailable reports a build without llama.cpp support: the package
	// was compiled without cgo or without the llamacpp build tag.
	ErrUnavailable = errors.New("llamacpp: not available: build with cgo enabled and -tags llamacpp (needs llama.cpp's llama.pc on PKG_CONFIG_PATH)")

	// ErrInvalidOption reports an [Options] field outside its allowed range.
	ErrInvalidOption = errors.New("llamacpp: invalid option")

	// ErrInvalidModel reports a model file llama.cpp cannot use for
	// embeddings: not a GGUF file, corrupt, an unsupported architecture,
	// hyper-parameters llama.cpp would abort on (see [New]), a zero
	// embedding size, or a pooling type that yields no sequence vector.
	ErrInvalidModel = errors.New("llamacpp: invalid model")

	// ErrInvalidText reports a text that cannot be encoded (longer than 2 GiB,
	// or producing no tokens for a vocabulary without BOS, EOS or SEP).
	ErrInvalidText = errors.New("llamacpp: invalid text")

	// ErrEncode reports a failure inside llama.cpp while encoding a batch, or
	// a result that is not a finite non-zero vector.
	ErrEncode = errors.New("llamacpp: encode failed")

	// ErrClosed reports a call on an [Embedder] after [Embedder.Close].
	ErrClosed = errors.New("llamacpp: embedder closed")
)
