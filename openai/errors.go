package openai

import (
	"errors"
	"fmt"
)

// Sentinel errors. Errors returned by this package wrap one of these (or a
// context error) with a short phrase naming the value at fault; test with
// [errors.Is]. No error ever contains [Options.APIKey].
var (
	// ErrInvalidOption reports an [Options] field outside its allowed range
	// (an empty Model, a BaseURL that is not an absolute http or https URL,
	// an APIKey with a control character inside, a negative MaxBatch or
	// Dimensions, a MaxBatch above [MaxBatchLimit], MinBackoff >
	// MaxBackoff).
	ErrInvalidOption = errors.New("openai: invalid option")

	// ErrStatus reports a response with a non-2xx status after retries.
	// The error is a [*StatusError] carrying the status and the server's
	// message.
	ErrStatus = errors.New("openai: server returned an error")

	// ErrBadResponse reports a 2xx response that is not a usable embeddings
	// answer: malformed JSON, a wrong number of vectors, an index out of
	// range or repeated, an empty or non-finite vector (a null component
	// included: TEI and llama-server write a NaN as null).
	ErrBadResponse = errors.New("openai: malformed response")

	// ErrDimensionMismatch reports vectors whose length differs within an
	// answer, from [Options.Dimensions], or from earlier answers.
	ErrDimensionMismatch = errors.New("openai: dimension mismatch")

	// ErrCrossOriginRedirect reports a redirect to another origin (scheme,
	// host or port) while an API key is set: it is refused, because the
	// request would carry the key there.
	ErrCrossOriginRedirect = errors.New("openai: redirect to another origin refused (it would receive the API key)")

	// ErrMethodRedirect reports a 301, 302 or 303 answer to the embeddings
	// POST: net/http would follow it as a GET without the request's body,
	// so it is refused, naming where the server sent it (set
	// [Options.BaseURL] to that address). 307 and 308 keep the method and
	// are followed.
	ErrMethodRedirect = errors.New("openai: redirect that turns the POST into a GET refused")

	// ErrNoInput reports a call whose texts are all empty or white space
	// while the model's dimension is not yet known, so that not even zero
	// vectors can be returned (set [Options.Dimensions] to avoid it).
	ErrNoInput = errors.New("openai: nothing to embed")
)

// StatusError is a non-2xx answer from the server: the status and the
// server's own message (from an OpenAI-shaped {"error":{"message":...}}
// body, a {"error":"..."} body, or the plain-text body, shortened), with the
// API key removed. It wraps [ErrStatus]; match it with [errors.As]. It is
// not modified once returned.
type StatusError struct {
	StatusCode int    // HTTP status code
	Message    string // the server's message; may be empty
	Attempts   int    // requests made, retries included
}

// Error returns the status and the server's message.
func (e *StatusError) Error() string {
	msg := fmt.Sprintf("%v: status %d", ErrStatus, e.StatusCode)
	if e.Attempts > 1 {
		msg += fmt.Sprintf(" after %d attempts", e.Attempts)
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// Unwrap returns ErrStatus.
func (e *StatusError) Unwrap() error { return ErrStatus }

// redactedError is an error whose text had the API key removed.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
