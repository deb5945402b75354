// Package chitta compacts the conversation history of a long-running AI
// agent in process. It keeps the turns that carry information the agent has
// not yet learned, drops the ones its persistent memory already covers, and
// never breaks the conversation it returns.
//
// [Compact] scores every non-system message
//
//	score = structural × (0.3·recency + 0.4·semantic + 0.3·(1 − coverage))
//
// where structural is the role weight (user 1.0, assistant 0.8, tool 0.5),
// recency runs linearly from 0.1 (oldest) to 1.0 (newest), semantic is the
// cosine similarity to [Options.Query] clamped to [0, 1] (0.5 when unknown),
// and coverage is the best cosine similarity to a memory in [Options.Store]
// (over every memory for a [CoverageRecaller] such as [HNSWStore], else
// among the [CoverageNeighbours] nearest; episodes and briefs do not count
// unless [Options.CoverageFilter] says so). Messages are kept greedily by
// score, first fit, until [Options.TargetRatio] of the input's tokens
// (≈ words × 1.3, see [EstimateTokens]), or [Options.MaxTokens], is used;
// system and developer messages are always kept.
// An assistant message that issues tool calls and the messages carrying
// their results are kept or dropped together, so the output never holds a
// tool result without its call. Survivors come back verbatim, in order:
// a [Message] read by [ParseMessages] marshals back to its original JSON.
//
// The live turn (the last user message and what follows; in a tool loop,
// that prompt and the latest tool results) and the user turn before the
// first kept message are pinned, so the result passes [Validate] whenever
// the input does, and a kept call of a tool that a tool search loaded
// keeps a result that loads it (the Anthropic tool_reference, or the
// Responses tool_search_output, that gives the model its schema);
// [Options.FreeSelection] restores the plain greedy rule.
// In an agent loop, a [Compactor] appends to its previous result until
// [Policy.MaxTokens] and then compacts to [Policy.TargetTokens], keeping
// the provider's prompt cache warm ([Pricing]).
//
// Without an [Embedder] the score degrades to recency and structure, and
// [Stats.Embedding] says so. [HashEmbedder] is a zero-download default;
// [CachedEmbedder] and [CachedTokenCounter] make repeated compactions in an
// agent loop cheap; the llamacpp and openai subpackages embed with real
// models. [Options.Rescale] rescales the semantic and coverage terms over
// each call, which suits lexical embedders. [Options.RelevanceReserve]
// (with [Options.Lexical]) replaces the greedy order when a query is given:
// a share of the budget goes first to the messages most similar to the query
// that memory does not hold, and the rest to the least-covered messages,
// newest first.
//
// [HNSWStore] is the in-memory, persistent memory store. With
// [Options.DistillNovel], dropped messages that the store does not yet cover
// are recorded as new memories (corrections, preferences, habits, wisdom,
// facts; filler and near-duplicates skipped), and [RecordEpisode] remembers each compaction itself.
//
// [Options.Mask] masks stale tool output before selection: old, large tool
// results become a one-line placeholder (naming the memory that holds
// their excerpt and listing the ids a JSON result held) while their calls
// stay verbatim, and the tool-call groups are kept before the dialogue;
// when the pinned messages alone exceed the budget, their older results
// are masked too (the newest stays whole).
// A [MaskCache] ([MaskOptions.Cache]) keeps what masking reads from each
// message across calls, so that re-compactions scan only new messages.
//
// All functions are safe for concurrent use; Compact never modifies its
// input and the caller owns everything it returns.
package chitta
