// Package tiktoken counts tokens as OpenAI's tokenizers do (exactly, but
// for one known deviation of the library it builds on: see "Known
// deviation"), for chitta's token budgets: [New] returns a [Counter] for the o200k_base
// (GPT-4o, GPT-4.1, GPT-5, o-series) or cl100k_base (GPT-4, GPT-3.5)
// encoding, which implements [chitta.TokenCounter] and
// [chitta.FramingCounter].
//
// The BPE ranks are compiled into the binary: the package works offline and
// reads no file or network at run time. It is built on
// github.com/tiktoken-go/tokenizer rather than github.com/pkoukk/tiktoken-go
// with its offline loader because, in a one-off comparison during
// development (not a committed benchmark), both gave identical counts on
// the shared evaluation data (1.2 M tokens; it cannot have held the
// whitespace runs of "Known deviation" in any number), tokenizer's
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
// # Known deviation
//
// tiktoken-go/tokenizer v0.10.0's compiled split expression ends a
// whitespace run after its first line break where OpenAI's greedy
// \s*[\r\n]+ keeps it whole, so a run of several line breaks with spaces
// or tabs between them (an indented blank line in code, " \n \n") counts
// one token more than OpenAI's tokenizer per extra break: "a\n\n  \n\nb"
// is 4 tokens here and 3 there (found in session 15's review, from the
// same pattern interpreted by regexp2 and from the vocabularies, which hold
// tokens such as "\n    \n" that only an unsplit run can produce). The
// error is an over-count, so a budget set from it is never exceeded on its
// account. Counting such runs in pieces of its own would fix it; not done.
package tiktoken
