package embedspec

import (
	"context"
	"fmt"
)

// TODO(harness): replace with the openai subpackage when it lands.
func openOpenAI(ctx context.Context, url, model string) (*Embedder, error) {
	return nil, fmt.Errorf("embedder openai:%s#%s: not available yet", url, model)
}
