package chitta_test

import (
	"fmt"

	"github.com/chitta-go/chitta"
)

// A 1920 × 1080 screenshot as each provider bills it, and as chitta
// counts it when the provider is unknown (a langchaingo or eino part):
// the largest of the three.
func ExampleMaxImageTokens() {
	fmt.Println("anthropic", chitta.AnthropicImageTokens(1920, 1080))
	fmt.Println("openai", chitta.OpenAIImageTokens(1920, 1080, "high"))
	fmt.Println("gemini", chitta.GeminiImageTokens(1920, 1080))
	fmt.Println("unknown", chitta.MaxImageTokens(1920, 1080))
	fmt.Println("unknown size", chitta.MaxImageTokens(0, 0))
	// Output:
	// anthropic 1599
	// openai 1105
	// gemini 1548
	// unknown 1599
	// unknown size 4128
}
