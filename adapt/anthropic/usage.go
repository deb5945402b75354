package anthropic

import "github.com/anthropics/anthropic-sdk-go/v2"

// InputTokens returns the whole input of the call that u reports:
// InputTokens plus the tokens written to and read from the prompt cache,
// which the API reports apart. It is what
// [chitta.CalibratedCounter.Observe] wants for that call's messages;
// u.InputTokens alone is only what follows the last cache breakpoint, a
// few tokens once the cache is warm. A streamed call reports the same
// fields in its accumulated [anthropic.Message]'s Usage.
func InputTokens(u anthropic.Usage) int {
	return int(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens)
}
