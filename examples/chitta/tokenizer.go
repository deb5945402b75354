package main

import (
	"fmt"
	"strings"
	"sync"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/tiktoken"
)

// Tokenizer names: how compact_context counts tokens for its budget and
// its stats.
const (
	tokenizerEstimate = "estimate" // chitta.EstimateTokens: words × 1.3
)

// tokenizerNames lists the valid tokenizer names, the default first.
var tokenizerNames = []string{tokenizerEstimate, tiktoken.O200kBase, tiktoken.Cl100kBase}

// tokenizers builds and keeps one counter per tokenizer name, for the
// process: an exact counter is wrapped in a chitta.CachedTokenCounter, so
// that a session that compacts a growing conversation again counts only
// its new texts. Safe for concurrent use.
type tokenizers struct {
	mu       sync.Mutex
	counters map[string]chitta.TokenCounter
}

// checkTokenizer returns an error naming field and the valid names when
// name is not one of them.
func checkTokenizer(field, name string) error {
	for _, n := range tokenizerNames {
		if name == n {
			return nil
		}
	}
	return fmt.Errorf("%s %q: want %s", field, name, strings.Join(tokenizerNames, ", "))
}

// counter returns the counter of the tokenizer name (checked by
// checkTokenizer): nil, which means chitta.EstimateTokens, for estimate.
func (t *tokenizers) counter(name string) (chitta.TokenCounter, error) {
	if name == tokenizerEstimate {
		return nil, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.counters[name]; ok {
		return c, nil
	}
	exact, err := tiktoken.New(name)
	if err != nil {
		return nil, err
	}
	if t.counters == nil {
		t.counters = map[string]chitta.TokenCounter{}
	}
	c := chitta.NewCachedTokenCounter(exact, 0)
	t.counters[name] = c
	return c, nil
}
