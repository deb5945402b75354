package tiktoken_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/tiktoken"
)

// benchText is agent-like text: prose, Go code and JSON, about 64 KB.
var benchText = strings.Repeat("The build fails because config.yaml is missing; please check again.\n"+
	"func (s *Server) Run(ctx context.Context) error {\n\tif err := s.load(); err != nil {\n\t\treturn fmt.Errorf(\"run: %w\", err)\n\t}\n}\n"+
	`{"reservation_id":"ZFA04Y","flights":[{"flight_number":"HAT170","date":"2024-05-16"}],"passengers":2}`+"\n", 200)

// BenchmarkCount measures counting throughput (MB/s) against EstimateTokens
// in the same family.
func BenchmarkCount(b *testing.B) {
	for _, enc := range []string{tiktoken.O200kBase, tiktoken.Cl100kBase} {
		c, err := tiktoken.New(enc)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("enc="+enc, func(b *testing.B) {
			b.SetBytes(int64(len(benchText)))
			b.ReportAllocs()
			for b.Loop() {
				_ = c.CountTokens(benchText)
			}
		})
	}
	b.Run("enc=EstimateTokens", func(b *testing.B) {
		b.SetBytes(int64(len(benchText)))
		b.ReportAllocs()
		for b.Loop() {
			_ = chitta.EstimateTokens(benchText)
		}
	})
}

// conversation returns n messages cycling through benchText's kinds of
// content, each distinct.
func conversation(n int) []chitta.Message {
	lines := strings.Split(strings.TrimSpace(benchText[:len(benchText)/200]), "\n")
	msgs := make([]chitta.Message, n)
	roles := []chitta.Role{chitta.RoleUser, chitta.RoleAssistant, chitta.RoleTool}
	for i := range msgs {
		msgs[i] = chitta.Message{Role: roles[i%3], Content: fmt.Sprintf("%d %s %s", i, lines[i%len(lines)], lines[(i+3)%len(lines)])}
	}
	return msgs
}

// BenchmarkRecompact compacts a 1 000-message conversation that grew by 10
// messages since the last compaction: with a warm CachedTokenCounter only
// the new messages are counted.
func BenchmarkRecompact(b *testing.B) {
	c, err := tiktoken.New(tiktoken.O200kBase)
	if err != nil {
		b.Fatal(err)
	}
	msgs := conversation(1000)
	cached := chitta.NewCachedTokenCounter(c, 0)
	if _, err := chitta.Compact(b.Context(), msgs[:990], &chitta.Options{Tokens: cached}); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		tc   chitta.TokenCounter
	}{{"counter=tiktoken", c}, {"counter=cached-tiktoken", cached}, {"counter=EstimateTokens", nil}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			opts := &chitta.Options{Tokens: bc.tc}
			for b.Loop() {
				if _, err := chitta.Compact(b.Context(), msgs, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
