package chitta_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/internal/testkit/wiregen"
)

func TestScratchCal(t *testing.T) {
	bad := 0
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 1))
		data := wiregen.Conversation(r, "openai", wiregen.Options{})
		full, _ := chitta.ParseMessages([]byte(data))
		cal := chitta.NewCalibratedCounter(nil)
		c, _ := chitta.NewCompactor(&chitta.Options{Tokens: cal}, chitta.Policy{MaxTokens: 2 + r.IntN(200)})
		for end := 1; end <= len(full); end++ {
			res, err := c.Compact(t.Context(), full[:end])
			if err != nil {
				t.Fatal(err)
			}
			st := res.Stats
			now := totalTokens(cal, res.Messages)
			if st.AfterTokens > st.BeforeTokens || st.CachedTokens > st.AfterTokens || st.DroppedPct < 0 {
				bad++
				if bad < 10 {
					t.Log(fmt.Sprintf("seed %d end %d: before %d after %d cached %d now %d compacted %v", seed, end, st.BeforeTokens, st.AfterTokens, st.CachedTokens, now, st.Compacted))
				}
			}
			reported := 0
			for _, m := range res.Messages {
				reported += len(m.Content)/3 + 4
			}
			cal.Observe(res.Messages, reported+50)
		}
	}
	t.Log("bad", bad)
}
