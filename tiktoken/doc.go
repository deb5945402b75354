// Package tiktoken counts tokens exactly as OpenAI's tokenizers do (see
// "Exactness"), for chitta's token budgets: [New] returns a [Counter] for the o200k_base
// (GPT-4o, GPT-4.1, GPT-5, o-series) or cl100k_base (GPT-4, GPT-3.5)
// encoding, which implements [chitta.TokenCounter] and
// [chitta.FramingCounter].
//
// The BPE ranks are compiled into the binary: the package works offline and
// reads no file or network at run time. It is built on
// github.com/tiktoken-go/tokenizer rather than github.com/pkoukk/tiktoken-go
// with its offline loader because, in a one-off comparison during
// development (not a committed benchmark), both gave identical counts on
// the shared evaluation data (1.2 M tokens), tokenizer's
// ahead-of-time compiled split expression encoded about twice as fast
// (7 vs 3.7 MB/s for o200k_base), its first use cost ~25 ms instead of
// ~200 ms of base64 decoding, and it has no process-wide loader setting to
// configure. Its price is the go 1.26 directive of this module (the
// library requires it from v0.8 on; v0.7, for go 1.23, is 8–50× slower).
//
// # Framing
//
// A provider bills more than the text of a message: chat-template markers,
// the role, and the wrappers of tool calls and tool results. Counter's
// FramingTokens returns, for one message,
//
//   - 3 tokens of markers (start, message separator, end) plus the role's
//     tokens — OpenAI's published rule for its chat models
//     (tokens_per_message = 3);
//   - for each tool call it issues, the tokens of the call header of the
//     harmony format (" to=functions." + channel marker + "commentary
//     json": 8 tokens in o200k_base), plus a new message frame (3 + role)
//     for every call after the first, which gets a block of its own;
//   - for each tool result it carries, the result header
//     (" to=assistant" + channel marker + "commentary": 6 tokens), plus a
//     frame for every result after the first.
//
// The call's name and arguments and the result's content are part of
// [chitta.Message.Content] already and counted there. The 3 tokens that
// prime the reply, once per request, are not counted. The wrapper constants
// are counted with the encoder itself at first use; they follow the harmony
// rendering OpenAI published for its o200k models, since the chat API's
// rendering of tool calls is not published, and were not checked against
// billed usage. README.md gives the share of framing in real transcripts.
//
// # Exactness
//
// CountTokens counts what OpenAI's tiktoken counts for the same text. It
// corrects two defects of tiktoken-go/tokenizer v0.10.0's compiled split
// expression.
//
// It skipped U+007F (DEL): its ASCII tables of [^\s\p{L}\p{N}] and
// [^\r\n\p{L}\p{N}] leave out 0x7f, so no alternative matched the
// character and it counted no token ("\x7f" was 0 tokens, "a\x7fb" 2 where
// tiktoken counts 3). CountTokens reads it as U+001F, a control character
// that OpenAI's expressions class alike and that, like U+007F, no token of
// more than one byte holds: the counts are tiktoken's.
//
// It ends a run of white space after its first group of line breaks,
// where OpenAI's greedy \s*[\r\n]+ keeps the run up to its last line break,
// so a run of several line breaks with spaces or tabs between them (an
// indented blank line in code, " \n \n") could count a token more per extra
// group of breaks: "a\n\n  \n\nb" is 4 tokens with the library and 3 with
// tiktoken in o200k_base, "today\n \n" 3 and 2 in cl100k_base.
// CountTokens finds such runs itself and counts each by byte-pair encoding
// over the encoding's white-space tokens, a table built from the
// vocabulary on the first such run (about 50 ms, once per encoding); the
// library counts the text between them, so ordinary text costs what it did.
//
// The tests check CountTokens against a reference built from first
// principles: OpenAI's split expressions as tiktoken_ext/openai_public.py
// publishes them, interpreted by regexp2 with backtracking, and a plain
// byte-pair encoding over all the ranks, pinned to token IDs published by
// tiktoken's own tests; fuzz targets compare the two for each encoding. A
// difference could remain from Unicode tables: regexp2 reads \p{L}, \p{N}
// and \s from Go's unicode package, tiktoken's fancy-regex from Rust's, so
// a character assigned in a later Unicode version than Go's may be classed
// differently.
package tiktoken
