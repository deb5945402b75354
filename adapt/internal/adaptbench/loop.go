package adaptbench

import (
	"context"
	"strconv"
	"testing"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/internal/testkit/benchcpu"
)

// LoopRing is how many Compactors [Loop] runs side by side, each primed on
// the first 1 000 messages, so that a run of N calls grows each
// conversation by only N/LoopRing × LoopGrowth messages.
const (
	LoopRing   = 64
	LoopStart  = 1000 // messages each Compactor is primed on
	LoopGrowth = 4    // messages a call adds: a user text, a call, its result, an answer
)

// LoopLen is the length of the conversation [Loop] needs for calls
// calls: LoopStart plus LoopGrowth per round of LoopRing calls.
func LoopLen(calls int) int { return LoopStart + LoopGrowth*((calls+LoopRing-1)/LoopRing) }

// Compactor is an adapter's Compactor.
type Compactor[T any] interface {
	Compact(ctx context.Context, msgs []T) ([]T, *chitta.Result, error)
}

// Loop benchmarks an adapter's Compactor between compactions against
// chitta.Compactor on the already converted messages, in the same
// family: "msgs=1000/opts=<o>/impl=chitta" and ".../impl=adapter". Before
// the loop, LoopRing Compactors of each kind are primed with a call on
// msgs[:LoopStart] under a Policy whose MaxTokens is one token under the
// tokens of those messages, so that the priming call compacts (to half
// of them: the survivors are what a loop carries between compactions);
// each op is then the next call of the next Compactor in the ring, on its
// conversation grown by LoopGrowth messages, which never compacts (the
// survivors plus the growth stay under MaxTokens). msgs must hold at
// least LoopLen(N) messages for N ops; past them a Compactor starts over
// on msgs[:LoopStart+LoopGrowth] (a compaction, counted in): run it with
// -benchtime <N>x. opts=plain has no embedder; opts=mask sets Mask with
// MinTokens 10, so that the priming compaction masks the older results of
// the synthetic conversation (about 16 tokens each; 247 of the 640
// survivors): the adapter rewrites each of them again at every call.
// impl=chitta gets the converted messages, whose Raw is nil, the adapter
// its synthetic Raw.
func Loop[T any, C Compactor[T]](b *testing.B, msgs []T, messages func([]T) ([]chitta.Message, error), newCompactor func(*chitta.Options, chitta.Policy) (C, error)) {
	cm, err := messages(msgs)
	if err != nil {
		b.Fatal(err)
	}
	tokens := 0
	for k := range cm[:LoopStart] {
		tokens += chitta.EstimateTokens(cm[k].Content)
	}
	p := chitta.Policy{MaxTokens: tokens - 1}
	prefix := "msgs=" + strconv.Itoa(LoopStart)
	for _, bc := range []struct {
		name string
		opts *chitta.Options
	}{
		{"plain", &chitta.Options{}},
		{"mask", &chitta.Options{Mask: &chitta.MaskOptions{MinTokens: 10}}},
	} {
		b.Run(prefix+"/opts="+bc.name+"/impl=chitta", func(b *testing.B) {
			ring(b, cm, func() (func([]chitta.Message) (*chitta.Result, error), error) {
				c, err := chitta.NewCompactor(bc.opts, p)
				if err != nil {
					return nil, err
				}
				return func(m []chitta.Message) (*chitta.Result, error) { return c.Compact(b.Context(), m) }, nil
			})
		})
		b.Run(prefix+"/opts="+bc.name+"/impl=adapter", func(b *testing.B) {
			ring(b, msgs, func() (func([]T) (*chitta.Result, error), error) {
				c, err := newCompactor(bc.opts, p)
				if err != nil {
					return nil, err
				}
				return func(m []T) (*chitta.Result, error) {
					_, res, err := c.Compact(b.Context(), m)
					return res, err
				}, nil
			})
		})
	}
}

// ring runs Loop's ops over LoopRing compactors made by mk.
func ring[E any](b *testing.B, msgs []E, mk func() (func([]E) (*chitta.Result, error), error)) {
	calls := make([]func([]E) (*chitta.Result, error), LoopRing)
	n := make([]int, LoopRing) // each conversation's length
	for k := range calls {
		c, err := mk()
		if err != nil {
			b.Fatal(err)
		}
		res, err := c(msgs[:LoopStart])
		if err != nil || !res.Stats.Compacted {
			b.Fatalf("priming: %v (compacted %v)", err, res != nil && res.Stats.Compacted)
		}
		calls[k], n[k] = c, LoopStart
	}
	b.ReportAllocs()
	defer benchcpu.Start(b)()
	k := 0
	for b.Loop() {
		if n[k] += LoopGrowth; n[k] > len(msgs) {
			n[k] = LoopStart + LoopGrowth
		}
		res, err := calls[k](msgs[:n[k]])
		if err != nil {
			b.Fatal(err)
		}
		if res.Stats.Compacted && n[k] > LoopStart+LoopGrowth {
			b.Fatalf("call on %d messages compacted", n[k])
		}
		k = (k + 1) % LoopRing
	}
}
