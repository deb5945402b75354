package retention

import (
	"context"
	"strconv"
	"testing"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/internal/testkit/shareddata"
)

// BenchmarkClaudeSession compacts each whole shared Claude Code session at
// ratio 0.3 with a warm CachedEmbedder (HashEmbedder, 512 d), with the
// default options and with the relevance-reserve preset: the cost of the
// selection rules on real transcripts (the tool-search rule reads every
// tool result for tool_reference blocks). Sessions are named by their
// number in the order LoadClaudeDir gives them and the first 12 characters
// of their ID.
func BenchmarkClaudeSession(b *testing.B) {
	sessions, err := LoadClaudeDir(shareddata.ForTest(b, "claude-transcripts"))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	emb := chitta.NewCachedEmbedder(chitta.NewHashEmbedder(512), 1<<17)
	for n, s := range sessions {
		name := s.ID
		if len(name) > 12 {
			name = name[:12]
		}
		name = strconv.Itoa(n) + "-" + name
		for _, preset := range []bool{false, true} {
			opts := &chitta.Options{Query: "check the subagents", TargetRatio: 0.3, Embedder: emb}
			arm := "default"
			if preset {
				opts.RelevanceReserve, opts.Lexical = 0.5, 0.3
				arm = "preset"
			}
			b.Run("session="+name+"/opts="+arm, func(b *testing.B) {
				if _, err := chitta.Compact(ctx, s.Messages, opts); err != nil { // warm the cache
					b.Fatal(err)
				}
				for b.Loop() {
					if _, err := chitta.Compact(ctx, s.Messages, opts); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
