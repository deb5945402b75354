package tiktoken_test

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/internal/testkit/shareddata"
	"github.com/chitta-go/chitta/tiktoken"
)

// sharedData returns the path of the shared evaluation data (shared/data in
// the nearest directory at or above this one). It is absent on a user's
// machine, where the test skips; CI always has it (and fails without it).
func sharedData(tb testing.TB) string {
	tb.Helper()
	return shareddata.ForTest(tb, "")
}

// corpus is one data set of the shared data: its conversations.
type corpus struct {
	name  string
	convs [][]chitta.Message
}

// loadCorpora reads the shared data sets and the repository's README (as
// one user message) into conversations.
func loadCorpora(tb testing.TB) []corpus {
	tb.Helper()
	root := sharedData(tb)
	corporaOnce.Do(func() { corpora = readCorpora(tb, root) })
	require.NotEmpty(tb, corpora, "shared data failed to load in an earlier test")
	return corpora
}

var (
	corporaOnce sync.Once
	corpora     []corpus
)

func readCorpora(tb testing.TB, root string) []corpus {
	var out []corpus
	read := func(name, glob string, pick func([]byte) ([]chitta.Message, error)) {
		files, err := filepath.Glob(filepath.Join(root, glob))
		require.NoError(tb, err)
		require.NotEmpty(tb, files, glob)
		sort.Strings(files)
		c := corpus{name: name}
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(tb, err)
			msgs, err := pick(b)
			require.NoError(tb, err, f)
			c.convs = append(c.convs, msgs)
		}
		out = append(out, c)
	}
	field := func(key string) func([]byte) ([]chitta.Message, error) {
		return func(b []byte) ([]chitta.Message, error) {
			var doc map[string]json.RawMessage
			if err := json.Unmarshal(b, &doc); err != nil {
				return nil, err
			}
			return chitta.ParseMessages(doc[key])
		}
	}
	read("Claude Code sample session", "claude-transcripts/Users-*.jsonl", transcript)
	read("Claude Code sessions (all 3)", "claude-transcripts/*.jsonl", transcript)
	read("tau-bench runs (149)", "agent-trajectories/tau/*.json", field("traj"))
	read("SWE-agent run", "agent-trajectories/swe/*.json", field("history"))
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	require.NoError(tb, err)
	out = append(out, corpus{name: "chitta README.md", convs: [][]chitta.Message{{{Role: chitta.RoleUser, Content: string(readme)}}}})
	return out
}

// transcript reads the user and assistant messages of a Claude Code JSONL
// log, one message per entry (streamed parts of one turn stay separate).
func transcript(b []byte) ([]chitta.Message, error) {
	var msgs []chitta.Message
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e struct {
			Type    string          `json:"type"`
			Message json.RawMessage `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || (e.Type != "user" && e.Type != "assistant") || len(e.Message) == 0 {
			continue
		}
		var m chitta.Message
		if err := json.Unmarshal(e.Message, &m); err != nil {
			return nil, err
		}
		msgs = append(msgs, m)
	}
	return msgs, sc.Err()
}

func sum(tc chitta.TokenCounter, msgs []chitta.Message, framing bool) int {
	n := 0
	for i := range msgs {
		n += tc.CountTokens(msgs[i].Content)
		if fc, ok := tc.(chitta.FramingCounter); ok && framing {
			n += fc.FramingTokens(&msgs[i])
		}
	}
	return n
}

// TestSharedDataCounts prints the README table (run with -v): EstimateTokens
// against exact o200k_base counts of the content, and the framing share.
func TestSharedDataCounts(t *testing.T) {
	t.Parallel()
	tc, err := tiktoken.New(tiktoken.O200kBase)
	require.NoError(t, err)
	est := chitta.TokenCounterFunc(chitta.EstimateTokens)
	t.Log("| data | messages | EstimateTokens | o200k content | ratio | o200k with framing | framing share |")
	t.Log("|---|---:|---:|---:|---:|---:|---:|")
	for _, c := range loadCorpora(t) {
		var n, e, x, f int
		for _, msgs := range c.convs {
			n += len(msgs)
			e += sum(est, msgs, false)
			x += sum(tc, msgs, false)
			f += sum(tc, msgs, true)
		}
		require.Positive(t, x, c.name)
		assert.Less(t, e, x, "%s: EstimateTokens undercounts agent transcripts", c.name)
		t.Logf("| %s | %d | %d | %d | %.2f | %d | %.1f%% |", c.name, n, e, x, float64(e)/float64(x), f, 100*float64(f-x)/float64(f))
	}
}

// calibrationStats is the error of a CalibratedCounter's count of each call
// of a replay after its third observation, relative to the provider's
// count.
type calibrationStats struct {
	calls             int
	mean, worst, p99  float64 // calibrated
	within5           float64 // share of calls within 5%
	rawMean, rawWorst float64 // EstimateTokens alone
	worstCall         int     // index in the corpus's calls
	worstNewShare     float64 // share of the worst call's tokens in messages new since the last observed call
	worstBelowHalf    float64 // worst call among those whose new messages are under half its tokens
}

// replayCalibration walks every conversation as an agent loop calls its
// provider, one call at each assistant turn sending the prefix, with
// o200k_base content + framing plus hidden tokens per call (a system prompt
// or tool schemas the messages do not show) as the provider's count. A
// fresh CalibratedCounter over EstimateTokens per conversation counts each
// call before observing it.
func replayCalibration(tc chitta.TokenCounter, convs [][]chitta.Message, hidden int) calibrationStats {
	est := chitta.TokenCounterFunc(chitta.EstimateTokens)
	var st calibrationStats
	var errs []float64
	for _, msgs := range convs {
		cal := chitta.NewCalibratedCounter(nil)
		truth := float64(hidden) // the provider's count of msgs[:k]
		last := 0                // the prefix length of the last observed call
		for k := 1; k <= len(msgs); k++ {
			truth += float64(sum(tc, msgs[k-1:k], true))
			if msgs[k-1].Role != chitta.RoleAssistant {
				continue
			}
			prefix := msgs[:k]
			if cal.Observations() >= 3 {
				e := math.Abs(float64(sum(cal, prefix, true))-truth) / truth
				raw := math.Abs(float64(sum(est, prefix, true))-truth) / truth
				newShare := float64(sum(tc, msgs[last:k], true)) / truth
				if e > st.worst {
					st.worst, st.worstCall, st.worstNewShare = e, len(errs), newShare
				}
				if newShare < 0.5 {
					st.worstBelowHalf = max(st.worstBelowHalf, e)
				}
				st.rawWorst = max(st.rawWorst, raw)
				st.mean += e
				st.rawMean += raw
				errs = append(errs, e)
			}
			cal.Observe(prefix, int(truth))
			last = k
		}
	}
	st.calls = len(errs)
	if st.calls == 0 {
		return st
	}
	st.mean /= float64(st.calls)
	st.rawMean /= float64(st.calls)
	sort.Float64s(errs)
	st.p99 = errs[(len(errs)-1)*99/100]
	st.within5 = float64(sort.SearchFloat64s(errs, 0.05+1e-12)) / float64(st.calls)
	return st
}

// TestSharedDataCalibration replays the shared data (replayCalibration)
// and checks the error of every call after the third observation, with 0,
// 300 and 2 000 hidden tokens per call: the mean within 1% on every data
// set, and the worst call within the bound measured for each (run with -v
// for the README table). The provider is o200k_base, the stand-in,
// and also cl100k_base, a tokenizer the estimate's weights were not taken
// from.
func TestSharedDataCalibration(t *testing.T) {
	t.Parallel()
	// The worst single call allowed per provider, data set and hidden
	// tokens per call, each the measured value rounded up to the next
	// percent; 5% is the target. Claude Code comes closest to it
	// (4.9% with o200k, 5.4% with cl100k) where one call adds about as many
	// new tokens as the conversation held so far (a 10 kB log, a 42 kB
	// document), so that the estimate of that content decides the call.
	type key struct {
		data   string
		hidden int
	}
	bounds := map[string]map[key]float64{
		tiktoken.O200kBase: {
			{"Claude Code sessions (all 3)", 0}: 0.05, {"Claude Code sessions (all 3)", 300}: 0.05, {"Claude Code sessions (all 3)", 2000}: 0.05,
			{"tau-bench runs (149)", 0}: 0.02, {"tau-bench runs (149)", 300}: 0.02, {"tau-bench runs (149)", 2000}: 0.02,
			{"SWE-agent run", 0}: 0.01, {"SWE-agent run", 300}: 0.01, {"SWE-agent run", 2000}: 0.01,
		},
		tiktoken.Cl100kBase: {
			{"Claude Code sessions (all 3)", 0}: 0.06, {"Claude Code sessions (all 3)", 300}: 0.06, {"Claude Code sessions (all 3)", 2000}: 0.05,
			{"tau-bench runs (149)", 0}: 0.02, {"tau-bench runs (149)", 300}: 0.02, {"tau-bench runs (149)", 2000}: 0.02,
			{"SWE-agent run", 0}: 0.01, {"SWE-agent run", 300}: 0.01, {"SWE-agent run", 2000}: 0.01,
		},
	}
	t.Log("| provider | data | hidden tokens per call | calls after the 3rd observation | calibrated: mean error | p99 | worst call | calls within 5% | EstimateTokens alone: mean | worst |")
	t.Log("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, enc := range []string{tiktoken.O200kBase, tiktoken.Cl100kBase} {
		tc, err := tiktoken.New(enc)
		require.NoError(t, err)
		worstBound := bounds[enc]
		for _, c := range loadCorpora(t) {
			if _, ok := worstBound[key{c.name, 0}]; !ok {
				continue // the Claude Code sample is part of all 3; the README is not a conversation
			}
			for _, hidden := range []int{0, 300, 2000} {
				bound := worstBound[key{c.name, hidden}]
				st := replayCalibration(tc, c.convs, hidden)
				require.Positive(t, st.calls, c.name)
				t.Logf("| %s | %s | %d | %d | %.2f%% | %.2f%% | %.2f%% | %.1f%% | %.1f%% | %.1f%% |", enc, c.name, hidden, st.calls,
					100*st.mean, 100*st.p99, 100*st.worst, 100*st.within5, 100*st.rawMean, 100*st.rawWorst)
				t.Logf("%s, %s, hidden %d: the worst call's new messages hold %.0f%% of its tokens; worst call whose new messages hold under half: %.2f%%",
					enc, c.name, hidden, 100*st.worstNewShare, 100*st.worstBelowHalf)
				assert.LessOrEqual(t, st.mean, 0.01, "%s, %s, hidden %d: mean error", enc, c.name, hidden)
				assert.LessOrEqual(t, st.worst, bound, "%s, %s, hidden %d: worst call", enc, c.name, hidden)
				assert.Less(t, st.mean, st.rawMean, "%s, %s, hidden %d: calibration must beat EstimateTokens alone", enc, c.name, hidden)
			}
		}
	}
}
