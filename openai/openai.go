// Package openai is a chitta Embedder for servers that speak the OpenAI
// embeddings API: OpenAI itself, Ollama, llama.cpp's llama-server, vLLM,
// Hugging Face TEI and others. It POSTs batches of texts to
// {base}/v1/embeddings, retries rate limits and server errors with
// exponential backoff, checks every answer, and never puts the API key in
// an error, even when the server echoes it (nor a password, or a
// query-string value of 8 bytes or more, of the base URL). With a
// key set, it refuses redirects to another origin (scheme, host, port),
// which would receive the key.
//
//	e, err := openai.New(&openai.Options{
//		BaseURL: "http://localhost:11434", // Ollama
//		Model:   "nomic-embed-text",
//	})
//	res, err := chitta.Compact(ctx, msgs, &chitta.Options{Embedder: chitta.NewCachedEmbedder(e, 0)})
package openai

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// Defaults of [Options].
const (
	DefaultBaseURL       = "https://api.openai.com/v1"
	DefaultMaxBatch      = 32
	DefaultMaxRetries    = 3
	DefaultMinBackoff    = 500 * time.Millisecond
	DefaultMaxBackoff    = 30 * time.Second
	DefaultMaxInputBytes = 8 << 10

	// MaxBatchLimit is the largest [Options.MaxBatch]: OpenAI takes at
	// most 2048 inputs in one request.
	MaxBatchLimit = 2048

	// MaxRequestBytes bounds the texts of one request, summed: a batch
	// is closed before a text that would take it past 300 000 bytes, so
	// that it never exceeds OpenAI's 300 000 tokens summed across the
	// inputs of one request (a token of a byte-level BPE encoding holds
	// at least one byte; see [Options.MaxInputBytes]). A text longer
	// than that on its own is sent alone.
	MaxRequestBytes = 300_000
)

// Limits of the response bodies read: a successful one is bounded by
// bodyLimit of its batch, never more than maxBodyBytes.
const (
	maxBodyBytes = 256 << 20
	bodyBase     = 1 << 20   // a response's bytes beside its vectors, at most
	bodyPerText  = 256 << 10 // one vector's bytes, at most: 8 192 float32 written as JSON numbers of up to 16 bytes, base64 or not

	maxErrorBytes = 64 << 10
	maxErrorText  = 500 // characters of a server message kept in an error
)

// Options configures [New]. A nil *Options is invalid (Model is required);
// every other field's zero value means the documented default. New copies
// Options and never modifies them (the Embedder keeps using HTTPClient).
type Options struct {
	// BaseURL is the server's address, with or without a trailing "/v1"
	// or "/v1/embeddings": "http://localhost:11434",
	// "http://localhost:11434/v1/" and
	// "http://localhost:11434/v1/embeddings" all send requests to
	// http://localhost:11434/v1/embeddings. Any other path is kept
	// ("https://host/proxy" → https://host/proxy/v1/embeddings). Empty
	// means DefaultBaseURL (OpenAI). It must be an absolute http or https
	// URL. Its password (or a token given as the user name) and its
	// query-string values never appear in errors, also when the server
	// echoes them (as written, decoded, or as the Basic credential sent
	// for the user information), except query values shorter than 8
	// bytes, which are no credentials ("?debug=1", "format=json").
	BaseURL string

	// Model is the embedding model's name, e.g. "text-embedding-3-small"
	// or "nomic-embed-text". Required.
	Model string

	// APIKey, when set, is sent as "Authorization: Bearer <APIKey>", white
	// space around it removed. It never appears in errors, as sent,
	// URL-encoded or JSON-escaped. A control character inside it (other
	// than tab), which no header may carry, is an error. Empty sends no
	// Authorization header (local servers).
	APIKey string

	// Dimensions, when > 0, is sent as the request's "dimensions" field
	// (OpenAI's text-embedding-3 models shorten their vectors to it) and
	// every vector must have that length. 0 sends nothing and learns the
	// length from the first answer. Negative is an error.
	Dimensions int

	// MaxBatch is the most texts sent in one request; longer calls are
	// split into several requests, sent one after another (so are
	// batches whose texts exceed [MaxRequestBytes] together). 0 means
	// DefaultMaxBatch (32, the limit of a default TEI server). Negative,
	// or above MaxBatchLimit (2048, OpenAI's limit), is an error, whatever
	// the server: other servers have lower limits or none, and a batch
	// larger than 2048 texts saves nothing worth the risk, since requests
	// are sent one after another and per-request overhead is small beside
	// 2048 embeddings.
	MaxBatch int

	// MaxRetries is how many times a request is retried after a 408, 429
	// or 5xx status (except 501) or a network error; OpenAI's 429
	// insufficient_quota (no credit left), which no wait heals, is not
	// retried (see [ErrInsufficientQuota]), nor are TLS errors that will
	// not heal (a certificate that does not verify, a server that does not
	// speak TLS, or one that refuses the client by an alert such as
	// "certificate required", "bad certificate" or "protocol version not
	// supported"); other alerts ("internal error") are. 0 means
	// DefaultMaxRetries (3); negative means no retries.
	MaxRetries int

	// MinBackoff and MaxBackoff bound the wait before a retry: attempt k
	// waits a random time in [d/2, d] with d = min(MaxBackoff,
	// MinBackoff·2^k). A Retry-After header (seconds, a fraction rounded
	// up, or an HTTP date) is honoured instead when it asks for a wait of at most MaxBackoff or a
	// minute, whichever is longer; a longer wait, or one that would outlast
	// ctx's deadline, fails the call at once with the server's error (a
	// wait beyond a day is read as no header); one of 0, or a date not in the future, asks
	// for none and the backoff applies (as in OpenAI's own SDKs), so that
	// retries are not spent in a burst against a server that just refused
	// a request for load. 0 means
	// DefaultMinBackoff (500 ms) and DefaultMaxBackoff (30 s); negative
	// values, or MinBackoff > MaxBackoff, are errors.
	MinBackoff, MaxBackoff time.Duration

	// MaxInputBytes truncates each text (at a UTF-8 boundary) before
	// sending it, so that a huge tool output does not exceed the model's
	// context and fail the whole batch. Bytes that are not valid UTF-8
	// are first replaced by U+FFFD (a run of them by one), as the server
	// receives them, and counted as such. A text that starts with more
	// white space than that is cut after its white space instead (servers
	// reject a blank input); one whose first character after it is longer
	// than MaxInputBytes is not sent and gets a zero vector, as an empty
	// text does. 0 means DefaultMaxInputBytes (8 KiB): a token of OpenAI's
	// byte-level BPE encodings holds at least one byte, so 8 192 bytes
	// never exceed the 8 192-token input limit of its embedding models,
	// whatever the script (about 1 800 tokens of English text; up to one
	// token a byte for emoji, rare CJK, control characters or random
	// ASCII, which 16 KiB took past the limit). Negative means no
	// truncation. Servers with short contexts (512-token BERT models)
	// should truncate themselves (TEI --auto-truncate; Ollama truncates by
	// default).
	MaxInputBytes int

	// HTTPClient sends the requests. nil means http.DefaultClient. Time
	// limits come from the ctx given to Embed; a Timeout on the client
	// applies to each attempt. New uses a copy whose CheckRedirect refuses
	// cross-origin redirects when APIKey is set (wrapping
	// [ErrCrossOriginRedirect]) and otherwise calls the client's own.
	HTTPClient *http.Client
}

// Embedder embeds texts through an OpenAI-compatible server. It implements
// chitta.Embedder. Create it with [New]; the zero value is not usable (its
// Embed returns an error wrapping [ErrInvalidOption]). An Embedder is safe
// for concurrent use. The vectors returned by Embed belong to the caller.
type Embedder struct {
	endpoint   string
	model      string
	key        string
	secrets    []string // the forms of key an error text may carry, longest first
	maxBatch   int
	maxRetries int
	minBackoff time.Duration
	maxBackoff time.Duration
	maxInput   int
	client     *http.Client
	sendDims   bool

	// sleep waits d or until ctx is done; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error

	mu   sync.Mutex
	dims int // vector length; 0 until known
}

// New returns an Embedder for opts, or an error wrapping
// [ErrInvalidOption] naming the field at fault. It does not contact the
// server.
func New(opts *Options) (*Embedder, error) {
	if opts == nil {
		return nil, fmt.Errorf("%w: nil Options (Model is required)", ErrInvalidOption)
	}
	o := *opts
	if strings.TrimSpace(o.Model) == "" {
		return nil, fmt.Errorf("%w: Model is empty", ErrInvalidOption)
	}
	endpoint, err := endpointURL(o.BaseURL)
	if err != nil {
		return nil, err
	}
	if o.Dimensions < 0 {
		return nil, fmt.Errorf("%w: Dimensions %d, want >= 0", ErrInvalidOption, o.Dimensions)
	}
	if o.MaxBatch < 0 || o.MaxBatch > MaxBatchLimit {
		return nil, fmt.Errorf("%w: MaxBatch %d, want 0 to %d (0: %d)", ErrInvalidOption, o.MaxBatch, MaxBatchLimit, DefaultMaxBatch)
	}
	if o.MinBackoff < 0 || o.MaxBackoff < 0 {
		return nil, fmt.Errorf("%w: MinBackoff %v, MaxBackoff %v, want >= 0", ErrInvalidOption, o.MinBackoff, o.MaxBackoff)
	}
	key := strings.TrimSpace(o.APIKey) // a pasted key often carries a newline
	if i := strings.IndexFunc(key, isCTL); i >= 0 {
		// net/http refuses to send it, at every attempt: say so now,
		// by position (never the key itself).
		return nil, fmt.Errorf("%w: APIKey has a control character at byte %d, want none but tab inside the key (two lines pasted?)", ErrInvalidOption, i)
	}
	e := &Embedder{
		endpoint:   endpoint,
		model:      o.Model,
		key:        key,
		secrets:    secretForms(append(urlSecrets(o.BaseURL), key)...),
		maxBatch:   cmpOr(o.MaxBatch, DefaultMaxBatch),
		maxRetries: cmpOr(o.MaxRetries, DefaultMaxRetries),
		minBackoff: cmpOr(o.MinBackoff, DefaultMinBackoff),
		maxBackoff: cmpOr(o.MaxBackoff, DefaultMaxBackoff),
		maxInput:   cmpOr(o.MaxInputBytes, DefaultMaxInputBytes),
		client:     o.HTTPClient,
		sendDims:   o.Dimensions > 0,
		dims:       o.Dimensions,
		sleep:      sleepCtx,
	}
	if e.maxRetries < 0 {
		e.maxRetries = 0
	}
	if e.minBackoff > e.maxBackoff {
		return nil, fmt.Errorf("%w: MinBackoff %v > MaxBackoff %v", ErrInvalidOption, e.minBackoff, e.maxBackoff)
	}
	e.client = guardRedirects(e.client, e.key != "", e.scrub)
	return e, nil
}

// guardRedirects returns a copy of c (http.DefaultClient's settings when
// c is nil) that refuses, when the requests carry a key, to follow a
// redirect to another origin (scheme, host and port): net/http keeps the
// Authorization header on a redirect to the same host name on another
// port, which may be another program. c's own CheckRedirect still runs for
// the redirects allowed. scrub removes the key from the refusal's text (a
// server may echo it into the redirect's URL).
func guardRedirects(c *http.Client, withKey bool, scrub func(string) string) *http.Client {
	if c == nil {
		c = http.DefaultClient
	}
	guarded := *c
	next := c.CheckRedirect
	guarded.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > 0 && req.Method != via[0].Method {
			code := 0
			if req.Response != nil {
				code = req.Response.StatusCode
			}
			return fmt.Errorf("%w: status %d to %s", ErrMethodRedirect, code, scrub(redactURL(req.URL.String())))
		}
		if withKey && len(via) > 0 && origin(req.URL) != origin(via[0].URL) {
			return fmt.Errorf("%w: %s to %s", ErrCrossOriginRedirect, scrub(origin(via[0].URL)), scrub(redactURL(req.URL.String())))
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &guarded
}

// origin returns the scheme, host and port of u, the port made explicit.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// isCTL reports whether r is a control character that no HTTP header
// value may hold (tab is allowed), as net/http checks before it sends one.
func isCTL(r rune) bool { return (r < ' ' && r != '\t') || r == 0x7f }

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// endpointURL returns the embeddings URL for a base URL (see
// [Options.BaseURL]).
func endpointURL(base string) (string, error) {
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%w: BaseURL %q, want an absolute http or https URL", ErrInvalidOption, redactURL(base))
	}
	p := strings.TrimRight(u.Path, "/")
	p = strings.TrimSuffix(p, "/v1/embeddings")
	p = strings.TrimSuffix(p, "/v1")
	u.Path = p + "/v1/embeddings"
	u.RawPath = ""
	return u.String(), nil
}

// redactURL hides the secrets a URL may carry before it is printed: the
// user information (user:password@) and the values of the query string
// (?api-key=...). Text that is not an absolute http or https URL with a
// host (one that does not parse, or a mistyped one such as
// "http:/u:pw@h" or "u:pw@h:1", where url.Parse finds no userinfo) is
// redacted by its shape: everything before its last "@" (after a scheme
// and its slashes, if any), and everything after a "?".
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.Host != "" && (strings.EqualFold(u.Scheme, "http") || strings.EqualFold(u.Scheme, "https")) {
		if u.User == nil && u.RawQuery == "" {
			return s
		}
		if u.User != nil {
			u.User = url.User("REDACTED")
		}
		if u.RawQuery != "" {
			q := u.Query()
			for k := range q {
				q[k] = []string{"REDACTED"}
			}
			u.RawQuery = q.Encode()
		}
		return u.String()
	}
	if at := strings.LastIndex(s, "@"); at >= 0 {
		start := schemeEnd(s)
		if start > at {
			start = 0
		}
		s = s[:start] + "REDACTED" + s[at:]
	}
	if i := strings.Index(s, "?"); i >= 0 {
		rest := ""
		if j := strings.Index(s[i:], "#"); j >= 0 {
			rest = s[i+j:]
		}
		s = s[:i] + "?REDACTED" + rest
	}
	return s
}

// schemeEnd returns the length of s's leading "scheme:" (RFC 3986: a
// letter, then letters, digits, '+', '-' or '.') with the slashes after
// it, or 0 when s starts with no scheme.
func schemeEnd(s string) int {
	for i, r := range s {
		switch {
		case r == ':' && i > 0:
			return i + 1 + len(s[i+1:]) - len(strings.TrimLeft(s[i+1:], "/"))
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
		case i > 0 && ('0' <= r && r <= '9' || r == '+' || r == '-' || r == '.'):
		default:
			return 0
		}
	}
	return 0
}

// RedactURL returns s, a URL or text meant as one, with its user
// information and query-string values replaced by "REDACTED", for logs and
// error messages (a base URL may carry a password or an api-key
// parameter). Text that is not an absolute http or https URL with a host
// (it does not parse, or its scheme is mistyped) is redacted by its shape:
// everything before its last "@" (after a scheme) and after a "?".
func RedactURL(s string) string { return redactURL(s) }

// Dimensions returns the length of the vectors: Options.Dimensions when
// set, otherwise the length learnt from the first successful answer (0
// before it; 0 for a nil Embedder).
func (e *Embedder) Dimensions() int {
	if e == nil {
		return 0
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.dims
}

// Embed returns one vector per text, in order, sending the texts in
// batches of at most [Options.MaxBatch] per request. Texts that are empty
// or white space, or that [Options.MaxInputBytes] cuts to nothing, are
// not sent (servers reject them): they get a zero
// vector, which chitta treats as "no embedding"; if every text is empty and
// the dimension is not yet known, Embed returns [ErrNoInput].
//
// Embed returns ctx's error when ctx is done (also while waiting to
// retry), a [*StatusError] (wrapping [ErrStatus]) when the server keeps
// refusing, and errors wrapping [ErrBadResponse] or [ErrDimensionMismatch]
// for unusable answers; when the call took several requests, the error
// names the first and last of texts the failed one held ("batch of texts
// 6–7"). Nothing is returned on failure: a call succeeds or fails as a
// whole.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if e == nil || e.endpoint == "" {
		return nil, fmt.Errorf("%w: Embedder not created with New", ErrInvalidOption)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	var send []string
	var owner []int
	for i, t := range texts {
		t = cut(t, e.maxInput)
		if strings.TrimSpace(t) == "" {
			continue
		}
		send = append(send, t)
		owner = append(owner, i)
	}
	for lo, hi := 0, 0; lo < len(send); lo = hi {
		hi = batchEnd(send, lo, e.maxBatch)
		vecs, err := e.embedBatch(ctx, send[lo:hi])
		if err != nil {
			if lo > 0 || hi < len(send) {
				// The caller's indices: blank texts were not sent.
				err = fmt.Errorf("batch of texts %d–%d: %w", owner[lo], owner[hi-1], err)
			}
			return nil, e.redact(err)
		}
		for k, v := range vecs {
			out[owner[lo+k]] = v
		}
	}
	if len(send) < len(texts) {
		d := e.Dimensions()
		if d == 0 {
			return nil, ErrNoInput
		}
		for i := range out {
			if out[i] == nil {
				out[i] = make([]float32, d)
			}
		}
	}
	return out, nil
}

// batchEnd returns the end of the batch of send that starts at lo: at
// most maxBatch texts, and no more than MaxRequestBytes of them together
// unless the first alone is longer.
func batchEnd(send []string, lo, maxBatch int) int {
	hi, size := lo, 0
	for hi < len(send) && hi-lo < maxBatch && (hi == lo || size+len(send[hi]) <= MaxRequestBytes) {
		size += len(send[hi])
		hi++
	}
	return hi
}

// cut returns the text sent for t under MaxInputBytes n: t, its invalid
// UTF-8 replaced by U+FFFD, cut to n bytes, or, when that keeps only
// white space (t starts with more than n bytes of it), t without its
// leading white space cut to n bytes, so that a text with something to
// embed is never sent blank (servers reject a blank input and the whole
// batch with it). The result is blank when t is, or when n is smaller
// than the first character after the white space.
func cut(t string, n int) string {
	if !utf8.ValidString(t) {
		t = strings.ToValidUTF8(t, "\uFFFD") // what the server receives: count it
	}
	if c := truncate(t, n); strings.TrimSpace(c) != "" || c == t {
		return c
	}
	return truncate(strings.TrimLeftFunc(t, unicode.IsSpace), n)
}

// truncate cuts t to at most n bytes at a UTF-8 boundary; n < 0 means no
// limit.
func truncate(t string, n int) string {
	if n < 0 || len(t) <= n {
		return t
	}
	for n > 0 && !utf8.RuneStart(t[n]) {
		n--
	}
	return t[:n]
}

type request struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Dimensions     int      `json:"dimensions,omitempty"`
}

type response struct {
	Data []struct {
		Index     *int            `json:"index"`
		Embedding json.RawMessage `json:"embedding"`
	} `json:"data"`
}

// embedBatch sends one request (with retries) and returns its checked,
// re-ordered vectors.
func (e *Embedder) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	req := request{Model: e.model, Input: texts, EncodingFormat: "float"}
	if e.sendDims {
		req.Dimensions = e.Dimensions()
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	var last error
	for attempt := 0; ; attempt++ {
		data, retryAfter, err := e.post(ctx, body, bodyLimit(len(texts)))
		if err == nil {
			return e.decode(data, len(texts))
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		var se *StatusError
		if errors.As(err, &se) {
			se.Attempts = attempt + 1
		}
		last = err
		if !retryable(err) || attempt >= e.maxRetries {
			return nil, last
		}
		wait := e.backoff(attempt)
		if retryAfter > 0 { // 0 (or a past date) asks for no wait: back off (see Options.MinBackoff)
			if longest := max(e.maxBackoff, minRetryAfterCap); retryAfter > longest {
				return nil, fmt.Errorf("server asks to retry in %v, longer than the %v Embed waits (MaxBackoff, at least a minute): %w", retryAfter, longest, last)
			}
			wait = retryAfter
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return nil, fmt.Errorf("retry in %v exceeds the context deadline: %w", wait, last)
		}
		if err := e.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// post sends body once. It returns the response body on 2xx; otherwise an
// error (a *StatusError for non-2xx statuses) and the Retry-After wait, or
// -1 when there is none.
func (e *Embedder) post(ctx context.Context, body []byte, limit int64) ([]byte, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, -1, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if e.key != "" {
		req.Header.Set("Authorization", "Bearer "+e.key)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			ue.URL = e.scrub(redactURL(ue.URL)) // the URL of a redirect may carry an echo of the key
		}
		if errors.Is(err, ErrCrossOriginRedirect) || errors.Is(err, ErrMethodRedirect) || lastingTLSError(err) {
			return nil, -1, err // not worth retrying
		}
		return nil, -1, &transportError{err}
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBytes))
		body = []byte(e.scrub(string(body)))
		return nil, retryAfter(resp.Header.Get("Retry-After")), &StatusError{
			StatusCode: resp.StatusCode,
			Message:    serverMessage(body, e.scrub),
			Code:       serverCode(body, e.scrub),
		}
	}
	tooLarge := fmt.Errorf("%w: body larger than %d bytes, the most a batch of its size needs", ErrBadResponse, limit)
	if resp.ContentLength > limit {
		return nil, -1, tooLarge // refused before reading any of it
	}
	var buf bytes.Buffer
	if resp.ContentLength > 0 {
		buf.Grow(int(resp.ContentLength) + 1) // one allocation, not ReadAll's doublings
	}
	if _, err := buf.ReadFrom(io.LimitReader(resp.Body, limit+1)); err != nil {
		return nil, -1, &transportError{fmt.Errorf("read response: %w", err)}
	}
	if int64(buf.Len()) > limit {
		return nil, -1, tooLarge
	}
	return buf.Bytes(), -1, nil
}

// bodyLimit is the most bytes a successful response to a batch of n texts
// is read to: bodyBase plus bodyPerText a text, at most maxBodyBytes. A
// larger body is refused (ErrBadResponse) without being read to its end,
// so that a server that pads or never ends its answer costs a few
// mebibytes for a small batch, not maxBodyBytes.
func bodyLimit(n int) int64 {
	return min(int64(maxBodyBytes), bodyBase+int64(max(0, n))*bodyPerText)
}

// lastingAlerts are the TLS alerts by which a server refuses who the
// client is or what it speaks: a client certificate missing, bad, expired,
// revoked or from an authority it does not trust, access denied, no common
// protocol version, cipher suite or application protocol, an unknown
// server name. A retry would meet them again. Other alerts (internal
// error, a bad record MAC, a decode error) may come from a passing fault
// of the server or a middlebox, and are retried.
var lastingAlerts = []tls.AlertError{40, 42, 43, 44, 45, 46, 48, 49, 70, 71, 112, 116, 120}

// lastingAlert reports whether err is, or carries, one of lastingAlerts
// from the server: over TCP crypto/tls reports a received alert as a
// *net.OpError "remote error" whose Err is an unexported alert type that
// reads as the tls.AlertError of the same code (QUIC wraps the
// tls.AlertError itself).
func lastingAlert(err error) bool {
	var a tls.AlertError
	if errors.As(err, &a) {
		return slices.Contains(lastingAlerts, a)
	}
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "remote error" || op.Err == nil {
		return false
	}
	msg := op.Err.Error()
	return slices.ContainsFunc(lastingAlerts, func(a tls.AlertError) bool { return a.Error() == msg })
}

// lastingTLSError reports whether err is a TLS failure that a retry would
// meet again: a certificate that does not verify (unknown authority, wrong
// host name, expired, no system roots), a server that does not answer in
// TLS, or one that refuses the client with a lasting alert (see
// lastingAlerts: a client certificate it requires or rejects, no common
// protocol).
func lastingTLSError(err error) bool {
	var (
		verify   *tls.CertificateVerificationError
		record   tls.RecordHeaderError
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		roots    x509.SystemRootsError
	)
	return errors.Is(err, http.ErrSchemeMismatch) || lastingAlert(err) ||
		errors.As(err, &verify) || errors.As(err, &record) || errors.As(err, &unknown) ||
		errors.As(err, &hostname) || errors.As(err, &invalid) || errors.As(err, &roots)
}

// transportError is a network failure, worth retrying.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// retryable reports whether a failed attempt is worth another.
func retryable(err error) bool {
	var te *transportError
	if errors.As(err, &te) {
		return true
	}
	var se *StatusError
	if errors.As(err, &se) {
		if se.Code == codeInsufficientQuota { // a 429 that no wait heals
			return false
		}
		c := se.StatusCode
		return c == http.StatusRequestTimeout || c == http.StatusTooManyRequests || (c >= 500 && c != http.StatusNotImplemented)
	}
	return false
}

// backoff returns the jittered wait before retry number attempt+1.
func (e *Embedder) backoff(attempt int) time.Duration {
	d := e.minBackoff
	for range attempt {
		if d > e.maxBackoff/2 {
			d = e.maxBackoff
			break
		}
		d *= 2
	}
	d = min(d, e.maxBackoff)
	if d <= 0 {
		return 0
	}
	return d/2 + rand.N(d/2+1)
}

// maxRetryAfter is the longest Retry-After wait read; a longer one is
// read as unreadable, in either form.
const maxRetryAfter = 24 * time.Hour

// minRetryAfterCap is the longest Retry-After wait Embed honours when
// MaxBackoff is shorter: a minute, as OpenAI's own SDKs.
const minRetryAfterCap = time.Minute

// retryAfter parses a Retry-After header (delay-seconds or an HTTP date);
// -1 means absent or unreadable (a wait beyond maxRetryAfter included), 0
// no wait (a date in the past included). delay-seconds are whole seconds
// (RFC 9110); a fraction, which some servers send, is rounded up, so that
// a tiny one ("0.0001") does not spend the retries in a burst.
func retryAfter(h string) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return -1
	}
	if s, err := strconv.ParseFloat(h, 64); err == nil {
		if s < 0 || math.IsNaN(s) || s > maxRetryAfter.Seconds() {
			return -1
		}
		return time.Duration(math.Ceil(s)) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil {
		if d := time.Until(t); d <= maxRetryAfter {
			return max(0, d)
		}
	}
	return -1
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// serverMessage extracts the human message of an error body: OpenAI's
// {"error":{"message":...}}, {"error":"..."} (Ollama, TEI), {"message":...},
// {"detail":...} (vLLM, FastAPI), or the text itself, shortened. scrub
// runs on the message as decoded (JSON escapes may have spelled the key
// differently) and again once white space is normalised, before it is
// cut: a key cut in two would otherwise survive in part.
func serverMessage(body []byte, scrub func(string) string) string {
	var shaped struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	msg := ""
	if json.Unmarshal(body, &shaped) == nil {
		var obj struct {
			Message string `json:"message"`
		}
		var str string
		switch {
		case json.Unmarshal(shaped.Error, &obj) == nil && obj.Message != "":
			msg = obj.Message
		case json.Unmarshal(shaped.Error, &str) == nil && str != "":
			msg = str
		case shaped.Message != "":
			msg = shaped.Message
		case json.Unmarshal(shaped.Detail, &str) == nil && str != "":
			msg = str
		case len(shaped.Detail) > 0:
			msg = string(shaped.Detail)
		}
	}
	if msg == "" {
		msg = string(body)
	}
	msg = scrub(strings.ToValidUTF8(scrub(msg), "?"))
	msg = scrub(strings.Join(strings.Fields(msg), " "))
	if utf8.RuneCountInString(msg) > maxErrorText {
		msg = string([]rune(msg)[:maxErrorText]) + "…"
	}
	return msg
}

// maxCodeLen is the longest error code kept in a StatusError.
const maxCodeLen = 64

// serverCode returns the error code of an OpenAI-shaped error body
// ({"error":{"code":...}}, a string or a number), or its error type when
// it has no code; empty when there is neither, or when the code is longer
// than maxCodeLen or holds other than ASCII letters, digits, '_', '-' and
// '.' (it goes into error texts as it is), or when scrub changes it (the
// body was scrubbed as bytes: a secret the server echoed JSON-escaped is
// whole again once decoded).
func serverCode(body []byte, scrub func(string) string) string {
	var shaped struct {
		Error struct {
			Code json.RawMessage `json:"code"`
			Type json.RawMessage `json:"type"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &shaped) != nil {
		return ""
	}
	text := func(raw json.RawMessage) string {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		var n json.Number
		if json.Unmarshal(raw, &n) == nil {
			return n.String()
		}
		return ""
	}
	code := text(shaped.Error.Code)
	if code == "" {
		code = text(shaped.Error.Type)
	}
	if len(code) > maxCodeLen || strings.ContainsFunc(code, func(r rune) bool {
		return !(r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || r == '.'))
	}) || scrub(code) != code {
		return ""
	}
	return code
}

// minQuerySecret is the shortest value of a base URL's query string
// scrubbed from server messages: a credential there (api-key, key, token,
// sig) is longer, and scrubbing a short flag, version or format
// ("?debug=1", "format=json") would mangle the messages that hold it.
const minQuerySecret = 8

// urlSecrets returns the secrets a base URL carries that a server may
// echo into an error body: the password (or a token given as the user
// name), also as the Basic credential net/http sends for it, and the
// values of the query string, decoded and as written, of at least
// minQuerySecret bytes.
func urlSecrets(base string) []string {
	u, err := url.Parse(base)
	if err != nil {
		return nil
	}
	var query []string
	for _, vs := range u.Query() {
		query = append(query, vs...)
	}
	for pair := range strings.SplitSeq(u.RawQuery, "&") {
		if _, v, ok := strings.Cut(pair, "="); ok {
			query = append(query, v)
		}
	}
	out := slices.DeleteFunc(query, func(v string) bool { return len(v) < minQuerySecret })
	if u.User != nil {
		name := u.User.Username()
		pass, ok := u.User.Password()
		out = append(out, pass, base64.StdEncoding.EncodeToString([]byte(name+":"+pass)))
		if !ok {
			out = append(out, name)
		}
	}
	return out
}

// secretForms returns the spellings of the keys an error text may carry:
// each key itself, URL-encoded (query and path), JSON-escaped (with and
// without HTML escaping) and with its white space normalised; longest
// first, so that no form is half-replaced by a shorter one. Empty keys
// are skipped; nil when none is left.
func secretForms(keys ...string) []string {
	var forms []string
	for _, key := range keys {
		if key == "" {
			continue
		}
		forms = append(forms, key, url.QueryEscape(key), url.PathEscape(key), strings.Join(strings.Fields(key), " "))
		if b, err := json.Marshal(key); err == nil {
			forms = append(forms, string(b[1:len(b)-1]))
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if enc.Encode(key) == nil {
			b := bytes.TrimSpace(buf.Bytes())
			forms = append(forms, string(b[1:len(b)-1]))
		}
	}
	forms = slices.DeleteFunc(forms, func(f string) bool { return strings.TrimSpace(f) == "" })
	slices.SortFunc(forms, func(a, b string) int { // longest first; equal ones side by side
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	if forms = slices.Compact(forms); len(forms) == 0 {
		return nil
	}
	return forms
}

// scrub removes every form of the API key, and of the base URL's secrets
// (see urlSecrets), from s.
func (e *Embedder) scrub(s string) string {
	for _, f := range e.secrets {
		s = strings.ReplaceAll(s, f, "[REDACTED]")
	}
	return s
}

// redact makes sure err's text does not contain the API key.
func (e *Embedder) redact(err error) error {
	if err == nil || len(e.secrets) == 0 {
		return err
	}
	if msg := err.Error(); e.scrub(msg) != msg {
		return &redactedError{msg: e.scrub(msg), err: err}
	}
	return err
}

// decode parses and checks a 2xx body holding want vectors, and records
// the dimension.
func (e *Embedder) decode(data []byte, want int) ([][]float32, error) {
	var resp response
	if err := json.Unmarshal(data, &resp); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadResponse, err)
	}
	if len(resp.Data) != want {
		return nil, fmt.Errorf("%w: %d vectors for %d texts", ErrBadResponse, len(resp.Data), want)
	}
	out := make([][]float32, want)
	dims := 0
	for k, d := range resp.Data {
		i := k
		if d.Index != nil {
			i = *d.Index
		}
		if i < 0 || i >= want {
			return nil, fmt.Errorf("%w: index %d out of range [0, %d)", ErrBadResponse, i, want)
		}
		if out[i] != nil {
			return nil, fmt.Errorf("%w: index %d repeated", ErrBadResponse, i)
		}
		v, err := parseVector(d.Embedding)
		if err != nil {
			return nil, fmt.Errorf("%w: vector %d: %v", ErrBadResponse, i, err)
		}
		if dims == 0 {
			dims = len(v)
		} else if len(v) != dims {
			return nil, fmt.Errorf("%w: vector %d has %d dimensions, others %d", ErrDimensionMismatch, i, len(v), dims)
		}
		out[i] = v
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.dims != 0 && e.dims != dims {
		return nil, fmt.Errorf("%w: server returned %d dimensions, want %d", ErrDimensionMismatch, dims, e.dims)
	}
	e.dims = dims
	return out, nil
}

// parseVector reads an embedding given as a JSON array of numbers or as a
// base64 string of little-endian float32s, and checks it is non-empty and
// finite. A null component is refused too: serde_json (TEI),
// nlohmann::json (llama-server) and JSON.stringify write NaN and
// infinities as null, which encoding/json would decode as 0.
func parseVector(raw json.RawMessage) ([]float32, error) {
	var v []float32
	var s string
	switch {
	case json.Unmarshal(raw, &v) == nil:
		// A number holds no letter but e or E, so "null" in an array
		// that decoded is a null component (or a null embedding).
		if len(v) > 0 && bytes.Contains(raw, []byte("null")) {
			return nil, errors.New("null component (a NaN or infinity as the server's JSON writes it)")
		}
	case json.Unmarshal(raw, &s) == nil:
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil || len(b)%4 != 0 {
			return nil, errors.New("embedding is neither a number array nor base64 float32s")
		}
		v = make([]float32, len(b)/4)
		for k := range v {
			v[k] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:]))
		}
	default:
		return nil, errors.New("embedding is neither a number array nor base64 float32s")
	}
	if len(v) == 0 {
		return nil, errors.New("empty embedding")
	}
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, errors.New("NaN or infinite component")
		}
	}
	return v, nil
}
