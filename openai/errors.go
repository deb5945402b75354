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

	// ErrInsufficientQuota reports OpenAI's insufficient_quota error (an
	// HTTP 429 whose error code, or type, is "insufficient_quota"): the
	// account has no credit left or reached its spending limit. Unlike a
	// rate limit it does not pass with time, so it is not retried: Embed
	// fails at once with a [*StatusError] that wraps it as well as
	// [ErrStatus].
	ErrInsufficientQuota = errors.New("openai: insufficient quota (no credit left or spending limit reached; not retried)")

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

// StatusError is a non-2xx answer from the server: the status, the
// server's error code when it gives one, and its own message (from an
// OpenAI-shaped {"error":{"message":...}} body, a {"error":"..."} body, or
// the plain-text body, shortened), with the API key removed. It wraps
// [ErrStatus], and [ErrInsufficientQuota] when Code is
// "insufficient_quota"; match it with [errors.As]. It is not modified once
// returned.
type StatusError struct {
	StatusCode int    // HTTP status code
	Message    string // the server's message; may be empty
	Attempts   int    // requests made, retries included

	// Code is the error code of an OpenAI-shaped body ({"error":{"code":
	// ...}}, a string or a number), or its error type when it has no code:
	// "insufficient_quota", "rate_limit_exceeded", "invalid_api_key".
	// Empty when the body has none, or when it is longer than 64 bytes or
	// holds other than ASCII letters, digits, '_', '-' and '.'.
	Code string
}

// Error returns the status, the code and the server's message.
func (e *StatusError) Error() string {
	msg := fmt.Sprintf("%v: status %d", ErrStatus, e.StatusCode)
	if e.Code != "" {
		msg += " (" + e.Code + ")"
	}
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

// Is reports whether target is ErrInsufficientQuota and Code is
// "insufficient_quota", for [errors.Is].
func (e *StatusError) Is(target error) bool {
	return target == ErrInsufficientQuota && e.Code == codeInsufficientQuota
}

// codeInsufficientQuota is OpenAI's error code (and type) for an account
// without credit.
const codeInsufficientQuota = "insufficient_quota"

// redactedError is an error whose text had the API key removed.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
