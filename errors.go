package chitta

import (
	"errors"
	"fmt"
)

// Sentinel errors. Errors returned by this package wrap one of these with a
// short phrase naming the field or value at fault; test with [errors.Is].
var (
	// ErrInvalidTargetRatio reports an [Options.TargetRatio] that is NaN,
	// infinite, or outside [MinTargetRatio, MaxTargetRatio] (0 means the
	// default and is valid).
	ErrInvalidTargetRatio = errors.New("chitta: target ratio out of range")

	// ErrInvalidOption reports any other option or argument outside its
	// allowed range: negative MaxTokens or KeepLast, a negative
	// MaskOptions field, a NovelThreshold
	// outside [0, 1], a RoleWeights entry that is negative, NaN or
	// infinite, an HNSWOptions field or store dims out of range, a nil
	// store or embedder given to RecordEpisode, a CachedEmbedder without
	// an embedder, a nil or zero HNSWStore, a [Policy] out of range, and
	// a Compactor not made by NewCompactor.
	ErrInvalidOption = errors.New("chitta: invalid option")

	// ErrUnknownRole reports a message whose role has no structural weight:
	// not one of the built-in roles and not in [Options.RoleWeights].
	ErrUnknownRole = errors.New("chitta: unknown role")

	// ErrInvalidMessages reports input that [ParseMessages] cannot read:
	// malformed JSON, a non-array, a message without a role, or content of
	// the wrong type; and a [Message.Raw] that is not valid JSON, which
	// [MarshalMessages] cannot write. The error is a [*MessageError] when
	// one message is at fault.
	ErrInvalidMessages = errors.New("chitta: invalid messages")

	// ErrInvalidConversation reports a conversation that chat providers
	// reject (see [Validate]): a tool result without an earlier call, a
	// tool call without a later result, a call answered twice, a tool_use
	// ID used twice (Anthropic), an assistant message before the first
	// user turn, a genai function-call turn right after a model turn, or
	// a Raw that cannot be sent. The error is a [*MessageError] naming
	// the message.
	ErrInvalidConversation = errors.New("chitta: invalid conversation")

	// ErrInvalidTokenCount reports a [TokenCounter] that returned a negative
	// count, a negative [Message.MediaTokens], or counts whose total
	// overflows int.
	ErrInvalidTokenCount = errors.New("chitta: invalid token count")

	// ErrDimensionMismatch reports a vector whose length differs from the
	// dimension a store or embedder was created with.
	ErrDimensionMismatch = errors.New("chitta: vector dimension mismatch")

	// ErrInvalidVector reports a vector that cannot be stored or compared:
	// empty, all zeros, or with a NaN or infinite component.
	ErrInvalidVector = errors.New("chitta: invalid vector")

	// ErrInvalidEmbedding reports an [Embedder] answer that cannot be used:
	// the wrong number of vectors, or a vector that is empty, of another
	// length than the rest, or has a NaN or infinite component.
	ErrInvalidEmbedding = errors.New("chitta: invalid embedding")

	// ErrInvalidMemory reports a memory that cannot be stored (for example a
	// confidence outside [0, 1]).
	ErrInvalidMemory = errors.New("chitta: invalid memory")

	// ErrDistillStopped is joined into [Result.DistillErr] when
	// distillation stopped early because the store failed several calls in
	// a row (the error says how many candidates were left untried); the
	// store's own errors are joined beside it.
	ErrDistillStopped = errors.New("chitta: distillation stopped")

	// ErrNotFound reports a memory ID that is not in the store.
	ErrNotFound = errors.New("chitta: memory not found")

	// ErrCorruptStore reports a store file that is truncated, fails its
	// checksum, or is otherwise unreadable.
	ErrCorruptStore = errors.New("chitta: corrupt store file")

	// ErrUnsupportedVersion reports a store file with a wrong magic number
	// or a format version this build cannot read.
	ErrUnsupportedVersion = errors.New("chitta: unsupported store file")

	// ErrNotRegularFile reports a store path ([LoadHNSWStore],
	// [HNSWStore.SaveFile]) that names, itself or through a symbolic link,
	// a directory, a named pipe, a device, a socket or another file that is
	// not a regular file. Such a path is refused without waiting (opening
	// a named pipe for reading waits for a writer) and left as it is.
	ErrNotRegularFile = errors.New("chitta: store path is not a regular file")
)

// MessageError reports a problem with one message of the input: which
// message, which field, and the sentinel it wraps (usually
// [ErrInvalidMessages], [ErrInvalidConversation] or [ErrUnknownRole]).
// Match it with [errors.As] and the sentinel with [errors.Is]; it is not
// modified once returned.
type MessageError struct {
	Index int    // index of the message in the input; -1 for a lone message
	Field string // offending JSON field or Go field, e.g. "role" or "content"
	Msg   string // what is wrong, in a short phrase
	Err   error  // the sentinel
}

// Error returns "<sentinel>: message <index>: <field>: <msg>", without
// the field when it is empty and without the index when it is negative.
func (e *MessageError) Error() string {
	where := fmt.Sprintf("message %d", e.Index)
	if e.Index < 0 { // a single message, from Message.UnmarshalJSON
		where = "message"
	}
	if e.Field != "" {
		where += ": " + e.Field
	}
	return fmt.Sprintf("%v: %s: %s", e.Err, where, e.Msg)
}

// Unwrap returns the sentinel.
func (e *MessageError) Unwrap() error { return e.Err }
