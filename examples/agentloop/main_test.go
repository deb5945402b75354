package main

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/chitta-go/chitta"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunIsShortAndDeterministic(t *testing.T) {
	t.Parallel()
	var a, b bytes.Buffer
	require.NoError(t, run(t.Context(), &a))
	require.NoError(t, run(t.Context(), &b))
	assert.Equal(t, a.String(), b.String(), "two runs print the same")
	out := a.String()
	lines := strings.Count(out, "\n")
	assert.LessOrEqual(t, lines, 60, "the README's first minute: keep it short")
	assert.Contains(t, out, "── compaction 1")
	assert.Contains(t, out, "(parallel)")
	assert.Contains(t, out, "covered by memory")
	assert.Contains(t, out, "tool pairs intact ✓")
}

func TestCompactions(t *testing.T) {
	t.Parallel()
	sess, err := simulate(t.Context(), io.Discard)
	require.NoError(t, err)
	log := sess.Compactions
	require.GreaterOrEqual(t, len(log), 2, "the script must compact more than once")
	assert.Positive(t, sess.Cache.Hits, "later compactions reuse cached vectors")
	// Between compactions the context only grows at its end, within budget.
	compacted := 0
	for i, st := range sess.Calls {
		if st.Compacted {
			compacted++
			continue
		}
		assert.LessOrEqual(t, st.AfterTokens, budget, "call %d", i)
		if i > 0 {
			assert.Equal(t, sess.Calls[i-1].Kept, st.StablePrefix, "call %d appends to the previous context", i)
		}
	}
	assert.Equal(t, len(log), compacted)
	assert.Less(t, sess.Cache.Misses, sess.Cache.Hits, "most texts come from the cache")

	// Coverage of the groups memory dropped / kept, over all compactions:
	// first-fit packing can trade locally in either direction within one
	// compaction, but overall memory must trade covered turns for novel ones.
	var lost, won []float64
	for n, c := range log {
		res := c.Result
		require.Len(t, res.Scores, len(c.Input), "compaction %d", n+1)

		// Tool pairs intact: a call and its results share one fate, and the
		// survivors hold no call without its result or result without its call.
		require.NoError(t, checkPairs(res.Messages), "compaction %d", n+1)
		fate := map[string]bool{}
		for i, m := range c.Input {
			for _, id := range append(append([]string{}, m.ToolCallIDs...), m.ToolResultIDs...) {
				if k, ok := fate[id]; ok {
					assert.Equal(t, k, res.Scores[i].Kept, "compaction %d: tool call %s split", n+1, id)
				}
				fate[id] = res.Scores[i].Kept
			}
		}

		// Budget respected, except for what is pinned (system, KeepLast).
		pinned := 0
		for _, s := range res.Scores {
			if s.Pinned {
				require.True(t, s.Kept, "compaction %d: pinned message %d dropped", n+1, s.Index)
				pinned += s.Tokens
			}
		}
		assert.Equal(t, target, res.Stats.TargetTokens)
		assert.LessOrEqual(t, res.Stats.AfterTokens, max(target, pinned), "compaction %d", n+1)
		assert.Greater(t, res.Stats.BeforeTokens, budget, "compaction %d runs only over budget", n+1)

		// Memory-covered turns go first: every compaction drops some turn
		// the memory covers, a larger share of covered turns is dropped than
		// of the others, and where memory changed the selection it traded
		// more-covered turns for less-covered ones.
		var cov, covDropped, other, otherDropped int
		for _, s := range res.Scores {
			// A message pinned in either run (the live turn, the user turn
			// a kept reply needs) is not a decision memory made.
			if s.Pinned || c.WithoutMemory.Scores[s.Index].Pinned {
				continue
			}
			covered := s.Coverage >= chitta.DefaultNovelThreshold
			switch {
			case covered && !s.Kept:
				cov++
				covDropped++
			case covered:
				cov++
			case !s.Kept:
				other++
				otherDropped++
			default:
				other++
			}
		}
		// Memory decides per tool-call group: compare the best coverage of
		// each group it dropped or took in (a "stored memory" result has
		// coverage 0 whatever its call's).
		best := map[int]float64{}
		for _, s := range res.Scores {
			best[s.Unit] = max(best[s.Unit], s.Coverage)
		}
		for u, b := range best {
			if res.Scores[u].Pinned || c.WithoutMemory.Scores[u].Pinned {
				continue
			}
			switch kept, keptWithout := res.Scores[u].Kept, c.WithoutMemory.Scores[u].Kept; {
			case keptWithout && !kept:
				lost = append(lost, b)
			case !keptWithout && kept:
				won = append(won, b)
			}
		}
		assert.Positive(t, covDropped, "compaction %d drops a covered turn", n+1)
		if cov > 0 && other > 0 {
			assert.GreaterOrEqual(t, float64(covDropped)/float64(cov), float64(otherDropped)/float64(other),
				"compaction %d: covered turns are dropped first", n+1)
		}
	}
	assert.NotEmpty(t, lost, "memory changes at least one decision")
	if len(won) > 0 {
		assert.Greater(t, mean(lost), mean(won), "memory trades covered turns for novel ones")
	}
}

func TestCheckPairs(t *testing.T) {
	t.Parallel()
	call := chitta.Message{Role: chitta.RoleAssistant, ToolCallIDs: []string{"a", "b"}}
	resA := chitta.Message{Role: chitta.RoleTool, ToolResultIDs: []string{"a"}}
	resB := chitta.Message{Role: chitta.RoleTool, ToolResultIDs: []string{"b"}}
	user := chitta.Message{Role: chitta.RoleUser, Content: "hi"}
	tests := []struct {
		name string
		msgs []chitta.Message
		ok   bool
	}{
		{"empty", nil, true},
		{"no tools", []chitta.Message{user}, true},
		{"parallel pair whole", []chitta.Message{user, call, resA, resB}, true},
		{"one result missing", []chitta.Message{user, call, resA}, false},
		{"call missing", []chitta.Message{user, resB}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := checkPairs(tc.msgs)
			if tc.ok {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, errBrokenPair)
			}
		})
	}
}

func mean(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

func TestRelevanceReservePolicy(t *testing.T) {
	t.Parallel()
	p, err := parseFlags([]string{"-relevance-reserve", "0.5", "-lexical", "0.3"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, policy{reserve: 0.5, lexical: 0.3}, p)
	var out bytes.Buffer
	sess, err := simulatePolicy(t.Context(), &out, p)
	require.NoError(t, err)
	assert.Contains(t, out.String(), "relevance reserve 0.5, lexical 0.3")
	require.NotEmpty(t, sess.Compactions)
	for _, c := range sess.Compactions {
		assert.LessOrEqual(t, c.Result.Stats.AfterTokens, target)
	}
	_, err = simulatePolicy(t.Context(), io.Discard, policy{reserve: 2})
	require.ErrorIs(t, err, chitta.ErrInvalidOption, "chitta validates the share")
	_, err = parseFlags([]string{"extra"}, io.Discard)
	require.Error(t, err)
}

// TestCLI: a share out of range is reported by its flag's name and range
// before anything runs (it was reported as chitta's RelevanceReserve after
// the banner), and -h exits 0 (it exited 1 with "flag: help requested").
func TestCLI(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"-relevance-reserve", "2"}, 1, "agentloop: -relevance-reserve 2: want 0 to 1\n"},
		{[]string{"-lexical", "NaN"}, 1, "agentloop: -lexical NaN: want 0 to 1\n"},
		{[]string{"-lexical", "-0.5"}, 1, "agentloop: -lexical -0.5: want 0 to 1\n"},
		{[]string{"-relevance-reserve", "+Inf"}, 1, "agentloop: -relevance-reserve +Inf: want 0 to 1\n"},
		{[]string{"-h"}, 0, "Usage of agentloop:"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, tt.code, cli(tt.args, &stdout, &stderr), "%v", tt.args)
		assert.Contains(t, stderr.String(), tt.stderr, "%v", tt.args)
		assert.Empty(t, stdout.String(), "%v: nothing runs", tt.args)
	}
}
